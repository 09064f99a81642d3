// The coroutine stacks of a pool and the guard-page overflow handler.
#include "runtime/stack_memory.hpp"

#include "os/thread_start.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

namespace takt::detail {
namespace {

constexpr std::size_t kAltstackSize = 64 * 1024;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

/// vm.max_map_count, the kernel's limit on a process's memory mappings; 0 if unknown.
std::uint64_t map_count_limit() noexcept {
  std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
  if (f == nullptr) return 0;
  unsigned long long n = 0;
  if (std::fscanf(f, "%llu", &n) != 1) n = 0;
  std::fclose(f);
  return n;
}

/// What the signal handler needs to explain a guard-page hit (no allocation, no locks).
struct Region {
  char* base;
  std::size_t stacks, stride, stack_size;
  std::size_t large, large_offset, large_stride, large_size;
  bool measure_options;  ///< takt::measure's pool: its sizes come from MeasureOptions
  char name[64];
};

constexpr int kMaxRegions = 256;
std::array<std::atomic<Region*>, kMaxRegions> g_regions{};
std::mutex g_regions_mutex;
std::once_flag g_handler_once;
struct sigaction g_previous_action {};

void write_text(const char* text) noexcept {
  std::size_t n = std::strlen(text);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

void write_number(std::size_t value) noexcept {
  char digits[32];
  int i = 31;
  digits[i] = '\0';
  do {
    digits[--i] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && i > 0);
  write_text(digits + i);
}

/// True (and reports) when `address` lies in a guard page of a registered pool.
bool explain_overflow(const char* address) noexcept {
  std::size_t page = StackMemory::page_size();
  for (auto& slot : g_regions) {
    const Region* r = slot.load(std::memory_order_acquire);
    if (r == nullptr) continue;
    if (address >= r->base && address < r->base + r->stacks * r->stride) {
      std::size_t offset = static_cast<std::size_t>(address - r->base) % r->stride;
      if (offset >= page) continue;
      write_text("takt: error: a strand overflowed its coroutine stack in pool '");
      write_text(r->name);
      write_text(r->measure_options ? "' (takt::measure: MeasureOptions::stack_size = "
                                    : "' (StaticMemory::stack_size = ");
      write_number(r->stack_size);
      write_text(r->measure_options
                     ? " bytes); pass takt::measure a MeasureOptions with a larger stack_size, or"
                     : " bytes); raise stack_size (takt::measure reports the peak stack a "
                       "computation needs) or");
      write_text(" run deep serial code through takt::call_on_large_stack\n");
      return true;
    }
    char* large_base = r->base + r->large_offset;
    if (r->large > 0 && address >= large_base && address < large_base + r->large * r->large_stride) {
      std::size_t offset = static_cast<std::size_t>(address - large_base) % r->large_stride;
      if (offset >= page) continue;
      write_text("takt: error: serial code overflowed the large stack in pool '");
      write_text(r->name);
      write_text(r->measure_options ? "' (takt::measure: MeasureOptions::large_stack_size = "
                                    : "' (StaticMemory::large_stack_size = ");
      write_number(r->large_size);
      write_text(
          r->measure_options
              ? " bytes); pass takt::measure a MeasureOptions with a larger large_stack_size\n"
              : " bytes); raise large_stack_size (takt::measure reports the peak a computation needs)\n");
      return true;
    }
  }
  return false;
}

void on_segv(int signal, siginfo_t* info, void* context) {
  if (explain_overflow(static_cast<const char*>(info->si_addr))) {
    // The strand's frames cannot be unwound from here; end the process cleanly.
    ::_exit(70);
  }
  // Not ours: let the previous disposition handle it (re-raised on return).
  if (g_previous_action.sa_flags & SA_SIGINFO) {
    if (g_previous_action.sa_sigaction != nullptr) {
      g_previous_action.sa_sigaction(signal, info, context);
      return;
    }
  } else if (g_previous_action.sa_handler != SIG_DFL && g_previous_action.sa_handler != SIG_IGN &&
             g_previous_action.sa_handler != nullptr) {
    g_previous_action.sa_handler(signal);
    return;
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGSEGV, &fallback, nullptr);
}

}  // namespace

std::size_t StackMemory::page_size() noexcept {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

std::size_t StackMemory::altstack_size() noexcept { return kAltstackSize; }

StackMemory::StackMemory(std::size_t stacks, std::size_t stack_size, std::size_t large,
                         std::size_t large_size, std::size_t altstacks, bool reserve_only,
                         std::string pool_name, bool measure_options)
    : stacks_(stacks), large_(large), altstacks_(altstacks) {
  const std::size_t page = page_size();
  stack_size_ = round_up(stack_size, page);
  stride_ = stack_size_ + page;
  large_size_ = large > 0 ? round_up(large_size, page) : 0;
  large_stride_ = large_size_ + page;
  large_offset_ = stacks_ * stride_;
  alt_offset_ = large_offset_ + large_ * large_stride_;
  bytes_ = alt_offset_ + altstacks_ * kAltstackSize;
  if (bytes_ == 0) return;

  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0);
  void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    const int error = errno;
    const unsigned long long limit_kib = os::address_space_limit_kib();
    throw takt::Error(fmt::format(
        "pool '{}': cannot map {} bytes of coroutine stacks ({}); lower {}{}", pool_name, bytes_,
        std::strerror(error),
        measure_options ? "MeasureOptions::max_depth, stack_size or large_stack_size (takt::measure)"
                        : "StaticMemory::depth or stack_size, or the number of workers",
        limit_kib != 0
            ? fmt::format(
                  ", or raise this process's address-space limit (ulimit -v, {} KiB here{})", limit_kib,
                  reserve_only ? "; these stacks are only reserved, not touched, so this costs no memory"
                               : "")
            : std::string()));
  }
  base_ = static_cast<char*>(p);
  if (reserve_only) ::madvise(base_, bytes_, MADV_NOHUGEPAGE);
  // Each guard page splits the mapping: about two kernel map entries per stack. Past
  // vm.max_map_count mprotect fails (ENOMEM), and a stack without its guard page would
  // overflow into the one below unnoticed.
  auto guard = [&](char* at, const char* which, std::size_t i, std::size_t count) {
    if (::mprotect(at, page, PROT_NONE) == 0) return;
    const int error = errno;
    ::munmap(base_, bytes_);
    base_ = nullptr;
    const std::uint64_t max_maps = map_count_limit();
    throw takt::Error(fmt::format(
        "pool '{}': cannot place the guard page of {} stack {} of {} ({}); each stack's guard page costs "
        "about two of the process's memory mappings{}; lower {}{}",
        pool_name, which, i, count, std::strerror(error),
        max_maps != 0 ? fmt::format(", and the kernel allows {} (vm.max_map_count)", max_maps)
                      : std::string(),
        measure_options ? "MeasureOptions::max_depth (takt::measure)"
                        : "StaticMemory::depth, PoolConfig::priority_levels or suspended_strands, or the "
                          "number of workers",
        error == ENOMEM ? ", or raise vm.max_map_count (sysctl -w vm.max_map_count=N)" : ""));
  };
  for (std::size_t i = 0; i < stacks_; ++i) guard(base_ + i * stride_, "strand", i, stacks_);
  for (std::size_t i = 0; i < large_; ++i)
    guard(base_ + large_offset_ + i * large_stride_, "large", i, large_);

  auto* region = new Region{base_,         stacks_,       stride_,     stack_size_,     large_,
                            large_offset_, large_stride_, large_size_, measure_options, {}};
  std::snprintf(region->name, sizeof(region->name), "%s", pool_name.c_str());
  std::lock_guard lock(g_regions_mutex);
  for (int i = 0; i < kMaxRegions; ++i) {
    if (g_regions[i].load(std::memory_order_relaxed) == nullptr) {
      g_regions[i].store(region, std::memory_order_release);
      registration_ = i;
      break;
    }
  }
  if (registration_ < 0) delete region;  // more than kMaxRegions pools: overflow still faults, unexplained
}

StackMemory::~StackMemory() {
  if (registration_ >= 0) {
    std::lock_guard lock(g_regions_mutex);
    Region* region = g_regions[registration_].exchange(nullptr, std::memory_order_acq_rel);
    delete region;
  }
  if (base_ != nullptr) ::munmap(base_, bytes_);
}

char* StackMemory::stack_lo(std::size_t i) const noexcept { return base_ + i * stride_ + page_size(); }
char* StackMemory::large_lo(std::size_t i) const noexcept {
  return base_ + large_offset_ + i * large_stride_ + page_size();
}
char* StackMemory::altstack(std::size_t i) const noexcept { return base_ + alt_offset_ + i * kAltstackSize; }

void StackMemory::prefault() noexcept {
  const std::size_t page = page_size();
  for (std::size_t i = 0; i < stacks_; ++i) {
    for (char* p = stack_lo(i); p < stack_hi(i); p += page) *static_cast<volatile char*>(p) = 0;
  }
  for (std::size_t i = 0; i < large_; ++i) {
    for (char* p = large_lo(i); p < large_hi(i); p += page) *static_cast<volatile char*>(p) = 0;
  }
  char* alt = base_ + alt_offset_;
  for (std::size_t off = 0; off < altstacks_ * kAltstackSize; off += page) {
    *static_cast<volatile char*>(alt + off) = 0;
  }
}

namespace {
/// Bytes from the top of the stack [lo, lo + size) down to its lowest resident page.
std::size_t resident_below_top(char* lo, std::size_t size) noexcept {
  const std::size_t page = StackMemory::page_size();
  const std::size_t pages = size / page;
  std::vector<unsigned char> resident(pages);
  if (::mincore(lo, size, resident.data()) != 0) return size;
  for (std::size_t p = 0; p < pages; ++p) {
    if (resident[p] & 1) return size - p * page;
  }
  return 0;
}
}  // namespace

std::size_t StackMemory::resident_use(std::size_t i) const noexcept {
  return resident_below_top(stack_lo(i), stack_size_);
}

std::size_t StackMemory::large_resident_use(std::size_t i) const noexcept {
  return resident_below_top(large_lo(i), large_size_);
}

bool install_overflow_handler(char* altstack, void* previous) noexcept {
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = kAltstackSize;
  ss.ss_flags = 0;
  const bool installed = ::sigaltstack(&ss, static_cast<stack_t*>(previous)) == 0;
  std::call_once(g_handler_once, [] {
    struct sigaction action {};
    action.sa_sigaction = &on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_action);
  });
  return installed;
}

void restore_altstack(const void* previous) noexcept {
  stack_t ss = *static_cast<const stack_t*>(previous);
  if ((ss.ss_flags & SS_DISABLE) != 0) {
    ss = stack_t{};
    ss.ss_flags = SS_DISABLE;
  } else {
    ss.ss_flags &= ~SS_ONSTACK;  // keeps SS_AUTODISARM
  }
  ::sigaltstack(&ss, nullptr);
}

}  // namespace takt::detail
