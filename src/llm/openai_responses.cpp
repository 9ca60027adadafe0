// OpenAI Responses (streaming): request building and stream decoding. See the header.
#include "llm/openai_responses.h"

#include <map>
#include <optional>

namespace pincer::llm {
// Named, then anonymous: each wire API's helpers (Decoder, build_body …) stay apart from the
// others' of the same name when a unity build compiles several files as one.
namespace openai_responses_wire {
namespace {

using nlohmann::json;
using namespace wire;

constexpr std::string_view kApi = "openai-responses";

/// "call_id|item_id" → (call_id, item_id); ids from other APIs have no item id.
std::pair<std::string, std::string> split_id(const std::string& id) {
  const auto bar = id.find('|');
  if (bar == std::string::npos) return {id, {}};
  return {id.substr(0, bar), id.substr(bar + 1)};
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

json image_part(const ImageContent& image) {
  return json{{"type", "input_image"}, {"detail", "auto"}, {"image_url", data_url(image)}};
}

void add_user(const ModelSpec& model, const UserMessage& m, json& out) {
  json parts = json::array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block)) {
      parts.push_back({{"type", "input_text"}, {"text", t->text}});
    } else if (const auto* img = std::get_if<ImageContent>(&block); img && accepts_images(model)) {
      parts.push_back(image_part(*img));
    }
  }
  if (!parts.empty()) out.push_back({{"role", "user"}, {"content", std::move(parts)}});
}

void add_assistant(const ModelSpec& model, const AssistantMessage& m, std::size_t msg_index, json& out) {
  const bool same = m.provider == model.provider && m.api == model.api && m.model == model.id;
  std::size_t texts = 0;  // message item ids must be unique: msg_<n>, msg_<n>_1, ...
  for (const auto& block : m.content) {
    if (const auto* th = std::get_if<ThinkingContent>(&block)) {
      // A reasoning item can only be replayed when we kept it (thinkingSignature = item JSON) with
      // its encrypted_content: with store:false the server cannot look it up by id.
      auto item = parse_json(th->signature);
      if (item && item->is_object() && str(*item, "type") == "reasoning" &&
          !str(*item, "encrypted_content").empty()) {
        out.push_back(std::move(*item));
      }
    } else if (const auto* t = std::get_if<TextContent>(&block)) {
      if (t->text.empty()) continue;
      out.push_back({{"type", "message"},
                     {"role", "assistant"},
                     {"content", json::array({{{"type", "output_text"}, {"text", t->text}, {"annotations", json::array()}}})},
                     {"status", "completed"},
                     {"id", "msg_" + std::to_string(msg_index) + (texts ? "_" + std::to_string(texts) : "")}});
      ++texts;
    } else if (const auto* call = std::get_if<ToolCall>(&block)) {
      auto [call_id, item_id] = split_id(call->id);
      json fc{{"type", "function_call"},
              {"call_id", call_id},
              {"name", call->name},
              {"arguments", call->arguments.is_string() ? call->arguments.get<std::string>()
                                                        : dump_body(call->arguments)}};
      if (same && item_id.rfind("fc", 0) == 0) fc["id"] = item_id;
      out.push_back(std::move(fc));
    }
  }
}

void add_tool_result(const ModelSpec& model, const ToolResultMessage& m, json& out) {
  std::string text = joined_text(m.content);
  const bool images = has_images(m.content);
  if (text.empty() && images) text = "(see attached image)";
  out.push_back({{"type", "function_call_output"}, {"call_id", split_id(m.tool_call_id).first}, {"output", text}});
  if (!images || !accepts_images(model)) return;
  json parts = json::array({{{"type", "input_text"}, {"text", "Attached image(s) from tool result:"}}});
  for (const auto& b : m.content) {
    if (const auto* img = std::get_if<ImageContent>(&b)) parts.push_back(image_part(*img));
  }
  out.push_back({{"role", "user"}, {"content", std::move(parts)}});
}

json build_input(const ModelSpec& model, const Context& context) {
  json out = json::array();
  std::size_t index = 0;
  for (const Message& message : prepare_history(model, context.messages)) {
    if (const auto* u = std::get_if<UserMessage>(&message)) add_user(model, *u, out);
    else if (const auto* a = std::get_if<AssistantMessage>(&message)) add_assistant(model, *a, index, out);
    else add_tool_result(model, std::get<ToolResultMessage>(message), out);
    ++index;
  }
  return out;
}

json build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  json body{{"model", model.id}, {"input", build_input(model, context)}, {"stream", true}, {"store", false}};
  if (!context.system_prompt.empty()) body["instructions"] = context.system_prompt;
  body["max_output_tokens"] = options.max_tokens.value_or(model.max_tokens);
  if (!options.session_id.empty()) body["prompt_cache_key"] = options.session_id;
  if (!context.tools.empty()) {
    json tools = json::array();
    for (const auto& t : context.tools) {
      tools.push_back({{"type", "function"}, {"name", t.name}, {"description", t.description}, {"parameters", t.parameters()}});
    }
    body["tools"] = std::move(tools);
  }
  if (model.reasoning && options.thinking != ThinkingLevel::Off) {
    body["reasoning"] = {{"effort", std::string(to_string(options.thinking))}, {"summary", "auto"}};
    body["include"] = json::array({"reasoning.encrypted_content"});
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
    const int64_t index = int_at(*j, "output_index");

    if (type == "response.created" || type == "response.in_progress") {
      set_response_id(obj(*j, "response"));
    } else if (type == "response.output_item.added") {
      item_added(index, obj(*j, "item"));
    } else if (type == "response.output_text.delta" || type == "response.refusal.delta") {
      if (auto c = text_block(index)) out_.add_text(*c, str(*j, "delta"));
    } else if (type == "response.reasoning_summary_text.delta") {
      summary_delta(index, int_at(*j, "summary_index"), str(*j, "delta"));
    } else if (type == "response.reasoning_text.delta") {
      if (auto c = thinking_block(index)) out_.add_thinking(*c, str(*j, "delta"));
    } else if (type == "response.function_call_arguments.delta") {
      if (auto it = blocks_.find(index); it != blocks_.end()) out_.add_tool_args(it->second.content, str(*j, "delta"));
    } else if (type == "response.function_call_arguments.done") {
      if (auto it = blocks_.find(index); it != blocks_.end()) out_.set_tool_args(it->second.content, str(*j, "arguments"));
    } else if (type == "response.output_item.done") {
      item_done(index, obj(*j, "item"));
    } else if (type == "response.completed" || type == "response.incomplete") {
      completed(obj(*j, "response"));
    } else if (type == "response.failed") {
      return failed(obj(*j, "response"));
    } else if (type == "error") {
      return error_event(*j);
    }
    return Ok{};
  }

  void on_complete() override { out_.complete_with_tool_use(); }

 private:
  struct Block {
    std::size_t content;
    int64_t summary_index = -1;  ///< last reasoning summary part seen (thinking blocks)
  };

  void set_response_id(const json& response) {
    if (const std::string id = str(response, "id"); !id.empty()) out_.message().response_id = id;
  }

  void item_added(int64_t index, const json& item) {
    const std::string type = str(item, "type");
    if (type == "function_call") {
      const std::size_t c = out_.begin_tool_call(str(item, "call_id") + "|" + str(item, "id"), str(item, "name"));
      blocks_[index] = Block{c};
      out_.add_tool_args(c, str(item, "arguments"));
    } else if (type == "reasoning") {
      thinking_block(index);
    }
    // message items get their text block with the first delta (no empty blocks for refusals etc.)
  }

  /// The text block of output item `index` (created on first use); nullopt when that item is
  /// something else (a malformed stream).
  std::optional<std::size_t> text_block(int64_t index) {
    auto it = blocks_.find(index);
    if (it == blocks_.end()) it = blocks_.emplace(index, Block{out_.begin_text()}).first;
    if (!std::holds_alternative<TextContent>(out_.message().content[it->second.content])) return std::nullopt;
    return it->second.content;
  }

  /// The thinking block of output item `index`, as text_block().
  std::optional<std::size_t> thinking_block(int64_t index) {
    auto it = blocks_.find(index);
    if (it == blocks_.end()) it = blocks_.emplace(index, Block{out_.begin_thinking()}).first;
    if (!std::holds_alternative<ThinkingContent>(out_.message().content[it->second.content])) return std::nullopt;
    return it->second.content;
  }

  void summary_delta(int64_t index, int64_t summary_index, const std::string& delta) {
    const auto c = thinking_block(index);
    if (!c) return;
    Block& block = blocks_.at(index);
    if (block.summary_index >= 0 && summary_index != block.summary_index) out_.add_thinking(*c, "\n\n");
    block.summary_index = summary_index;
    out_.add_thinking(*c, delta);
  }

  void item_done(int64_t index, const json& item) {
    const std::string type = str(item, "type");
    if (type == "function_call") {
      auto it = blocks_.find(index);
      if (it == blocks_.end()) return;
      const std::string args = str(item, "arguments");
      if (!args.empty()) out_.set_tool_args(it->second.content, args);
      out_.end_tool_call(it->second.content);
    } else if (type == "reasoning") {
      const auto c = thinking_block(index);
      if (!c) return;
      if (out_.thinking(*c).thinking.empty()) out_.add_thinking(*c, summary_text(item));
      out_.thinking(*c).signature = dump_body(item);
    } else if (type == "message" && blocks_.find(index) == blocks_.end()) {
      // No deltas were streamed for this message: take its final text.
      const std::string text = message_text(item);
      if (auto c = text_block(index); c && !text.empty()) out_.add_text(*c, text);
    }
  }

  static std::string summary_text(const json& item) {
    std::string out;
    auto summary = item.find("summary");
    if (summary == item.end() || !summary->is_array()) return out;
    for (const json& part : *summary) {
      if (!out.empty()) out += "\n\n";
      out += str(part, "text");
    }
    return out;
  }

  static std::string message_text(const json& item) {
    std::string out;
    auto content = item.find("content");
    if (content == item.end() || !content->is_array()) return out;
    for (const json& part : *content) out += str(part, str(part, "type") == "refusal" ? "refusal" : "text");
    return out;
  }

  void completed(const json& response) {
    set_response_id(response);
    if (auto usage = response.find("usage"); usage != response.end() && usage->is_object()) {
      int64_t cached = 0;
      if (auto d = usage->find("input_tokens_details"); d != usage->end()) cached = int_at(*d, "cached_tokens");
      out_.set_usage(int_at(*usage, "input_tokens") - cached, int_at(*usage, "output_tokens"), cached, 0);
    }
    AssistantMessage& m = out_.message();
    const std::string status = str(response, "status");
    if (status == "incomplete") {
      const std::string reason = str(obj(response, "incomplete_details"), "reason");
      if (reason == "content_filter") {
        m.stop_reason = StopReason::Error;
        m.error_message = "response blocked by the provider's content filter";
      } else {
        m.stop_reason = StopReason::Length;
      }
    } else if (status == "failed" || status == "cancelled") {
      m.stop_reason = StopReason::Error;
      m.error_message = "response " + status;
    } else {
      m.stop_reason = StopReason::Stop;
    }
    mark_done();
  }

  static Status failed(const json& response) {
    const json err = obj(response, "error");
    const std::string code = str(err, "code");
    const std::string message = str(err, "message");
    if (code.empty() && message.empty()) {
      const std::string reason = str(obj(response, "incomplete_details"), "reason");
      return stream_error(reason.empty() ? "response failed" : "response incomplete: " + reason);
    }
    return stream_error(code, message);
  }

  static Status error_event(const json& j) {
    const json& err = j.contains("error") && j["error"].is_object() ? j["error"] : j;
    std::string code = str(err, "code");
    if (code.empty()) code = str(err, "type") == "error" ? "" : str(err, "type");
    const std::string message = str(err, "message");
    return stream_error(code, message);
  }

  std::map<int64_t, Block> blocks_;  ///< output_index → block
};

HttpRequest build_request(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  return bearer_request(model, "/responses", "text/event-stream", build_body(model, context, options));
}

}  // namespace
}  // namespace openai_responses_wire

const ProviderApi& openai_responses_api() {
  static const wire::BasicApi<openai_responses_wire::Decoder> api{openai_responses_wire::kApi, &openai_responses_wire::build_request};
  return api;
}

}  // namespace pincer::llm
