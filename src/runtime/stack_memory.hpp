// The coroutine stacks of a pool: one mapping, a guard page below every stack, made
// resident at start-up; and the handler that turns a guard-page hit into a clear error.
#pragma once

#include <cstddef>
#include <string>

namespace takt::detail {

class StackMemory {
 public:
  /// Maps `stacks` stacks of `stack_size` bytes and `large` stacks of `large_size` bytes
  /// (sizes rounded up to pages), plus `altstacks` signal stacks. `reserve_only`: do not
  /// touch or commit the pages (the measurement pool, whose stacks may be huge).
  /// `measure_options`: the sizes came from takt::measure's MeasureOptions (messages name
  /// them).
  StackMemory(std::size_t stacks, std::size_t stack_size, std::size_t large, std::size_t large_size,
              std::size_t altstacks, bool reserve_only, std::string pool_name, bool measure_options = false);
  ~StackMemory();
  StackMemory(const StackMemory&) = delete;
  StackMemory& operator=(const StackMemory&) = delete;

  /// Usable range [lo, hi) of stack i (the guard page lies just below lo).
  [[nodiscard]] char* stack_lo(std::size_t i) const noexcept;
  [[nodiscard]] char* stack_hi(std::size_t i) const noexcept { return stack_lo(i) + stack_size_; }
  [[nodiscard]] char* large_lo(std::size_t i) const noexcept;
  [[nodiscard]] char* large_hi(std::size_t i) const noexcept { return large_lo(i) + large_size_; }
  [[nodiscard]] char* altstack(std::size_t i) const noexcept;
  [[nodiscard]] static std::size_t altstack_size() noexcept;

  [[nodiscard]] std::size_t stack_size() const noexcept { return stack_size_; }
  [[nodiscard]] std::size_t large_size() const noexcept { return large_size_; }
  [[nodiscard]] std::size_t large_count() const noexcept { return large_; }
  [[nodiscard]] std::size_t mapped_bytes() const noexcept { return bytes_; }
  [[nodiscard]] static std::size_t page_size() noexcept;

  /// Touches every page so the pool never page-faults while running.
  void prefault() noexcept;
  /// Bytes of stack i in use at some point: the distance from its top to the lowest
  /// page the kernel made resident (page granularity; for reserve_only memory).
  [[nodiscard]] std::size_t resident_use(std::size_t i) const noexcept;
  /// The same for large stack i.
  [[nodiscard]] std::size_t large_resident_use(std::size_t i) const noexcept;

 private:
  char* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t stacks_ = 0, stack_size_ = 0, stride_ = 0;
  std::size_t large_ = 0, large_size_ = 0, large_stride_ = 0;
  std::size_t altstacks_ = 0;
  std::size_t large_offset_ = 0, alt_offset_ = 0;
  int registration_ = -1;
};

/// Installs the process-wide SIGSEGV handler (once) and gives the calling thread an
/// alternate signal stack of StackMemory::altstack_size() bytes at `altstack`.
/// `previous`, if given, receives the thread's alternate stack before (to restore it
/// with restore_altstack when the thread leaves the pool). False when the kernel
/// refused (the thread runs on its alternate stack now): nothing to restore then.
bool install_overflow_handler(char* altstack, void* previous = nullptr) noexcept;
/// Gives the calling thread back the alternate signal stack saved by install_overflow_handler.
void restore_altstack(const void* previous) noexcept;

}  // namespace takt::detail
