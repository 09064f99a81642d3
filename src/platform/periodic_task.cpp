// The timing of a periodic task as the platform sees it: overrun policy names.
#include "platform/periodic_task.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>

namespace takt::platform {

std::string_view to_string(OverrunPolicy policy) { return policy == OverrunPolicy::skip ? "skip" : "wait"; }

OverrunPolicy parse_overrun_policy(std::string_view text) {
  if (text == "skip") return OverrunPolicy::skip;
  if (text == "wait") return OverrunPolicy::wait;
  throw Error(
      fmt::format("unknown overrun policy '{}': use \"skip\" (drop a release that finds the previous job "
                  "running) or \"wait\" (release it when the previous job finishes)",
                  text));
}

}  // namespace takt::platform
