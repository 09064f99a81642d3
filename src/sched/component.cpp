// Component and Instance: scheduling code (stateless, registered by name) and its stateful instances.
#include "sched/component.hpp"

#include "sched/pipe.hpp"
#include "sched/writer.hpp"

#include <algorithm>
#include <mutex>

namespace takt::sched {

std::string describe_classes(unsigned classes) {
  static const std::pair<unsigned, const char*> names[] = {
      {filtering, "filtering"},         {ordering, "ordering"},     {distributing, "distributing"},
      {consolidating, "consolidating"}, {annotating, "annotating"},
  };
  std::string out;
  for (const auto& [bit, name] : names) {
    if ((classes & bit) == 0) continue;
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out.empty() ? std::string("neutral") : out;
}

const std::vector<Pipe*>& InstanceContext::port(std::string_view name) const {
  static const std::vector<Pipe*> none;
  for (const PortBinding& binding : ports) {
    if (binding.port == name) return binding.pipes;
  }
  return none;
}

Pipe* InstanceContext::single(std::string_view name) const {
  const auto& pipes = port(name);
  return pipes.empty() ? nullptr : pipes.front();
}

const PortInfo* ComponentInfo::find_port(std::string_view port) const {
  for (const PortInfo& p : ports) {
    if (p.name == port) return &p;
  }
  return nullptr;
}

const ParamInfo* ComponentInfo::find_param(std::string_view param) const {
  for (const ParamInfo& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

Instance::Instance(InstanceContext context) : ctx_(std::move(context)) {
  for (const PortBinding& binding : ctx_.ports) {
    const PortInfo* port = ctx_.component->find_port(binding.port);
    if (port == nullptr || port->direction != PortInfo::Direction::input) continue;
    inputs_.insert(inputs_.end(), binding.pipes.begin(), binding.pipes.end());
  }
  std::sort(inputs_.begin(), inputs_.end(),
            [](const Pipe* a, const Pipe* b) { return a->rank() < b->rank(); });
  several_inputs_ = inputs_.size() > 1;
}

Instance::~Instance() = default;

void Instance::pipe_update(Pipe& input, Writer&) { (void)input; }
void Instance::task_construct(Task&) {}
void Instance::task_destruct(Task&) {}
void Instance::task_enter(Task&) {}
void Instance::connect(Broker&) {}
std::vector<std::pair<std::string, std::uint64_t>> Instance::counters() const { return {}; }

InstanceStats Instance::stats() const {
  return InstanceStats{ctx_.name,
                       ctx_.component->name,
                       updates_.load(std::memory_order_relaxed),
                       Time{total_ns_.load(std::memory_order_relaxed)},
                       Time{max_ns_.load(std::memory_order_relaxed)},
                       counters()};
}

void Instance::run_update(Pipe& input) noexcept {
  if (several_inputs_) lock_.lock();
  const Time start = update_start();
  {
    Writer out(false);  // finishes (flushes, unlocks) when it goes
    pipe_update(input, out);
  }
  update_done(start);
  if (several_inputs_) lock_.unlock();
}

void Instance::time_known(Time) noexcept {}

void Instance::offer_inputs_as_new() noexcept {
  const Time start = update_start();
  bool offered = false;
  {
    // One Writer for every input, which flushes nothing (the swap flushes the outputs
    // after the last input), so a task the swap removed from an output meets its new
    // add there whichever input brought it.
    Writer out(true);
    for (Pipe* input : inputs_) {
      input->mark_all_added();
      if (input->has_changes()) {
        pipe_update(*input, out);
        offered = true;
      }
      input->clear_changes();
    }
  }
  if (offered) update_done(start);
}

Time Instance::update_start() const noexcept {
  const Instrumentation* ins = ctx_.instrumentation;
  return ins != nullptr && ins->clock ? ins->clock() : Time{0};
}

void Instance::update_done(Time start) noexcept {
  // The counters are written only by the holder of the input (or instance) lock,
  // so a load and a store suffice; atomics keep concurrent stats() readers exact.
  updates_.store(updates_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  const Instrumentation* ins = ctx_.instrumentation;
  if (ins == nullptr || !ins->clock) return;
  const Time duration = ins->clock() - start;
  total_ns_.store(total_ns_.load(std::memory_order_relaxed) + duration.count(), std::memory_order_relaxed);
  if (duration.count() > max_ns_.load(std::memory_order_relaxed)) {
    max_ns_.store(duration.count(), std::memory_order_relaxed);
  }
  if (ins->on_update) ins->on_update(*this, start, duration);
}

void Instance::update_from_notification(const std::function<void(Writer&)>& fn) noexcept {
  for (Pipe* input : inputs_) input->lock();
  const bool several = several_inputs_;
  if (several) lock_.lock();
  {
    Writer out(false);
    fn(out);
    out.finish();
  }
  if (several) lock_.unlock();
  for (auto it = inputs_.rbegin(); it != inputs_.rend(); ++it) (*it)->unlock();
}

}  // namespace takt::sched
