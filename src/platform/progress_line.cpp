// A progress line on stderr while a run goes on (jobs done, misses so far), or while its
// tasks are initialised, only on a terminal.
#include "platform/progress_line.hpp"

#include "os/realtime.hpp"
#include "os/thread_start.hpp"

#include <fmt/core.h>
#include <unistd.h>

namespace takt::platform {

ProgressLine::ProgressLine(Source source, std::FILE* out, std::optional<bool> enabled,
                           std::chrono::milliseconds interval)
    : ProgressLine(Text([source = std::move(source)](std::chrono::nanoseconds elapsed) {
                     return format(source(), elapsed);
                   }),
                   out, enabled, interval) {}

ProgressLine::ProgressLine(Text text, std::FILE* out, std::optional<bool> enabled,
                           std::chrono::milliseconds interval)
    : text_(std::move(text)),
      out_(out),
      enabled_(out != nullptr && enabled.value_or(isatty(fileno(out)) != 0)),
      interval_(interval),
      started_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = os::start_thread("the thread of the progress line", [this] { loop(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard guard(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (printed_) {
    std::fputs("\r\033[K", out_);  // clear the line for the report that follows
    std::fflush(out_);
  }
}

std::string ProgressLine::format(const Counts& c, std::chrono::nanoseconds elapsed) {
  std::string done = c.planned ? fmt::format("{} of {} jobs done", c.jobs_done, *c.planned)
                               : fmt::format("{} jobs done", c.jobs_done);
  if (c.skipped > 0) done += fmt::format(", {} skipped", c.skipped);
  double ratio =
      c.jobs_done == 0 ? 0.0 : 100.0 * static_cast<double>(c.misses) / static_cast<double>(c.jobs_done);
  return fmt::format("takt: {:.1f} s, {}, {} missed ({:.2f} %)", static_cast<double>(elapsed.count()) / 1e9,
                     done, c.misses, ratio);
}

void ProgressLine::loop() {
  os::set_other();  // never compete with the run's real-time threads
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    std::string line = text_(std::chrono::steady_clock::now() - started_);
    std::fprintf(out_, "\r%s\033[K", line.c_str());
    std::fflush(out_);
    printed_ = true;
    lock.lock();
  }
}

}  // namespace takt::platform
