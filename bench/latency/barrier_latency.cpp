// Barrier latency (RT-OpenMP Table II): per round, the time from the last thread into the barrier to the
// last one out; takt's futex barrier, and libgomp's `omp barrier` measured the same way for comparison.
#include "bench/latency/latency_bench.hpp"
#include "bench/latency/pinned_thread.hpp"

#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/realtime.hpp"
#include "platform/futex_barrier.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <optional>

namespace takt::bench {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;

namespace {
constexpr int barrier_priority = 90;  // RT-OpenMP waits and wakes at the maximum dispatch priority
constexpr nanoseconds round_period = 200us;
constexpr std::uint64_t max_work_ns = 50'000;

/// The rounds of one team, whichever barrier it waits at: each round is a segment
/// released every 200 µs; the threads arrive after 0–50 µs of work (xorshift64), so the
/// last one in differs from round to round. A round's sample is the last thread out
/// minus the last thread in.
class BarrierRounds {
 public:
  BarrierRounds(unsigned threads, nanoseconds duration)
      : rounds_(static_cast<std::size_t>(std::max<std::int64_t>(1, duration / round_period))),
        in_(threads, std::vector<std::int64_t>(rounds_)),
        out_(threads, std::vector<std::int64_t>(rounds_)),
        origin_(os::monotonic_now() + 50ms) {}

  /// Thread `t`'s rounds, waiting with `wait()`.
  template <class Wait>
  void run(unsigned t, Wait&& wait) {
    std::uint64_t rng = 0x9E3779B97F4A7C15ull * (t + 1);
    for (std::size_t r = 0; r < rounds_; ++r) {
      os::sleep_until(origin_ + round_period * static_cast<std::int64_t>(r));
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      os::spin_for(nanoseconds(static_cast<std::int64_t>(rng % max_work_ns)));
      in_[t][r] = os::monotonic_now().count();
      wait();
      out_[t][r] = os::monotonic_now().count();
    }
  }

  [[nodiscard]] platform::LatencyStats stats() const {
    std::vector<std::int64_t> samples(rounds_);
    for (std::size_t r = 0; r < rounds_; ++r) {
      std::int64_t last_in = in_[0][r], last_out = out_[0][r];
      for (std::size_t t = 1; t < in_.size(); ++t) {
        last_in = std::max(last_in, in_[t][r]);
        last_out = std::max(last_out, out_[t][r]);
      }
      samples[r] = last_out - last_in;
    }
    return platform::latency_stats(std::move(samples));
  }

 private:
  std::size_t rounds_;
  std::vector<std::vector<std::int64_t>> in_, out_;
  nanoseconds origin_;
};

}  // namespace

platform::LatencyStats measure_barrier_latency(const std::vector<int>& cpus, unsigned threads, bool fifo,
                                               nanoseconds spin, nanoseconds duration) {
  BarrierRounds rounds(threads, duration);
  platform::FutexBarrier barrier(threads, spin);
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    const int cpu = cpus[t % cpus.size()];
    team.push_back(start_pinned(cpu, fifo ? std::optional<int>(barrier_priority) : std::nullopt,
                                [&, t] { rounds.run(t, [&] { barrier.arrive_and_wait(); }); }));
  }
  for (auto& th : team) th.join();
  return rounds.stats();
}

platform::LatencyStats measure_openmp_barrier_latency(const std::vector<int>& cpus, unsigned threads,
                                                      bool fifo, nanoseconds duration) {
  BarrierRounds rounds(threads, duration);
  const os::CpuSet caller_cpus = os::allowed_cpus();  // the calling thread is the team's thread 0
  std::atomic<int> team_size{0};
#pragma omp parallel num_threads(static_cast <int>(threads))
  {
    const int t = omp_get_thread_num();
    if (t == 0) team_size = omp_get_num_threads();
    // Placed and prioritised as takt's team (start_pinned).
    os::pin_current_thread(os::CpuSet({cpus[static_cast<std::size_t>(t) % cpus.size()]}));
    if (fifo) {
      os::set_fifo(barrier_priority);
    } else {
      os::set_other();
    }
    os::prefault_stack(64 * 1024);
#pragma omp barrier
    if (omp_get_num_threads() == static_cast<int>(threads)) {
      rounds.run(static_cast<unsigned>(t), [] {
#pragma omp barrier
      });
    }
    // libgomp keeps its threads for the next region, spinning for a while first: none
    // may stay in SCHED_FIFO.
    os::set_other();
  }
  os::pin_current_thread(caller_cpus);
  if (team_size.load() != static_cast<int>(threads)) {
    throw Error(
        fmt::format("OpenMP gave a team of {} threads where {} were asked for (OMP_THREAD_LIMIT or "
                    "OMP_DYNAMIC?); unset them for the comparison",
                    team_size.load(), threads));
  }
  return rounds.stats();
}

}  // namespace takt::bench
