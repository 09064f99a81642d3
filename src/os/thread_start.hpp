// Starting a thread with a message that says what failed and what to change, instead of
// std::system_error's bare "Resource temporarily unavailable".
#pragma once

#include "takt/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace takt::os {

/// "cannot start <what> (<reason>); <remedy>": the message for a thread that could not
/// be created; `remedy` defaults to raising the limits on threads. Where the address
/// space is limited (ulimit -v), or memory is locked under a finite RLIMIT_MEMLOCK, it
/// adds that limit: the thread's stack that could not be mapped fails the same way.
std::string thread_start_error(std::string_view what, const std::system_error& e, std::string_view remedy = {});

/// This process's address-space limit (RLIMIT_AS, `ulimit -v`) in KiB, 0 where there is
/// none: a mapping that does not fit it fails with ENOMEM, as if memory had run out.
unsigned long long address_space_limit_kib();

/// The stack size of a thread started now without attributes (pthread's default, taken
/// from ulimit -s at process start), in bytes; 0 if it cannot be read.
std::size_t default_thread_stack();

/// std::thread(body), throwing takt::Error(thread_start_error(what, ...)) when the thread
/// cannot be created (the limit on threads or processes, ulimit -u or the cgroup's
/// pids.max, or no memory for its stack).
template <class F>
std::thread start_thread(std::string_view what, F&& body) {
  try {
    return std::thread(std::forward<F>(body));
  } catch (const std::system_error& e) {
    throw Error(thread_start_error(what, e));
  }
}

}  // namespace takt::os
