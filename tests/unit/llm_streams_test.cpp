// Stream side of the wire APIs (src/llm/openai_completions.h, openai_responses.h,
// anthropic_messages.h, ollama.h): recorded Chat Completions, Responses, Anthropic Messages and
// Ollama streams — text, thinking, parallel tool calls, usage, stop reasons, error events, streams
// cut midway, malformed shapes, bytes after the end. Every stream is fed whole, split at every
// byte boundary near its framing, byte by byte and in random chunks; the deltas (consecutive ones
// of a block merged: a read's deltas are reported together) and the final AssistantMessage must
// not depend on the split. The request side is in llm_requests_test.cpp;
// the shared test models in llm_providers_test_support.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "llm_providers_test_support.h"

namespace pincer::llm::llm_streams_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
using llm_providers_test_support::anthropic_model;
using llm_providers_test_support::completions_model;
using llm_providers_test_support::ollama_model;
using llm_providers_test_support::responses_model;

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

std::string describe(const StreamEvent& e) {
  static const char* kNames[] = {"text", "thinking", "call_start", "call_delta", "call_end"};
  return std::string(kNames[static_cast<int>(e.kind)]) + ":" + std::to_string(e.content_index) + ":" + e.delta;
}

struct Outcome {
  std::vector<std::string> events;
  std::string error_code;     ///< "" when finish() succeeded
  std::string error_message;
  json message;               ///< final message, or the partial one after an error (timestamp 0)

  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "error=" << o.error_code << " " << o.error_message << "\nmessage=" << o.message.dump() << "\nevents:";
  for (const auto& e : o.events) os << "\n  " << e;
  return os;
}

json normalised(const AssistantMessage& m, bool blank_tool_ids) {
  json j = to_json(Message{m});
  j["timestamp"] = 0;
  if (blank_tool_ids) {
    for (auto& block : j["content"]) {
      if (block["type"] == "toolCall") block["id"] = "ID";
    }
  }
  return j;
}

/// Consecutive text (or thinking) deltas of one block as one: the decoder reports a read's deltas
/// together (MessageBuilder::flush), so how the body is split decides only where they are cut.
std::vector<std::string> merged_deltas(const std::vector<StreamEvent>& events) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    StreamEvent e = events[i];
    const bool text_like = e.kind == StreamEvent::Kind::TextDelta || e.kind == StreamEvent::Kind::ThinkingDelta;
    while (text_like && i + 1 < events.size() && events[i + 1].kind == e.kind &&
           events[i + 1].content_index == e.content_index) {
      e.delta += events[++i].delta;
    }
    out.push_back(describe(e));
  }
  return out;
}

/// Feeds `body` cut at the given ascending positions, then finishes. `raw`, when given, receives
/// the events as reported (Outcome::events has consecutive deltas of a block merged).
Outcome run(const ModelSpec& model, std::string_view body, const std::vector<std::size_t>& cuts = {},
            std::vector<std::string>* raw = nullptr) {
  Outcome o;
  const ProviderApi* api = find_api(model.api);
  EXPECT_NE(api, nullptr);
  std::vector<StreamEvent> events;
  auto decoder = api->make_decoder(model, [&](const StreamEvent& e, const AssistantMessage& partial) {
    EXPECT_LT(e.content_index, partial.content.size());
    events.push_back(e);
    if (raw) raw->push_back(describe(e));
  });

  std::size_t pos = 0;
  std::vector<std::size_t> all = cuts;
  all.push_back(body.size());
  for (std::size_t cut : all) {
    Status s = decoder->feed(body.substr(pos, cut - pos));
    pos = cut;
    if (!s.ok()) {
      o.error_code = s.error().code;
      o.error_message = s.error().message;
      break;
    }
  }
  if (o.error_code.empty()) {
    auto r = decoder->finish();
    if (r.ok()) {
      o.message = normalised(r.value(), model.api == "ollama");
      o.events = merged_deltas(events);
      return o;
    }
    o.error_code = r.error().code;
    o.error_message = r.error().message;
  }
  o.message = normalised(decoder->partial(), model.api == "ollama");
  o.events = merged_deltas(events);
  return o;
}

/// Whether a split at `cut` falls within 8 bytes of a line break or of the start of the body.
bool near_framing(const std::string& body, std::size_t cut) {
  if (cut <= 8) return true;
  const std::size_t from = cut - 8, to = std::min(body.size(), cut + 8);
  return body.find_first_of("\r\n", from) < to;
}

/// The outcome of feeding `body` whole, after checking that other ways of splitting it give the
/// same outcome: one split at every byte boundary near the framing (line breaks, where the
/// SSE/NDJSON state changes — the parsers themselves are tested at every boundary in
/// llm_sse_test.cpp; a split inside a JSON payload only delays it), byte at a time, and 20 random
/// chunkings.
Outcome run_all_splits(const ModelSpec& model, const std::string& body) {
  const Outcome whole = run(model, body);
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    if (!near_framing(body, cut)) continue;
    const Outcome split = run(model, body, {cut});
    EXPECT_EQ(split, whole) << "split at byte " << cut;
    if (split != whole) break;
  }
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < body.size(); ++i) every.push_back(i);
  EXPECT_EQ(run(model, body, every), whole) << "byte at a time";
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::size_t> cuts;
    std::size_t pos = 0;
    while (true) {
      pos += 1 + rng() % 64;
      if (pos >= body.size()) break;
      cuts.push_back(pos);
    }
    EXPECT_EQ(run(model, body, cuts), whole) << "random chunks, round " << round;
  }
  return whole;
}

/// "data: <chunk>\n\n" for each chunk (Chat Completions framing).
std::string data_sse(const std::vector<std::string>& chunks, const std::string& eol = "\n") {
  std::string out;
  for (const auto& c : chunks) out += "data: " + c + eol + eol;
  return out;
}

/// "event: <type>\ndata: <json>\n\n" with the type taken from the JSON (Anthropic/Responses framing).
std::string typed_sse(const std::vector<std::string>& events) {
  std::string out;
  for (const auto& e : events) out += "event: " + json::parse(e)["type"].get<std::string>() + "\ndata: " + e + "\n\n";
  return out;
}

json usage_json(int64_t input, int64_t output, int64_t cache_read, int64_t cache_write) {
  return json{{"input", input},
              {"output", output},
              {"cacheRead", cache_read},
              {"cacheWrite", cache_write},
              {"totalTokens", input + output + cache_read + cache_write},
              {"cost", {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}}}};
}

json assistant_json(const ModelSpec& m, json content, json usage, const char* stop, const char* response_id) {
  json j{{"role", "assistant"}, {"content", std::move(content)}, {"api", m.api}, {"provider", m.provider},
         {"model", m.id},       {"usage", std::move(usage)},     {"stopReason", stop}};
  if (response_id[0] != '\0') j["responseId"] = response_id;
  j["timestamp"] = 0;
  return j;
}
// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions streams
// ---------------------------------------------------------------------------------------------

std::string cc_chunk(const std::string& delta, const std::string& finish = "null") {
  return R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727000000,"model":"gpt-4.1",)"
         R"("system_fingerprint":"fp_1","choices":[{"index":0,"delta":)" +
         delta + R"(,"logprobs":null,"finish_reason":)" + finish + "}]}";
}

const std::string kCcUsage =
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1727000000,"model":"gpt-4.1","choices":[],)"
    R"("usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,)"
    R"("prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":5}}})";

std::vector<std::string> cc_tool_stream_chunks() {
  return {
      cc_chunk(R"({"role":"assistant","content":"","refusal":null})"),
      cc_chunk(R"({"reasoning_content":"Need weather "})"),
      cc_chunk(R"({"reasoning_content":"and time."})"),
      cc_chunk(R"({"content":"Checking "})"),
      cc_chunk(R"({"content":"both."})"),
      cc_chunk(R"({"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]})"),
      cc_chunk(R"({"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]})"),
      cc_chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]})"),
      cc_chunk(R"({"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"UTC\"}"}}]})"),
      cc_chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]})"),
      cc_chunk("{}", R"("tool_calls")"),
      kCcUsage,
      "[DONE]",
  };
}

TEST(LlmProviders, CompletionsParallelToolCallsWithReasoning) {
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(m, data_sse(cc_tool_stream_chunks()));
  EXPECT_EQ(o.error_code, "") << o.error_message;
  EXPECT_EQ(o.events, (std::vector<std::string>{
                          "thinking:0:Need weather and time.", "text:1:Checking both.",
                          "call_start:2:", "call_start:3:", "call_delta:2:{\"city\":", "call_delta:3:{\"tz\":\"UTC\"}",
                          "call_delta:2:\"Paris\"}", "call_end:2:", "call_end:3:"}));
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([
      {"type":"thinking","thinking":"Need weather and time.","thinkingSignature":"reasoning_content"},
      {"type":"text","text":"Checking both."},
      {"type":"toolCall","id":"call_a","name":"get_weather","arguments":{"city":"Paris"}},
      {"type":"toolCall","id":"call_b","name":"get_time","arguments":{"tz":"UTC"}}])"),
                                      usage_json(60, 20, 40, 0), "toolUse", "chatcmpl-1"));
}

TEST(LlmProviders, CompletionsCrlfTextStream) {
  const ModelSpec m = completions_model();
  const std::string body = ": keep-alive\r\n\r\n" +
                           data_sse({cc_chunk(R"({"role":"assistant","content":"Hel"})"),
                                     cc_chunk(R"({"content":"lo"})"), cc_chunk("{}", R"("length")"), kCcUsage, "[DONE]"},
                                    "\r\n");
  const Outcome o = run_all_splits(m, body);
  EXPECT_EQ(o.events, (std::vector<std::string>{"text:0:Hello"}));
  // A read that holds both deltas reports them as one; deltas that arrive in separate reads
  // are reported as they arrive.
  std::vector<std::string> raw;
  run(m, body, {}, &raw);
  EXPECT_EQ(raw, (std::vector<std::string>{"text:0:Hello"}));
  raw.clear();
  run(m, body, {body.find("lo\"")}, &raw);
  EXPECT_EQ(raw, (std::vector<std::string>{"text:0:Hel", "text:0:lo"}));
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([{"type":"text","text":"Hello"}])"), usage_json(60, 20, 40, 0),
                                      "length", "chatcmpl-1"));
}

TEST(LlmProviders, CompletionsEndWithoutDoneAfterFinishReasonIsAccepted) {
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(m, data_sse({cc_chunk(R"({"content":"Hi"})"), cc_chunk("{}", R"("stop")")}));
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["stopReason"], "stop");
}

TEST(LlmProviders, CompletionsCutMidwayIsIncomplete) {
  const ModelSpec m = completions_model();
  const std::string full = data_sse(cc_tool_stream_chunks());
  const std::string body = full.substr(0, full.find("Paris"));
  const Outcome o = run_all_splits(m, body);
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INCOMPLETE");
  EXPECT_EQ(o.error_message, "openai-completions stream ended before the response was complete");
  EXPECT_EQ(o.message["stopReason"], "error");
  EXPECT_EQ(o.message["errorMessage"], o.error_message);
  EXPECT_EQ(o.message["content"][1]["text"], "Checking both.");
}

TEST(LlmProviders, CompletionsErrorChunk) {
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(
      m, data_sse({cc_chunk(R"({"content":"Hi"})"),
                   R"({"error":{"message":"Rate limit reached for gpt-4.1","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
                   cc_chunk(R"({"content":" ignored"})")}));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(o.error_message, "rate_limit_exceeded: Rate limit reached for gpt-4.1");
  EXPECT_EQ(o.events, std::vector<std::string>{"text:0:Hi"});
  EXPECT_EQ(o.message["stopReason"], "error");
  EXPECT_EQ(o.message["content"][0]["text"], "Hi");
}

TEST(LlmProviders, CompletionsInvalidJsonIsInvalidStream) {
  const Outcome o = run_all_splits(completions_model(), data_sse({"{not json"}));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INVALID");
}

TEST(LlmProviders, CompletionsContentFilterAndOpenRouterReasoning) {
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(m, data_sse({cc_chunk(R"({"reasoning":"hmm"})"), cc_chunk(R"({"content":"No"})"),
                                                cc_chunk("{}", R"("content_filter")"), "[DONE]"}));
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["stopReason"], "error");
  EXPECT_EQ(o.message["errorMessage"], "response blocked by the provider's content filter");
  EXPECT_EQ(o.message["content"][0]["thinkingSignature"], "reasoning");
}

TEST(LlmProviders, CompletionsSameIndexNewIdStartsANewCall) {
  // Some servers (e.g. Gemini's compatibility layer) send every call at index 0 with its own id.
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(
      m, data_sse({cc_chunk(R"({"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]})"),
                   cc_chunk(R"({"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{\"k\":1}"}}]})"),
                   cc_chunk("{}", R"("stop")"), "[DONE]"}));
  EXPECT_EQ(o.events, (std::vector<std::string>{"call_start:0:", "call_delta:0:{}", "call_end:0:", "call_start:1:",
                                                "call_delta:1:{\"k\":1}", "call_end:1:"}));
  EXPECT_EQ(o.message["stopReason"], "toolUse");  // "stop" with tool calls
  EXPECT_EQ(o.message["content"][1]["arguments"], json::parse(R"({"k":1})"));
}

TEST(LlmProviders, InvalidToolArgumentsAreKeptAsText) {
  const ModelSpec m = completions_model();
  const Outcome o = run_all_splits(
      m, data_sse({cc_chunk(R"({"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{\"k\":"}}]})"),
                   cc_chunk("{}", R"("tool_calls")"), "[DONE]"}));
  EXPECT_EQ(o.message["content"][0]["arguments"], "{\"k\":");
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses streams
// ---------------------------------------------------------------------------------------------

const std::string kReasoningItem =
    R"({"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Plan A."},{"type":"summary_text","text":"Plan B."}],"encrypted_content":"gAAAAB"})";

std::vector<std::string> responses_tool_stream() {
  return {
      R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}})",
      R"({"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}})",
      R"({"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}})",
      R"({"type":"response.reasoning_summary_part.added","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}})",
      R"({"type":"response.reasoning_summary_text.delta","sequence_number":4,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Plan A."})",
      R"({"type":"response.reasoning_summary_part.done","sequence_number":5,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"Plan A."}})",
      R"({"type":"response.reasoning_summary_text.delta","sequence_number":6,"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"Plan B."})",
      R"({"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":)" + kReasoningItem + "}",
      R"({"type":"response.output_item.added","sequence_number":8,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}})",
      R"({"type":"response.content_part.added","sequence_number":9,"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}})",
      R"({"type":"response.output_text.delta","sequence_number":10,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello"})",
      R"({"type":"response.output_text.delta","sequence_number":11,"item_id":"msg_1","output_index":1,"content_index":0,"delta":" wörld"})",
      R"({"type":"response.output_text.done","sequence_number":12,"item_id":"msg_1","output_index":1,"content_index":0,"text":"Hello wörld"})",
      R"({"type":"response.output_item.done","sequence_number":13,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"Hello wörld"}]}})",
      R"({"type":"response.output_item.added","sequence_number":14,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"search"}})",
      R"({"type":"response.output_item.added","sequence_number":15,"output_index":3,"item":{"id":"fc_2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_2","name":"read"}})",
      R"({"type":"response.function_call_arguments.delta","sequence_number":16,"item_id":"fc_1","output_index":2,"delta":"{\"q\":"})",
      R"({"type":"response.function_call_arguments.delta","sequence_number":17,"item_id":"fc_2","output_index":3,"delta":"{\"path\":\"/a\"}"})",
      R"({"type":"response.function_call_arguments.delta","sequence_number":18,"item_id":"fc_1","output_index":2,"delta":"\"x\"}"})",
      R"({"type":"response.function_call_arguments.done","sequence_number":19,"item_id":"fc_1","output_index":2,"arguments":"{\"q\":\"x\"}"})",
      R"({"type":"response.output_item.done","sequence_number":20,"output_index":2,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"q\":\"x\"}","call_id":"call_1","name":"search"}})",
      R"({"type":"response.output_item.done","sequence_number":21,"output_index":3,"item":{"id":"fc_2","type":"function_call","status":"completed","arguments":"{\"path\":\"/a\"}","call_id":"call_2","name":"read"}})",
      R"({"type":"response.completed","sequence_number":22,"response":{"id":"resp_1","object":"response","status":"completed","usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":10},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":80}}})",
  };
}

TEST(LlmProviders, ResponsesReasoningTextAndParallelCalls) {
  const ModelSpec m = responses_model();
  const Outcome o = run_all_splits(m, typed_sse(responses_tool_stream()));
  EXPECT_EQ(o.error_code, "") << o.error_message;
  EXPECT_EQ(o.events, (std::vector<std::string>{"thinking:0:Plan A.\n\nPlan B.", "text:1:Hello wörld", "call_start:2:", "call_start:3:",
                                                "call_delta:2:{\"q\":", "call_delta:3:{\"path\":\"/a\"}",
                                                "call_delta:2:\"x\"}", "call_end:2:", "call_end:3:"}));
  json content = json::parse(R"([
      {"type":"thinking","thinking":"Plan A.\n\nPlan B.","thinkingSignature":""},
      {"type":"text","text":"Hello wörld"},
      {"type":"toolCall","id":"call_1|fc_1","name":"search","arguments":{"q":"x"}},
      {"type":"toolCall","id":"call_2|fc_2","name":"read","arguments":{"path":"/a"}}])");
  content[0]["thinkingSignature"] = json::parse(kReasoningItem).dump();
  EXPECT_EQ(o.message, assistant_json(m, content, usage_json(40, 30, 10, 0), "toolUse", "resp_1"));
}

TEST(LlmProviders, ResponsesIncompleteIsLength) {
  const ModelSpec m = responses_model();
  const Outcome o = run_all_splits(
      m, typed_sse({R"({"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Long"})",
                    R"({"type":"response.incomplete","response":{"id":"resp_2","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12}}})"}));
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([{"type":"text","text":"Long"}])"), usage_json(5, 7, 0, 0),
                                      "length", "resp_2"));
}

TEST(LlmProviders, ResponsesErrorEvents) {
  const ModelSpec m = responses_model();
  Outcome o = run_all_splits(m, typed_sse({R"({"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null,"sequence_number":3})"}));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(o.error_message, "rate_limit_exceeded: Slow down");
  o = run_all_splits(m, typed_sse({R"({"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"}}})"}));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(o.error_message, "server_error: boom");
}

TEST(LlmProviders, ResponsesCutMidwayIsIncomplete) {
  const auto events = responses_tool_stream();
  const Outcome o = run_all_splits(responses_model(), typed_sse({events.begin(), events.end() - 1}));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INCOMPLETE");
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages streams
// ---------------------------------------------------------------------------------------------

std::vector<std::string> anthropic_tool_stream() {
  return {
      R"({"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two lookups."}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh"}})",
      R"({"type":"content_block_stop","index":0})",
      R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})",
      R"({"type": "ping"})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Sure"}})",
      R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":", checking."}})",
      R"({"type":"content_block_stop","index":1})",
      R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}})",
      R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}})",
      R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San"}})",
      R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" Francisco\"}"}})",
      R"({"type":"content_block_stop","index":2})",
      R"({"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_02","name":"get_time","input":{}}})",
      R"({"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"tz\":\"PST\"}"}})",
      R"({"type":"content_block_stop","index":3})",
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}})",
      R"({"type":"message_stop"})",
  };
}

TEST(LlmProviders, AnthropicThinkingTextAndToolCalls) {
  const ModelSpec m = anthropic_model();
  const Outcome o = run_all_splits(m, typed_sse(anthropic_tool_stream()));
  EXPECT_EQ(o.error_code, "") << o.error_message;
  EXPECT_EQ(o.events, (std::vector<std::string>{
                          "thinking:0:Two lookups.", "text:1:Sure, checking.", "call_start:2:",
                          "call_delta:2:{\"location\": \"San", "call_delta:2: Francisco\"}", "call_end:2:",
                          "call_start:3:", "call_delta:3:{\"tz\":\"PST\"}", "call_end:3:"}));
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([
      {"type":"thinking","thinking":"Two lookups.","thinkingSignature":"EqQBCgIYAh"},
      {"type":"text","text":"Sure, checking."},
      {"type":"toolCall","id":"toolu_01","name":"get_weather","arguments":{"location":"San Francisco"}},
      {"type":"toolCall","id":"toolu_02","name":"get_time","arguments":{"tz":"PST"}}])"),
                                      usage_json(25, 89, 100, 5), "toolUse", "msg_01"));
}

TEST(LlmProviders, AnthropicRedactedThinkingAndMaxTokens) {
  const ModelSpec m = anthropic_model();
  const Outcome o = run_all_splits(
      m, typed_sse({R"({"type":"message_start","message":{"id":"msg_02","usage":{"input_tokens":3,"output_tokens":1}}})",
                    R"({"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}})",
                    R"({"type":"content_block_stop","index":0})",
                    R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Par"}})",
                    R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"tial"}})",
                    R"({"type":"content_block_stop","index":1})",
                    R"({"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":4}})",
                    R"({"type":"message_stop"})"}));
  EXPECT_EQ(o.events, (std::vector<std::string>{"text:1:Partial"}));
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([
      {"type":"thinking","thinking":"","thinkingSignature":"EmwKAhgB","redacted":true},
      {"type":"text","text":"Partial"}])"),
                                      usage_json(3, 4, 0, 0), "length", "msg_02"));
}

TEST(LlmProviders, AnthropicErrorEvent) {
  const auto events = anthropic_tool_stream();
  std::vector<std::string> cut(events.begin(), events.begin() + 8);
  cut.push_back(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  const Outcome o = run_all_splits(anthropic_model(), typed_sse(cut));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(o.error_message, "overloaded_error: Overloaded");
  EXPECT_EQ(o.message["content"][1]["text"], "Sure");
  EXPECT_EQ(o.message["stopReason"], "error");
  EXPECT_EQ(o.message["errorMessage"], "overloaded_error: Overloaded");
}

TEST(LlmProviders, AnthropicCutMidwayIsIncomplete) {
  const auto events = anthropic_tool_stream();
  const std::string full = typed_sse(events);
  const Outcome o = run_all_splits(anthropic_model(), full.substr(0, full.find("message_delta") - 7));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INCOMPLETE");
  EXPECT_EQ(o.message["content"].size(), 4u);
}

// ---------------------------------------------------------------------------------------------
// Ollama NDJSON streams
// ---------------------------------------------------------------------------------------------

std::string ollama_line(const std::string& message, bool done = false, const std::string& tail = "") {
  return R"({"model":"qwen3","created_at":"2025-05-27T22:54:57.641643Z","message":)" + message +
         R"(,"done":)" + (done ? "true" : "false") + tail + "}\n";
}

std::string ollama_tool_stream() {
  return ollama_line(R"({"role":"assistant","content":"","thinking":"Weather "})") +
         ollama_line(R"({"role":"assistant","content":"","thinking":"and time."})") +
         ollama_line(R"({"role":"assistant","content":"On it."})") +
         ollama_line(R"({"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Toronto"}}},{"function":{"name":"get_time","arguments":{"tz":"EST"}}}]})") +
         ollama_line(R"({"role":"assistant","content":""})", true,
                     R"(,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":30,"prompt_eval_duration":1,"eval_count":12,"eval_duration":1)");
}

TEST(LlmProviders, OllamaThinkingTextAndToolCalls) {
  const ModelSpec m = ollama_model();
  const Outcome o = run_all_splits(m, ollama_tool_stream());
  EXPECT_EQ(o.error_code, "") << o.error_message;
  EXPECT_EQ(o.events, (std::vector<std::string>{"thinking:0:Weather and time.", "text:1:On it.",
                                                "call_start:2:", "call_delta:2:{\"city\":\"Toronto\"}", "call_end:2:",
                                                "call_start:3:", "call_delta:3:{\"tz\":\"EST\"}", "call_end:3:"}));
  EXPECT_EQ(o.message, assistant_json(m, json::parse(R"([
      {"type":"thinking","thinking":"Weather and time."},
      {"type":"text","text":"On it."},
      {"type":"toolCall","id":"ID","name":"get_weather","arguments":{"city":"Toronto"}},
      {"type":"toolCall","id":"ID","name":"get_time","arguments":{"tz":"EST"}}])"),
                                      usage_json(30, 12, 0, 0), "toolUse", ""));
}

TEST(LlmProviders, OllamaGeneratesDistinctToolCallIds) {
  const ModelSpec m = ollama_model();
  auto decoder = find_api(m.api)->make_decoder(m, nullptr);
  ASSERT_TRUE(decoder->feed(ollama_tool_stream()).ok());
  auto r = decoder->finish();
  ASSERT_TRUE(r.ok());
  const auto calls = r.value().tool_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->id.rfind("call_", 0), 0u);
  EXPECT_NE(calls[0]->id, calls[1]->id);
}

TEST(LlmProviders, OllamaLastLineWithoutNewlineAndLength) {
  const ModelSpec m = ollama_model();
  std::string body = ollama_line(R"({"role":"assistant","content":"Hi"})") +
                     ollama_line(R"({"role":"assistant","content":""})", true,
                                 R"(,"done_reason":"length","prompt_eval_count":2,"eval_count":1)");
  body.pop_back();
  const Outcome o = run_all_splits(m, body);
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["stopReason"], "length");
  EXPECT_EQ(o.message["usage"]["totalTokens"], 3);
}

TEST(LlmProviders, OllamaErrorsAndCuts) {
  const ModelSpec m = ollama_model();
  Outcome o = run_all_splits(m, ollama_line(R"({"role":"assistant","content":"Hi"})") +
                                    "{\"error\":\"model requires more system memory (9.2 GiB) than is available\"}\n");
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_ERROR");
  EXPECT_EQ(o.error_message, "model requires more system memory (9.2 GiB) than is available");
  EXPECT_EQ(o.message["content"][0]["text"], "Hi");

  const std::string full = ollama_tool_stream();
  o = run_all_splits(m, full.substr(0, full.find("\"done\":true") - 40));
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INCOMPLETE");
  EXPECT_EQ(o.error_message, "ollama stream ended before the response was complete");

  o = run_all_splits(m, ollama_line(R"({"content":"Hi"})") + "{oops\n");
  EXPECT_EQ(o.error_code, "PROVIDER_STREAM_INVALID");
  EXPECT_EQ(o.error_message.rfind("ollama stream: line 2: ", 0), 0u) << o.error_message;
}

// ---------------------------------------------------------------------------------------------
// Decoder contract
// ---------------------------------------------------------------------------------------------

TEST(LlmProviders, MalformedShapesDoNotThrow) {
  // Found by fuzzing: wrong member types, deltas aimed at a block of another kind, absurd numbers.
  Outcome o = run_all_splits(anthropic_model(), typed_sse({
      R"({"type":"message_start","message":"content_block_delta","usage":7})",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n"}})",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})",
      R"({"type":"message_delta","delta":"tool_use","usage":{"output_tokens":1e300,"input_tokens":-5}})",
      R"({"type":"message_stop"})"}));
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["usage"]["output"], 0);
  EXPECT_EQ(o.message["usage"]["input"], 0);
  o = run_all_splits(responses_model(), typed_sse({
      R"({"type":"response.output_item.added","item":{"type":"function_call","id":"fc","call_id":"c","name":"n"}})",
      R"({"type":"response.output_text.delta","delta":"hi"})",
      R"({"type":"response.reasoning_summary_text.delta","delta":"hm"})",
      R"({"type":"response.output_item.done","item":{"type":"reasoning"}})",
      R"({"type":"response.completed","response":[]})"}));
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["content"].size(), 1u);
  o = run_all_splits(completions_model(), data_sse({R"({"choices":[{"delta":[],"finish_reason":7}]})",
                                                    R"({"choices":[{"delta":{"tool_calls":[{"function":"x"}]}}]})", "[DONE]"}));
  EXPECT_EQ(o.error_code, "");
}

TEST(LlmProviders, BytesAfterTheTerminalEventAreIgnored) {
  Outcome o = run_all_splits(anthropic_model(), typed_sse(anthropic_tool_stream()) + "data: {garbage\n\n");
  EXPECT_EQ(o.error_code, "");
  o = run_all_splits(ollama_model(), ollama_tool_stream() + "{garbage\n");
  EXPECT_EQ(o.error_code, "");
  EXPECT_EQ(o.message["stopReason"], "toolUse");
}

TEST(LlmProviders, ErrorsAreStickyAndFinishIsSingleUse) {
  const ModelSpec m = anthropic_model();
  auto decoder = find_api(m.api)->make_decoder(m, nullptr);
  ASSERT_FALSE(decoder->feed("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n\n").ok());
  auto again = decoder->feed("data: {}\n\n");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "PROVIDER_STREAM_ERROR");
  auto r = decoder->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "api_error: x");

  auto ok = find_api(m.api)->make_decoder(m, nullptr);
  ASSERT_TRUE(ok->feed(typed_sse(anthropic_tool_stream())).ok());
  EXPECT_TRUE(ok->finish().ok());
  EXPECT_FALSE(ok->finish().ok());
  EXPECT_EQ(ok->partial().model, "test-model");
  EXPECT_GT(ok->partial().timestamp, 0);
}

}  // namespace
}  // namespace pincer::llm::llm_streams_test
