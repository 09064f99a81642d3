// Broker: topic-based publish-subscribe plus requests answered by one responder.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <vector>

namespace takt::sched {

/// A typed handle of a registered topic: `id` indexes the broker's table, `uuid`
/// guards against a handle that outlived its topic (dissertation §7.1.1: the simple
/// identifier is an index, the unique identifier a check).
template <class Message>
struct Topic {
  std::uint32_t id = UINT32_MAX;
  std::uint64_t uuid = 0;
  constexpr bool valid() const noexcept { return id != UINT32_MAX; }
};

/// What the broker knows about a topic.
struct TopicInfo {
  std::uint32_t id = 0;
  std::uint64_t uuid = 0;
  std::string name;
  std::string description;
  std::size_t references = 0;  ///< registrations; the topic goes away at zero
  std::size_t subscribers = 0;
  std::string responder;  ///< name of the responding owner, empty if none
};

/// The notification system of CoBaS (dissertation §5.4, §7.1.1). Topics are
/// registered and removed at run time and counted: add_topic() on an existing topic
/// adds a reference, remove_topic() drops one, and the topic disappears when none
/// is left. Anyone (component instances, the runtime system) subscribes to a topic
/// and is called on every notify(); exactly one owner may register as the topic's
/// responder and answers every request().
///
/// Messages are plain structs, opaque to the broker; a topic is bound to one message
/// type, checked when a handle is used.
///
/// Thread safety: the broker itself takes no lock. Inside a Scheduler, notify() and
/// request() run under the reconfiguration lock held shared and every change of the
/// tables under it held exclusively (Scheduler's broker functions do this).
class Broker {
 public:
  /// Subscriptions and responders are grouped by owner (an instance, the runtime
  /// system) so that they can be withdrawn together.
  using Owner = const void*;

  /// Registers `name` or adds a reference to it. Throws takt::Error when `name`
  /// exists with another uuid or message type.
  template <class Message>
  Topic<Message> add_topic(std::string_view name, std::string_view description, std::uint64_t uuid) {
    const std::uint32_t id = add_topic_impl(name, description, uuid, typeid(Message));
    return Topic<Message>{id, uuid};
  }

  /// Drops one reference to `name`; returns true when that removed the topic (its
  /// subscribers and responder go with it). Throws takt::Error for an unknown name.
  bool remove_topic(std::string_view name);

  /// The handle of a registered topic (invalid handle if unknown or of another type).
  template <class Message>
  Topic<Message> find(std::string_view name) const {
    const auto* slot = slot_by_name(name);
    if (slot == nullptr || slot->type != std::type_index(typeid(Message))) return {};
    return Topic<Message>{slot->id, slot->uuid};
  }

  std::optional<TopicInfo> topic(std::string_view name) const;
  std::vector<TopicInfo> topics() const;

  template <class Message>
  void subscribe(Topic<Message> topic, Owner owner,
                 std::type_identity_t<std::function<void(const Message&)>> callback) {
    Slot& slot = checked(topic.id, topic.uuid, typeid(Message));
    slot.subscribers.push_back(
        {owner, [cb = std::move(callback)](const void* m) { cb(*static_cast<const Message*>(m)); }});
  }

  /// Registers `owner` as the single responder of `topic`; throws takt::Error if
  /// another owner already responds (naming it). `owner_name` is for messages.
  template <class Message>
  void respond(Topic<Message> topic, Owner owner, std::string_view owner_name,
               std::type_identity_t<std::function<bool(Message&)>> callback) {
    Slot& slot = checked(topic.id, topic.uuid, typeid(Message));
    set_responder(slot, owner, owner_name,
                  [cb = std::move(callback)](void* m) { return cb(*static_cast<Message*>(m)); });
  }

  /// Removes every subscription and responder of `owner`.
  void withdraw(Owner owner);

  /// Calls every subscriber of `topic` with `message`, in subscription order.
  template <class Message>
  void notify(Topic<Message> topic, const Message& message) const {
    const Slot& slot = checked<Message>(topic);
    for (const auto& s : slot.subscribers) s.callback(&message);
  }

  /// Asks the responder of `topic`; the message carries the question in and the
  /// answer out. Returns false when the topic has no responder or it declined.
  template <class Message>
  bool request(Topic<Message> topic, Message& message) const {
    const Slot& slot = checked<Message>(topic);
    return slot.responder ? slot.responder(&message) : false;
  }

  template <class Message>
  bool has_subscribers(Topic<Message> topic) const {
    return !checked(topic.id, topic.uuid).subscribers.empty();
  }
  template <class Message>
  bool has_responder(Topic<Message> topic) const {
    return static_cast<bool>(checked(topic.id, topic.uuid).responder);
  }

 private:
  struct Subscription {
    Owner owner;
    std::function<void(const void*)> callback;
  };
  struct Slot {
    std::uint32_t id = 0;
    std::uint64_t uuid = 0;  // 0: free slot
    std::type_index type = typeid(void);
    std::string name;
    std::string description;
    std::size_t references = 0;
    std::vector<Subscription> subscribers;
    Owner responder_owner = nullptr;
    std::string responder_name;
    std::function<bool(void*)> responder;
  };

  std::uint32_t add_topic_impl(std::string_view name, std::string_view description, std::uint64_t uuid,
                               std::type_index type);
  const Slot* slot_by_name(std::string_view name) const;
  // A handle's slot; the message type is checked where handles are made, where
  // callbacks are registered, and by notify and request (checked<Message>).
  Slot& checked(std::uint32_t id, std::uint64_t uuid, std::type_index type);
  const Slot& checked(std::uint32_t id, std::uint64_t uuid) const {
    if (id >= slots_.size() || slots_[id].uuid != uuid || uuid == 0) stale_handle(id);
    return slots_[id];
  }
  // notify and request also compare the message type: a retired uuid may be registered
  // again for another type in the same slot, and its old handle must not reach the new
  // subscribers with the old type.
  template <class Message>
  const Slot& checked(Topic<Message> topic) const {
    const Slot& slot = checked(topic.id, topic.uuid);
    if (slot.type != std::type_index(typeid(Message))) stale_handle(topic.id);
    return slot;
  }
  [[noreturn]] static void stale_handle(std::uint32_t id);
  void set_responder(Slot& slot, Owner owner, std::string_view owner_name,
                     std::function<bool(void*)> callback);
  static TopicInfo info(const Slot& slot);

  std::vector<Slot> slots_;
};

}  // namespace takt::sched
