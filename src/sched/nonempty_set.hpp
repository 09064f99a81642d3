// NonEmptySet: which pipes of a family hold tasks, for the pull path's victim search.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace takt::sched {

/// One bit per pipe of a steal family, set while the pipe holds tasks. Pipes update
/// their bit under their own lock; the pull path reads the words without a lock and
/// treats a bit as a hint (it locks the victim pipe and looks again). Finding a
/// non-empty pipe costs one load per 64 pipes.
class NonEmptySet {
 public:
  explicit NonEmptySet(std::size_t size)
      : size_(size), words_((size + 63) / 64), bits_(new std::atomic<std::uint64_t>[words_]) {
    for (std::size_t w = 0; w < words_; ++w) bits_[w].store(0, std::memory_order_relaxed);
  }

  std::size_t size() const noexcept { return size_; }

  void set(std::size_t i) noexcept {
    bits_[i / 64].fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
  }
  void clear(std::size_t i) noexcept {
    bits_[i / 64].fetch_and(~(std::uint64_t{1} << (i % 64)), std::memory_order_relaxed);
  }
  bool test(std::size_t i) const noexcept {
    return (bits_[i / 64].load(std::memory_order_relaxed) >> (i % 64)) & 1u;
  }

  /// The first set index at or after `start` going round the set, skipping `skip`;
  /// `size()` when none is set.
  std::size_t find_from(std::size_t start, std::size_t skip) const noexcept {
    if (size_ == 0) return size_;
    start %= size_;
    const std::size_t first_word = start / 64;
    for (std::size_t k = 0; k <= words_; ++k) {
      const std::size_t w = (first_word + k) % words_;
      std::uint64_t bits = bits_[w].load(std::memory_order_relaxed);
      if (k == 0) bits &= ~std::uint64_t{0} << (start % 64);          // at or after start
      if (k == words_) bits &= ~(~std::uint64_t{0} << (start % 64));  // wrapped part
      if (skip / 64 == w) bits &= ~(std::uint64_t{1} << (skip % 64));
      if (bits != 0) return w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    }
    return size_;
  }

 private:
  std::size_t size_;
  std::size_t words_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> bits_;
};

}  // namespace takt::sched
