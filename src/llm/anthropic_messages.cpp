// Anthropic Messages (streaming): request building and stream decoding. See the header.
#include "llm/anthropic_messages.h"

#include <optional>
#include <algorithm>
#include <cctype>
#include <map>

namespace pincer::llm {
// Named, then anonymous: each wire API's helpers (Decoder, build_body …) stay apart from the
// others' of the same name when a unity build compiles several files as one.
namespace anthropic_messages_wire {
namespace {

using nlohmann::json;
using namespace wire;

constexpr std::string_view kApi = "anthropic-messages";
constexpr int64_t kMinThinkingBudget = 1024;

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

/// The API accepts tool_use ids matching ^[a-zA-Z0-9_-]+$, at most 64 characters.
std::string map_tool_id(const std::string& id) {
  std::string out = id.substr(0, 64);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return out.empty() ? "_" : out;
}

int64_t thinking_budget(ThinkingLevel level) {
  switch (level) {
    case ThinkingLevel::Minimal: return 1024;
    case ThinkingLevel::Low: return 2048;
    case ThinkingLevel::Medium: return 8192;
    case ThinkingLevel::High: return 16384;
    case ThinkingLevel::XHigh: return 32768;
    case ThinkingLevel::Off: break;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

json image_block(const ImageContent& image) {
  return json{{"type", "image"},
              {"source", {{"type", "base64"}, {"media_type", image.mime_type}, {"data", image.data}}}};
}

/// Text/image blocks as Anthropic content blocks (blank text and unsupported images dropped).
json content_blocks(const ModelSpec& model, const std::vector<ContentBlock>& blocks) {
  json out = json::array();
  for (const auto& block : blocks) {
    if (const auto* t = std::get_if<TextContent>(&block); t && !blank(t->text)) {
      out.push_back({{"type", "text"}, {"text", t->text}});
    } else if (const auto* img = std::get_if<ImageContent>(&block); img && accepts_images(model)) {
      out.push_back(image_block(*img));
    }
  }
  return out;
}

void add_user(const ModelSpec& model, const UserMessage& m, json& out) {
  if (m.content_is_string && m.content.size() == 1 && std::holds_alternative<TextContent>(m.content[0])) {
    const std::string& text = std::get<TextContent>(m.content[0]).text;
    if (!blank(text)) out.push_back({{"role", "user"}, {"content", text}});
    return;
  }
  json blocks = content_blocks(model, m.content);
  if (!blocks.empty()) out.push_back({{"role", "user"}, {"content", std::move(blocks)}});
}

void add_assistant(const AssistantMessage& m, json& out) {
  json blocks = json::array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block)) {
      if (!blank(t->text)) blocks.push_back({{"type", "text"}, {"text", t->text}});
    } else if (const auto* th = std::get_if<ThinkingContent>(&block)) {
      if (th->redacted) {
        if (!th->signature.empty()) blocks.push_back({{"type", "redacted_thinking"}, {"data", th->signature}});
      } else if (blank(th->thinking)) {
        continue;
      } else if (blank(th->signature)) {
        blocks.push_back({{"type", "text"}, {"text", th->thinking}});  // unsigned: cannot replay as thinking
      } else {
        blocks.push_back({{"type", "thinking"}, {"thinking", th->thinking}, {"signature", th->signature}});
      }
    } else if (const auto* call = std::get_if<ToolCall>(&block)) {
      blocks.push_back({{"type", "tool_use"},
                        {"id", call->id},
                        {"name", call->name},
                        {"input", call->arguments.is_object() ? call->arguments : json::object()}});
    }
  }
  if (!blocks.empty()) out.push_back({{"role", "assistant"}, {"content", std::move(blocks)}});
}

json tool_result_block(const ModelSpec& model, const ToolResultMessage& m) {
  json block{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}};
  if (has_images(m.content) && accepts_images(model)) {
    json blocks = content_blocks(model, m.content);
    if (std::none_of(blocks.begin(), blocks.end(), [](const json& b) { return b["type"] == "text"; })) {
      blocks.insert(blocks.begin(), json{{"type", "text"}, {"text", "(see attached image)"}});
    }
    block["content"] = std::move(blocks);
  } else {
    std::string text = joined_text(m.content);
    if (text.empty() && has_images(m.content)) text = "(see attached image)";
    block["content"] = text;
  }
  block["is_error"] = m.is_error;
  return block;
}

/// Adds cache_control to the last block of messages[index] that may carry one (thinking blocks
/// may not).
void mark_cache_point(json& messages, std::size_t index) {
  if (index >= messages.size()) return;
  json& content = messages[index]["content"];
  if (content.is_string()) content = json::array({{{"type", "text"}, {"text", content.get<std::string>()}}});
  for (auto it = content.rbegin(); it != content.rend(); ++it) {
    const std::string type = it->value("type", "");
    if (type == "thinking" || type == "redacted_thinking") continue;
    (*it)["cache_control"] = {{"type", "ephemeral"}};
    return;
  }
}

json build_messages(const ModelSpec& model, const Context& context) {
  json out = json::array();
  const PreparedHistory history = prepare_history(model, context.messages, map_tool_id);
  // Prompt-cache breakpoints (with the tools' and the system prompt's: Anthropic's limit of 4):
  // the end of the history before the latest user message, whose prefix the next turns repeat
  // byte for byte, and the last message (the tool loop of this turn).
  std::size_t last_user = history.size();
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (std::holds_alternative<UserMessage>(history[i])) last_user = i;
  }
  std::optional<std::size_t> anchor;
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (i == last_user && !out.empty()) anchor = out.size() - 1;
    if (const auto* u = std::get_if<UserMessage>(&history[i])) {
      add_user(model, *u, out);
    } else if (const auto* a = std::get_if<AssistantMessage>(&history[i])) {
      add_assistant(*a, out);
    } else {
      json results = json::array();
      for (; i < history.size() && std::holds_alternative<ToolResultMessage>(history[i]); ++i) {
        results.push_back(tool_result_block(model, std::get<ToolResultMessage>(history[i])));
      }
      --i;
      out.push_back({{"role", "user"}, {"content", std::move(results)}});
    }
  }
  if (anchor) mark_cache_point(out, *anchor);
  if (!out.empty() && out.back()["role"] == "user" && (!anchor || *anchor != out.size() - 1)) {
    mark_cache_point(out, out.size() - 1);
  }
  return out;
}

json build_tools(const std::vector<ToolDefinition>& tools) {
  json out = json::array();
  for (const auto& t : tools) {
    json schema = t.parameters().is_object() ? t.parameters() : json::object();
    if (!schema.contains("type")) schema["type"] = "object";
    out.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", std::move(schema)}});
  }
  if (!out.empty()) out.back()["cache_control"] = {{"type", "ephemeral"}};  // tools come first in the prefix
  return out;
}

json build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  const int64_t max_tokens = options.max_tokens.value_or(model.max_tokens);
  json body{{"model", model.id},
            {"max_tokens", max_tokens},
            {"stream", true},
            {"messages", build_messages(model, context)}};
  if (!context.system_prompt.empty()) {
    body["system"] = json::array(
        {{{"type", "text"}, {"text", context.system_prompt}, {"cache_control", {{"type", "ephemeral"}}}}});
  }
  if (!context.tools.empty()) body["tools"] = build_tools(context.tools);
  if (model.reasoning && options.thinking != ThinkingLevel::Off) {
    int64_t budget = thinking_budget(options.thinking);
    if (budget >= max_tokens) budget = max_tokens - 1024;
    if (budget >= kMinThinkingBudget) body["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
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
    auto j = event_object(kApi, event.data, "event data is not a JSON object");
    if (!j) return j.error();
    const std::string type = event_type(*j, event);

    if (type == "message_start") {
      const json message = obj(*j, "message");
      out_.message().response_id = str(message, "id");
      read_usage(obj(message, "usage"));
    } else if (type == "content_block_start") {
      block_start(int_at(*j, "index"), obj(*j, "content_block"));
    } else if (type == "content_block_delta") {
      block_delta(int_at(*j, "index"), obj(*j, "delta"));
    } else if (type == "content_block_stop") {
      if (auto it = blocks_.find(int_at(*j, "index")); it != blocks_.end()) out_.end_tool_call(it->second);
    } else if (type == "message_delta") {
      const json delta = obj(*j, "delta");
      if (const std::string reason = str(delta, "stop_reason"); !reason.empty()) set_stop(reason);
      read_usage(obj(*j, "usage"));
    } else if (type == "message_stop") {
      mark_done();
    } else if (type == "error") {
      const json err = obj(*j, "error");
      const std::string kind = str(err, "type");
      const std::string message = str(err, "message");
      return stream_error(kind.empty() ? message : kind + ": " + message);
    }
    return Ok{};
  }

  void on_complete() override { out_.end_all_tool_calls(); }

 private:
  /// Fields present in `usage` override earlier values.
  void read_usage(const json& usage) {
    if (!usage.is_object()) return;
    const Usage& u = out_.message().usage;
    auto pick = [&](const char* key, int64_t current) {
      auto it = usage.find(key);
      return it != usage.end() && it->is_number() ? int_at(usage, key) : current;
    };
    out_.set_usage(pick("input_tokens", u.input), pick("output_tokens", u.output),
                   pick("cache_read_input_tokens", u.cache_read), pick("cache_creation_input_tokens", u.cache_write));
  }

  void block_start(int64_t index, const json& block) {
    const std::string type = str(block, "type");
    if (type == "text") {
      blocks_[index] = out_.begin_text();
      out_.add_text(blocks_[index], str(block, "text"));
    } else if (type == "thinking") {
      blocks_[index] = out_.begin_thinking();
      out_.add_thinking(blocks_[index], str(block, "thinking"));
    } else if (type == "redacted_thinking") {
      blocks_[index] = out_.begin_thinking();
      ThinkingContent& th = out_.thinking(blocks_[index]);
      th.redacted = true;
      th.signature = str(block, "data");
    } else if (type == "tool_use") {
      blocks_[index] = out_.begin_tool_call(str(block, "id"), str(block, "name"));
      // Some proxies send the whole input here instead of input_json_delta events.
      if (auto input = block.find("input"); input != block.end() && input->is_object() && !input->empty()) {
        out_.add_tool_args(blocks_[index], dump_body(*input));
      }
    }
  }

  void block_delta(int64_t index, const json& delta) {
    auto it = blocks_.find(index);
    if (it == blocks_.end()) return;
    const std::size_t c = it->second;
    const std::string type = str(delta, "type");
    const auto& content = out_.message().content[c];
    if (type == "text_delta" && std::holds_alternative<TextContent>(content)) {
      out_.add_text(c, str(delta, "text"));
    } else if (type == "thinking_delta" && std::holds_alternative<ThinkingContent>(content)) {
      out_.add_thinking(c, str(delta, "thinking"));
    } else if (type == "signature_delta" && std::holds_alternative<ThinkingContent>(content)) {
      out_.thinking(c).signature += str(delta, "signature");
    } else if (type == "input_json_delta" && std::holds_alternative<ToolCall>(content)) {
      out_.add_tool_args(c, str(delta, "partial_json"));
    }
  }

  void set_stop(const std::string& reason) {
    AssistantMessage& m = out_.message();
    if (reason == "max_tokens" || reason == "model_context_window_exceeded") {
      m.stop_reason = StopReason::Length;
    } else if (reason == "tool_use") {
      m.stop_reason = StopReason::ToolUse;
    } else if (reason == "refusal" || reason == "sensitive") {
      m.stop_reason = StopReason::Error;
      m.error_message = "the model refused to answer (stop_reason " + reason + ")";
    } else {
      m.stop_reason = StopReason::Stop;  // end_turn, stop_sequence, pause_turn, and future values
    }
  }

  std::map<int64_t, std::size_t> blocks_;  ///< wire index → content index
};

HttpRequest build_request(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  HttpRequest req;
  // baseUrl is the host ("https://api.anthropic.com"); tolerate one that already ends in /v1.
  std::string_view base = model.base_url;
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  const bool has_v1 = base.size() >= 3 && base.substr(base.size() - 3) == "/v1";
  req.url = join_url(base, has_v1 ? "/messages" : "/v1/messages");
  std::vector<std::pair<std::string, std::string>> auth;
  if (!model.api_key.empty()) auth.emplace_back("x-api-key", model.api_key);
  auth.emplace_back("anthropic-version", "2023-06-01");
  add_headers(req, model, std::move(auth), "text/event-stream");
  req.body = dump_body(build_body(model, context, options));
  return req;
}

}  // namespace
}  // namespace anthropic_messages_wire

const ProviderApi& anthropic_messages_api() {
  static const wire::BasicApi<anthropic_messages_wire::Decoder> api{anthropic_messages_wire::kApi, &anthropic_messages_wire::build_request};
  return api;
}

}  // namespace pincer::llm
