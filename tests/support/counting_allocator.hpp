// Counts heap allocations: malloc, calloc, realloc, the aligned allocators and every
// operator new are interposed and counted while `counting` is set; the first counted
// allocation's backtrace is kept for the failure message (report_first_allocation).
//
// The interposed functions are defined here, not declared: include this header in
// exactly one source file of a test executable.
#pragma once

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<std::uint64_t> allocations{0};
void* first_trace[32];
std::atomic<int> first_trace_size{0};
void note() {
  if (counting.load(std::memory_order_relaxed)) {
    if (allocations.fetch_add(1, std::memory_order_relaxed) == 0) {
      first_trace_size.store(::backtrace(first_trace, 32), std::memory_order_relaxed);
    }
  }
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  note();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  note();
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  note();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  note();
  *out = __libc_memalign(alignment, size);
  return *out != nullptr ? 0 : 12;
}
void free(void* p) { __libc_free(p); }
}

void* operator new(std::size_t size) {
  note();
  if (void* p = __libc_malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  note();
  if (void* p = __libc_memalign(static_cast<std::size_t>(align), size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }

namespace {
/// Prints where the first counted allocation came from, when there was one.
[[maybe_unused]] void report_first_allocation() {
  if (allocations.load() != 0) ::backtrace_symbols_fd(first_trace, first_trace_size.load(), STDERR_FILENO);
}
}  // namespace
