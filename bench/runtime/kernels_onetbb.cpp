// The benchmark kernels on oneTBB.
#include "apps/matmul.hpp"
#include "bench/runtime/kernels.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_group.h>

namespace takt::bench {
namespace {

apps::UtsResult visit_onetbb(const apps::UtsConfig& config, const apps::UtsNode& node);

apps::UtsResult visit_children_onetbb(const apps::UtsConfig& config, const apps::UtsNode& parent, int first,
                                      int last) {
  if (last - first == 1) return visit_onetbb(config, apps::uts_child(parent, first));
  int middle = first + (last - first) / 2;
  apps::UtsResult left;
  tbb::task_group group;
  group.run([&] { left = visit_children_onetbb(config, parent, first, middle); });
  apps::UtsResult right = visit_children_onetbb(config, parent, middle, last);
  group.wait();
  return apps::combine(left, right);
}

apps::UtsResult visit_onetbb(const apps::UtsConfig& config, const apps::UtsNode& node) {
  apps::UtsResult self{1, 0, node.height};
  int children = apps::uts_children(config, node);
  if (children == 0) {
    self.leaves = 1;
    return self;
  }
  if (node.height == 0 && children > apps::uts_max_children) {
    return apps::combine(self, visit_children_onetbb(config, node, 0, children));
  }
  apps::UtsResult results[apps::uts_max_children];
  tbb::task_group group;
  for (int i = 0; i < children; ++i) {
    group.run([&config, &node, &results, i] { results[i] = visit_onetbb(config, apps::uts_child(node, i)); });
  }
  group.wait();
  for (int i = 0; i < children; ++i) self = apps::combine(self, results[i]);
  return self;
}

}  // namespace

std::uint64_t fib_onetbb(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  tbb::task_group group;
  group.run([&] { a = fib_onetbb(n - 1); });
  b = fib_onetbb(n - 2);
  group.wait();
  return a + b;
}

apps::UtsResult uts_onetbb(const apps::UtsConfig& config) { return visit_onetbb(config, apps::uts_root(config)); }

void matmul_onetbb(const double* a, const double* b, double* c, std::size_t n) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1), [=](const tbb::blocked_range<std::size_t>& rows) {
    for (std::size_t i = rows.begin(); i != rows.end(); ++i) apps::matmul_row(a, b, c, n, i);
  });
}

void synthetic_onetbb(const apps::SyntheticTask& task) {
  for (std::size_t s = 0; s < task.segment_nodes.size(); ++s) {
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, task.segment_nodes[s], 1),
                      [&task, s](const tbb::blocked_range<std::uint32_t>& nodes) {
                        for (std::uint32_t j = nodes.begin(); j != nodes.end(); ++j) task.run_node(s, j);
                      });
  }
}

}  // namespace takt::bench
