// Unit tests of the "google-generative-ai" wire API (src/llm/google_generative_ai.h): the request
// body (contents and roles, system instruction, tools, images, thinking levels, tool-result
// pairing) and the stream decoder (text, thinking with signature, tool calls, usage, finish
// reasons, errors, a cut stream). Streams are fed whole and byte by byte; both must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/google_generative_ai.h"
#include "llm/provider.h"

namespace pincer::llm {
namespace {

using nlohmann::json;

ModelSpec gemini(std::string id = "gemini-2.5-flash") {
  ModelSpec m;
  m.provider = "google";
  m.id = std::move(id);
  m.api = "google-generative-ai";
  m.base_url = "https://generativelanguage.googleapis.com/v1beta/";
  m.api_key = "AIza-test";
  m.reasoning = true;
  m.input = {"text", "image"};
  m.max_tokens = 8192;
  return m;
}

json body_of(const ModelSpec& model, const Context& ctx, RequestOptions opts = {}) {
  HttpRequest req = find_api(model.api)->build_request(model, ctx, opts);
  return json::parse(req.body);
}

struct Decoded {
  std::vector<std::string> events;
  std::string error_code, error_message;
  AssistantMessage message;
};

Decoded decode_in(const std::string& body, std::size_t chunk) {
  Decoded d;
  const ModelSpec model = gemini();
  auto decoder = find_api(model.api)->make_decoder(model, [&](const StreamEvent& e, const AssistantMessage&) {
    d.events.push_back(std::to_string(static_cast<int>(e.kind)) + ":" + std::to_string(e.content_index) + ":" + e.delta);
  });
  for (std::size_t pos = 0; pos < body.size(); pos += chunk) {
    if (Status s = decoder->feed(std::string_view(body).substr(pos, chunk)); !s.ok()) {
      d.error_code = s.error().code;
      d.error_message = s.error().message;
      d.message = decoder->partial();
      return d;
    }
  }
  auto r = decoder->finish();
  if (r.ok()) {
    d.message = r.value();
  } else {
    d.error_code = r.error().code;
    d.error_message = r.error().message;
    d.message = decoder->partial();
  }
  return d;
}

/// Consecutive deltas of one block as one (a read's deltas are reported together).
std::vector<std::string> merged(const std::vector<std::string>& events) {
  std::vector<std::string> out;
  for (const std::string& e : events) {
    const std::size_t colon = e.find(':', e.find(':') + 1);  // "<kind>:<index>:<delta>"
    const bool delta = e.rfind("0:", 0) == 0 || e.rfind("1:", 0) == 0;  // TextDelta, ThinkingDelta
    if (delta && !out.empty() && out.back().compare(0, colon + 1, e, 0, colon + 1) == 0) {
      out.back() += e.substr(colon + 1);
    } else {
      out.push_back(e);
    }
  }
  return out;
}

/// Decodes whole and byte by byte; the two must give the same events (consecutive deltas of a
/// block merged: how a body is split only decides where they are cut) and outcome.
Decoded decode(const std::string& body) {
  Decoded whole = decode_in(body, body.size() + 1);
  Decoded bytes = decode_in(body, 1);
  EXPECT_EQ(merged(whole.events), merged(bytes.events));
  EXPECT_EQ(whole.error_code, bytes.error_code);
  EXPECT_EQ(whole.message.content.size(), bytes.message.content.size());
  return whole;
}

std::string sse(std::initializer_list<json> chunks) {
  std::string out;
  for (const json& c : chunks) out += "data: " + c.dump() + "\r\n\r\n";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

TEST(LlmGemini, RequestUrlHeadersAndBasicBody) {
  Context ctx;
  ctx.system_prompt = "Be brief.";
  ctx.messages.push_back(UserMessage{{TextContent{"Hello"}}, true, 1});
  ctx.tools.push_back({"get_weather", "Weather for a city", json{{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}});
  RequestOptions opts;
  opts.max_tokens = 1000;
  const ModelSpec model = gemini();
  HttpRequest req = find_api(model.api)->build_request(model, ctx, opts);
  EXPECT_EQ(req.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  EXPECT_EQ(req.url.find("AIza"), std::string::npos);  // the key never goes into the URL
  bool has_key = false;
  for (const auto& [k, v] : req.headers) has_key = has_key || (k == "x-goog-api-key" && v == "AIza-test");
  EXPECT_TRUE(has_key);
  const json body = json::parse(req.body);
  EXPECT_EQ(body["contents"], json::parse(R"([{"role":"user","parts":[{"text":"Hello"}]}])"));
  EXPECT_EQ(body["systemInstruction"], json::parse(R"({"parts":[{"text":"Be brief."}]})"));
  EXPECT_EQ(body["tools"][0]["functionDeclarations"][0]["name"], "get_weather");
  EXPECT_EQ(body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["properties"]["city"]["type"], "string");
  EXPECT_EQ(body["generationConfig"]["maxOutputTokens"], 1000);
  EXPECT_EQ(body["generationConfig"]["thinkingConfig"], json::parse(R"({"thinkingBudget":0})"));  // off

  ModelSpec prefixed = gemini("models/gemini-2.0-flash");
  EXPECT_NE(find_api(prefixed.api)->build_request(prefixed, ctx, {}).url.find("/models/gemini-2.0-flash:stream"), std::string::npos);
}

TEST(LlmGemini, RequestImagesRolesToolPairingAndSignatures) {
  const ModelSpec model = gemini();
  Context ctx;
  UserMessage u;
  u.content = {TextContent{"What is this?"}, ImageContent{"iVBORw0KGgo=", "image/png"}, TextContent{"  "}};
  u.content_is_string = false;
  ctx.messages.push_back(u);
  AssistantMessage a;
  a.api = model.api;
  a.provider = model.provider;
  a.model = model.id;
  a.stop_reason = StopReason::ToolUse;
  a.content = {ThinkingContent{"Look it up.", "c2lnLXRoaW5r", false}, TextContent{"Checking."},
               ToolCall{"call_a|c2lnLWNhbGw=", "lookup", json{{"q", "cat"}}}, ToolCall{"call_b", "time", json::object()}};
  ctx.messages.push_back(a);
  ToolResultMessage r1;
  r1.tool_call_id = "call_a|c2lnLWNhbGw=";
  r1.tool_name = "lookup";
  r1.content = {TextContent{"a cat"}, ImageContent{"R0lGOD=", "image/gif"}};
  ctx.messages.push_back(r1);
  ToolResultMessage r2;
  r2.tool_call_id = "call_b";
  r2.tool_name = "";  // name found from the call's id
  r2.content = {TextContent{"boom"}};
  r2.is_error = true;
  ctx.messages.push_back(r2);

  const json contents = body_of(model, ctx)["contents"];
  ASSERT_EQ(contents.size(), 3u);
  EXPECT_EQ(contents[0], json::parse(R"({"role":"user","parts":[{"text":"What is this?"},
      {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]})"));
  EXPECT_EQ(contents[1], json::parse(R"({"role":"model","parts":[
      {"thought":true,"text":"Look it up.","thoughtSignature":"c2lnLXRoaW5r"},
      {"text":"Checking."},
      {"functionCall":{"name":"lookup","args":{"q":"cat"}},"thoughtSignature":"c2lnLWNhbGw="},
      {"functionCall":{"name":"time","args":{}}}]})"));
  EXPECT_EQ(contents[2], json::parse(R"({"role":"user","parts":[
      {"functionResponse":{"name":"lookup","response":{"output":"a cat"}}},
      {"functionResponse":{"name":"time","response":{"error":"boom"}}},
      {"inlineData":{"mimeType":"image/gif","data":"R0lGOD="}}]})"));

  // Another model's thinking becomes text, signatures are not replayed; images are dropped for a
  // text-only model; a call without a result gets the synthetic error result before the next turn.
  ModelSpec other = gemini("gemini-2.5-pro");
  other.input = {"text"};
  ctx.messages.resize(2);
  ctx.messages.push_back(UserMessage{{TextContent{"go on"}}, true, 2});
  const json c2 = body_of(other, ctx)["contents"];
  ASSERT_EQ(c2.size(), 4u);
  EXPECT_EQ(c2[0]["parts"].size(), 1u);
  EXPECT_EQ(c2[1]["parts"][0], json::parse(R"({"text":"Look it up."})"));
  EXPECT_FALSE(c2[1]["parts"][2].contains("thoughtSignature"));
  EXPECT_EQ(c2[2]["parts"].size(), 2u);
  EXPECT_EQ(c2[2]["parts"][0]["functionResponse"]["response"]["error"], "No result provided");
}

TEST(LlmGemini, ThinkingLevels) {
  auto cfg = [](const std::string& id, ThinkingLevel level) {
    RequestOptions o;
    o.thinking = level;
    Context ctx;
    ctx.messages.push_back(UserMessage{{TextContent{"hi"}}, true, 0});
    const json b = body_of(gemini(id), ctx, o);
    return b["generationConfig"].value("thinkingConfig", json());
  };
  EXPECT_EQ(cfg("gemini-2.5-flash", ThinkingLevel::Minimal), json::parse(R"({"thinkingBudget":128,"includeThoughts":true})"));
  EXPECT_EQ(cfg("gemini-2.5-flash", ThinkingLevel::Low)["thinkingBudget"], 2048);
  EXPECT_EQ(cfg("gemini-2.5-flash", ThinkingLevel::Medium)["thinkingBudget"], 8192);
  EXPECT_EQ(cfg("gemini-2.5-flash", ThinkingLevel::High)["thinkingBudget"], 24576);
  EXPECT_EQ(cfg("gemini-2.5-flash", ThinkingLevel::XHigh)["thinkingBudget"], 24576);
  EXPECT_EQ(cfg("gemini-2.5-flash-lite", ThinkingLevel::Minimal)["thinkingBudget"], 512);
  EXPECT_EQ(cfg("gemini-2.5-pro", ThinkingLevel::High)["thinkingBudget"], 32768);
  EXPECT_TRUE(cfg("gemini-2.5-pro", ThinkingLevel::Off).is_null());  // cannot be turned off
  EXPECT_EQ(cfg("gemini-2.0-flash-thinking", ThinkingLevel::Medium)["thinkingBudget"], -1);
  EXPECT_EQ(cfg("gemini-3-pro-preview", ThinkingLevel::Minimal), json::parse(R"({"thinkingLevel":"LOW","includeThoughts":true})"));
  EXPECT_EQ(cfg("gemini-3-pro-preview", ThinkingLevel::Medium)["thinkingLevel"], "HIGH");
  EXPECT_EQ(cfg("gemini-3-pro-preview", ThinkingLevel::Off), json::parse(R"({"thinkingLevel":"LOW"})"));
  EXPECT_EQ(cfg("gemini-3-flash-preview", ThinkingLevel::Medium)["thinkingLevel"], "MEDIUM");
  EXPECT_EQ(cfg("gemini-3-flash-preview", ThinkingLevel::Off), json::parse(R"({"thinkingLevel":"MINIMAL"})"));
  ModelSpec plain = gemini();
  plain.reasoning = false;
  Context ctx;
  RequestOptions high;
  high.thinking = ThinkingLevel::High;
  EXPECT_FALSE(body_of(plain, ctx, high)["generationConfig"].contains("thinkingConfig"));
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

TEST(LlmGemini, DecodesTextThinkingAndUsage) {
  const std::string body = sse({
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Let me think","thought":true}]}}],"responseId":"r1"})"),
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"text":" more.","thought":true,"thoughtSignature":"U0lH"}]}}]})"),
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]}}]})"),
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"text":", world"}]},"finishReason":"STOP"}],
          "usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":7,"thoughtsTokenCount":20,"cachedContentTokenCount":40,"totalTokenCount":127}})"),
  });
  const Decoded d = decode(body);
  ASSERT_EQ(d.error_code, "") << d.error_message;
  ASSERT_EQ(d.message.content.size(), 2u);
  const auto& th = std::get<ThinkingContent>(d.message.content[0]);
  EXPECT_EQ(th.thinking, "Let me think more.");
  EXPECT_EQ(th.signature, "U0lH");
  EXPECT_EQ(d.message.text(), "Hello, world");
  EXPECT_EQ(d.message.stop_reason, StopReason::Stop);
  EXPECT_EQ(d.message.response_id, "r1");
  EXPECT_EQ(d.message.usage.input, 60);
  EXPECT_EQ(d.message.usage.output, 27);
  EXPECT_EQ(d.message.usage.cache_read, 40);
  EXPECT_EQ(d.message.usage.total_tokens, 127);
  // Fed whole: the deltas of one block that arrive in one read come as one.
  EXPECT_EQ(d.events, (std::vector<std::string>{"1:0:Let me think more.", "0:1:Hello, world"}));
}

TEST(LlmGemini, DecodesToolCallsWithGeneratedIds) {
  const std::string body = sse({
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Checking."},
          {"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2ln"}]}}]})"),
      json::parse(R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_time","args":{}}}]},
          "finishReason":"STOP"}]})"),
  });
  const Decoded d = decode(body);
  ASSERT_EQ(d.error_code, "") << d.error_message;
  EXPECT_EQ(d.message.stop_reason, StopReason::ToolUse);
  auto calls = d.message.tool_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->name, "get_weather");
  EXPECT_EQ(calls[0]->arguments, json::parse(R"({"city":"Paris"})"));
  EXPECT_EQ(calls[0]->id.rfind("call_", 0), 0u);
  EXPECT_EQ(calls[0]->id.substr(calls[0]->id.find('|')), "|c2ln");  // signature kept for replay
  EXPECT_EQ(calls[1]->id.find('|'), std::string::npos);
  EXPECT_NE(calls[0]->id, calls[1]->id);
  // The replayed request pairs results by name and sends the signature back.
  Context ctx;
  ctx.messages.push_back(UserMessage{{TextContent{"weather?"}}, true, 0});
  ctx.messages.push_back(d.message);
  ctx.messages.push_back(ToolResultMessage{calls[0]->id, "get_weather", {TextContent{"sunny"}}, nullptr, false, 0});
  ctx.messages.push_back(ToolResultMessage{calls[1]->id, "get_time", {TextContent{"noon"}}, nullptr, false, 0});
  const json contents = body_of(gemini(), ctx)["contents"];
  ASSERT_EQ(contents.size(), 3u);
  EXPECT_EQ(contents[1]["parts"][1]["thoughtSignature"], "c2ln");
  EXPECT_EQ(contents[2]["parts"][0]["functionResponse"]["name"], "get_weather");
  EXPECT_EQ(contents[2]["parts"][1]["functionResponse"]["response"]["output"], "noon");
}

TEST(LlmGemini, FinishReasons) {
  auto finish = [](const std::string& reason) {
    return decode(sse({json{{"candidates", json::array({{{"content", {{"parts", json::array({{{"text", "x"}}})}}},
                                                         {"finishReason", reason}}})}}}));
  };
  EXPECT_EQ(finish("MAX_TOKENS").message.stop_reason, StopReason::Length);
  const Decoded safety = finish("SAFETY");
  EXPECT_EQ(safety.error_code, "");
  EXPECT_EQ(safety.message.stop_reason, StopReason::Error);
  EXPECT_EQ(safety.message.error_message, "Gemini stopped: SAFETY (blocked by the provider's safety filters)");
  EXPECT_NE(finish("RECITATION").message.error_message.find("recitation"), std::string::npos);
  EXPECT_EQ(finish("OTHER").message.stop_reason, StopReason::Error);
  const Decoded blocked = decode(sse({json::parse(R"({"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}})")}));
  EXPECT_EQ(blocked.message.stop_reason, StopReason::Error);
  EXPECT_EQ(blocked.message.error_message, "Gemini blocked the prompt: PROHIBITED_CONTENT");
}

TEST(LlmGemini, ErrorsAndCutStreams) {
  const Decoded err = decode(sse({json::parse(R"({"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]})"),
                                  json::parse(R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}})")}));
  EXPECT_EQ(err.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(err.error_message, "RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).");
  EXPECT_EQ(err.message.stop_reason, StopReason::Error);
  EXPECT_EQ(err.message.text(), "Hi");

  // No finishReason before the end of the body: the response was cut.
  const Decoded cut = decode(sse({json::parse(R"({"candidates":[{"content":{"parts":[{"text":"Hel"}]}}]})")}));
  EXPECT_EQ(cut.error_code, "PROVIDER_STREAM_INCOMPLETE");
  EXPECT_EQ(cut.message.text(), "Hel");
  // A last chunk without its blank line still counts; one cut inside its JSON does not.
  const std::string last = R"(data: {"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}]})";
  EXPECT_EQ(decode(last).error_code, "");
  EXPECT_EQ(decode(last.substr(0, last.size() - 10)).error_code, "PROVIDER_STREAM_INCOMPLETE");
  EXPECT_EQ(decode("data: [not json\n\n").error_code, "PROVIDER_STREAM_INVALID");
}

}  // namespace
}  // namespace pincer::llm
