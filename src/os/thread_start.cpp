#include "os/thread_start.hpp"

#include <fmt/core.h>

namespace takt::os {

std::string thread_start_error(std::string_view what, const std::system_error& e, std::string_view remedy) {
  return fmt::format("cannot start {} ({}); {}", what, e.what(),
                     remedy.empty() ? "raise the limit on threads (ulimit -u, or the cgroup's pids.max) or stop "
                                      "other processes of this user"
                                    : remedy);
}

}  // namespace takt::os
