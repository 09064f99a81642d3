// The broker topics every scheduler registers, and their message types.
#include "sched/topics.hpp"

#include <stdexcept>

namespace takt::sched {
namespace {

template <class Message>
void add(Broker& broker, Topic<Message> expected, std::string_view name, std::string_view description) {
  const Topic<Message> got = broker.add_topic<Message>(name, description, expected.uuid);
  if (got.id != expected.id) {
    throw std::logic_error("built-in topics must be registered on an empty broker");
  }
}

}  // namespace

void register_builtin_topics(Broker& broker) {
  add(broker, topics::admit, "ADMIT", "a task was admitted and entered the topology");
  add(broker, topics::dispatch, "DISPATCH", "a task was dispatched to a processing element");
  add(broker, topics::relinquish, "RELINQUISH", "a running task gave its processing element back");
  add(broker, topics::block, "BLOCK", "a task stopped being considered (blocked)");
  add(broker, topics::unblock, "UNBLOCK", "a blocked task is schedulable again");
  add(broker, topics::exit, "EXIT", "a task left the framework");
  add(broker, topics::affinity, "AFFINITY", "task affinities: cluster and processing element");
  add(broker, topics::lamport, "LAMPORT", "Lamport stamps: the admission order of tasks");
  add(broker, topics::status, "STATUS", "pipe loads");
  add(broker, topics::cpu_status, "CPU_STATUS", "a processing element came or went");
  add(broker, topics::time, "TIME", "the current time, sent by the runtime system or a simulator");
  add(broker, topics::marker, "MARKER", "trace points");
  add(broker, topics::reconfigured, "RECONFIGURED", "a reconfiguration finished");
}

}  // namespace takt::sched
