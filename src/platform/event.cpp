// A recorded platform event: names of the event kinds.
#include "platform/event.hpp"

#include <type_traits>

namespace takt::platform {

static_assert(std::is_trivially_copyable_v<Event>);
static_assert(sizeof(Event) == 48);

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::release:
      return "release";
    case EventKind::skip:
      return "skip";
    case EventKind::start:
      return "start";
    case EventKind::finish:
      return "finish";
    case EventKind::strand_begin:
      return "strand_begin";
    case EventKind::strand_end:
      return "strand_end";
    case EventKind::steal:
      return "steal";
    case EventKind::preemption:
      return "preemption";
    case EventKind::migration:
      return "migration";
  }
  return "unknown";
}

}  // namespace takt::platform
