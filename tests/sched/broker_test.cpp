// Tests of the Broker: topics with reference counts, subscriptions, the single-responder rule.
#include "sched/broker.hpp"
#include "sched/topics.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace takt::sched;

namespace {
struct Ping {
  int value = 0;
};
struct Other {};
}  // namespace

TEST(Broker, TopicsAreCountedAndRemovedAtZero) {
  Broker broker;
  const Topic<Ping> a = broker.add_topic<Ping>("PING", "a test topic", 42);
  const Topic<Ping> b = broker.add_topic<Ping>("PING", "a test topic", 42);
  EXPECT_EQ(a.id, b.id);
  ASSERT_TRUE(broker.topic("PING"));
  EXPECT_EQ(broker.topic("PING")->references, 2u);
  EXPECT_EQ(broker.topic("PING")->description, "a test topic");
  EXPECT_FALSE(broker.remove_topic("PING"));  // one reference left
  EXPECT_TRUE(broker.topic("PING"));
  EXPECT_TRUE(broker.remove_topic("PING"));
  EXPECT_FALSE(broker.topic("PING"));
  // A handle that outlived its topic is refused.
  EXPECT_THROW(broker.notify(a, Ping{}), std::invalid_argument);
  EXPECT_THROW(broker.remove_topic("PING"), takt::Error);
}

TEST(Broker, RejectsConflictingRegistrations) {
  Broker broker;
  broker.add_topic<Ping>("PING", "", 42);
  EXPECT_THROW(broker.add_topic<Ping>("PING", "", 43), takt::Error);   // other uuid
  EXPECT_THROW(broker.add_topic<Other>("PING", "", 42), takt::Error);  // other type
  EXPECT_THROW(broker.add_topic<Ping>("PONG", "", 42), takt::Error);   // uuid taken
  EXPECT_FALSE(broker.find<Other>("PING").valid());
  EXPECT_TRUE(broker.find<Ping>("PING").valid());
}

TEST(Broker, RemovedSlotsAreReusedWithANewUuidCheck) {
  Broker broker;
  const Topic<Ping> first = broker.add_topic<Ping>("FIRST", "", 1);
  broker.remove_topic("FIRST");
  const Topic<Ping> second = broker.add_topic<Ping>("SECOND", "", 2);
  EXPECT_EQ(first.id, second.id);                                     // the simple id is an index, reused
  EXPECT_THROW(broker.notify(first, Ping{}), std::invalid_argument);  // the uuid tells them apart
  EXPECT_NO_THROW(broker.notify(second, Ping{}));
  // The same uuid registered again for another message type in the same slot: the old
  // handle passed the uuid check and called Other's subscribers with a Ping.
  broker.remove_topic("SECOND");
  const Topic<Other> third = broker.add_topic<Other>("THIRD", "", 2);
  EXPECT_EQ(third.id, second.id);
  int owner = 0;
  bool called = false;
  broker.subscribe(third, &owner, [&](const Other&) { called = true; });
  EXPECT_THROW(broker.notify(second, Ping{}), std::invalid_argument);
  EXPECT_FALSE(called);
  Ping asked;
  EXPECT_THROW((void)broker.request(second, asked), std::invalid_argument);
  EXPECT_NO_THROW(broker.notify(third, Other{}));
  EXPECT_TRUE(called);
}

TEST(Broker, NotifiesEverySubscriberInOrderAndWithdrawsByOwner) {
  Broker broker;
  const Topic<Ping> topic = broker.add_topic<Ping>("PING", "", 42);
  std::vector<std::string> calls;
  int owner_a = 0, owner_b = 0;
  broker.subscribe(topic, &owner_a, [&](const Ping& p) { calls.push_back("a" + std::to_string(p.value)); });
  broker.subscribe(topic, &owner_b, [&](const Ping& p) { calls.push_back("b" + std::to_string(p.value)); });
  broker.notify(topic, Ping{1});
  EXPECT_EQ(calls, (std::vector<std::string>{"a1", "b1"}));
  EXPECT_EQ(broker.topic("PING")->subscribers, 2u);
  broker.withdraw(&owner_a);
  broker.notify(topic, Ping{2});
  EXPECT_EQ(calls, (std::vector<std::string>{"a1", "b1", "b2"}));
}

TEST(Broker, ExactlyOneResponderAnswers) {
  Broker broker;
  const Topic<Ping> topic = broker.add_topic<Ping>("PING", "", 42);
  Ping question{5};
  EXPECT_FALSE(broker.request(topic, question));  // nobody responds yet
  EXPECT_FALSE(broker.has_responder(topic));
  int first = 0, second = 0;
  broker.respond(topic, &first, "doubler", [](Ping& p) {
    p.value *= 2;
    return true;
  });
  EXPECT_TRUE(broker.request(topic, question));
  EXPECT_EQ(question.value, 10);
  EXPECT_EQ(broker.topic("PING")->responder, "doubler");
  // A second responder is refused, and the message names the first.
  try {
    broker.respond(topic, &second, "tripler", [](Ping&) { return true; });
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("doubler"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exactly one"), std::string::npos) << e.what();
  }
  // The same owner may replace its own answer; after withdrawing, another may respond.
  broker.respond(topic, &first, "doubler", [](Ping& p) {
    p.value += 1;
    return true;
  });
  EXPECT_TRUE(broker.request(topic, question));
  EXPECT_EQ(question.value, 11);
  broker.withdraw(&first);
  EXPECT_FALSE(broker.request(topic, question));
  broker.respond(topic, &second, "tripler", [](Ping& p) {
    p.value *= 3;
    return true;
  });
  EXPECT_TRUE(broker.request(topic, question));
  EXPECT_EQ(question.value, 33);
}

TEST(Broker, BuiltinTopicsHaveTheirFixedHandles) {
  Broker broker;
  register_builtin_topics(broker);
  EXPECT_EQ(broker.topics().size(), 13u);
  EXPECT_EQ(broker.find<AffinityMessage>("AFFINITY").id, topics::affinity.id);
  EXPECT_EQ(broker.find<TaskEvent>("DISPATCH").uuid, topics::dispatch.uuid);
  EXPECT_EQ(broker.find<TimeMessage>("TIME").id, topics::time.id);
  Broker used;
  used.add_topic<Ping>("PING", "", 42);
  EXPECT_THROW(register_builtin_topics(used), std::logic_error);
}
