// The built-in `segments` program: synchronous jobs of busy-wait strands, the RT-OpenMP workload.
#include "apps/segments.hpp"

#include "apps/synthetic.hpp"
#include "model/duration.hpp"
#include "model/segment.hpp"
#include "os/clock.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace takt::apps {
namespace {

/// Runs `count` strands of `length` each as a binary spawn tree: every leaf is one
/// strand, so that every strand boundary is a spawn or sync point.
void run_strands(std::chrono::nanoseconds length, std::uint32_t count) {
  if (count <= 1) {
    busy_wait(length);
    return;
  }
  const std::uint32_t half = count / 2;
  takt::Scope scope;
  scope.spawn([length, half] { run_strands(length, half); });
  run_strands(length, count - half);
  scope.sync();
}

/// What one read of `Read` costs (for the thread's CPU clock a system call: the vDSO
/// does not serve CLOCK_THREAD_CPUTIME_ID; for the monotonic clock the vDSO's ~40 ns in
/// a VM whose clocksource it can read), the fastest of 20 rounds of 50 reads.
template <std::chrono::nanoseconds (*Read)()>
std::chrono::nanoseconds read_cost() {
  static const std::chrono::nanoseconds cost = [] {
    std::chrono::nanoseconds best = std::chrono::nanoseconds::max();
    for (int round = 0; round < 20; ++round) {
      const auto t0 = Read();
      for (int i = 0; i < 50; ++i) (void)Read();
      best = std::min(best, (Read() - t0) / 51);
    }
    return best;
  }();
  return cost;
}

double calibrate() {
  // Iterations per ns of thread CPU time: time the OS takes this thread off its CPU
  // does not count, so a loaded machine does not make the strands shorter. Many short
  // trials, the fastest kept: a trial that a hypervisor or a cache disturbed is slower.
  constexpr std::uint64_t units = 500'000;
  double best = 0.0;
  for (int trial = 0; trial < 40; ++trial) {
    const auto t0 = os::thread_cpu_time();
    busy_units(units);
    const auto t1 = os::thread_cpu_time();
    const double ns = static_cast<double>((t1 - t0).count());
    if (ns > 0) best = std::max(best, static_cast<double>(units) / ns);
  }
  // Measured with the loop, so that no strand pays for them.
  (void)read_cost<os::thread_cpu_time>();
  (void)read_cost<os::monotonic_now>();
  return best > 0 ? best : 1.0;
}

template <std::chrono::nanoseconds (*Read)()>
void spin_by_clock(std::chrono::nanoseconds length, double units_per_ns) {
  spin_steps(length, read_cost<Read>(), units_per_ns, Read, busy_units);
}

}  // namespace

std::uint64_t units_for(std::chrono::nanoseconds length, double units_per_ns) {
  const double units = static_cast<double>(length.count()) * units_per_ns;
  if (units >= static_cast<double>(std::numeric_limits<std::uint64_t>::max())) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(units)));
}

double busy_units_per_ns() {
  static const double rate = calibrate();
  return rate;
}

void busy_wait(std::chrono::nanoseconds length) { busy_wait(length, busy_units_per_ns()); }

void busy_wait(std::chrono::nanoseconds length, double units_per_ns) {
  using namespace std::chrono_literals;
  if (length <= 0ns) return;
  if (length >= kClockedStrand) {
    spin_by_clock<os::thread_cpu_time>(length, units_per_ns);
  } else if (short_waits_are_timed()) {
    spin_by_clock<os::monotonic_now>(length, units_per_ns);
  } else {
    busy_units(units_for(length, units_per_ns));
  }
}

bool short_waits_are_timed() { return read_cost<os::monotonic_now>() <= kCheapClockRead; }

std::vector<SegmentShape> parse_segment_args(const std::vector<std::string>& args) {
  if (args.empty()) {
    throw Error(
        "the segments program needs its segments: give the task `segments:` in the task-set file, or "
        "args with one LENGTH or LENGTH*STRANDS per segment (e.g. [1ms, 500us*8, 1ms])");
  }
  std::vector<SegmentShape> out;
  out.reserve(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string_view text = arg;
    std::uint32_t strands = 1;
    if (auto star = text.find('*'); star != std::string_view::npos) {
      std::string_view count = text.substr(star + 1);
      auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), strands);
      if (ec != std::errc() || end != count.data() + count.size() || strands == 0 ||
          strands > static_cast<std::uint32_t>(model::kMaxSegmentStrands)) {
        throw Error(
            fmt::format("segments argument {} ('{}'): the strand count after '*' must be a whole "
                        "number from 1 to {}, e.g. 500us*8",
                        i + 1, arg, model::kMaxSegmentStrands));
      }
      text = text.substr(0, star);
    }
    std::chrono::nanoseconds length{};
    try {
      length = model::parse_duration(text);
    } catch (const Error& e) {
      throw Error(fmt::format("segments argument {} ('{}'): {}; write LENGTH or LENGTH*STRANDS, e.g. "
                              "1ms or 500us*8",
                              i + 1, arg, e.what()));
    }
    if (length <= std::chrono::nanoseconds::zero()) {
      throw Error(fmt::format("segments argument {} ('{}'): a strand's length must be positive", i + 1, arg));
    }
    out.push_back(SegmentShape{length, strands});
  }
  return out;
}

std::string format_segment_arg(const SegmentShape& segment) {
  std::string length = model::format_duration(segment.length);
  return segment.strands == 1 ? length : fmt::format("{}*{}", length, segment.strands);
}

void SegmentsTask::init(const TaskArgs& args) {
  std::vector<SegmentShape> shapes = parse_segment_args(args.args);
  segments_.clear();
  segments_ = std::move(shapes);
  (void)busy_units_per_ns();  // calibrate now, not in the first job
}

void SegmentsTask::run(const Job&) {
  for (const SegmentShape& s : segments_) run_strands(s.length, s.strands);
}

std::vector<SegmentShape> SegmentsTask::segments() const { return segments_; }

void SegmentsTask::run_strand(const Job&, std::size_t segment, std::size_t) {
  busy_wait(segments_.at(segment).length);
}

}  // namespace takt::apps
