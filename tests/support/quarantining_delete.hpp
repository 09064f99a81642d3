// Finds writes into memory that operator delete has freed, in an ordinary (unsanitized)
// build: while a Quarantine is alive, every operator delete fills the block with a
// pattern and keeps it instead of freeing it; Quarantine::written_after_delete() then
// counts the kept blocks whose pattern changed. The blocks are freed when the
// Quarantine ends. malloc/free are not replaced, so the sanitizers' allocators still see
// every allocation (only their free is delayed).
//
// The replaced operators are defined here, not declared: include this header in exactly
// one source file of a test executable.
#pragma once

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

namespace takt::testing {

class Quarantine {
 public:
  static constexpr unsigned char kPattern = 0xA5;
  /// Blocks kept at most; a delete beyond them frees at once (counted in overflowed()).
  static constexpr std::size_t kCapacity = 1 << 16;

  Quarantine() {
    kept().store(0);
    overflow().store(0);
    active().store(true);
  }
  ~Quarantine() {
    active().store(false);
    const std::size_t n = std::min(kept().load(), kCapacity);
    for (std::size_t i = 0; i < n; ++i) {
      std::free(blocks()[i]);
      blocks()[i] = nullptr;
    }
    kept().store(0);
  }
  Quarantine(const Quarantine&) = delete;
  Quarantine& operator=(const Quarantine&) = delete;

  /// Deleted blocks kept so far.
  std::size_t deleted() const { return std::min(kept().load(), kCapacity); }
  /// Deletes that found the quarantine full and freed their block at once.
  std::size_t overflowed() const { return overflow().load(); }
  /// Kept blocks with a byte that is no longer the pattern: each was written after its
  /// delete. Call it when no other thread deletes.
  std::size_t written_after_delete() const {
    std::size_t written = 0;
    for (std::size_t i = 0; i < deleted(); ++i) {
      if (blocks()[i] == nullptr) continue;
      const auto* bytes = static_cast<const unsigned char*>(blocks()[i]);
      const std::size_t size = malloc_usable_size(blocks()[i]);
      for (std::size_t b = 0; b < size; ++b) {
        if (bytes[b] != kPattern) {
          ++written;
          break;
        }
      }
    }
    return written;
  }

  /// operator delete: keeps `p` while a Quarantine is alive, else frees it.
  static void release(void* p) noexcept {
    if (p == nullptr) return;
    if (!active().load(std::memory_order_acquire)) {
      std::free(p);
      return;
    }
    std::memset(p, kPattern, malloc_usable_size(p));
    const std::size_t slot = kept().fetch_add(1, std::memory_order_acq_rel);
    if (slot < kCapacity) {
      blocks()[slot] = p;
    } else {
      overflow().fetch_add(1, std::memory_order_relaxed);
      std::free(p);
    }
  }

 private:
  static std::atomic<bool>& active() {
    static std::atomic<bool> flag{false};
    return flag;
  }
  static std::atomic<std::size_t>& kept() {
    static std::atomic<std::size_t> count{0};
    return count;
  }
  static std::atomic<std::size_t>& overflow() {
    static std::atomic<std::size_t> count{0};
    return count;
  }
  static void** blocks() {
    static void* kept_blocks[kCapacity];
    return kept_blocks;
  }
};

}  // namespace takt::testing

// Allocation stays as the library has it (aligned new is aligned_alloc, freed by free).
void* operator new(std::size_t size) {
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
// The nothrow forms too (std::stable_sort's buffer): left to the library, or to a
// sanitizer's allocator, their blocks would reach the replaced delete from another
// allocator (ASan: alloc-dealloc-mismatch).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size ? size : 1); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size ? size : 1);
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  const auto a = static_cast<std::size_t>(align);
  return std::aligned_alloc(a, (size + a - 1) / a * a);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t& nothrow) noexcept {
  return operator new(size, align, nothrow);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { takt::testing::Quarantine::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { takt::testing::Quarantine::release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  takt::testing::Quarantine::release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  takt::testing::Quarantine::release(p);
}
void operator delete(void* p) noexcept { takt::testing::Quarantine::release(p); }
void operator delete[](void* p) noexcept { takt::testing::Quarantine::release(p); }
void operator delete(void* p, std::size_t) noexcept { takt::testing::Quarantine::release(p); }
void operator delete[](void* p, std::size_t) noexcept { takt::testing::Quarantine::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { takt::testing::Quarantine::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { takt::testing::Quarantine::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  takt::testing::Quarantine::release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  takt::testing::Quarantine::release(p);
}
