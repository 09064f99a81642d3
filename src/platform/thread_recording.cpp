// The recorder of the calling thread: attached once, found again from anywhere on that thread, closed when the thread exits.
#include "platform/thread_recording.hpp"

namespace takt::platform {
namespace {

struct Attachment {
  ThreadRecorder* recorder = nullptr;
  ~Attachment() {
    if (recorder != nullptr) recorder->close();
  }
};

thread_local Attachment attachment;

}  // namespace

ThreadRecorder* attach_current_thread(Recorder& recorder, std::string_view name) noexcept {
  detach_current_recorder();
  attachment.recorder = recorder.attach(name);
  return attachment.recorder;
}

ThreadRecorder* current_recorder() noexcept { return attachment.recorder; }

void detach_current_recorder() noexcept {
  if (attachment.recorder != nullptr) attachment.recorder->close();
  attachment.recorder = nullptr;
}

}  // namespace takt::platform
