// A recorded platform event: a release, skip, start, finish, strand, steal, preemption or migration.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace takt::platform {

enum class EventKind : std::uint8_t {
  release,       ///< a job became runnable; `aux` = when it became eligible (late under "wait")
  skip,          ///< a due release did not happen (overrun policy "skip", or pending at a stop)
  start,         ///< the job's first instruction
  finish,        ///< the job completed (flag `failed`: its run threw or returned an error; flag
                 ///< `cpu_timed`: `arg` = the CPU time its thread spent in it)
  strand_begin,  ///< a strand of the job starts (or resumes) executing on this core; `arg` = strand id
  strand_end,    ///< that strand stops executing on this core (flag `preempted`: it will resume;
                 ///< flag `cpu_timed`: `aux` = the CPU time its thread spent in the segment)
  steal,         ///< this core's worker stole work of the job; `arg` = the victim's CPU
  preemption,    ///< work of the job was preempted on this core; `arg` = strand id
  migration,     ///< work resumed on this core after running on another; `arg` = the previous CPU
};

/// Flag bits of Event::flags.
namespace event_flag {
inline constexpr std::uint8_t late = 1;           ///< release: later than its nominal time (overrun "wait")
inline constexpr std::uint8_t failed = 2;         ///< finish: the job failed
inline constexpr std::uint8_t preempted = 4;      ///< strand_end: the strand was preempted, not completed
inline constexpr std::uint8_t at_stop = 8;        ///< skip: the release was due but the run was stopping
inline constexpr std::uint8_t thread_moved = 16;  ///< migration: the OS moved the recording thread
/// finish: one thread ran the whole job (no strands) and `arg` is the CPU time it spent
/// in it (CLOCK_THREAD_CPUTIME_ID), which leaves out the time other threads preempted it;
/// strand_end: `aux` is the CPU time the thread spent in the segment (partitioned-dm)
inline constexpr std::uint8_t cpu_timed = 32;
}  // namespace event_flag

/// One event, 48 bytes, trivially copyable. Times are CLOCK_MONOTONIC.
struct Event {
  std::chrono::nanoseconds time{};     ///< when it happened
  std::chrono::nanoseconds release{};  ///< the nominal release of the job concerned (origin + offset + k·T)
  std::chrono::nanoseconds aux{};      ///< release: eligible time; cpu_timed strand_end: CPU time; else 0
  std::uint64_t job = 0;               ///< job index k
  std::uint64_t arg = 0;               ///< strand id, victim CPU or previous CPU (see EventKind)
  std::uint32_t task = 0;              ///< task index in the run's task list
  std::int16_t cpu = -1;               ///< CPU it happened on; -1: filled in by the recorder
  EventKind kind = EventKind::release;
  std::uint8_t flags = 0;
};

/// "release", "skip", ... (the names used in JSON and traces).
std::string_view to_string(EventKind kind);

}  // namespace takt::platform
