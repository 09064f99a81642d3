// Linked into every test executable (cmake/TaktHelpers.cmake, takt_add_test): SIGINT and
// SIGTERM start at their default action, whatever the shell that ran the tests left them
// at. A shell starts a background job (`make test &`, a script's `cmd &`) with SIGINT
// ignored, and takt's SignalStop keeps an ignored signal ignored, as such a job expects;
// the tests that raise or send SIGINT would then see nothing happen (four failed so).
#include <signal.h>

namespace {

const bool signals_at_default = [] {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  return true;
}();

}  // namespace
