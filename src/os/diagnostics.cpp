// Warnings to the user: one line on stderr, optionally only once per key.
#include "os/diagnostics.hpp"

#include <atomic>

#include <fmt/core.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace takt::os {
namespace {

std::mutex& lock() {
  static std::mutex m;
  return m;
}
WarningSink& sink() {
  static WarningSink s;
  return s;
}
std::set<std::string, std::less<>>& seen() {
  static std::set<std::string, std::less<>> s;
  return s;
}

void emit(std::string_view message) {
  if (sink()) {
    sink()(message);
  } else {
    to_stderr("takt: warning: {}\n", message);
    std::fflush(stderr);
  }
}

}  // namespace

void warn(std::string_view message) {
  std::lock_guard guard(lock());
  emit(message);
}

void warn_once(std::string_view key, std::string_view message) {
  std::lock_guard guard(lock());
  if (!seen().emplace(key).second) return;
  emit(message);
}

WarningSink set_warning_sink(WarningSink s) {
  std::lock_guard guard(lock());
  WarningSink old = std::move(sink());
  sink() = std::move(s);
  return old;
}

void reset_warnings_for_testing() {
  std::lock_guard guard(lock());
  seen().clear();
}

namespace {
std::atomic<unsigned> closed_at_start{0};  // bit fd for fd 0..2
}  // namespace

void note_started_without(int fd) noexcept {
  if (fd >= 0 && fd <= 2) closed_at_start.fetch_or(1u << fd, std::memory_order_relaxed);
}

bool started_without(int fd) noexcept {
  return fd >= 0 && fd <= 2 && (closed_at_start.load(std::memory_order_relaxed) & (1u << fd)) != 0;
}

}  // namespace takt::os
