// The recorder of the calling thread: attached once, found again from anywhere on that thread, closed when the thread exits.
//
// Policies record from threads they do not write the loop of (a runtime pool's
// workers): such a thread attaches in its start hook, code that runs on it later (a
// job's start, a strand event, a scheduler call) finds the handle with
// current_recorder(), and the handle is closed on that thread when it exits (a
// thread_local destructor), so its CPU time and context switches are captured.
#pragma once

#include "platform/recorder.hpp"

#include <string_view>

namespace takt::platform {

/// Attaches the calling thread to `recorder` as `name`, makes it the thread's
/// current_recorder(), and closes it when the thread exits (or at detach_current_recorder()).
/// Returns nullptr when every slot is taken (then nothing is recorded for the thread).
ThreadRecorder* attach_current_thread(Recorder& recorder, std::string_view name) noexcept;

/// The handle attached by attach_current_thread() on this thread, or nullptr.
ThreadRecorder* current_recorder() noexcept;

/// Closes the calling thread's handle now and forgets it.
void detach_current_recorder() noexcept;

}  // namespace takt::platform
