// The benchmark kernels on OpenMP (GNU libgomp).
#include "apps/matmul.hpp"
#include "bench/runtime/kernels.hpp"

#include <fmt/core.h>
#include <omp.h>

#include <charconv>

namespace takt::bench {

std::string OpenmpSchedule::to_string() const {
  const char* name = kind == Kind::static_   ? "static"
                     : kind == Kind::dynamic ? "dynamic"
                     : kind == Kind::guided  ? "guided"
                                             : "auto";
  return chunk > 0 ? fmt::format("{},{}", name, chunk) : std::string(name);
}

std::optional<OpenmpSchedule> parse_openmp_schedule(std::string_view text) {
  const std::size_t comma = text.find(',');
  const std::string_view name = text.substr(0, comma);
  OpenmpSchedule s;
  s.chunk = 0;
  if (name == "static") {
    s.kind = OpenmpSchedule::Kind::static_;
  } else if (name == "dynamic") {
    s.kind = OpenmpSchedule::Kind::dynamic;
  } else if (name == "guided") {
    s.kind = OpenmpSchedule::Kind::guided;
  } else if (name == "auto") {
    s.kind = OpenmpSchedule::Kind::auto_;
  } else {
    return std::nullopt;
  }
  if (comma == std::string_view::npos) {
    // libgomp's own defaults, written out: dynamic and guided take chunks of 1 (so
    // "dynamic" is the default schedule, dynamic,1), static splits evenly, auto decides.
    if (s.kind == OpenmpSchedule::Kind::dynamic || s.kind == OpenmpSchedule::Kind::guided) s.chunk = 1;
    return s;
  }
  if (s.kind == OpenmpSchedule::Kind::auto_) return std::nullopt;  // auto takes no chunk
  const std::string_view digits = text.substr(comma + 1);
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, s.chunk);
  if (digits.empty() || ec != std::errc() || ptr != end || s.chunk < 1 || s.chunk > 1'000'000)
    return std::nullopt;
  return s;
}

void use_openmp_schedule(const OpenmpSchedule& schedule) {
  const omp_sched_t kind = schedule.kind == OpenmpSchedule::Kind::static_   ? omp_sched_static
                           : schedule.kind == OpenmpSchedule::Kind::dynamic ? omp_sched_dynamic
                           : schedule.kind == OpenmpSchedule::Kind::guided  ? omp_sched_guided
                                                                            : omp_sched_auto;
  omp_set_schedule(kind, schedule.chunk);  // a chunk below 1 is the kind's default
}

namespace {

std::uint64_t fib_task(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
#pragma omp task shared(a) firstprivate(n)
  a = fib_task(n - 1);
  b = fib_task(n - 2);
#pragma omp taskwait
  return a + b;
}

apps::UtsResult visit_task(const apps::UtsConfig& config, const apps::UtsNode& node);

apps::UtsResult visit_children_task(const apps::UtsConfig& config, const apps::UtsNode& parent, int first, int last) {
  if (last - first == 1) return visit_task(config, apps::uts_child(parent, first));
  int middle = first + (last - first) / 2;
  apps::UtsResult left;
#pragma omp task shared(left, config, parent) firstprivate(first, middle)
  left = visit_children_task(config, parent, first, middle);
  apps::UtsResult right = visit_children_task(config, parent, middle, last);
#pragma omp taskwait
  return apps::combine(left, right);
}

apps::UtsResult visit_task(const apps::UtsConfig& config, const apps::UtsNode& node) {
  apps::UtsResult self{1, 0, node.height};
  int children = apps::uts_children(config, node);
  if (children == 0) {
    self.leaves = 1;
    return self;
  }
  if (node.height == 0 && children > apps::uts_max_children) {
    return apps::combine(self, visit_children_task(config, node, 0, children));
  }
  apps::UtsResult results[apps::uts_max_children];
  for (int i = 0; i < children; ++i) {
#pragma omp task shared(results, config, node) firstprivate(i)
    results[i] = visit_task(config, apps::uts_child(node, i));
  }
#pragma omp taskwait
  for (int i = 0; i < children; ++i) self = apps::combine(self, results[i]);
  return self;
}

}  // namespace

std::uint64_t fib_openmp(std::uint64_t n, int threads) {
  std::uint64_t result = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  result = fib_task(n);
  return result;
}

apps::UtsResult uts_openmp(const apps::UtsConfig& config, int threads) {
  apps::UtsResult result;
  // uts_root checks the configuration and may throw: not inside the parallel region,
  // where an exception ends the process.
  const apps::UtsNode root = apps::uts_root(config);
#pragma omp parallel num_threads(threads)
#pragma omp single
  result = visit_task(config, root);
  return result;
}

void matmul_openmp(const double* a, const double* b, double* c, std::size_t n, int threads) {
#pragma omp parallel for schedule(runtime) num_threads(threads)
  for (std::size_t i = 0; i < n; ++i) apps::matmul_row(a, b, c, n, i);
}

void synthetic_openmp(const apps::SyntheticTask& task, int threads) {
  // One parallel region; each segment is a worksharing loop whose implicit barrier is
  // the segment's synchronization.
#pragma omp parallel num_threads(threads)
  for (std::size_t s = 0; s < task.segment_nodes.size(); ++s) {
    const std::uint32_t nodes = task.segment_nodes[s];
#pragma omp for schedule(runtime)
    for (std::uint32_t j = 0; j < nodes; ++j) task.run_node(s, j);
  }
}

}  // namespace takt::bench
