// CPU sets, the machine's CPUs (online, allowed, isolated) and thread affinity.
#include "os/cpu.hpp"

#include "os/diagnostics.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>

// The public takt::CpuSet (include/takt/cpu_set.hpp).
namespace takt {

CpuSet::CpuSet(std::initializer_list<int> cpus) {
  for (int c : cpus) add(c);
}

CpuSet CpuSet::range(int first, int last) {
  if (first < 0 || last < first || last > kMaxId) {
    throw Error(fmt::format("CpuSet::range({}, {}): {}", first, last,
                            first < 0      ? std::string("CPU numbers start at 0")
                            : last < first ? std::string("the range runs backwards")
                                           : fmt::format("CPU ids go up to {}", kMaxId)));
  }
  CpuSet s;
  for (int c = first; c <= last; ++c) s.add(c);
  return s;
}

namespace {
int parse_cpu(std::string_view text, std::string_view whole) {
  int value = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits = ptr == text.data() + text.size();
  const bool too_large = digits && ec == std::errc::result_out_of_range;
  if (!too_large && (ec != std::errc{} || !digits || value < 0)) {
    throw Error(fmt::format("bad CPU list '{}': '{}' is not a CPU number (write e.g. \"0-3,6\")", whole,
                            text));
  }
  if (too_large || value > CpuSet::kMaxId) {
    throw Error(fmt::format("bad CPU list '{}': CPU {} is above the largest CPU id, {}", whole, text,
                            CpuSet::kMaxId));
  }
  return value;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

CpuSet CpuSet::parse(std::string_view cpulist) {
  CpuSet s;
  std::string_view rest = trim(cpulist);
  bool more = !rest.empty();  // an item must follow (the start, or a comma)
  while (more) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    more = comma != std::string_view::npos;
    rest = more ? rest.substr(comma + 1) : std::string_view{};
    if (item.empty()) throw Error(fmt::format("bad CPU list '{}': empty item (write e.g. \"0-3,6\")", cpulist));
    // A CPU named twice is a mistake in what was written (the kernel's lists never
    // repeat one); until 2026-11-29 the second was dropped silently.
    const auto add_once = [&](int cpu) {
      if (s.contains(cpu)) {
        throw Error(
            fmt::format("bad CPU list '{}': it names CPU {} twice; name each CPU once", cpulist, cpu));
      }
      s.add(cpu);
    };
    auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      add_once(parse_cpu(item, cpulist));
    } else {
      const std::string_view first = trim(item.substr(0, dash)), last = trim(item.substr(dash + 1));
      if (first.empty() || last.empty()) {
        throw Error(fmt::format("bad CPU list '{}': the range '{}' needs a CPU number on both sides of '-' (CPU "
                                "numbers start at 0; write e.g. \"0-3,6\")",
                                cpulist, item));
      }
      int a = parse_cpu(first, cpulist);
      int b = parse_cpu(last, cpulist);
      if (b < a) throw Error(fmt::format("bad CPU list '{}': range {}-{} runs backwards", cpulist, a, b));
      for (int c = a; c <= b; ++c) add_once(c);
    }
  }
  return s;
}

void CpuSet::add(int cpu) {
  if (cpu < 0) throw Error(fmt::format("CPU {} does not exist: CPU numbers start at 0", cpu));
  if (cpu > kMaxId) throw Error(fmt::format("CPU {} does not exist: CPU ids go up to {}", cpu, kMaxId));
  auto it = std::lower_bound(cpus_.begin(), cpus_.end(), cpu);
  if (it == cpus_.end() || *it != cpu) cpus_.insert(it, cpu);
}

bool CpuSet::contains(int cpu) const { return std::binary_search(cpus_.begin(), cpus_.end(), cpu); }

std::string CpuSet::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < cpus_.size();) {
    std::size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus_[i]);
    if (j > i) out += '-' + std::to_string(cpus_[j]);
    i = j + 1;
  }
  return out;
}

CpuSet CpuSet::intersect(const CpuSet& other) const {
  CpuSet s;
  for (int c : cpus_)
    if (other.contains(c)) s.cpus_.push_back(c);
  return s;
}

}  // namespace takt

namespace takt::os {

namespace {
CpuSet read_cpulist_file(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream buf;
  buf << in.rdbuf();
  try {
    return CpuSet::parse(buf.str());
  } catch (const Error&) {
    return {};
  }
}
}  // namespace

CpuSet online_cpus() {
  CpuSet s = read_cpulist_file("/sys/devices/system/cpu/online");
  return s.empty() ? allowed_cpus() : s;
}

namespace {

/// A cpu_set_t for every id a CpuSet holds (CPU_SETSIZE is 1024: on a kernel built for
/// more CPUs sched_getaffinity refuses a 1024-bit mask, and ids above it could not be
/// pinned).
class WideCpuMask {
 public:
  WideCpuMask() : set_(CPU_ALLOC(CpuSet::kMaxId + 1)), size_(CPU_ALLOC_SIZE(CpuSet::kMaxId + 1)) {
    if (set_ == nullptr) throw std::bad_alloc();
    CPU_ZERO_S(size_, set_);
  }
  ~WideCpuMask() { CPU_FREE(set_); }
  WideCpuMask(const WideCpuMask&) = delete;
  WideCpuMask& operator=(const WideCpuMask&) = delete;
  cpu_set_t* get() const { return set_; }
  std::size_t size() const { return size_; }

 private:
  cpu_set_t* set_;
  std::size_t size_;
};

}  // namespace

CpuSet allowed_cpus() {
  WideCpuMask mask;
  CpuSet s;
  if (sched_getaffinity(0, mask.size(), mask.get()) != 0) return s;
  int left = CPU_COUNT_S(mask.size(), mask.get());
  for (int c = 0; c <= CpuSet::kMaxId && left > 0; ++c) {
    if (CPU_ISSET_S(static_cast<std::size_t>(c), mask.size(), mask.get())) {
      s.add(c);
      --left;
    }
  }
  return s;
}

CpuSet isolated_cpus() { return read_cpulist_file("/sys/devices/system/cpu/isolated"); }

bool pin_current_thread(const CpuSet& cpus) {
  WideCpuMask mask;
  for (int c : cpus) CPU_SET_S(static_cast<std::size_t>(c), mask.size(), mask.get());  // c <= kMaxId
  int rc = pthread_setaffinity_np(pthread_self(), mask.size(), mask.get());
  if (rc != 0) {
    // One warning per reason, not per CPU set: a pool whose workers each fail to pin
    // to their own CPU says it once.
    warn_once("affinity." + std::to_string(rc),
              fmt::format("cannot pin a thread to CPUs {} ({}); it keeps the CPUs it could use before (the "
                          "process's allowed CPUs are {}), and other threads that cannot be pinned for the "
                          "same reason are not reported again. Check the CPU ids against `nproc` and "
                          "the allowed CPUs",
                          cpus.to_string(), std::strerror(rc), allowed_cpus().to_string()));
    return false;
  }
  return true;
}

int current_cpu() { return sched_getcpu(); }

}  // namespace takt::os
