#include "os/thread_start.hpp"

#include "os/usage.hpp"

#include <fmt/core.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace takt::os {
namespace {

/// Kibibytes of memory this process has locked (VmLck of /proc/self/status), 0 if unknown.
long long locked_kib() {
  return static_cast<long long>(key_number("/proc/self/status", "VmLck").value_or(0));
}

/// Where a limit on memory, not on threads, may be what refused the thread: pthread_create
/// fails with the same EAGAIN when the new thread's stack cannot be mapped.
std::string memory_note() {
  if (const unsigned long long kib = address_space_limit_kib(); kib != 0) {
    return fmt::format(
        "; or its stack did not fit the address-space limit (ulimit -v, {} KiB here): raise it, or unset it",
        kib);
  }
  // A stack larger than the machine's memory (ulimit -s set very high) is refused by
  // the kernel's overcommit check.
  const std::size_t stack = default_thread_stack();
  if (const std::uint64_t total = key_number("/proc/meminfo", "MemTotal", 1024).value_or(0);
      total != 0 && stack >= total / 2) {
    return fmt::format(
        "; or its stack ({} MiB, the thread stack size of ulimit -s) did not fit this machine's {} MiB of "
        "memory: lower ulimit -s (8192 KiB is usual)",
        stack >> 20, total >> 20);
  }
  rlimit memlock{};
  if (locked_kib() > 0 && ::getrlimit(RLIMIT_MEMLOCK, &memlock) == 0 && memlock.rlim_cur != RLIM_INFINITY) {
    return fmt::format(
        "; or, with this process's memory locked (mlockall), its stack did not fit the limit on locked "
        "memory "
        "(ulimit -l, {} KiB here): raise it",
        memlock.rlim_cur / 1024);
  }
  return "";
}

}  // namespace

std::size_t default_thread_stack() {
  pthread_attr_t attr;
  std::size_t stack = 0;
  if (::pthread_getattr_default_np(&attr) == 0) {
    if (::pthread_attr_getstacksize(&attr, &stack) != 0) stack = 0;
    ::pthread_attr_destroy(&attr);
  }
  return stack;
}

unsigned long long address_space_limit_kib() {
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return 0;
  return std::max<unsigned long long>(as.rlim_cur / 1024, 1);
}

std::string thread_start_error(std::string_view what, const std::system_error& e, std::string_view remedy) {
  return fmt::format("cannot start {} ({}); {}{}", what, e.what(),
                     remedy.empty()
                         ? "raise the limit on threads (ulimit -u, or the cgroup's pids.max) or stop "
                           "other processes of this user"
                         : remedy,
                     memory_note());
}

}  // namespace takt::os
