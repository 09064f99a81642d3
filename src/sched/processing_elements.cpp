// ProcessingElements: the PEs a topology serves, with their clusters, online or not.
#include "sched/processing_elements.hpp"

#include "takt/error.hpp"

#include <algorithm>

namespace takt::sched {

ProcessingElements ProcessingElements::uniform(int count) {
  if (count < 1) throw takt::Error("a scheduler needs at least one processing element");
  return with_clusters(std::vector<int>(static_cast<std::size_t>(count), 0));
}

ProcessingElements ProcessingElements::with_clusters(std::vector<int> cluster_of_pe) {
  if (cluster_of_pe.empty()) throw takt::Error("a scheduler needs at least one processing element");
  ProcessingElements pes;
  for (std::size_t i = 0; i < cluster_of_pe.size(); ++i) pes.add(static_cast<int>(i), cluster_of_pe[i]);
  return pes;
}

void ProcessingElements::add(int pe, int cluster) {
  if (pe < 0) throw takt::Error("processing element ids start at 0, got " + std::to_string(pe));
  if (cluster < 0) {
    throw takt::Error("processing element " + std::to_string(pe) + ": cluster must be >= 0, got " +
                      std::to_string(cluster));
  }
  if (online(pe)) throw takt::Error("processing element " + std::to_string(pe) + " is already online");
  if (pe >= id_count()) pes_.resize(static_cast<std::size_t>(pe) + 1);
  pes_[pe] = Pe{cluster, true};
}

void ProcessingElements::remove(int pe) {
  if (!online(pe)) throw takt::Error("processing element " + std::to_string(pe) + " is not online");
  pes_[pe].online = false;
}

int ProcessingElements::cluster_count() const noexcept {
  int clusters = 0;
  for (const Pe& p : pes_) clusters = std::max(clusters, p.cluster + 1);
  return clusters;
}

std::vector<int> ProcessingElements::online_pes() const {
  std::vector<int> out;
  for (int pe = 0; pe < id_count(); ++pe) {
    if (online(pe)) out.push_back(pe);
  }
  return out;
}

int ProcessingElements::online_count() const noexcept {
  return static_cast<int>(std::count_if(pes_.begin(), pes_.end(), [](const Pe& p) { return p.online; }));
}

std::string ProcessingElements::describe() const {
  std::string out =
      std::to_string(online_count()) + " online PEs of " + std::to_string(id_count()) + ", clusters:";
  for (int pe = 0; pe < id_count(); ++pe) {
    out += ' ';
    out += known(pe) ? std::to_string(pes_[pe].cluster) : std::string("-");
    if (known(pe) && !pes_[pe].online) out += "(off)";
  }
  return out;
}

}  // namespace takt::sched
