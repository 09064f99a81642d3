// Saved execution contexts (Boost.Context fcontext) and the switch between them,
// with ThreadSanitizer fiber annotations in the TSan build.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#if defined(TAKT_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace takt::detail {

using boost::context::detail::fcontext_t;
using boost::context::detail::transfer_t;

/// The C++ runtime's per-thread exception-handling state (Itanium C++ ABI
/// __cxa_eh_globals: the stack of caught exceptions and the uncaught count).
struct EhGlobals {
  void* caught;
  unsigned int uncaught;
};
/// The calling thread's EhGlobals (__cxa_get_globals); constant per thread.
EhGlobals* eh_globals() noexcept;

/// A suspended execution: a coroutine stack's saved registers, or a worker thread's
/// scheduler loop. `fiber` is ThreadSanitizer's handle for it (TSan build only). A
/// strand may be suspended while an exception is in flight (a scope syncing during
/// unwinding, a spawn in a catch block) and resume on another thread, so its part of
/// the exception-handling state travels with it (`eh_*`).
struct Context {
  fcontext_t fctx = nullptr;
  void* fiber = nullptr;
  void* eh_caught = nullptr;
  unsigned int eh_uncaught = 0;
};

/// Every switch passes the address of the switching side's fctx slot; the side that
/// lands stores the suspended context there, so the switching side becomes resumable
/// only once its registers are saved.
inline void land(transfer_t t) noexcept { *static_cast<fcontext_t*>(t.data) = t.fctx; }

/// Which sides of a switch may carry exception-handling state.
enum class EhSides : unsigned char {
  both,
  outgoing,  ///< the resumed side is a block entered for a new strand (nothing saved)
  incoming,  ///< the suspended side is a strand that has finished (nothing live)
  /// Neither: a nested call on another stack of the same thread (call_on_large_stack),
  /// which sees and leaves the thread's state as a plain call does.
  none,
};

/// Suspends the running context into `from` and resumes `to`, on the calling thread,
/// whose exception-handling state is `eh`. Returns when something resumes `from`,
/// possibly on another thread. Outside exception handling each eh check is a load or
/// two and a predictable branch.
template <EhSides sides = EhSides::both>
inline void switch_to(Context& to, Context& from, EhGlobals* eh) noexcept {
  if constexpr (sides == EhSides::both || sides == EhSides::outgoing) {
    if (eh->caught != nullptr || eh->uncaught != 0) [[unlikely]] {
      from.eh_caught = eh->caught;
      from.eh_uncaught = eh->uncaught;
      eh->caught = nullptr;
      eh->uncaught = 0;
    }
  }
  if constexpr (sides == EhSides::both || sides == EhSides::incoming) {
    if (to.eh_caught != nullptr || to.eh_uncaught != 0) [[unlikely]] {
      eh->caught = to.eh_caught;
      eh->uncaught = to.eh_uncaught;
      to.eh_caught = nullptr;
      to.eh_uncaught = 0;
    }
  }
#if defined(TAKT_TSAN)
  __tsan_switch_to_fiber(to.fiber, 0);
#endif
  land(boost::context::detail::jump_fcontext(to.fctx, &from.fctx));
}

}  // namespace takt::detail
