// chat.send attachments with the real gateway and the mock LLM (issue 17 item 4, agent/attachments.h):
// a PNG reaches a model whose input includes "image" as an image part, a text-only model gets the
// notice instead, the transcript holds a media reference (never the base64), chat.history shows the
// image again, a later turn still sends it, and a mislabelled file is refused naming its index.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace chat_attachments_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "chat-attachments-test-token-0123456789";
// A 1x1 PNG.
const char* kPngB64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

std::string attach_slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string base64_of(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], abc[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += {abc[v >> 18], abc[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], '='};
  }
  return out;
}

class ChatAttachmentsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url(),
                                          .models = "{ id: 'eyes', input: ['text', 'image'] }, { id: 'x', input: ['text'] }"},
                             .primary = "mock/eyes",
                             .agents = ",\n    list: [ { id: 'main', default: true }, { id: 'blind', model: 'mock/x' } ]"}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(client_->recv());
    client_->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
                        {"params", connect_params(kToken, {"operator.admin", "operator.read", "operator.write"})}});
    auto res = client_->recv_response("c1");
    ASSERT_TRUE(res && (*res)["ok"] == true);
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  void wait_final(const std::string& run_id) {
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(30s);
      }
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] != "delta") {
        EXPECT_EQ(p["state"], "final") << f->dump();
        return;
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
  }
  json send(const std::string& session, const std::string& message, const json& attachments, const std::string& run_id) {
    return client_->request("chat.send", {{"sessionKey", session}, {"message", message}, {"attachments", attachments},
                                          {"idempotencyKey", run_id}});
  }
  /// The messages of the last generation request the mock received.
  json last_request_messages() {
    json all = json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body);
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      const json& body = (*it)["body"];
      if (body.is_object() && body.contains("messages")) return body["messages"];
    }
    return json::array();
  }
  std::string transcripts() {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(home_.path() / "agents")) {
      if (e.path().extension() == ".jsonl") all += attach_slurp(e.path());
    }
    return all;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ChatAttachmentsE2E, ImageReachesAVisionModelAndIsStoredBesideTheTranscript) {
  const json png = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"fileName", "dot.png"}, {"content", kPngB64}}});
  // Only an attachment, no text: allowed.
  auto ack = send("main", "", png, "run-img-1");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  wait_final("run-img-1");
  const std::string want_url = std::string("data:image/png;base64,") + kPngB64;
  auto has_image = [&](const json& messages) {
    for (const auto& m : messages) {
      if (m.value("role", "") != "user" || !m["content"].is_array()) continue;
      for (const auto& part : m["content"]) {
        if (part.value("type", "") == "image_url" && part["image_url"].value("url", "") == want_url) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(has_image(last_request_messages())) << last_request_messages().dump();

  const std::string transcript = transcripts();
  EXPECT_EQ(transcript.find(kPngB64), std::string::npos);
  EXPECT_NE(transcript.find("\"ref\":\"media/"), std::string::npos);
  size_t media_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(home_.path() / "agents")) {
    if (e.is_regular_file() && e.path().parent_path().filename() == "media") ++media_files;
  }
  EXPECT_EQ(media_files, 1u);

  // chat.history shows the image with its data.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true);
  bool shown = false;
  for (const auto& m : history["payload"]["messages"]) {
    for (const auto& b : m.value("content", json::array())) {
      if (b.is_object() && b.value("type", "") == "image" && b.value("data", "") == kPngB64) shown = true;
    }
  }
  EXPECT_TRUE(shown) << history.dump();

  // A later turn loads the image back from its file for the model.
  ack = send("main", "and again?", json::array(), "run-img-2");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  wait_final("run-img-2");
  EXPECT_TRUE(has_image(last_request_messages()));
}

TEST_F(ChatAttachmentsE2E, TextOnlyModelGetsANoticeAndFilesAreInlined) {
  const json list = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", kPngB64}},
                                 {{"type", "file"}, {"mimeType", "text/csv"}, {"fileName", "t.csv"},
                                  {"content", "YSxiCjEsMg=="}}});
  auto ack = send("agent:blind:main", "what is this?", list, "run-blind");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  wait_final("run-blind");
  const std::string body = last_request_messages().dump();
  EXPECT_EQ(body.find(kPngB64), std::string::npos);
  EXPECT_NE(body.find("[image omitted: model mock/x does not accept images]"), std::string::npos) << body;
  EXPECT_NE(body.find("[file: t.csv]\\n```\\na,b\\n1,2\\n```"), std::string::npos) << body;
}

TEST_F(ChatAttachmentsE2E, AgentMethodTakesAttachmentsToo) {
  const json png = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", kPngB64}}});
  auto ack = client_->request("agent", {{"sessionKey", "main"}, {"message", "describe"}, {"attachments", png},
                                        {"idempotencyKey", "run-agent-img"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  wait_final("run-agent-img");
  EXPECT_NE(last_request_messages().dump().find(std::string("data:image/png;base64,") + kPngB64), std::string::npos);
}

TEST_F(ChatAttachmentsE2E, MislabelledOrBrokenAttachmentsAreRefused) {
  auto r = send("main", "hi", json::array({{{"type", "image"}, {"mimeType", "image/jpeg"}, {"content", kPngB64}}}), "bad-1");
  EXPECT_EQ(r["ok"], false);
  EXPECT_EQ(r["error"]["code"], "INVALID_REQUEST");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("attachments[0].mimeType: says image/jpeg but the bytes are image/png"),
            std::string::npos)
      << r.dump();
  r = send("main", "hi", json::array({{{"type", "image"}, {"content", "!!!"}}}), "bad-2");
  EXPECT_EQ(r["ok"], false);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("attachments[0].content: is not valid base64"), std::string::npos);
  r = send("main", "  ", json::array(), "bad-3");
  EXPECT_EQ(r["ok"], false);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("message or attachment required"), std::string::npos);
}

TEST_F(ChatAttachmentsE2E, AnImageSentWhileTheSessionIsBusyWaitsWithItsTurn) {
  // chat.send to a session whose run is in progress queues its turn behind it (the gateway's
  // lane; channels follow messages.queue): the image must still reach the model with it.
  auto ack = send("main", "first MOCK_HOLD:busy", json::array(), "run-busy");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  // (The first turn holds its reply until released: the second is queued behind it either way.)
  const json png = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", kPngB64}}});
  ack = send("main", "and this picture", png, "run-queued-img");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  http_request(mock_->port(), "POST", "/__mock/release?name=busy");
  wait_final("run-busy");
  wait_final("run-queued-img");
  EXPECT_NE(last_request_messages().dump().find(std::string("data:image/png;base64,") + kPngB64), std::string::npos)
      << last_request_messages().dump();
}

TEST_F(ChatAttachmentsE2E, AMessageOverTheFrameLimitIsAnsweredNotClosed) {
  // A 20 MB image, base64-encoded (~26.7 MB): over the gateway's 25 MiB per message.
  std::string image = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(20'000'000 - 8, '\0');
  const json frame = {{"type", "req"}, {"id", "big-1"}, {"method", "chat.send"},
                      {"params", {{"sessionKey", "main"}, {"message", "look"}, {"idempotencyKey", "run-big"},
                                  {"attachments", json::array({{{"type", "image"}, {"mimeType", "image/png"},
                                                                {"content", base64_of(image)}}})}}}};
  const std::string text = frame.dump();
  image.clear();
  client_->send_text(text, 120s);
  auto res = client_->recv_response("big-1", 120s);
  ASSERT_TRUE(res) << "no answer; closed: " << (client_->closed() ? client_->closed()->code : 0);
  EXPECT_EQ((*res)["ok"], false);
  EXPECT_EQ((*res)["error"]["code"], "INVALID_REQUEST");
  const std::string message = (*res)["error"].value("message", "");
  EXPECT_NE(message.find("chat.send: the message is 25.4 MiB; the gateway accepts at most 25 MiB per message"),
            std::string::npos) << message;
  EXPECT_NE(message.find("attachments: at most 5000000 bytes each and 18000000 bytes in all"), std::string::npos)
      << message;
  EXPECT_EQ((*res)["error"]["details"]["bytes"], text.size());
  // The connection goes on: the next message is taken.
  const json png = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", kPngB64}}});
  auto ack = send("main", "a small one", png, "run-small");
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  wait_final("run-small");
}

TEST_F(ChatAttachmentsE2E, AttachmentsAtTheirLimitFitInOneMessage) {
  // 18,000,000 bytes in all (the per-message limit), as four files: the frame is under 25 MiB.
  json list = json::array();
  for (int i = 0; i < 4; ++i) {
    list.push_back({{"type", "file"}, {"mimeType", "application/octet-stream"}, {"fileName", "part" + std::to_string(i)},
                    {"content", base64_of(std::string(4'500'000, static_cast<char>(0x80 + i)))}});
  }
  const json frame = {{"type", "req"}, {"id", "max-1"}, {"method", "chat.send"},
                      {"params", {{"sessionKey", "main"}, {"message", "four files"}, {"idempotencyKey", "run-max"},
                                  {"attachments", list}}}};
  client_->send_text(frame.dump(), 120s);
  auto res = client_->recv_response("max-1", 120s);
  ASSERT_TRUE(res);
  ASSERT_EQ((*res)["ok"], true) << res->dump().substr(0, 400);
  wait_final("run-max");
  EXPECT_NE(last_request_messages().dump().find("part3"), std::string::npos);
}

}  // namespace
}  // namespace chat_attachments_test
}  // namespace pincer::test
