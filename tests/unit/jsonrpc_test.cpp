// JSON-RPC 2.0 messages and line framing (src/interop/jsonrpc/jsonrpc.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interop/jsonrpc/jsonrpc.h"

namespace rpc = pincer::interop::jsonrpc;
using nlohmann::json;

TEST(JsonRpc, ParsesRequestsNotificationsAndResponses) {
  auto req = rpc::parse_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}})");
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req->kind, rpc::Message::Kind::Request);
  EXPECT_EQ(req->id, 7);
  EXPECT_EQ(req->method, "tools/list");
  EXPECT_EQ(req->params["cursor"], "x");

  auto note = rpc::parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(note->kind, rpc::Message::Kind::Notification);
  EXPECT_TRUE(note->params.is_null());

  auto ok = rpc::parse_message(R"({"jsonrpc":"2.0","id":"a","result":{"tools":[]}})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->kind, rpc::Message::Kind::Response);
  EXPECT_FALSE(ok->error.has_value());
  EXPECT_EQ(ok->result["tools"], json::array());

  auto err = rpc::parse_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":1}})");
  ASSERT_TRUE(err.ok());
  ASSERT_TRUE(err->error.has_value());
  EXPECT_EQ(err->error->code, rpc::kParseError);
  EXPECT_EQ(err->error->data, 1);
}

TEST(JsonRpc, RefusesInvalidMessagesNamingTheMember) {
  struct Case {
    const char* text;
    int code;
    const char* names;
  };
  const std::vector<Case> cases = {
      {"{", rpc::kParseError, "JSON"},
      {"[1,2]", rpc::kInvalidRequest, "batch"},
      {"42", rpc::kInvalidRequest, "object"},
      {R"({"id":1,"method":"x"})", rpc::kInvalidRequest, "jsonrpc"},
      {R"({"jsonrpc":"1.0","id":1,"method":"x"})", rpc::kInvalidRequest, "jsonrpc"},
      {R"({"jsonrpc":"2.0","id":1,"method":""})", rpc::kInvalidRequest, "method"},
      {R"({"jsonrpc":"2.0","id":1,"method":5})", rpc::kInvalidRequest, "method"},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", rpc::kInvalidRequest, "id"},
      {R"({"jsonrpc":"2.0","id":{},"method":"x"})", rpc::kInvalidRequest, "id"},
      {R"({"jsonrpc":"2.0","id":null,"method":"x"})", rpc::kInvalidRequest, "id"},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})", rpc::kInvalidRequest, "params"},
      {R"({"jsonrpc":"2.0","result":1})", rpc::kInvalidRequest, "method"},
      {R"({"jsonrpc":"2.0","id":1})", rpc::kInvalidRequest, "exactly one"},
      {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})", rpc::kInvalidRequest, "exactly one"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})", rpc::kInvalidRequest, "error.code"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})", rpc::kInvalidRequest, "error.message"},
  };
  for (const auto& c : cases) {
    auto parsed = rpc::parse_message(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(rpc::rpc_code(parsed.error()), c.code) << c.text;
    EXPECT_NE(parsed.error().message.find(c.names), std::string::npos) << c.text << " → " << parsed.error().message;
  }
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  auto too_deep = rpc::parse_message(deep);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_EQ(rpc::rpc_code(too_deep.error()), rpc::kParseError);
}

TEST(JsonRpc, InvalidReplyCarriesTheRecoveredIdOrNull) {
  const std::string bad_params = R"({"jsonrpc":"2.0","id":"r1","method":"x","params":"no"})";
  auto parsed = rpc::parse_message(bad_params);
  ASSERT_FALSE(parsed.ok());
  const json reply = json::parse(rpc::make_invalid_reply(bad_params, parsed.error()));
  EXPECT_EQ(reply["id"], "r1");
  EXPECT_EQ(reply["error"]["code"], rpc::kInvalidRequest);

  const std::string garbage = "not json at all";
  auto g = rpc::parse_message(garbage);
  ASSERT_FALSE(g.ok());
  const json g_reply = json::parse(rpc::make_invalid_reply(garbage, g.error()));
  EXPECT_TRUE(g_reply["id"].is_null());
  EXPECT_EQ(g_reply["error"]["code"], rpc::kParseError);
}

TEST(JsonRpc, BuildersRoundTripAndNeverEmitARawNewline) {
  const json params = {{"text", "two\nlines"}, {"bad", std::string("\xff", 1)}};
  const std::string line = rpc::make_request(3, "messages_send", params);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = rpc::parse_message(line);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->params["text"], "two\nlines");
  EXPECT_EQ(back->params["bad"], "\xEF\xBF\xBD");  // replaced, not thrown
  EXPECT_EQ(rpc::serialize(*back), line);

  EXPECT_EQ(rpc::make_notification("n"), R"({"jsonrpc":"2.0","method":"n"})");
  EXPECT_EQ(rpc::make_error(nullptr, rpc::kMethodNotFound, "unknown method \"x\""),
            R"({"error":{"code":-32601,"message":"unknown method \"x\""},"id":null,"jsonrpc":"2.0"})");
}

namespace {
struct Framed {
  std::vector<std::string> lines;
  std::vector<std::size_t> overflows;
};
Framed frame_in_pieces(std::string_view input, std::size_t piece, std::size_t max) {
  Framed out;
  rpc::LineFramer framer(max);
  for (std::size_t pos = 0; pos < input.size(); pos += piece)
    framer.feed(input.substr(pos, piece), [&](std::string_view l) { out.lines.emplace_back(l); },
                [&](std::size_t seen) { out.overflows.push_back(seen); });
  framer.finish([&](std::string_view l) { out.lines.emplace_back(l); });
  return out;
}
}  // namespace

TEST(JsonRpcLineFramer, SplitsLinesDropsCrAndBlankLinesWhateverTheChunking) {
  const std::string input = "a\r\n\n  \r\nbb\nccc";
  for (std::size_t piece : {1u, 2u, 3u, 100u}) {
    const Framed f = frame_in_pieces(input, piece, 16);
    EXPECT_EQ(f.lines, (std::vector<std::string>{"a", "bb", "ccc"})) << piece;
    EXPECT_TRUE(f.overflows.empty());
  }
}

TEST(JsonRpcLineFramer, AnOversizedLineIsReportedOnceAndNotBuffered) {
  const std::string input = "ok\n" + std::string(50, 'x') + "\nafter\n";
  for (std::size_t piece : {1u, 7u, 100u}) {
    const Framed f = frame_in_pieces(input, piece, 10);
    EXPECT_EQ(f.lines, (std::vector<std::string>{"ok", "after"})) << piece;
    ASSERT_EQ(f.overflows.size(), 1u) << piece;
    EXPECT_GT(f.overflows[0], 10u);
  }
  rpc::LineFramer framer(10);
  framer.feed(std::string(1000, 'y'), [](std::string_view) {}, [](std::size_t) {});
  EXPECT_EQ(framer.buffered_bytes(), 0u);  // the overflowed line is discarded, not kept
}
