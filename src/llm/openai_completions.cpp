// OpenAI Chat Completions (streaming): request building and stream decoding. See the header.
#include "llm/openai_completions.h"

#include <map>

namespace pincer::llm {
// Named, then anonymous: each wire API's helpers (Decoder, build_body …) stay apart from the
// others' of the same name when a unity build compiles several files as one.
namespace openai_completions_wire {
namespace {

using nlohmann::json;
using namespace wire;

constexpr std::string_view kApi = "openai-completions";
constexpr std::size_t kMaxToolIdChars = 40;  // OpenAI rejects longer tool_call ids

bool is_openai_host(const ModelSpec& model) {
  return model.base_url.find("api.openai.com") != std::string::npos;
}

std::string map_tool_id(const std::string& id) {
  std::string out = id.substr(0, id.find('|'));
  if (out.size() > kMaxToolIdChars) out.resize(kMaxToolIdChars);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

json image_part(const ImageContent& image) {
  return json{{"type", "image_url"}, {"image_url", {{"url", data_url(image)}}}};
}

void add_user(const ModelSpec& model, const UserMessage& m, json& out) {
  if (m.content_is_string && m.content.size() == 1 && std::holds_alternative<TextContent>(m.content[0])) {
    out.push_back({{"role", "user"}, {"content", std::get<TextContent>(m.content[0]).text}});
    return;
  }
  json parts = json::array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block)) {
      parts.push_back({{"type", "text"}, {"text", t->text}});
    } else if (const auto* img = std::get_if<ImageContent>(&block); img && accepts_images(model)) {
      parts.push_back(image_part(*img));
    }
  }
  if (!parts.empty()) out.push_back({{"role", "user"}, {"content", std::move(parts)}});
}

std::string arguments_text(const ToolCall& call) {
  return call.arguments.is_string() ? call.arguments.get<std::string>() : dump_body(call.arguments);
}

void add_assistant(const AssistantMessage& m, json& out) {
  json msg{{"role", "assistant"}, {"content", nullptr}};
  const std::string text = joined_text(m.content);
  bool has_text = false;
  for (const auto& b : m.content) has_text = has_text || std::holds_alternative<TextContent>(b);
  if (has_text && !text.empty()) msg["content"] = text;

  std::string thinking, field;
  for (const auto& b : m.content) {
    const auto* th = std::get_if<ThinkingContent>(&b);
    if (!th || th->redacted) continue;
    if (field.empty()) field = th->signature;
    if (!thinking.empty()) thinking += '\n';
    thinking += th->thinking;
  }
  if ((field == "reasoning_content" || field == "reasoning") && !thinking.empty()) msg[field] = thinking;

  json calls = json::array();
  for (const ToolCall* call : m.tool_calls()) {
    calls.push_back({{"id", call->id},
                     {"type", "function"},
                     {"function", {{"name", call->name}, {"arguments", arguments_text(*call)}}}});
  }
  if (!calls.empty()) msg["tool_calls"] = std::move(calls);
  if (msg["content"].is_null() && !msg.contains("tool_calls")) return;  // nothing to replay
  out.push_back(std::move(msg));
}

void add_tool_result(const ModelSpec& model, const ToolResultMessage& m, json& out) {
  std::string text = joined_text(m.content);
  const bool images = has_images(m.content);
  if (text.empty()) text = images ? "(see attached image)" : "";
  out.push_back({{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", text}});
  if (!images || !accepts_images(model)) return;
  json parts = json::array({{{"type", "text"}, {"text", "Attached image(s) from tool result:"}}});
  for (const auto& b : m.content) {
    if (const auto* img = std::get_if<ImageContent>(&b)) parts.push_back(image_part(*img));
  }
  out.push_back({{"role", "user"}, {"content", std::move(parts)}});
}

json build_messages(const ModelSpec& model, const Context& context) {
  json out = json::array();
  if (!context.system_prompt.empty()) {
    const char* role = model.reasoning && is_openai_host(model) ? "developer" : "system";
    out.push_back({{"role", role}, {"content", context.system_prompt}});
  }
  for (const Message& message : prepare_history(model, context.messages, map_tool_id)) {
    if (const auto* u = std::get_if<UserMessage>(&message)) add_user(model, *u, out);
    else if (const auto* a = std::get_if<AssistantMessage>(&message)) add_assistant(*a, out);
    else add_tool_result(model, std::get<ToolResultMessage>(message), out);
  }
  return out;
}

json build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  json body{{"model", model.id},
            {"messages", build_messages(model, context)},
            {"stream", true},
            {"stream_options", {{"include_usage", true}}}};
  if (is_openai_host(model)) body["store"] = false;
  // OpenAI routes requests with the same key to the same prompt cache (other servers may reject
  // unknown fields, so only for OpenAI's own API).
  if (is_openai_host(model) && !options.session_id.empty()) body["prompt_cache_key"] = options.session_id;
  body[is_openai_host(model) ? "max_completion_tokens" : "max_tokens"] = options.max_tokens.value_or(model.max_tokens);
  if (!context.tools.empty()) {
    json tools = json::array();
    for (const auto& t : context.tools) {
      tools.push_back({{"type", "function"},
                       {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    }
    body["tools"] = std::move(tools);
  }
  if (model.reasoning && options.thinking != ThinkingLevel::Off) {
    body["reasoning_effort"] = std::string(to_string(options.thinking));
  }
  return body;
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

class Decoder final : public SseStreamDecoder {
 public:
  using SseStreamDecoder::SseStreamDecoder;

 protected:
  Status on_event(const SseEvent& event) override {
    if (event.data == "[DONE]") {
      mark_done();
      return Ok{};
    }
    auto chunk = event_object(kApi, event.data, "chunk is not a JSON object");
    if (!chunk) return chunk.error();
    if (auto err = chunk->find("error"); err != chunk->end() && !err->is_null()) return error_of(*err);
    if (out_.message().response_id.empty()) out_.message().response_id = str(*chunk, "id");
    if (auto usage = chunk->find("usage"); usage != chunk->end() && usage->is_object()) read_usage(*usage);
    auto choices = chunk->find("choices");
    if (choices != chunk->end() && choices->is_array() && !choices->empty()) read_choice(choices->front());
    return Ok{};
  }

  bool complete_without_terminal() const override { return saw_finish_; }

  void on_complete() override { out_.complete_with_tool_use(); }

 private:
  static Status error_of(const json& err) {
    if (err.is_string()) return stream_error(err.get<std::string>());
    std::string message = str(err, "message");
    std::string code = str(err, "code");
    if (code.empty()) code = str(err, "type");
    if (code.empty() && err.contains("code") && err["code"].is_number()) code = std::to_string(int_at(err, "code"));
    return stream_error(code, message);
  }

  void read_usage(const json& usage) {
    int64_t cached = 0;
    if (auto d = usage.find("prompt_tokens_details"); d != usage.end()) cached = int_at(*d, "cached_tokens");
    out_.set_usage(int_at(usage, "prompt_tokens") - cached, int_at(usage, "completion_tokens"), cached, 0);
  }

  void read_choice(const json& choice) {
    if (!choice.is_object()) return;
    if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) read_delta(*delta);
    auto finish = choice.find("finish_reason");
    if (finish != choice.end() && finish->is_string()) set_finish(finish->get<std::string>());
  }

  void read_delta(const json& delta) {
    for (const char* field : {"reasoning_content", "reasoning"}) {
      const std::string text = str(delta, field);
      if (text.empty()) continue;
      if (!thinking_) {
        thinking_ = out_.begin_thinking();
        out_.thinking(*thinking_).signature = field;
        text_.reset();
      }
      out_.add_thinking(*thinking_, text);
      break;  // servers that send both fields send the same text twice
    }
    if (const std::string text = str(delta, "content"); !text.empty()) {
      if (!text_) {
        text_ = out_.begin_text();
        thinking_.reset();
      }
      out_.add_text(*text_, text);
    }
    auto calls = delta.find("tool_calls");
    if (calls == delta.end() || !calls->is_array()) return;
    for (const json& call : *calls) {
      if (call.is_object()) read_tool_call(call);
    }
  }

  void read_tool_call(const json& call) {
    const int64_t index = call.contains("index") ? int_at(call, "index") : 0;
    const std::string id = str(call, "id");
    const json fn = obj(call, "function");
    auto it = tool_index_.find(index);
    // A new call: unseen index, or (servers that reuse index 0) a different id at the same index.
    if (it == tool_index_.end() || (!id.empty() && !out_.tool_call(it->second).id.empty() &&
                                    out_.tool_call(it->second).id != id)) {
      if (it != tool_index_.end()) out_.end_tool_call(it->second);
      tool_index_[index] = out_.begin_tool_call(id, str(fn, "name"));
      text_.reset();
      thinking_.reset();
      it = tool_index_.find(index);
    }
    ToolCall& block = out_.tool_call(it->second);
    if (block.id.empty()) block.id = id;
    if (block.name.empty()) block.name = str(fn, "name");
    out_.add_tool_args(it->second, str(fn, "arguments"));
  }

  void set_finish(const std::string& reason) {
    saw_finish_ = true;
    AssistantMessage& m = out_.message();
    if (reason == "stop") {
      m.stop_reason = StopReason::Stop;
    } else if (reason == "length") {
      m.stop_reason = StopReason::Length;
    } else if (reason == "tool_calls" || reason == "function_call") {
      m.stop_reason = StopReason::ToolUse;
    } else {
      m.stop_reason = StopReason::Error;
      m.error_message = reason == "content_filter" ? "response blocked by the provider's content filter"
                                                   : "finish_reason: " + reason;
    }
  }

  std::optional<std::size_t> text_, thinking_;  ///< the open text/thinking block
  std::map<int64_t, std::size_t> tool_index_;   ///< wire index → content index
  bool saw_finish_ = false;
};

HttpRequest build_request(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  return bearer_request(model, "/chat/completions", "text/event-stream", build_body(model, context, options));
}

}  // namespace
}  // namespace openai_completions_wire

const ProviderApi& openai_completions_api() {
  static const wire::BasicApi<openai_completions_wire::Decoder> api{openai_completions_wire::kApi, &openai_completions_wire::build_request};
  return api;
}

}  // namespace pincer::llm
