// Threads of this process, as /proc/self/task lists them, for tests that check which
// threads a pool or a run leaves behind.
#pragma once

#include <dirent.h>

#include <chrono>
#include <cstddef>
#include <thread>

namespace takt::testing {

/// Entries of /proc/self/task now. A thread that pthread_join has returned for can
/// still be listed for a moment: the kernel wakes the joiner when it clears the thread's
/// id, before it removes the task (a fresh-clone run saw 2 threads where 1 was left).
/// Compare with settled_thread_count() and thread_count_once().
inline std::size_t thread_count() {
  std::size_t n = 0;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] != '.') ++n;
    }
    ::closedir(dir);
  }
  return n;
}

/// Reads the count until `holds(count)` or 2 s have passed; returns the last count read
/// (so a thread still running at the end fails the caller's check on it, and a joined
/// one still listed for a moment does not).
template <class Holds>
std::size_t thread_count_once(Holds holds) {
  using namespace std::chrono_literals;
  const auto give_up = std::chrono::steady_clock::now() + 2s;
  std::size_t count = thread_count();
  while (!holds(count) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
    count = thread_count();
  }
  return count;
}

/// The count once it has stayed the same for 50 ms (at most 2 s): threads joined just
/// before have left the list by then.
inline std::size_t settled_thread_count() {
  using namespace std::chrono_literals;
  std::size_t last = thread_count();
  auto since = std::chrono::steady_clock::now();
  return thread_count_once([&](std::size_t now) {
    if (now == last) return std::chrono::steady_clock::now() - since >= 50ms;
    last = now;
    since = std::chrono::steady_clock::now();
    return false;
  });
}

}  // namespace takt::testing
