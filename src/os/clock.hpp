// Clocks: monotonic time, absolute-time sleeps, thread and process CPU time.
#pragma once

#include <chrono>
#include <string>

namespace takt::os {

/// CLOCK_MONOTONIC now, as time since an arbitrary fixed point (boot).
std::chrono::nanoseconds monotonic_now();

/// Sleeps until CLOCK_MONOTONIC reaches `when` (clock_nanosleep, TIMER_ABSTIME), so
/// that periodic releases do not drift. A signal handler that runs meanwhile (takt's
/// SIGINT/SIGTERM stop, installed for the whole process) does not end the sleep early:
/// it is resumed until `when`. Returns at once for a time in the past.
void sleep_until(std::chrono::nanoseconds when);

/// CPU time consumed by the calling thread (CLOCK_THREAD_CPUTIME_ID).
std::chrono::nanoseconds thread_cpu_time();
/// CPU time consumed by the whole process (CLOCK_PROCESS_CPUTIME_ID).
std::chrono::nanoseconds process_cpu_time();

/// The wall-clock time now in UTC, formatted by strftime's `format` (at most 63
/// characters of result): "%Y-%m-%d" gives the date, "%Y-%m-%dT%H:%M:%SZ" ISO 8601.
std::string utc_now(const char* format);

/// Spins (no sleep, no yield) until CLOCK_MONOTONIC has advanced by `duration`.
void spin_for(std::chrono::nanoseconds duration);

}  // namespace takt::os
