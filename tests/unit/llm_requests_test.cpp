// Request side of the wire APIs (src/llm/openai_completions.h, openai_responses.h,
// anthropic_messages.h, ollama.h) and their shared building blocks (provider.h): the API registry,
// history preparation (tool call/result pairing, foreign thinking), and the request body, headers
// and options each API sends — compared as JSON. The stream parsers are in llm_streams_test.cpp;
// the shared test models in llm_providers_test_support.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/provider.h"
#include "llm_providers_test_support.h"

namespace pincer::llm::llm_requests_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
using llm_providers_test_support::anthropic_model;
using llm_providers_test_support::completions_model;
using llm_providers_test_support::make_model;
using llm_providers_test_support::ollama_model;
using llm_providers_test_support::responses_model;

// ---------------------------------------------------------------------------------------------
// Registry and shared helpers
// ---------------------------------------------------------------------------------------------

TEST(LlmProviders, FindApi) {
  for (std::string_view name :
       {"openai-completions", "openai-responses", "anthropic-messages", "ollama", "google-generative-ai"}) {
    const ProviderApi* api = find_api(name);
    ASSERT_NE(api, nullptr) << name;
    EXPECT_EQ(api->name(), name);
  }
  EXPECT_EQ(find_api("google-vertex"), nullptr);
  EXPECT_EQ(api_names().size(), 5u);
}

TEST(LlmProviders, PrepareHistoryRepairsToolPairsAndForeignThinking) {
  const ModelSpec model = anthropic_model();
  AssistantMessage foreign;
  foreign.provider = "openai";
  foreign.api = "openai-responses";
  foreign.model = "gpt-5";
  foreign.content = {ThinkingContent{"plan", "{\"type\":\"reasoning\"}", false}, ThinkingContent{"", "opaque", true},
                     TextContent{"Let me look."}, ToolCall{"call_1|fc_1", "read", json::object()},
                     ToolCall{"call_2|fc_2", "list", json::object()}};
  foreign.stop_reason = StopReason::ToolUse;
  ToolResultMessage result;
  result.tool_call_id = "call_1|fc_1";
  result.tool_name = "read";
  result.content = {TextContent{"ok"}};
  AssistantMessage failed;
  failed.stop_reason = StopReason::Error;
  failed.content = {ToolCall{"bad", "read", json::object()}};
  ToolResultMessage failed_result;
  failed_result.tool_call_id = "bad";
  UserMessage next;
  next.content = {TextContent{"next"}};

  const std::vector<Message> history = {Message{foreign}, Message{result}, Message{failed}, Message{failed_result},
                                       Message{next}};
  const auto out = wire::prepare_history(model, history, [](const std::string& id) { return "X" + id; });
  std::vector<json> got;
  for (const auto& m : out) {
    json j = to_json(m);
    j.erase("timestamp");
    got.push_back(j);
  }
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0]["content"], json::parse(R"([{"type":"text","text":"plan"},{"type":"text","text":"Let me look."},
      {"type":"toolCall","id":"Xcall_1|fc_1","name":"read","arguments":{}},
      {"type":"toolCall","id":"Xcall_2|fc_2","name":"list","arguments":{}}])"));
  EXPECT_EQ(got[1]["toolCallId"], "Xcall_1|fc_1");
  // The missing result for call_2 is synthesised before the errored turn (which is skipped with
  // its result).
  EXPECT_EQ(got[2], json::parse(R"({"role":"toolResult","toolCallId":"Xcall_2|fc_2","toolName":"list",
      "content":[{"type":"text","text":"No result provided"}],"isError":true})"));
  EXPECT_EQ(got[3]["role"], "user");
}

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

const json kWeatherSchema = json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})");

Context sample_context(const ModelSpec& m, const std::string& call_id, const std::string& signature) {
  Context c;
  c.system_prompt = "You are terse.";
  UserMessage u1;
  u1.content = {TextContent{"Weather in Paris?"}};
  AssistantMessage a;
  a.api = m.api;
  a.provider = m.provider;
  a.model = m.id;
  a.content = {ThinkingContent{"User wants weather.", signature, false}, TextContent{"Checking."},
               ToolCall{call_id, "get_weather", json{{"city", "Paris"}}}};
  a.stop_reason = StopReason::ToolUse;
  ToolResultMessage r;
  r.tool_call_id = call_id;
  r.tool_name = "get_weather";
  r.content = {TextContent{"18C, sunny"}};
  UserMessage u2;
  u2.content_is_string = false;
  u2.content = {TextContent{"And this?"}, ImageContent{"aGVsbG8=", "image/png"}};
  c.messages = {u1, a, r, u2};
  c.tools = {ToolDefinition{"get_weather", "Current weather", kWeatherSchema}};
  return c;
}

std::string header(const HttpRequest& req, const std::string& name) {
  for (const auto& [k, v] : req.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

RequestOptions medium_thinking(int64_t max_tokens) {
  RequestOptions o;
  o.thinking = ThinkingLevel::Medium;
  o.max_tokens = max_tokens;
  o.session_id = "sess-1";
  return o;
}

TEST(LlmProviders, CompletionsRequest) {
  ModelSpec m = completions_model();
  m.headers["X-Extra"] = "1";
  const HttpRequest req =
      find_api(m.api)->build_request(m, sample_context(m, "call_1|fc_1", "reasoning_content"), medium_thinking(1000));
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.url, "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(header(req, "Authorization"), "Bearer sk-test");
  EXPECT_EQ(header(req, "Content-Type"), "application/json");
  EXPECT_EQ(header(req, "Accept"), "text/event-stream");
  EXPECT_EQ(header(req, "X-Extra"), "1");
  json want = json::parse(R"({
    "model":"test-model",
    "messages":[
      {"role":"developer","content":"You are terse."},
      {"role":"user","content":"Weather in Paris?"},
      {"role":"assistant","content":"Checking.","reasoning_content":"User wants weather.",
       "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
      {"role":"tool","tool_call_id":"call_1","content":"18C, sunny"},
      {"role":"user","content":[{"type":"text","text":"And this?"},
                                {"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8="}}]}],
    "stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":1000,
    "prompt_cache_key":"sess-1",
    "tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather","parameters":null}}],
    "reasoning_effort":"medium"})");
  want["tools"][0]["function"]["parameters"] = kWeatherSchema;
  EXPECT_EQ(json::parse(req.body), want);
}

TEST(LlmProviders, CompletionsRequestForCompatibleServers) {
  ModelSpec m = make_model("openai-completions", "http://127.0.0.1:8080/v1/");
  m.reasoning = false;
  m.input = {"text"};
  m.api_key.clear();
  const HttpRequest req = find_api(m.api)->build_request(m, sample_context(m, "call_1", "reasoning_content"),
                                                        medium_thinking(1000));
  EXPECT_EQ(req.url, "http://127.0.0.1:8080/v1/chat/completions");
  EXPECT_EQ(header(req, "Authorization"), "<absent>");
  const json body = json::parse(req.body);
  EXPECT_EQ(body["messages"][0], json::parse(R"({"role":"system","content":"You are terse."})"));
  EXPECT_EQ(body["messages"][4], json::parse(R"({"role":"user","content":[{"type":"text","text":"And this?"}]})"));
  EXPECT_EQ(body["max_tokens"], 1000);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_FALSE(body.contains("store"));
  EXPECT_FALSE(body.contains("reasoning_effort"));
}

TEST(LlmProviders, CompletionsToolResultImagesFollowAsUserMessage) {
  const ModelSpec m = completions_model();
  Context c;
  AssistantMessage a;
  a.api = m.api;
  a.provider = m.provider;
  a.model = m.id;
  a.content = {ToolCall{"call_9", "screenshot", json::object()}};
  ToolResultMessage r;
  r.tool_call_id = "call_9";
  r.tool_name = "screenshot";
  r.content = {ImageContent{"QUJD", "image/jpeg"}};
  c.messages = {a, r};
  const json body = json::parse(find_api(m.api)->build_request(m, c, {}).body);
  EXPECT_EQ(body["messages"], json::parse(R"json([
    {"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"call_9","content":"(see attached image)"},
    {"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},
                              {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,QUJD"}}]}])json"));
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_EQ(body["max_completion_tokens"], m.max_tokens);  // no per-call cap: the model's maxTokens
}

TEST(LlmProviders, CompletionsBodyIsTheSameFromKeptWireFormsAndForAnotherModel) {
  // The second request of a session reuses each kept message's wire form (llm/wire_memo.h): its
  // body must be the one a fresh build writes, and a model that changes a message's form (images
  // or not) must get its own form, in either order.
  const ModelSpec vision = completions_model();
  ModelSpec text_only = make_model("openai-completions", "http://127.0.0.1:8080/v1/");
  text_only.input = {"text"};
  const ProviderApi* api = find_api(vision.api);
  const Context c = sample_context(vision, "call_1", "reasoning_content");  // ends with an image
  Context fresh = c;
  fresh.messages = MessageList();  // equal messages, other objects: nothing kept for them
  for (const Message& m : c.messages) fresh.messages.push_back(m);
  const std::string first = api->build_request(vision, c, {}).body;
  EXPECT_EQ(api->build_request(vision, c, {}).body, first);
  EXPECT_EQ(api->build_request(vision, fresh, {}).body, first);
  const std::string text_body = api->build_request(text_only, c, {}).body;
  EXPECT_EQ(text_body.find("image_url"), std::string::npos);
  EXPECT_EQ(api->build_request(vision, c, {}).body, first);
  EXPECT_EQ(api->build_request(text_only, fresh, {}).body, text_body);
  // A message changed for a request (MessageList::mutate) is a new object: written anew.
  Context changed = c;
  std::get<UserMessage>(changed.messages.mutate(0)).content = {TextContent{"Weather in Rome?"}};
  const std::string changed_body = api->build_request(vision, changed, {}).body;
  EXPECT_NE(changed_body.find("Weather in Rome?"), std::string::npos);
  EXPECT_EQ(changed_body.find("Weather in Paris?"), std::string::npos);
  EXPECT_EQ(api->build_request(vision, c, {}).body, first);
}

TEST(LlmProviders, ResponsesRequest) {
  const ModelSpec m = responses_model();
  const std::string item =
      R"({"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"User wants weather."}],"encrypted_content":"enc"})";
  const HttpRequest req = find_api(m.api)->build_request(m, sample_context(m, "call_1|fc_1", item), medium_thinking(1000));
  EXPECT_EQ(req.url, "https://api.openai.com/v1/responses");
  EXPECT_EQ(header(req, "Authorization"), "Bearer sk-test");
  json want = json::parse(R"({
    "model":"test-model","stream":true,"store":false,"instructions":"You are terse.",
    "max_output_tokens":1000,"prompt_cache_key":"sess-1",
    "input":[
      {"role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}]},
      {"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"User wants weather."}],"encrypted_content":"enc"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking.","annotations":[]}],
       "status":"completed","id":"msg_1"},
      {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","id":"fc_1"},
      {"type":"function_call_output","call_id":"call_1","output":"18C, sunny"},
      {"role":"user","content":[{"type":"input_text","text":"And this?"},
                                {"type":"input_image","detail":"auto","image_url":"data:image/png;base64,aGVsbG8="}]}],
    "tools":[{"type":"function","name":"get_weather","description":"Current weather","parameters":null}],
    "reasoning":{"effort":"medium","summary":"auto"},"include":["reasoning.encrypted_content"]})");
  want["tools"][0]["parameters"] = kWeatherSchema;
  EXPECT_EQ(json::parse(req.body), want);
}

TEST(LlmProviders, ResponsesRequestWithoutThinkingOrEncryptedReasoning) {
  const ModelSpec m = responses_model();
  const std::string item = R"({"id":"rs_1","type":"reasoning","summary":[]})";  // no encrypted_content
  const json body = json::parse(find_api(m.api)->build_request(m, sample_context(m, "call_1|fc_1", item), {}).body);
  EXPECT_FALSE(body.contains("reasoning"));
  EXPECT_FALSE(body.contains("include"));
  EXPECT_EQ(body["max_output_tokens"], m.max_tokens);
  EXPECT_EQ(body["input"][1]["type"], "message");  // the reasoning item is not replayed
}

TEST(LlmProviders, ResponsesMessageIdsAreUnique) {
  const ModelSpec m = responses_model();
  Context c;
  AssistantMessage a;
  a.api = m.api;
  a.provider = m.provider;
  a.model = m.id;
  a.content = {TextContent{"one"}, TextContent{"two"}};
  c.messages = {a};
  const json body = json::parse(find_api(m.api)->build_request(m, c, {}).body);
  ASSERT_EQ(body["input"].size(), 2u);
  EXPECT_EQ(body["input"][0]["id"], "msg_0");
  EXPECT_EQ(body["input"][1]["id"], "msg_0_1");
  EXPECT_FALSE(body.contains("instructions"));
}

TEST(LlmProviders, AnthropicRequest) {
  const ModelSpec m = anthropic_model();
  const HttpRequest req = find_api(m.api)->build_request(m, sample_context(m, "toolu_01", "EqQBsig"), medium_thinking(20000));
  EXPECT_EQ(req.url, "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(header(req, "x-api-key"), "sk-test");
  EXPECT_EQ(header(req, "anthropic-version"), "2023-06-01");
  EXPECT_EQ(header(req, "Authorization"), "<absent>");
  json want = json::parse(R"({
    "model":"test-model","max_tokens":20000,"stream":true,
    "system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
    "messages":[
      {"role":"user","content":"Weather in Paris?"},
      {"role":"assistant","content":[
        {"type":"thinking","thinking":"User wants weather.","signature":"EqQBsig"},
        {"type":"text","text":"Checking."},
        {"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18C, sunny","is_error":false,
        "cache_control":{"type":"ephemeral"}}]},
      {"role":"user","content":[{"type":"text","text":"And this?"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="},"cache_control":{"type":"ephemeral"}}]}],
    "tools":[{"name":"get_weather","description":"Current weather","input_schema":null,"cache_control":{"type":"ephemeral"}}],
    "thinking":{"type":"enabled","budget_tokens":8192}})");
  want["tools"][0]["input_schema"] = kWeatherSchema;
  EXPECT_EQ(json::parse(req.body), want);
}

TEST(LlmProviders, AnthropicRequestRewritesForeignToolIdsAndMergesResults) {
  const ModelSpec m = anthropic_model();
  Context c;
  AssistantMessage a;  // from the Responses API: ids "call|item", thinking not replayable here
  a.api = "openai-responses";
  a.provider = "openai";
  a.model = "gpt-5";
  a.content = {ThinkingContent{"hidden plan", "{}", false}, ToolCall{"call_1|fc.1", "a", json::object()},
               ToolCall{"call_2|fc.2", "b", json::object()}};
  ToolResultMessage r1, r2;
  r1.tool_call_id = "call_1|fc.1";
  r1.content = {TextContent{"one"}};
  r2.tool_call_id = "call_2|fc.2";
  r2.content = {TextContent{"two"}};
  r2.is_error = true;
  c.messages = {a, r1, r2};
  RequestOptions o;
  o.thinking = ThinkingLevel::High;  // budget 16384 > max_tokens 4096 − 1024: lowered to 3072
  const json body = json::parse(find_api(m.api)->build_request(m, c, o).body);
  EXPECT_EQ(body["messages"], json::parse(R"([
    {"role":"assistant","content":[{"type":"text","text":"hidden plan"},
      {"type":"tool_use","id":"call_1_fc_1","name":"a","input":{}},
      {"type":"tool_use","id":"call_2_fc_2","name":"b","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1_fc_1","content":"one","is_error":false},
      {"type":"tool_result","tool_use_id":"call_2_fc_2","content":"two","is_error":true,"cache_control":{"type":"ephemeral"}}]}])"));
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["thinking"], json::parse(R"({"type":"enabled","budget_tokens":3072})"));
  EXPECT_FALSE(body.contains("system"));
}

TEST(LlmProviders, OllamaRequest) {
  const ModelSpec m = ollama_model();
  const HttpRequest req = find_api(m.api)->build_request(m, sample_context(m, "call_x", ""), medium_thinking(1000));
  EXPECT_EQ(req.url, "http://127.0.0.1:11434/api/chat");
  EXPECT_EQ(header(req, "Authorization"), "<absent>");
  EXPECT_EQ(header(req, "Accept"), "application/x-ndjson");
  json want = json::parse(R"({
    "model":"test-model","stream":true,"think":true,"options":{"num_predict":1000},
    "messages":[
      {"role":"system","content":"You are terse."},
      {"role":"user","content":"Weather in Paris?"},
      {"role":"assistant","content":"Checking.","thinking":"User wants weather.",
       "tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},
      {"role":"tool","content":"18C, sunny","tool_name":"get_weather"},
      {"role":"user","content":"And this?","images":["aGVsbG8="]}],
    "tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather","parameters":null}}]})");
  want["tools"][0]["function"]["parameters"] = kWeatherSchema;
  EXPECT_EQ(json::parse(req.body), want);

  ModelSpec plain = m;
  plain.reasoning = false;
  const json body = json::parse(find_api(m.api)->build_request(plain, Context{}, {}).body);
  EXPECT_FALSE(body.contains("think"));
  EXPECT_EQ(body["options"], json({{"num_predict", plain.max_tokens}}));
}

// models.providers.*.models[].maxTokens (ModelSpec::max_tokens) reaches every wire API when the
// call sets no cap of its own (issue 11 §11), under the field that API reads.
TEST(LlmProviders, EveryApiSendsTheModelsMaxTokens) {
  struct Case {
    ModelSpec model;
    std::string pointer;
  };
  ModelSpec elsewhere = completions_model();
  elsewhere.base_url = "http://127.0.0.1:8080/v1";  // not api.openai.com: the classic field
  for (auto [model, pointer] : {Case{completions_model(), "/max_completion_tokens"}, Case{elsewhere, "/max_tokens"},
                                Case{responses_model(), "/max_output_tokens"}, Case{anthropic_model(), "/max_tokens"},
                                Case{ollama_model(), "/options/num_predict"}}) {
    model.max_tokens = 777;
    model.reasoning = false;
    const json body = json::parse(find_api(model.api)->build_request(model, Context{}, {}).body);
    EXPECT_EQ(body.value(json::json_pointer(pointer), json()), 777) << model.api << " " << pointer << ": " << body.dump();
  }
}

}  // namespace
}  // namespace pincer::llm::llm_requests_test
