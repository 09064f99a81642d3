// ProcessingElements: the PEs a topology serves, with their clusters, online or not.
#pragma once

#include <string>
#include <vector>

namespace takt::sched {

/// The processing elements (PEs) a scheduler serves: ids 0..id_count()-1, each in a
/// cluster (a group of PEs that share work, e.g. a federated task's cores) and
/// online or offline. PEs keep their id when they go offline, so that pipe families
/// indexed by PE id keep their meaning while a dynamic topology is rewired.
class ProcessingElements {
 public:
  ProcessingElements() = default;
  /// `count` online PEs, ids 0..count-1, all in cluster 0.
  static ProcessingElements uniform(int count);
  /// One online PE per entry: PE i is in cluster `cluster_of_pe[i]` (>= 0).
  static ProcessingElements with_clusters(std::vector<int> cluster_of_pe);

  /// Brings PE `pe` online in `cluster` (a new id extends the id range; ids in
  /// between stay unknown and offline). Throws takt::Error if it is online already.
  void add(int pe, int cluster);
  /// Takes PE `pe` offline; throws takt::Error if it is not online.
  void remove(int pe);

  int id_count() const noexcept { return static_cast<int>(pes_.size()); }
  /// Number of clusters: the largest cluster of any known PE, plus one.
  int cluster_count() const noexcept;
  bool known(int pe) const noexcept { return pe >= 0 && pe < id_count() && pes_[pe].cluster >= 0; }
  bool online(int pe) const noexcept { return known(pe) && pes_[pe].online; }
  /// The cluster of a known PE, -1 for an unknown one.
  int cluster_of(int pe) const noexcept { return pe >= 0 && pe < id_count() ? pes_[pe].cluster : -1; }
  std::vector<int> online_pes() const;
  int online_count() const noexcept;
  /// "4 PEs (0-3), clusters: 0 0 1 1" style summary.
  std::string describe() const;

 private:
  struct Pe {
    int cluster = -1;
    bool online = false;
  };
  std::vector<Pe> pes_;
};

}  // namespace takt::sched
