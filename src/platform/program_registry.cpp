// Programs: the in-process registry and the resolution of a task-set `program:` value.
#include "takt/error.hpp"
#include "takt/program.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

namespace takt {

void ProgramRegistry::add(std::string name, std::string description, TaskFactory factory) {
  if (name.empty()) throw Error("cannot register a program with an empty name");
  if (names_shared_object(name)) {
    throw Error(
        fmt::format("cannot register program '{}': a name with '/' or ending in \".so\" would be "
                    "read as a shared object's path",
                    name));
  }
  if (!factory) throw Error(fmt::format("cannot register program '{}' without a factory", name));
  std::lock_guard guard(mutex_);
  auto [it, inserted] =
      entries_.try_emplace(std::move(name), Entry{std::move(description), std::move(factory)});
  if (!inserted)
    throw Error(fmt::format("program '{}' is already registered; choose another name", it->first));
}

bool ProgramRegistry::contains(std::string_view name) const {
  std::lock_guard guard(mutex_);
  return entries_.find(name) != entries_.end();
}

std::vector<std::string> ProgramRegistry::names() const {
  std::lock_guard guard(mutex_);
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

namespace {
std::string unknown_program_message(std::string_view name, const std::vector<std::string>& known) {
  return fmt::format(
      "unknown program '{}'; known programs: {}. A task built as a shared object is named by "
      "its path, e.g. `program: ./libmytask.so` (see docs/writing-tasks.md)",
      name, known.empty() ? std::string("(none registered)") : fmt::format("{}", fmt::join(known, ", ")));
}
}  // namespace

std::string ProgramRegistry::description(std::string_view name) const {
  std::unique_lock guard(mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    guard.unlock();
    throw Error(unknown_program_message(name, names()));
  }
  return it->second.description;
}

Program ProgramRegistry::find(std::string_view name) const {
  std::unique_lock guard(mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    guard.unlock();
    throw Error(unknown_program_message(name, names()));
  }
  return Program{it->first, "built-in", it->second.factory};
}

ProgramRegistry& programs() {
  static ProgramRegistry registry;
  return registry;
}

bool names_shared_object(std::string_view program) {
  return program.find('/') != std::string_view::npos ||
         (program.size() > 3 && program.substr(program.size() - 3) == ".so");
}

Program resolve_program(std::string_view program, const std::filesystem::path& base_dir,
                        const ProgramRegistry& registry) {
  if (program.empty()) throw Error("a task's program is empty; name a registered program or a shared object");
  if (!names_shared_object(program)) return registry.find(program);
  std::filesystem::path path(program);
  if (path.is_relative()) path = (base_dir.empty() ? std::filesystem::current_path() : base_dir) / path;
  return load_shared_object(std::filesystem::absolute(path).lexically_normal());
}

}  // namespace takt
