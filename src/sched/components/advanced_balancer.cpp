// Advanced balancer: balances tasks over groups of PEs that share one pipe (federated clusters).
#include "sched/component_registry.hpp"
#include "sched/components/affinity_lookup.hpp"
#include "sched/pipe.hpp"
#include "sched/writer.hpp"

#include <limits>

namespace takt::sched::components {
namespace {

/// CoBaS's advanced balancer (appendix A.1, 0x13) maps PEs to outgoing pipes so that
/// several PEs share one pipe. In takt output c is the pipe of cluster c (a group of
/// processing elements, e.g. a federated task's dedicated cores, all taking work
/// from that pipe). A task bound to a cluster goes to it; a task bound only to a PE
/// goes to that PE's cluster; any other task goes to the cluster with the least
/// load per online PE (queued tasks / PEs), found in O(log clusters) with an indexed
/// heap. Clusters without an online PE take only bound tasks. Keys pass through.
///
/// Per-task data word: c+1 while queued in output c, 0 otherwise.
class AdvancedBalancer final : public Instance {
 public:
  explicit AdvancedBalancer(InstanceContext ctx)
      : Instance(std::move(ctx)), outputs_(context().port("outputs")) {
    const ProcessingElements& pes = context().topology->processing_elements();
    const std::size_t n = outputs_.size();
    size_.assign(n, 0);
    load_.assign(n, 0);
    position_.assign(n, npos);
    for (int pe : pes.online_pes()) {
      const int c = pes.cluster_of(pe);
      if (c >= 0 && static_cast<std::size_t>(c) < n) ++size_[c];
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (size_[c] > 0) {
        position_[c] = heap_.size();
        heap_.push_back(c);
        sift_up(heap_.size() - 1);
      }
    }
  }

  void connect(Broker& broker) override {
    broker.subscribe(topics::affinity, this, [this](const AffinityMessage& m) { migrate(m); });
  }

  void task_construct(Task& task) override { task_data(task).store(0, std::memory_order_relaxed); }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t where = word.load(std::memory_order_relaxed);
      switch (change) {
        case Change::added:
          place(out, task, key, choose(affinity_of(broker(), task)));
          break;
        case Change::removed:
          if (where != 0) {
            out.remove(*outputs_[where - 1], task);
            adjust(where - 1, -1);
          }
          word.store(0, std::memory_order_relaxed);
          break;
        case Change::moved:
          if (where != 0) out.rekey(*outputs_[where - 1], task, key);
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  /// The output `affinity` binds the task to (its cluster, else its PE's cluster, if
  /// that one has an output here), or npos: unbound here.
  std::size_t bound_output(const AffinityMessage& affinity) const {
    const std::size_t n = outputs_.size();
    if (affinity.cluster >= 0 && static_cast<std::size_t>(affinity.cluster) < n) {
      return static_cast<std::size_t>(affinity.cluster);
    }
    if (affinity.pe >= 0) {
      const int c = context().topology->processing_elements().cluster_of(affinity.pe);
      if (c >= 0 && static_cast<std::size_t>(c) < n) return static_cast<std::size_t>(c);
    }
    return npos;
  }

  std::size_t choose(const AffinityMessage& affinity) const {
    const std::size_t bound = bound_output(affinity);
    if (bound != npos) return bound;
    return heap_.empty() ? 0 : heap_.front();
  }

  void place(Writer& out, Task& task, std::int64_t key, std::size_t c) {
    task_data(task).store(c + 1, std::memory_order_relaxed);
    adjust(c, +1);
    out.add(*outputs_[c], task, key);
  }

  // Group a before group b: smaller load per PE, then smaller index.
  bool before(std::size_t a, std::size_t b) const {
    const std::uint64_t lhs = static_cast<std::uint64_t>(load_[a]) * size_[b];
    const std::uint64_t rhs = static_cast<std::uint64_t>(load_[b]) * size_[a];
    return lhs < rhs || (lhs == rhs && a < b);
  }

  void adjust(std::size_t c, int delta) {
    load_[c] = static_cast<std::size_t>(static_cast<long>(load_[c]) + delta);
    if (position_[c] == npos) return;
    if (delta < 0) {
      sift_up(position_[c]);
    } else {
      sift_down(position_[c]);
    }
  }

  void swap_at(std::size_t i, std::size_t j) {
    std::swap(heap_[i], heap_[j]);
    position_[heap_[i]] = i;
    position_[heap_[j]] = j;
  }
  void sift_up(std::size_t i) {
    while (i > 0 && before(heap_[i], heap_[(i - 1) / 2])) {
      swap_at(i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
  }
  void sift_down(std::size_t i) {
    for (;;) {
      std::size_t best = i;
      for (std::size_t child = 2 * i + 1; child <= 2 * i + 2 && child < heap_.size(); ++child) {
        if (before(heap_[child], heap_[best])) best = child;
      }
      if (best == i) return;
      swap_at(i, best);
      i = best;
    }
  }

  void migrate(const AffinityMessage& m) {
    if (m.task == nullptr || !m.task->attached()) return;
    update_from_notification([&](Writer& out) {
      Task& task = *m.task;
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t where = word.load(std::memory_order_relaxed);
      if (where == 0) return;
      // An unbound task stays where it is, also one bound to a cluster (or PE) with no
      // output here, which placing treats as unbound.
      const std::size_t to = bound_output(m);
      if (to == npos) return;
      if (to == where - 1) return;
      Pipe& from = *outputs_[where - 1];
      const std::int64_t key = out.key_of(from, task);
      out.remove(from, task);
      adjust(where - 1, -1);
      place(out, task, key, to);
    });
  }

  std::vector<Pipe*> outputs_;
  // Guarded by the input lock (the instance lock with several inputs).
  std::vector<std::size_t> size_;      // online PEs per cluster
  std::vector<std::size_t> load_;      // queued tasks per cluster
  std::vector<std::size_t> heap_;      // clusters with PEs, least load per PE first
  std::vector<std::size_t> position_;  // cluster -> heap index (npos: no PE)
};

}  // namespace

void register_advanced_balancer(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "advanced-balancer",
      distributing | consolidating,
      "Output c is the pipe shared by the PEs of cluster c: tasks bound to a cluster (or to a PE) "
      "go to that cluster, the others to the cluster with the least queued tasks per online PE.",
      {PortInfo{"inputs", PortInfo::Direction::input, true, false, "the pipes it balances"},
       PortInfo{"outputs", PortInfo::Direction::output, true, false, "one pipe per cluster, by index"}},
      {},
      {"AFFINITY"},
      {},
      {},
      true,
      [](InstanceContext ctx) { return std::make_unique<AdvancedBalancer>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
