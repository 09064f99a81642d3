// takt::CpuSet: a set of CPU ids, as a pool's configuration names them (public API).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace takt {

/// A set of CPU ids, kept sorted and without duplicates. Prints and parses the
/// Linux cpulist format ("0-3,6,8-9").
class CpuSet {
public:
  /// The largest CPU id a set holds (Linux builds for at most 8192 CPUs; the bound keeps
  /// a range such as "0-2147483647" from being expanded into billions of ids).
  static constexpr int kMaxId = (1 << 16) - 1;

  CpuSet() = default;
  CpuSet(std::initializer_list<int> cpus);

  /// CPUs first..last inclusive; throws takt::Error when first < 0, last < first or
  /// last > kMaxId.
  static CpuSet range(int first, int last);
  /// Parses a cpulist ("0-3,6"); throws takt::Error naming the bad part (also an id
  /// above kMaxId, before any range is expanded, and a CPU named twice).
  static CpuSet parse(std::string_view cpulist);

  /// Adds a CPU; throws takt::Error for a negative number or one above kMaxId.
  void add(int cpu);
  [[nodiscard]] bool contains(int cpu) const;
  [[nodiscard]] std::size_t size() const { return cpus_.size(); }
  [[nodiscard]] bool empty() const { return cpus_.empty(); }
  /// The CPU ids in ascending order.
  [[nodiscard]] const std::vector<int>& cpus() const { return cpus_; }
  [[nodiscard]] int operator[](std::size_t i) const { return cpus_[i]; }
  [[nodiscard]] auto begin() const { return cpus_.begin(); }
  [[nodiscard]] auto end() const { return cpus_.end(); }
  /// The cpulist form, e.g. "0-3,6"; "" for the empty set.
  [[nodiscard]] std::string to_string() const;
  /// The CPUs in both sets.
  [[nodiscard]] CpuSet intersect(const CpuSet& other) const;

  friend bool operator==(const CpuSet&, const CpuSet&) = default;

private:
  std::vector<int> cpus_;
};

}  // namespace takt
