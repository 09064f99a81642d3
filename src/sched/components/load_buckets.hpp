// LoadBuckets: outputs grouped by load, so the least loaded one is found in O(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::sched::components {

/// The load (queued tasks) of each output of a balancer, kept in buckets of equal
/// load: each bucket is a FIFO list of outputs, and the smallest non-empty bucket is
/// tracked. Loads change by one at a time, so increment, decrement and "which
/// eligible output has the least load" are all O(1) whatever the number of outputs:
/// the balancer of CoBaS scanned its outputs, O(n) (appendix A.1, 0x12). Among
/// outputs of equal load the one that reached that load first is chosen, which
/// spreads arrivals round-robin.
class LoadBuckets {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// `eligible[i]`: whether output i may be chosen by least_loaded(). Ineligible
  /// outputs still count their load (tasks bound to them go there).
  explicit LoadBuckets(const std::vector<bool>& eligible)
      : load_(eligible.size(), 0),
        eligible_(eligible),
        prev_(eligible.size(), npos),
        next_(eligible.size(), npos) {
    for (std::size_t i = 0; i < eligible.size(); ++i) {
      if (eligible_[i]) push_back(0, i);
    }
  }

  std::size_t load(std::size_t i) const noexcept { return load_[i]; }
  bool eligible(std::size_t i) const noexcept { return eligible_[i]; }

  /// An eligible output with the least load, npos if none is eligible.
  std::size_t least_loaded() const noexcept { return min_ < head_.size() ? head_[min_] : npos; }

  void increment(std::size_t i) {
    if (!eligible_[i]) {
      ++load_[i];
      return;
    }
    const std::size_t from = load_[i];
    unlink(from, i);
    ++load_[i];
    push_back(from + 1, i);
    if (from == min_ && head_[from] == npos) min_ = from + 1;
  }

  void decrement(std::size_t i) {
    if (load_[i] == 0) return;
    if (!eligible_[i]) {
      --load_[i];
      return;
    }
    const std::size_t from = load_[i];
    unlink(from, i);
    --load_[i];
    push_back(from - 1, i);
    if (from - 1 < min_) min_ = from - 1;
  }

 private:
  void push_back(std::size_t bucket, std::size_t i) {
    if (bucket >= head_.size()) {
      head_.resize(bucket + 1, npos);
      tail_.resize(bucket + 1, npos);
    }
    prev_[i] = tail_[bucket];
    next_[i] = npos;
    if (tail_[bucket] != npos) {
      next_[tail_[bucket]] = i;
    } else {
      head_[bucket] = i;
    }
    tail_[bucket] = i;
    if (min_ == npos || bucket < min_) min_ = bucket;
  }

  void unlink(std::size_t bucket, std::size_t i) {
    if (prev_[i] != npos) {
      next_[prev_[i]] = next_[i];
    } else {
      head_[bucket] = next_[i];
    }
    if (next_[i] != npos) {
      prev_[next_[i]] = prev_[i];
    } else {
      tail_[bucket] = prev_[i];
    }
    prev_[i] = next_[i] = npos;
  }

  std::vector<std::size_t> load_;
  std::vector<bool> eligible_;
  std::vector<std::size_t> prev_, next_;
  std::vector<std::size_t> head_, tail_;  // per load value
  std::size_t min_ = npos;
};

}  // namespace takt::sched::components
