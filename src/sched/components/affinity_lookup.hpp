// affinity_of: a task's cluster and processing element as the AFFINITY responder sees them.
#pragma once

#include "sched/broker.hpp"
#include "sched/topics.hpp"

namespace takt::sched::components {

/// The task's affinity: the AFFINITY responder's answer (the affinity annotator,
/// which follows AFFINITY notifications) or, without a responder, the task's own
/// cluster and pe fields.
inline AffinityMessage affinity_of(const Broker& broker, Task& task) {
  AffinityMessage message{&task, task.cluster, task.pe};
  broker.request(topics::affinity, message);
  return message;
}

}  // namespace takt::sched::components
