// The benchmark kernels written for oneTBB and for OpenMP (libgomp), with the same
// structure as the takt versions in src/apps (and their serial versions there).
#pragma once

#include "apps/synthetic.hpp"
#include "apps/uts.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace takt::bench {

// oneTBB: task_group for fork-join, parallel_for (auto partitioner) for loops. Call
// inside a task_arena of the chosen concurrency.
std::uint64_t fib_onetbb(std::uint64_t n);
apps::UtsResult uts_onetbb(const apps::UtsConfig& config);
void matmul_onetbb(const double* a, const double* b, double* c, std::size_t n);
void synthetic_onetbb(const apps::SyntheticTask& task);

/// The schedule of the OpenMP kernels' loops (matmul, synthetic): `schedule(runtime)`,
/// set from this before the runs. The default, dynamic with chunks of 1, is the
/// centralized queue that RTWS §III describes for GNU OpenMP.
struct OpenmpSchedule {
  enum class Kind { static_, dynamic, guided, auto_ };
  Kind kind = Kind::dynamic;
  int chunk = 1;  ///< 0: the kind's default split (static, auto)
  /// "dynamic,1", "guided,1", "static,4", "static", "auto".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const OpenmpSchedule&, const OpenmpSchedule&) = default;
};
/// "static", "dynamic", "guided" or "auto", optionally ",CHUNK" (1 to 10^6; not with
/// auto); nullopt where the text is none of those. Without a chunk, dynamic and guided
/// take 1 (libgomp's default: "dynamic" is dynamic,1).
std::optional<OpenmpSchedule> parse_openmp_schedule(std::string_view text);
/// Sets the calling thread's run-sched-var (omp_set_schedule): the schedule of every
/// `schedule(runtime)` loop in the parallel regions it opens.
void use_openmp_schedule(const OpenmpSchedule& schedule);

// OpenMP: tasks and taskwait for fork-join, `omp for schedule(runtime)` for loops (the
// schedule of use_openmp_schedule); each call opens its own parallel region of
// `threads` threads.
std::uint64_t fib_openmp(std::uint64_t n, int threads);
apps::UtsResult uts_openmp(const apps::UtsConfig& config, int threads);
void matmul_openmp(const double* a, const double* b, double* c, std::size_t n, int threads);
void synthetic_openmp(const apps::SyntheticTask& task, int threads);

}  // namespace takt::bench
