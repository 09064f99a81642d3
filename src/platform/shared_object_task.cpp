// Loading a task from a shared object through the C entry point of takt/task_abi.h.
#include "takt/error.hpp"
#include "takt/program.hpp"

#include <dlfcn.h>
#include <fmt/core.h>

#include <array>
#include <cstring>
#include <stdexcept>

namespace takt {
namespace {

/// A dlopen handle, closed when the last task made from it is gone.
class SharedObject {
 public:
  SharedObject(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  ~SharedObject() { dlclose(handle_); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void* handle_;
  std::string path_;
};

constexpr std::size_t error_capacity = 512;

/// One task of the set, backed by the C descriptor of a shared object.
class SharedObjectTask final : public Task {
 public:
  /// `program`: the descriptor's name, or the file's stem where it has none.
  SharedObjectTask(std::shared_ptr<const SharedObject> library, const takt_task_v1* descriptor,
                   std::string program)
      : library_(std::move(library)), descriptor_(descriptor), program_(std::move(program)) {}

  ~SharedObjectTask() override { finalize(); }

  void init(const TaskArgs& args) override {
    task_name_.assign(args.task);
    argv_.clear();
    argv_.reserve(args.args.size() + 1);
    args_ = args.args;
    for (const auto& a : args_) argv_.push_back(a.c_str());
    argv_.push_back(nullptr);
    takt_task_args_v1 c_args{};
    c_args.size = sizeof c_args;
    c_args.task_name = task_name_.c_str();
    c_args.argc = static_cast<std::uint32_t>(args_.size());
    c_args.argv = argv_.data();
    c_args.cores = args.cores;
    if (descriptor_->init == nullptr) {
      initialised_ = true;
      return;
    }
    std::array<char, error_capacity> error{};
    void* state = nullptr;
    if (descriptor_->init(&c_args, &state, error.data(), error.size()) != TAKT_TASK_OK) {
      throw Error(fmt::format("task '{}': init of program '{}' ({}) failed: {}", task_name_, program_,
                              library_->path(), message(error)));
    }
    state_ = state;
    initialised_ = true;
  }

  void run(const Job& job) override {
    // Called once per job: no allocation here. The job's task name is the one given
    // to init (kept NUL-terminated); the rest are plain numbers.
    takt_job_v1 c_job{};
    c_job.size = sizeof c_job;
    c_job.task_name = task_name_.c_str();
    c_job.index = job.index;
    c_job.release_ns = job.release.count();
    c_job.deadline_ns = job.deadline.count();
    c_job.period_ns = job.period.count();
    c_job.relative_deadline_ns = job.relative_deadline.count();
    c_job.cores = job.cores;
    std::array<char, error_capacity> error{};
    if (descriptor_->run(state_, &c_job, error.data(), error.size()) != TAKT_TASK_OK) {
      throw std::runtime_error(message(error));
    }
  }

  void finalize() override {
    if (!initialised_) return;
    initialised_ = false;
    if (descriptor_->finalize != nullptr) descriptor_->finalize(state_);
    state_ = nullptr;
  }

 private:
  static std::string message(const std::array<char, error_capacity>& error) {
    // The ABI asks for NUL termination; a task that filled the buffer without one is
    // read no further than its end.
    std::string m(error.data(), ::strnlen(error.data(), error.size()));
    return m.empty() ? std::string("(the task gave no message)") : m;
  }

  std::shared_ptr<const SharedObject> library_;
  const takt_task_v1* descriptor_;
  std::string program_;
  void* state_ = nullptr;
  bool initialised_ = false;
  std::string task_name_;
  std::vector<std::string> args_;
  std::vector<const char*> argv_;
};

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

}  // namespace

Program load_shared_object(const std::filesystem::path& path) {
  const std::string where = path.string();
  dlerror();  // clear a stale message
  void* handle = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw Error(
        fmt::format("cannot load the shared object '{}': {}. Check the path (a relative path in a task-set "
                    "file's `program:` is taken from that file's folder, one on the command line from the "
                    "current folder) and that the file was built",
                    where, dl_error()));
  }
  auto library = std::make_shared<const SharedObject>(handle, where);
  dlerror();
  void* symbol = dlsym(handle, TAKT_TASK_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    throw Error(
        fmt::format("the shared object '{}' does not export the task entry point `{}` ({}). Define "
                    "`extern \"C\" const takt_task_v1* {}(void)` (takt/task_abi.h), e.g. returning "
                    "takt::export_task<MyTask>(\"name\"); see docs/writing-tasks.md",
                    where, TAKT_TASK_ENTRY_SYMBOL, dl_error(), TAKT_TASK_ENTRY_SYMBOL));
  }
  auto entry = reinterpret_cast<takt_task_entry_fn>(symbol);
  const takt_task_v1* descriptor = entry();
  if (descriptor == nullptr) {
    throw Error(fmt::format("the shared object '{}': {}() returned no task descriptor", where,
                            TAKT_TASK_ENTRY_SYMBOL));
  }
  if (descriptor->abi_version != TAKT_TASK_ABI_VERSION) {
    throw Error(
        fmt::format("the shared object '{}' was built for task ABI version {}, but this takt supports "
                    "version {}: rebuild it against this takt's include/takt/task_abi.h",
                    where, descriptor->abi_version, TAKT_TASK_ABI_VERSION));
  }
  if (descriptor->size < sizeof(takt_task_v1)) {
    throw Error(
        fmt::format("the shared object '{}' has a task descriptor of {} bytes, version {} needs {}: "
                    "rebuild it against this takt's include/takt/task_abi.h",
                    where, descriptor->size, TAKT_TASK_ABI_VERSION, sizeof(takt_task_v1)));
  }
  if (descriptor->run == nullptr) {
    throw Error(fmt::format("the shared object '{}' has no run function in its task descriptor", where));
  }
  std::string name =
      descriptor->name != nullptr && descriptor->name[0] != '\0' ? descriptor->name : path.stem().string();
  return Program{name, where, [library, descriptor, name] {
                   return std::unique_ptr<Task>(new SharedObjectTask(library, descriptor, name));
                 }};
}

}  // namespace takt
