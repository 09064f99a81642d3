// Broker: topic-based publish-subscribe plus requests answered by one responder.
#include "sched/broker.hpp"

#include "takt/error.hpp"

#include <algorithm>
#include <stdexcept>

namespace takt::sched {

std::uint32_t Broker::add_topic_impl(std::string_view name, std::string_view description, std::uint64_t uuid,
                                     std::type_index type) {
  if (name.empty()) throw takt::Error("a broker topic needs a name");
  if (uuid == 0) throw takt::Error("topic '" + std::string(name) + "' needs a non-zero unique id");
  for (Slot& slot : slots_) {
    if (slot.uuid == 0) continue;
    if (slot.name == name) {
      if (slot.uuid != uuid || slot.type != type) {
        throw takt::Error("topic '" + std::string(name) +
                          "' is already registered with another unique id or message type");
      }
      ++slot.references;
      return slot.id;
    }
    if (slot.uuid == uuid) {
      throw takt::Error("topic '" + std::string(name) + "': unique id " + std::to_string(uuid) +
                        " is already used by topic '" + slot.name + "'");
    }
  }
  auto free = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.uuid == 0; });
  if (free == slots_.end()) {
    slots_.emplace_back();
    free = slots_.end() - 1;
    free->id = static_cast<std::uint32_t>(slots_.size() - 1);
  }
  free->uuid = uuid;
  free->type = type;
  free->name = std::string(name);
  free->description = std::string(description);
  free->references = 1;
  return free->id;
}

bool Broker::remove_topic(std::string_view name) {
  for (Slot& slot : slots_) {
    if (slot.uuid == 0 || slot.name != name) continue;
    if (--slot.references > 0) return false;
    const std::uint32_t id = slot.id;
    slot = Slot{};
    slot.id = id;
    return true;
  }
  throw takt::Error("no broker topic named '" + std::string(name) + "'");
}

const Broker::Slot* Broker::slot_by_name(std::string_view name) const {
  for (const Slot& slot : slots_) {
    if (slot.uuid != 0 && slot.name == name) return &slot;
  }
  return nullptr;
}

void Broker::stale_handle(std::uint32_t id) {
  throw std::invalid_argument("broker: stale or invalid topic handle (id " + std::to_string(id) + ")");
}

Broker::Slot& Broker::checked(std::uint32_t id, std::uint64_t uuid, std::type_index type) {
  Slot& slot = const_cast<Slot&>(static_cast<const Broker*>(this)->checked(id, uuid));
  if (slot.type != type) {
    throw std::invalid_argument("broker: topic '" + slot.name + "' used with another message type");
  }
  return slot;
}

void Broker::set_responder(Slot& slot, Owner owner, std::string_view owner_name,
                           std::function<bool(void*)> callback) {
  if (slot.responder && slot.responder_owner != owner) {
    throw takt::Error("topic '" + slot.name + "' already has a responder ('" + slot.responder_name + "'); '" +
                      std::string(owner_name) +
                      "' cannot respond too: a topic is answered by exactly one responder");
  }
  slot.responder_owner = owner;
  slot.responder_name = std::string(owner_name);
  slot.responder = std::move(callback);
}

void Broker::withdraw(Owner owner) {
  for (Slot& slot : slots_) {
    if (slot.uuid == 0) continue;
    std::erase_if(slot.subscribers, [owner](const Subscription& s) { return s.owner == owner; });
    if (slot.responder && slot.responder_owner == owner) {
      slot.responder = nullptr;
      slot.responder_owner = nullptr;
      slot.responder_name.clear();
    }
  }
}

TopicInfo Broker::info(const Slot& slot) {
  return TopicInfo{slot.id,
                   slot.uuid,
                   slot.name,
                   slot.description,
                   slot.references,
                   slot.subscribers.size(),
                   slot.responder ? slot.responder_name : std::string()};
}

std::optional<TopicInfo> Broker::topic(std::string_view name) const {
  const Slot* slot = slot_by_name(name);
  if (slot == nullptr) return std::nullopt;
  return info(*slot);
}

std::vector<TopicInfo> Broker::topics() const {
  std::vector<TopicInfo> out;
  for (const Slot& slot : slots_) {
    if (slot.uuid != 0) out.push_back(info(slot));
  }
  return out;
}

}  // namespace takt::sched
