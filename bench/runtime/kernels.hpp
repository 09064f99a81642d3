// The benchmark kernels written for oneTBB and for OpenMP (libgomp), with the same
// structure as the takt versions in src/apps (and their serial versions there).
#pragma once

#include "apps/synthetic.hpp"
#include "apps/uts.hpp"

#include <cstddef>
#include <cstdint>

namespace takt::bench {

// oneTBB: task_group for fork-join, parallel_for (auto partitioner) for loops. Call
// inside a task_arena of the chosen concurrency.
std::uint64_t fib_onetbb(std::uint64_t n);
apps::UtsResult uts_onetbb(const apps::UtsConfig& config);
void matmul_onetbb(const double* a, const double* b, double* c, std::size_t n);
void synthetic_onetbb(const apps::SyntheticTask& task);

// OpenMP: tasks and taskwait for fork-join, `omp for schedule(dynamic, grain)` for
// loops; each call opens its own parallel region of `threads` threads.
std::uint64_t fib_openmp(std::uint64_t n, int threads);
apps::UtsResult uts_openmp(const apps::UtsConfig& config, int threads);
void matmul_openmp(const double* a, const double* b, double* c, std::size_t n, int threads);
void synthetic_openmp(const apps::SyntheticTask& task, int threads);

}  // namespace takt::bench
