// Which explicit gateway URLs are this machine's loopback address (cli::own_loopback_port: the local
// token may go there when the port is the local gateway's), and ChatRenderer::printed (whether a run
// left part of a reply on the screen, for the mark `pincer chat` puts on a reply a gateway kill cut).
#include <sstream>

#include <gtest/gtest.h>

#include "cli/chat_renderer.h"
#include "cli/connection.h"

namespace pincer::cli {
namespace {

TEST(OwnLoopbackPort, LoopbackHostsWithTheirPort) {
  EXPECT_EQ(own_loopback_port("ws://127.0.0.1:18789"), 18789);
  EXPECT_EQ(own_loopback_port("ws://localhost:4000/"), 4000);
  EXPECT_EQ(own_loopback_port("ws://LOCALHOST:4000?x=1"), 4000);
  EXPECT_EQ(own_loopback_port("ws://[::1]:5000/path"), 5000);
  EXPECT_EQ(own_loopback_port("ws://127.0.0.1"), 80);
  EXPECT_EQ(own_loopback_port("wss://localhost"), 443);
}

TEST(OwnLoopbackPort, AnythingElseIsNot) {
  for (const char* url : {"ws://example.com:18789", "ws://127.0.0.2:18789", "ws://127.0.0.1.example.com:18789",
                          "ws://user@127.0.0.1:18789", "http://127.0.0.1:18789", "ws://127.0.0.1:", "ws://127.0.0.1:0",
                          "ws://127.0.0.1:99999", "ws://127.0.0.1:12ab", "ws://[::1", "ws://[::1]x", "ws://", ""}) {
    EXPECT_EQ(own_loopback_port(url), std::nullopt) << url;
  }
}

TEST(ChatRendererPrinted, OnlyOnceSomethingOfTheRunIsOnTheScreen) {
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("r1");
  EXPECT_FALSE(r.printed());
  r.on_event("agent", {{"runId", "other"}, {"stream", "assistant"}, {"data", {{"delta", "x"}}}});
  EXPECT_FALSE(r.printed());  // another run's text is not shown
  r.on_event("agent", {{"runId", "r1"}, {"stream", "assistant"}, {"data", {{"delta", "Draft"}}}});
  EXPECT_TRUE(r.printed());
  r.begin_run("r2");
  EXPECT_FALSE(r.printed());
  r.on_event("agent", {{"runId", "r2"}, {"stream", "tool"}, {"data", {{"phase", "start"}, {"name", "read"}}}});
  EXPECT_TRUE(r.printed());
}

}  // namespace
}  // namespace pincer::cli
