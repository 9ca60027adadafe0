// Telegram forum topics in routing and the session store (issue 11 §13): OpenClaw's key shape
// "agent:<a>:telegram:group:<chat>:topic:<topic>" (src/telegram/bot/helpers.ts
// buildTelegramGroupPeerId), bindings that name one topic or inherit the chat's, and the sessions
// earlier Pincer versions kept under ":thread:<topic>".
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/ids.h"
#include "routing/bindings.h"
#include "routing/session_routing.h"
#include "store/session_index.h"
#include "store/session_keys.h"

namespace pincer::routing {
namespace {

// Telegram forum topics (OpenClaw buildTelegramGroupPeerId): the topic is part of the peer, so a
// binding can name one topic and the others inherit the group's binding as their parent.
TEST(SessionRouting, TelegramTopicsAreTheirOwnPeerAndInheritTheGroupsBinding) {
  RoutingConfig config;
  config.agents.agent_ids = {"main", "ops", "support"};
  Binding topic;
  topic.agent_id = "support";
  topic.match.channel = "telegram";
  topic.match.peer = BindingPeer{"group", "-100123:topic:42"};
  Binding group;
  group.agent_id = "ops";
  group.match.channel = "telegram";
  group.match.peer = BindingPeer{"group", "-100123"};
  config.bindings = {group, topic};
  RouteInput in;
  in.channel = "telegram";
  in.peer = Peer{PeerKind::Group, telegram_topic_peer_id("-100123", "42")};
  in.parent_peer = Peer{PeerKind::Group, "-100123"};
  auto r = resolve_route(config, in);
  EXPECT_EQ(r.agent_id, "support") << "a binding names one topic";
  EXPECT_EQ(r.matched_by, MatchedBy::Peer);
  EXPECT_EQ(r.session_key, "agent:support:telegram:group:-100123:topic:42");
  in.peer = Peer{PeerKind::Group, telegram_topic_peer_id("-100123", "1")};  // the General topic
  r = resolve_route(config, in);
  EXPECT_EQ(r.agent_id, "ops") << "other topics inherit the group's binding";
  EXPECT_EQ(r.matched_by, MatchedBy::PeerParent);
  EXPECT_EQ(r.session_key, "agent:ops:telegram:group:-100123:topic:1");
}

// Pincer used to key forum topics "…:group:<chat>:thread:<topic>": those sessions stay reachable
// under OpenClaw's "…:topic:<topic>" (migrated on the next save), and only that shape is rewritten.
TEST(SessionRouting, OldTelegramThreadKeysOfTopicsBecomeTopicKeys) {
  using store::canonical_store_key;
  EXPECT_EQ(canonical_store_key(" agent:main:telegram:group:-100123:thread:42 "), "agent:main:telegram:group:-100123:topic:42");
  EXPECT_EQ(canonical_store_key("agent:main:telegram:group:-100123:topic:42"), "agent:main:telegram:group:-100123:topic:42");
  for (const char* kept : {"agent:main:telegram:direct:5:thread:9", "agent:main:slack:channel:c1:thread:17",
                           "agent:main:main:thread:abc", "agent:main:telegram:group:-1:topic:2:thread:3",
                           "agent:main:telegram:group::thread:3"}) {
    EXPECT_EQ(canonical_store_key(kept), kept);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-topic-" + ids::uuid_v4());
  std::filesystem::create_directories(dir);
  const auto file = dir / "sessions.json";
  std::ofstream(file) << R"({"agent:main:telegram:group:-100123:thread:42": {"sessionId": "s-old", "updatedAt": 5}})";
  SystemClock& clock = SystemClock::instance();
  store::SessionIndex index(file, clock);
  ASSERT_TRUE(index.load());
  const auto* entry = index.get("agent:main:telegram:group:-100123:topic:42");
  ASSERT_NE(entry, nullptr) << "the old topic session is found under the new key";
  EXPECT_EQ(entry->session_id(), "s-old");
  ASSERT_NE(index.get("agent:main:telegram:group:-100123:thread:42"), nullptr) << "and under the old one";
  ASSERT_TRUE(index.save());
  std::ifstream in(file);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("\"agent:main:telegram:group:-100123:topic:42\""), std::string::npos) << saved;
  EXPECT_EQ(saved.find(":thread:"), std::string::npos) << saved;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pincer::routing
