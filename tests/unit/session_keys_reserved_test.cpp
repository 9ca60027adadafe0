// The internal session namespaces an outside client may not name (store/session_keys.h).
#include <gtest/gtest.h>

#include "store/session_keys.h"

namespace pincer::store {
namespace {

TEST(ReservedSessionNamespace, InternalNamespacesWithOrWithoutTheAgentPrefix) {
  EXPECT_EQ(reserved_session_namespace("subagent:x"), "subagent:");
  EXPECT_EQ(reserved_session_namespace("agent:main:subagent:1234"), "subagent:");
  EXPECT_EQ(reserved_session_namespace("  Agent:Work:CRON:nightly"), "cron:");
  EXPECT_EQ(reserved_session_namespace("acp:abc"), "acp:");
  EXPECT_EQ(reserved_session_namespace("agent:main:main"), std::nullopt);
  EXPECT_EQ(reserved_session_namespace("acp-bridge:abc"), std::nullopt);
  EXPECT_EQ(reserved_session_namespace("agent:main:openai-user:subagent"), std::nullopt);
  EXPECT_EQ(reserved_session_namespace(""), std::nullopt);
}

}  // namespace
}  // namespace pincer::store
