// The built-in `segments` program: synchronous jobs of busy-wait strands, the RT-OpenMP workload.
#include "apps/segments.hpp"

#include "apps/synthetic.hpp"
#include "model/duration.hpp"
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

/// Runs `count` strands of `units` iterations each as a binary spawn tree: every leaf is
/// one strand, so that every strand boundary is a spawn or sync point.
void run_strands(std::uint64_t units, std::uint32_t count) {
  if (count <= 1) {
    busy_units(units);
    return;
  }
  const std::uint32_t half = count / 2;
  takt::Scope scope;
  scope.spawn([units, half] { run_strands(units, half); });
  run_strands(units, count - half);
  scope.sync();
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
  return best > 0 ? best : 1.0;
}

std::uint64_t units_for(std::chrono::nanoseconds length) {
  const double units = static_cast<double>(length.count()) * busy_units_per_ns();
  if (units >= static_cast<double>(std::numeric_limits<std::uint64_t>::max())) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return static_cast<std::uint64_t>(std::llround(units));
}

}  // namespace

double busy_units_per_ns() {
  static const double rate = calibrate();
  return rate;
}

void busy_wait(std::chrono::nanoseconds length) { busy_units(units_for(length)); }

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
      if (ec != std::errc() || end != count.data() + count.size() || strands == 0) {
        throw Error(fmt::format("segments argument {} ('{}'): the strand count after '*' must be a whole "
                                "number from 1 to {}, e.g. 500us*8",
                                i + 1, arg, std::numeric_limits<std::uint32_t>::max()));
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
  for (const SegmentShape& s : shapes) segments_.push_back(Segment{s, units_for(s.length)});
}

void SegmentsTask::run(const Job&) {
  for (const Segment& s : segments_) run_strands(s.units, s.shape.strands);
}

std::vector<SegmentShape> SegmentsTask::segments() const {
  std::vector<SegmentShape> out;
  out.reserve(segments_.size());
  for (const Segment& s : segments_) out.push_back(s.shape);
  return out;
}

void SegmentsTask::run_strand(const Job&, std::size_t segment, std::size_t) {
  busy_units(segments_.at(segment).units);
}

}  // namespace takt::apps
