// The OpenAI-compatible HTTP API, the pure part (IX-4, src/interop/openai_http/): request bodies
// of /v1/chat/completions and /v1/responses checked and turned into one turn (OpenClaw's prompt:
// the current message with earlier ones as a context block), models → agents, the session a
// request joins, the endpoint switches, and the answers: errors, completions, chunks, the
// Responses SSE event sequence, the model list.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway/config_reload.h"
#include "interop/openai_http/openai_http_service.h"
#include "interop/openai_http/openai_request.h"
#include "interop/openai_http/openai_response.h"

namespace pincer::interop::openai_http {
namespace {

using nlohmann::json;

TurnRequest chat_ok(const json& body) {
  auto r = parse_chat_request(body.dump());
  if (auto* e = std::get_if<ApiError>(&r)) ADD_FAILURE() << e->message;
  return std::holds_alternative<TurnRequest>(r) ? std::get<TurnRequest>(r) : TurnRequest{};
}

ApiError chat_error(std::string_view body) {
  auto r = parse_chat_request(body);
  EXPECT_TRUE(std::holds_alternative<ApiError>(r)) << body;
  return std::holds_alternative<ApiError>(r) ? std::get<ApiError>(r) : ApiError{};
}

TEST(OpenAiChatRequest, OneUserMessageIsTheTurnAsWritten) {
  const TurnRequest t = chat_ok({{"model", "pincer"}, {"messages", {{{"role", "user"}, {"content", "  hi there "}}}}});
  EXPECT_EQ(t.message, "hi there");
  EXPECT_EQ(t.model, "pincer");
  EXPECT_FALSE(t.stream);
  EXPECT_TRUE(t.user.empty());
  EXPECT_TRUE(t.system.empty());
}

TEST(OpenAiChatRequest, DefaultsAndStreamOptions) {
  const TurnRequest t = chat_ok({{"messages", {{{"role", "user"}, {"content", "x"}}}},
                                 {"stream", true},
                                 {"stream_options", {{"include_usage", true}}},
                                 {"user", " alice "}});
  EXPECT_EQ(t.model, "pincer");
  EXPECT_TRUE(t.stream);
  EXPECT_TRUE(t.include_usage);
  EXPECT_EQ(t.user, "alice");
}

TEST(OpenAiChatRequest, EarlierMessagesBecomeOpenClawsContextBlockAndSystemIsSetApart) {
  const TurnRequest t = chat_ok({{"messages",
                                  {{{"role", "system"}, {"content", "be brief"}},
                                   {{"role", "user"}, {"content", "one"}},
                                   {{"role", "assistant"}, {"content", "two"}},
                                   {{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "three"}}})}}}}});
  EXPECT_EQ(t.message,
            "[Chat messages since your last reply - for context]\nUser: one\nAssistant: two\n\n"
            "[Current message - respond to this]\nUser: three");
  ASSERT_EQ(t.system.size(), 1u);
  EXPECT_EQ(t.system[0], "be brief");
}

TEST(OpenAiChatRequest, ToolResultsAreNamedByTheirCall) {
  const TurnRequest t = chat_ok({{"messages",
                                  {{{"role", "user"}, {"content", "q"}},
                                   {{"role", "assistant"}, {"content", nullptr},
                                    {"tool_calls", {{{"id", "c1"}, {"function", {{"name", "f"}, {"arguments", "{}"}}}}}}},
                                   {{"role", "tool"}, {"tool_call_id", "c1"}, {"content", "42"}}}}});
  EXPECT_EQ(t.message,
            "[Chat messages since your last reply - for context]\nUser: q\nAssistant: [tool call f {}]\n\n"
            "[Current message - respond to this]\nTool:c1: 42");
}

TEST(OpenAiChatRequest, BadBodiesNameWhatIsWrong) {
  EXPECT_EQ(chat_error("{nope").message, "the request body is not valid JSON");
  EXPECT_EQ(chat_error("[]").message, "the request body must be a JSON object");
  EXPECT_EQ(chat_error(R"({"model":"pincer"})").code, "missing_messages");
  EXPECT_EQ(chat_error(R"({"messages":[]})").code, "missing_messages");
  EXPECT_EQ(chat_error(R"({"messages":[{"role":"system","content":"only"}]})").message,
            "Missing user message in `messages`.");
  EXPECT_EQ(chat_error(R"({"messages":[{"content":"x"}]})").message, "`messages[0].role` must be a string");
  EXPECT_EQ(chat_error(R"({"messages":[{"role":"robot","content":"x"}]})").message,
            "`messages[0].role` \"robot\" is not one of system, developer, user, assistant, tool");
  EXPECT_EQ(chat_error(R"({"messages":[{"role":"user","content":42}]})").message,
            "`messages[0].content` must be a string or an array of content parts");
  EXPECT_NE(chat_error(R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})")
                .message.find("only text parts are supported"),
            std::string::npos);
  EXPECT_EQ(chat_error(R"({"stream":"yes","messages":[{"role":"user","content":"x"}]})").message,
            "`stream` must be a boolean");
  EXPECT_EQ(chat_error(R"({"model":7,"messages":[{"role":"user","content":"x"}]})").message, "`model` must be a string");
  EXPECT_EQ(chat_error(R"({"user":"a\u0001b","messages":[{"role":"user","content":"x"}]})").message,
            "`user` must not contain control characters");
  const ApiError e = chat_error(json{{"user", std::string(kMaxUserBytes + 1, 'u')},
                                     {"messages", {{{"role", "user"}, {"content", "x"}}}}}
                                    .dump());
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.type, "invalid_request_error");
  EXPECT_EQ(e.message, "`user` is 257 bytes; at most 256");
}

TEST(OpenAiResponsesRequest, InputStringOrItemsAndInstructions) {
  auto a = parse_responses_request(R"({"model":"pincer/main","input":"hello","instructions":"sys","stream":true})");
  ASSERT_TRUE(std::holds_alternative<TurnRequest>(a));
  EXPECT_EQ(std::get<TurnRequest>(a).message, "hello");
  EXPECT_EQ(std::get<TurnRequest>(a).system, std::vector<std::string>{"sys"});
  EXPECT_TRUE(std::get<TurnRequest>(a).stream);
  auto b = parse_responses_request(
      R"({"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]},{"type":"message","role":"assistant","content":"b"},{"role":"user","content":"c"}]})");
  ASSERT_TRUE(std::holds_alternative<TurnRequest>(b));
  EXPECT_EQ(std::get<TurnRequest>(b).message,
            "[Chat messages since your last reply - for context]\nUser: a\nAssistant: b\n\n"
            "[Current message - respond to this]\nUser: c");
  auto c = parse_responses_request(R"({"model":"pincer"})");
  ASSERT_TRUE(std::holds_alternative<ApiError>(c));
  EXPECT_EQ(std::get<ApiError>(c).message, "Missing user message in `input`.");
  auto d = parse_responses_request(R"({"input":[{"type":"web_search_call"}]})");
  ASSERT_TRUE(std::holds_alternative<ApiError>(d));
  EXPECT_EQ(std::get<ApiError>(d).message, "`input[0].type` \"web_search_call\" is not supported");
}

TEST(OpenAiModels, AgentNamesAndAliases) {
  EXPECT_EQ(agent_of_model("pincer", "main"), "main");
  EXPECT_EQ(agent_of_model("PINCER/default", "ops"), "ops");
  EXPECT_EQ(agent_of_model("openclaw", "main"), "main");
  EXPECT_EQ(agent_of_model("pincer/Work", "main"), "work");
  EXPECT_EQ(agent_of_model("openclaw/work", "main"), "work");
  EXPECT_EQ(agent_of_model("openclaw:work", "main"), "work");
  EXPECT_EQ(agent_of_model("agent:work", "main"), "work");
  EXPECT_EQ(agent_of_model("gpt-4o", "main"), std::nullopt);
  EXPECT_EQ(agent_of_model("pincer/../x", "main"), std::nullopt);
}

Outcome<SessionChoice> choose(std::map<std::string, std::string> headers, json body, Endpoint ep = Endpoint::ChatCompletions) {
  body["messages"] = json::array({{{"role", "user"}, {"content", "x"}}});
  auto t = parse_chat_request(body.dump());
  return choose_session(headers, std::get<TurnRequest>(t), ep, "main", {"main", "work"}, "u-1");
}

TEST(OpenAiSessions, UserHeaderOrFresh) {
  auto fresh = std::get<SessionChoice>(choose({}, {{"model", "pincer"}}));
  EXPECT_EQ(fresh.session_key, "agent:main:openai:u-1");
  EXPECT_TRUE(fresh.fresh);
  auto user = std::get<SessionChoice>(choose({}, {{"model", "pincer/work"}, {"user", "Alice"}}));
  EXPECT_EQ(user.agent_id, "work");
  EXPECT_EQ(user.session_key, "agent:work:openai-user:Alice");
  EXPECT_FALSE(user.fresh);
  auto responses = std::get<SessionChoice>(choose({}, {{"user", "bob"}}, Endpoint::Responses));
  EXPECT_EQ(responses.session_key, "agent:main:openresponses-user:bob");
  auto header = std::get<SessionChoice>(choose({{"x-openclaw-session-key", "agent:main:custom"}}, {{"user", "bob"}}));
  EXPECT_EQ(header.session_key, "agent:main:custom");
  auto pincer_header = std::get<SessionChoice>(choose({{"x-pincer-session-key", "mine"}, {"x-pincer-agent-id", "work"}}, {}));
  EXPECT_EQ(pincer_header.session_key, "mine");
  EXPECT_EQ(pincer_header.agent_id, "work");
  auto openclaw_agent = std::get<SessionChoice>(choose({{"x-openclaw-agent-id", "work"}}, {}));
  EXPECT_EQ(openclaw_agent.agent_id, "work");
}

TEST(OpenAiSessions, Refusals) {
  auto model = std::get<ApiError>(choose({}, {{"model", "gpt-4o"}}));
  EXPECT_EQ(model.status, 404);
  EXPECT_EQ(model.code, "model_not_found");
  auto agent = std::get<ApiError>(choose({}, {{"model", "pincer/nobody"}}));
  EXPECT_EQ(agent.status, 404);
  auto header_agent = std::get<ApiError>(choose({{"x-pincer-agent-id", "nobody"}}, {}));
  EXPECT_EQ(header_agent.code, "agent_not_found");
  // A session key of an unknown agent: the same 404 as the agent header (it was a 400 without a code).
  for (const char* h : {"x-pincer-session-key", "x-openclaw-session-key"}) {
    auto key_agent = std::get<ApiError>(choose({{h, "agent:nosuch:main"}}, {}));
    EXPECT_EQ(key_agent.status, 404) << h;
    EXPECT_EQ(key_agent.code, "agent_not_found") << h;
    EXPECT_NE(key_agent.message.find("Unknown agent 'nosuch'"), std::string::npos) << key_agent.message;
  }
  EXPECT_EQ(std::get<SessionChoice>(choose({{"x-pincer-session-key", "agent:work:custom"}}, {})).session_key, "agent:work:custom");
  for (const char* key : {"cron:nightly", "agent:main:subagent:x", "ACP:1"}) {
    auto reserved = std::get<ApiError>(choose({{"x-pincer-session-key", key}}, {}));
    EXPECT_EQ(reserved.status, 400) << key;
    EXPECT_NE(reserved.message.find("reserved session namespace"), std::string::npos) << key;
  }
}

TEST(OpenAiSwitches, AppliedWithoutARestart) {
  EXPECT_EQ(gateway::change_kind("gateway.http.endpoints.chatCompletions.enabled"), gateway::ChangeKind::Hot);
  EXPECT_EQ(gateway::change_kind("gateway.http"), gateway::ChangeKind::Hot);
  EXPECT_EQ(gateway::change_kind("gateway.port"), gateway::ChangeKind::Restart);
}

TEST(OpenAiSwitches, OffUnlessEnabled) {
  EXPECT_FALSE(endpoint_switches(json::object()).chat_completions);
  const json cfg = {{"gateway", {{"http", {{"endpoints", {{"chatCompletions", {{"enabled", true}}}}}}}}}};
  EXPECT_TRUE(endpoint_switches(cfg).chat_completions);
  EXPECT_FALSE(endpoint_switches(cfg).responses);
}

TEST(OpenAiAnswers, ErrorCompletionChunk) {
  EXPECT_EQ(error_body({401, "authentication_error", "invalid_api_key", "no"}),
            json::parse(R"({"error":{"message":"no","type":"authentication_error","param":null,"code":"invalid_api_key"}})"));
  EXPECT_TRUE(error_body({400, "invalid_request_error", "", "x"})["error"]["code"].is_null());
  const json c = chat_completion("id1", 5, "pincer", "hi", "stop", {3, 2, 5});
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["choices"][0]["message"]["content"], "hi");
  EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(c["usage"]["total_tokens"], 5);
  const json k = chat_chunk("id1", 5, "pincer", {{"content", "h"}});
  EXPECT_TRUE(k["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(sse_data(json{{"a", 1}}), "data: {\"a\":1}\n\n");
  EXPECT_EQ(finish_reason("length"), "length");
  EXPECT_EQ(finish_reason("toolUse"), "stop");
  EXPECT_TRUE(chat_usage_chunk("id1", 5, "pincer", {1, 1, 2})["choices"].empty());
}

TEST(OpenAiAnswers, ModelList) {
  const json list = models_list({"main", "work"}, 9);
  ASSERT_EQ(list["data"].size(), 3u);
  EXPECT_EQ(list["data"][0]["id"], "pincer");
  EXPECT_EQ(list["data"][2]["id"], "pincer/work");
  EXPECT_EQ(model_entry("openclaw/work", {"main", "work"}, "main", 9)["id"], "openclaw/work");
  EXPECT_TRUE(model_entry("pincer/none", {"main"}, "main", 9).is_null());
}

/// The `type`s of the SSE events in `stream`, in order, and their sequence numbers counted.
std::vector<std::string> event_types(const std::string& stream, int64_t& next_seq) {
  std::vector<std::string> types;
  std::size_t at = 0;
  while ((at = stream.find("data: ", at)) != std::string::npos) {
    const std::size_t end = stream.find("\n\n", at);
    const json j = json::parse(stream.substr(at + 6, end - at - 6));
    EXPECT_EQ(stream.substr(stream.rfind("event: ", at) + 7, j["type"].get<std::string>().size()), j["type"]);
    EXPECT_EQ(j["sequence_number"], next_seq++);
    types.push_back(j["type"]);
    at = end;
  }
  return types;
}

TEST(OpenAiAnswers, ResponsesEventSequence) {
  ResponsesStream s("resp_1", "msg_1", 7, "pincer");
  int64_t seq = 0;
  EXPECT_EQ(event_types(s.start(), seq), (std::vector<std::string>{"response.created", "response.in_progress",
                                                                    "response.output_item.added",
                                                                    "response.content_part.added"}));
  std::string deltas = s.delta("Hel");
  deltas += s.delta("lo");
  EXPECT_EQ(event_types(deltas, seq),
            (std::vector<std::string>{"response.output_text.delta", "response.output_text.delta"}));
  const std::string done = s.completed("stop", {1, 2, 3});
  EXPECT_EQ(event_types(done, seq), (std::vector<std::string>{"response.output_text.done", "response.content_part.done",
                                                               "response.output_item.done", "response.completed"}));
  const json completed = json::parse(done.substr(done.rfind("data: ") + 6));
  EXPECT_EQ(completed["response"]["status"], "completed");
  EXPECT_EQ(completed["response"]["output"][0]["content"][0]["text"], "Hello");
  EXPECT_EQ(completed["response"]["usage"]["total_tokens"], 3);
  const std::string failed = s.failed({502, "upstream_error", "rate_limit", "slow down"}, {});
  const json f = json::parse(failed.substr(failed.find("data: ") + 6));
  EXPECT_EQ(f["type"], "response.failed");
  EXPECT_EQ(f["response"]["error"]["code"], "rate_limit");
}

TEST(OpenAiAnswers, ResponseObject) {
  const std::string text = "hi";
  const json r = response_object("resp_1", "msg_1", 3, "pincer", "completed", &text, {1, 1, 2});
  EXPECT_EQ(r["object"], "response");
  EXPECT_EQ(r["output"][0]["type"], "message");
  EXPECT_EQ(r["output"][0]["content"][0]["type"], "output_text");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(response_object("r", "m", 3, "pincer", "incomplete", &text, {})["incomplete_details"]["reason"],
            "max_output_tokens");
}

}  // namespace
}  // namespace pincer::interop::openai_http
