// Barrier latency (RT-OpenMP Table II): per round, the time from the last thread into the futex barrier to
// the last one out.
#include "bench/latency/latency_bench.hpp"
#include "bench/latency/pinned_thread.hpp"

#include "os/clock.hpp"
#include "platform/futex_barrier.hpp"

#include <algorithm>
#include <optional>

namespace takt::bench {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;

namespace {
constexpr int barrier_priority = 90;  // RT-OpenMP waits and wakes at the maximum dispatch priority
constexpr nanoseconds round_period = 200us;
constexpr std::uint64_t max_work_ns = 50'000;
}  // namespace

platform::LatencyStats measure_barrier_latency(const std::vector<int>& cpus, unsigned threads, bool fifo,
                                               nanoseconds spin, nanoseconds duration) {
  const std::size_t rounds = static_cast<std::size_t>(std::max<std::int64_t>(1, duration / round_period));
  std::vector<std::vector<std::int64_t>> in(threads, std::vector<std::int64_t>(rounds));
  std::vector<std::vector<std::int64_t>> out(threads, std::vector<std::int64_t>(rounds));
  platform::FutexBarrier barrier(threads, spin);
  const nanoseconds origin = os::monotonic_now() + 50ms;
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    const int cpu = cpus[t % cpus.size()];
    team.push_back(start_pinned(cpu, fifo ? std::optional<int>(barrier_priority) : std::nullopt, [&, t] {
      std::uint64_t rng = 0x9E3779B97F4A7C15ull * (t + 1);
      for (std::size_t r = 0; r < rounds; ++r) {
        // Each round is a segment released every 200 µs; threads arrive after
        // 0–50 µs of work (xorshift64), so the last one in differs from round to round.
        os::sleep_until(origin + round_period * static_cast<std::int64_t>(r));
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        os::spin_for(nanoseconds(static_cast<std::int64_t>(rng % max_work_ns)));
        in[t][r] = os::monotonic_now().count();
        barrier.arrive_and_wait();
        out[t][r] = os::monotonic_now().count();
      }
    }));
  }
  for (auto& th : team) th.join();
  std::vector<std::int64_t> samples(rounds);
  for (std::size_t r = 0; r < rounds; ++r) {
    std::int64_t last_in = in[0][r], last_out = out[0][r];
    for (unsigned t = 1; t < threads; ++t) {
      last_in = std::max(last_in, in[t][r]);
      last_out = std::max(last_out, out[t][r]);
    }
    samples[r] = last_out - last_in;
  }
  return platform::latency_stats(std::move(samples));
}

}  // namespace takt::bench
