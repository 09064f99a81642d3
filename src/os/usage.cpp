// Resource usage: context switches and per-CPU busy time.
#include "os/usage.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace takt::os {
namespace {

ContextSwitches from(int who) {
  rusage u{};
  getrusage(who, &u);
  return {u.ru_nvcsw, u.ru_nivcsw};
}

}  // namespace

ContextSwitches thread_context_switches() { return from(RUSAGE_THREAD); }
ContextSwitches process_context_switches() { return from(RUSAGE_SELF); }

namespace {

/// Per-CPU times from /proc/stat: busy (user, nice, system, irq, softirq) or stolen by
/// the hypervisor (steal), indexed by CPU id.
std::vector<std::chrono::nanoseconds> proc_stat_times(bool steal_only) {
  std::vector<std::chrono::nanoseconds> out;
  std::ifstream in("/proc/stat");
  const long hz = sysconf(_SC_CLK_TCK);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    std::size_t cpu = 0;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (out.size() <= cpu) out.resize(cpu + 1);
    const long long ticks = steal_only ? steal : user + nice + system + irq + softirq;
    out[cpu] = ticks_to_time(ticks, hz);
  }
  return out;
}

}  // namespace

std::chrono::nanoseconds ticks_to_time(long long ticks, long hz) {
  // Whole seconds and the rest apart: ticks · 10^9 overflows 64 bits beyond 2^63 / 10^9
  // ticks (about 2.9 years of busy time on one CPU at 100 Hz).
  return std::chrono::seconds(ticks / hz) + std::chrono::nanoseconds(ticks % hz * 1'000'000'000LL / hz);
}

std::vector<std::chrono::nanoseconds> cpu_busy_times() { return proc_stat_times(false); }

std::vector<std::chrono::nanoseconds> cpu_steal_times() { return proc_stat_times(true); }

std::optional<std::uint64_t> key_number(const std::string& path, std::string_view key, std::uint64_t unit,
                                        char separator) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return std::nullopt;
  std::optional<std::uint64_t> value;
  char line[256];  // a longer line (Groups:) comes in pieces, none of which starts with a key
  while (std::fgets(line, sizeof line, f) != nullptr) {
    const std::string_view l(line);
    if (l.size() > key.size() && l.substr(0, key.size()) == key && l[key.size()] == separator) {
      value = std::strtoull(line + key.size() + 1, nullptr, 10) * unit;
      break;
    }
  }
  std::fclose(f);
  return value;
}

}  // namespace takt::os
