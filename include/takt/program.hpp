// Programs: task implementations found by name (in-process registry) or loaded from a shared object.
//
// A task-set file names each task's program: a registered name (`program: fib`) or
// a shared object (`program: ./libmytask.so`, see <takt/task_abi.h>). Both resolve to
// a takt::Program whose factory makes one takt::Task per task of the set.
#pragma once

#include "takt/task.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace takt {

/// Makes a fresh task object (one per task of the set: two tasks naming the same
/// program get two objects, each with its own init arguments).
using TaskFactory = std::function<std::unique_ptr<Task>()>;

/// A resolved program.
struct Program {
  std::string name;    ///< as registered, or the shared object's descriptor name
  std::string origin;  ///< "built-in", or the absolute path of the shared object
  TaskFactory create;
};

namespace detail {
/// Wraps a TaskClass that does not derive from takt::Task.
template <TaskClass T>
class TaskAdapter final : public Task {
 public:
  void init(const TaskArgs& args) override {
    if constexpr (requires(T & t) { t.init(args); }) task_.init(args);
  }
  void run(const Job& job) override { task_.run(job); }
  void finalize() override {
    if constexpr (requires(T & t) { t.finalize(); }) task_.finalize();
  }

 private:
  T task_;
};
}  // namespace detail

/// Programs known by name in this process. Thread-safe; register before a run starts.
class ProgramRegistry {
 public:
  /// Registers `name`; throws takt::Error when the name is empty or already taken.
  void add(std::string name, std::string description, TaskFactory factory);

  /// Registers task class T (derived from takt::Task, or any TaskClass).
  template <TaskClass T>
  void add(std::string name, std::string description) {
    if constexpr (std::derived_from<T, Task>) {
      add(std::move(name), std::move(description), [] { return std::unique_ptr<Task>(new T()); });
    } else {
      add(std::move(name), std::move(description),
          [] { return std::unique_ptr<Task>(new detail::TaskAdapter<T>()); });
    }
  }

  [[nodiscard]] bool contains(std::string_view name) const;
  /// Registered names, sorted.
  [[nodiscard]] std::vector<std::string> names() const;
  /// The description given at registration; throws like find() for an unknown name.
  [[nodiscard]] std::string description(std::string_view name) const;
  /// The program registered as `name`; throws takt::Error naming the known programs.
  [[nodiscard]] Program find(std::string_view name) const;

 private:
  struct Entry {
    std::string description;
    TaskFactory factory;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

/// The process-wide registry: built-in programs register here, and so may tests and
/// applications that embed takt.
ProgramRegistry& programs();

/// True when a `program:` value names a shared object rather than a registered
/// program: it contains a '/' or ends in ".so".
bool names_shared_object(std::string_view program);

/// Resolves a task-set `program:` value. A shared object's relative path is taken
/// from `base_dir` (the task-set file's folder; empty: the working directory).
/// Throws takt::Error for an unknown name (listing the known ones), a shared object
/// that cannot be loaded (dlerror text and the path tried), one without the entry
/// point, or one built for another task ABI version.
Program resolve_program(std::string_view program, const std::filesystem::path& base_dir = {},
                        const ProgramRegistry& registry = programs());

/// Loads a task from the shared object at `path` (errors as for resolve_program).
Program load_shared_object(const std::filesystem::path& path);

}  // namespace takt
