// `takt convert FILE.rtpt`: imports a task set of the WUSTL federated-scheduling tools.
#include "cli/command.hpp"
#include "cli/task_set_json.hpp"
#include "model/rtpt.hpp"
#include "model/task_set_parser.hpp"
#include "model/task_set_writer.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <memory>

namespace takt::cli {
namespace {

struct ConvertArgs {
  std::string file;
  std::string output;
  bool json = false;
};

int run_convert(const ConvertArgs& a) {
  model::TaskSet set = model::parse_rtpt_file(a.file);
  std::string text;
  if (a.json) {
    text = task_set_json(set).dump(2) + "\n";
  } else {
    // The duration is written only when a task has iterations (docs/task-set-format.md).
    text = model::write_task_set(
        set,
        "converted by takt convert from " + a.file +
            "\n(.rtpt of the WUSTL federated-scheduling tools: core range, then per task a program line "
            "and a timing line)" +
            (set.global.duration ? "\nduration = the longest iterations x period of the file's tasks" : ""));
  }
  (void)model::parse_task_set(text, "<converted>");
  if (a.output.empty()) {
    fmt::print("{}", text);
  } else {
    platform::write_text_file(a.output, text);
    os::to_stderr("wrote {} ({} task{})\n", a.output, set.tasks.size(), set.tasks.size() == 1 ? "" : "s");
  }
  return exit_ok;
}

[[maybe_unused]] const bool registered = register_command({
    {"convert"},
    "Convert an .rtpt task set (WUSTL federated-scheduling tools) to takt's YAML",
    [](CLI::App& app) -> Action {
      auto args = std::make_shared<ConvertArgs>();
      app.add_option("file", args->file, "The .rtpt file")->required()->check(input_file("the .rtpt file"));
      app.add_option("-o,--output", args->output, "Write the task set to this file instead of stdout")
          ->check(output_file());
      app.add_flag("--json", args->json, "Write JSON instead of YAML");
      return [args] { return run_convert(*args); };
    },
});

}  // namespace
}  // namespace takt::cli
