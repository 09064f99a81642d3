// The subcommand registry of the takt program: each cmd_*.cpp registers itself.
#include "cli/command.hpp"

#include "takt/error.hpp"
#include "takt/version.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>

namespace takt::cli {
namespace {

struct Registry {
  std::vector<Command> commands;
  std::map<std::vector<std::string>, std::string> groups;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool register_command(Command command) {
  registry().commands.push_back(std::move(command));
  return true;
}

bool register_group(std::vector<std::string> path, std::string description) {
  registry().groups[std::move(path)] = std::move(description);
  return true;
}

int run_main(int argc, char** argv) {
  CLI::App app{"takt: a real-time platform for parallel tasks on Linux.\n"
               "Analyse a task set, grant it cores, release its jobs on time and run each\n"
               "job's fork-join parallelism by work stealing.",
               "takt"};
  app.set_version_flag("--version", std::string("takt ") + takt::version);
  app.require_subcommand(1);
  app.fallthrough(false);

  auto& reg = registry();
  std::sort(reg.commands.begin(), reg.commands.end(),
            [](const Command& a, const Command& b) { return a.path < b.path; });

  std::map<std::vector<std::string>, CLI::App*> apps;
  apps[{}] = &app;
  // Creates (or finds) the subcommand at `path`, creating groups on the way.
  std::function<CLI::App*(const std::vector<std::string>&)> node =
      [&](const std::vector<std::string>& path) -> CLI::App* {
    if (auto it = apps.find(path); it != apps.end()) return it->second;
    std::vector<std::string> parent_path(path.begin(), path.end() - 1);
    CLI::App* parent = node(parent_path);
    std::string description;
    if (auto g = reg.groups.find(path); g != reg.groups.end()) description = g->second;
    CLI::App* sub = parent->add_subcommand(path.back(), description);
    apps[path] = sub;
    return sub;
  };

  for (const auto& [path, description] : reg.groups) node(path);

  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const auto& cmd : reg.commands) {
    CLI::App* sub = node(cmd.path);
    sub->description(cmd.description);
    actions.emplace_back(sub, cmd.configure(*sub));
  }
  // A group without its own action needs one of its subcommands.
  for (auto& [path, sub] : apps) {
    if (path.empty()) continue;
    bool has_action = std::any_of(actions.begin(), actions.end(),
                                  [sub = sub](const auto& a) { return a.first == sub; });
    if (!has_action) sub->require_subcommand(1);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? exit_ok : exit_bad_input;
  }

  try {
    // Run the deepest parsed subcommand that has an action.
    for (auto it = actions.rbegin(); it != actions.rend(); ++it) {
      if (it->first->parsed()) return it->second();
    }
    fmt::print(stderr, "takt: error: no subcommand given; see takt --help\n");
    return exit_bad_input;
  } catch (const takt::Error& e) {
    fmt::print(stderr, "takt: error: {}\n", e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    fmt::print(stderr, "takt: internal error: {}\n", e.what());
    return 3;
  }
}

}  // namespace takt::cli
