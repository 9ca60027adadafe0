// The webhook channel's answer to a replayed signature (src/channels/webhook/webhook_channel.h): a
// sender's retry re-sent within the same second signs the same bytes, so its signature repeats.
// When the request is otherwise valid and its messageId is already taken, it is answered as any
// retry (the stored reply); a replay without a messageId, or with one not taken, stays 409.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "channels/webhook/webhook_channel.h"
#include "core/clock.h"

namespace pincer::channels::webhook {
namespace webhook_replay_retry_test {
namespace {

using nlohmann::json;

const std::string kSecret = "webhook-unit-secret-0123456789";

struct RecordingHost : ChannelHost {
  std::vector<InboundMessage> inbound;
  InboundOutcome on_inbound(InboundMessage message) override {
    if (message.sender_id == "stranger") return InboundOutcome::Dropped;  // access policy
    inbound.push_back(std::move(message));
    return InboundOutcome::Accepted;
  }
};

struct Answer {
  int status = 0;
  json body;
};

class WebhookReplayRetryTest : public ::testing::Test {
 protected:
  WebhookReplayRetryTest() : channel_(loop_, settings()) { channel_.start(host_, nullptr); }

  static WebhookSettings settings() {
    WebhookSettings s;
    s.secret = kSecret;
    return s;  // sync, memory-only records
  }

  /// POSTs `body` signed at `ts`; the answer is set when given (at once, or on the agent's reply).
  std::shared_ptr<std::optional<Answer>> post(const std::string& body, const std::string& ts) {
    net::HttpRouteRequest req;
    req.method = "POST";
    req.path = "/webhook";
    req.body = body;
    req.remote_address = "127.0.0.1";
    req.headers = {{"content-type", "application/json"},
                   {"x-pincer-timestamp", ts},
                   {"x-pincer-signature", signature(kSecret, ts, body)}};
    auto out = std::make_shared<std::optional<Answer>>();
    channel_.route().handle(req, [out](net::HttpRouteResponse r) { *out = Answer{r.status, json::parse(r.body)}; });
    return out;
  }

  /// The agent's reply to the last inbound message.
  void reply(const std::string& text) {
    const InboundMessage& m = host_.inbound.back();
    channel_.send_text(OutboundMessage{m.chat_id, "", text, {}, m.message_id}, [](Result<std::string>) {});
  }

  EventLoop loop_{1};
  RecordingHost host_;
  WebhookChannel channel_;
};

TEST_F(WebhookReplayRetryTest, ASameSecondRetryOfAKnownMessageIdGetsItsReply) {
  const std::string ts = std::to_string(SystemClock::instance().wall_ms() / 1000);
  const std::string body = json{{"text", "hello"}, {"senderId", "svc"}, {"messageId", "m-1"}}.dump();
  // The first request waits for the agent's reply.
  auto first = post(body, ts);
  ASSERT_FALSE(*first) << (*first)->body.dump();
  ASSERT_EQ(host_.inbound.size(), 1u);
  reply("the answer");
  ASSERT_TRUE(*first);
  EXPECT_EQ((*first)->status, 200) << (*first)->body.dump();

  // The same bytes again, same second: the same signature. Answered as the retry it is.
  const auto again = *post(body, ts);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body.dump();
  EXPECT_EQ(again->body, (json{{"ok", true}, {"duplicate", true}, {"conversationId", "svc"}, {"reply", "the answer"}}));
  EXPECT_EQ(host_.inbound.size(), 1u) << "never run again";
}

TEST_F(WebhookReplayRetryTest, AReplayWithoutAKnownMessageIdIsStillRefused) {
  const std::string ts = std::to_string(SystemClock::instance().wall_ms() / 1000);
  // No messageId: nothing tells a retry from a replay.
  const std::string plain = json{{"text", "hello"}, {"senderId", "svc"}}.dump();
  ASSERT_FALSE(*post(plain, ts));
  reply("first");
  const auto replay = *post(plain, ts);
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->status, 409) << replay->body.dump();
  EXPECT_NE(replay->body.value("error", "").find("replayed"), std::string::npos);
  EXPECT_EQ(host_.inbound.size(), 1u);

  // A messageId this hook never took: still a replay. The first copy had a blank text (400), so
  // its messageId was never recorded.
  const std::string blank = json{{"text", " "}, {"senderId", "svc"}, {"messageId", "m-2"}}.dump();
  const auto bad = *post(blank, ts);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400) << bad->body.dump();
  const auto bad_again = *post(blank, ts);
  ASSERT_TRUE(bad_again);
  EXPECT_EQ(bad_again->status, 409) << bad_again->body.dump();
  // A valid one whose messageId was not taken (refused by the access policy, then forgotten).
  const std::string refused = json{{"text", "let me in"}, {"senderId", "stranger"}, {"messageId", "m-3"}}.dump();
  const auto no = *post(refused, ts);
  ASSERT_TRUE(no);
  EXPECT_EQ(no->status, 403) << no->body.dump();
  const auto no_again = *post(refused, ts);
  ASSERT_TRUE(no_again);
  EXPECT_EQ(no_again->status, 409) << no_again->body.dump();
  EXPECT_EQ(host_.inbound.size(), 1u);
}

}  // namespace
}  // namespace webhook_replay_retry_test
}  // namespace pincer::channels::webhook
