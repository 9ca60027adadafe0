// Ollama /api/chat (NDJSON streaming): request building and stream decoding. See the header.
#include "llm/ollama.h"

#include "llm/ndjson_parser.h"

namespace pincer::llm {
// Named, then anonymous: each wire API's helpers (Decoder, build_body …) stay apart from the
// others' of the same name when a unity build compiles several files as one.
namespace ollama_wire {
namespace {

using nlohmann::json;
using namespace wire;

constexpr std::string_view kApi = "ollama";

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

json images_of(const ModelSpec& model, const std::vector<ContentBlock>& blocks) {
  json images = json::array();
  if (!accepts_images(model)) return images;
  for (const auto& b : blocks) {
    if (const auto* img = std::get_if<ImageContent>(&b)) images.push_back(img->data);
  }
  return images;
}

void add_user(const ModelSpec& model, const UserMessage& m, json& out) {
  json msg{{"role", "user"}, {"content", joined_text(m.content)}};
  if (json images = images_of(model, m.content); !images.empty()) msg["images"] = std::move(images);
  out.push_back(std::move(msg));
}

void add_assistant(const AssistantMessage& m, json& out) {
  json msg{{"role", "assistant"}, {"content", joined_text(m.content)}};
  std::string thinking;
  for (const auto& b : m.content) {
    const auto* th = std::get_if<ThinkingContent>(&b);
    if (!th || th->redacted || th->thinking.empty()) continue;
    if (!thinking.empty()) thinking += '\n';
    thinking += th->thinking;
  }
  if (!thinking.empty()) msg["thinking"] = thinking;
  json calls = json::array();
  for (const ToolCall* call : m.tool_calls()) {
    json args = call->arguments.is_object() ? call->arguments : json::object();
    calls.push_back({{"function", {{"name", call->name}, {"arguments", std::move(args)}}}});
  }
  if (!calls.empty()) msg["tool_calls"] = std::move(calls);
  out.push_back(std::move(msg));
}

void add_tool_result(const ModelSpec& model, const ToolResultMessage& m, json& out) {
  std::string text = joined_text(m.content);
  json images = images_of(model, m.content);
  if (text.empty() && has_images(m.content)) text = "(see attached image)";
  out.push_back({{"role", "tool"}, {"content", text}, {"tool_name", m.tool_name}});
  if (!images.empty()) {
    out.push_back({{"role", "user"}, {"content", "Attached image(s) from tool result:"}, {"images", std::move(images)}});
  }
}

json build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  json messages = json::array();
  if (!context.system_prompt.empty()) messages.push_back({{"role", "system"}, {"content", context.system_prompt}});
  for (const Message& message : prepare_history(model, context.messages)) {
    if (const auto* u = std::get_if<UserMessage>(&message)) add_user(model, *u, messages);
    else if (const auto* a = std::get_if<AssistantMessage>(&message)) add_assistant(*a, messages);
    else add_tool_result(model, std::get<ToolResultMessage>(message), messages);
  }
  json body{{"model", model.id}, {"messages", std::move(messages)}, {"stream", true}};
  if (!context.tools.empty()) {
    json tools = json::array();
    for (const auto& t : context.tools) {
      tools.push_back({{"type", "function"},
                       {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters()}}}});
    }
    body["tools"] = std::move(tools);
  }
  if (model.reasoning) body["think"] = options.thinking != ThinkingLevel::Off;
  body["options"] = {{"num_predict", options.max_tokens.value_or(model.max_tokens)}};
  return body;
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

class Decoder final : public StreamDecoder {
 public:
  Decoder(const ModelSpec& model, StreamSink sink) : out_(model, std::move(sink)) {}

  Status feed(std::string_view body_bytes) override {
    if (error_) return *error_;
    if (done_) return Ok{};
    std::vector<json> lines;
    const Status parsed = parser_.feed(body_bytes, lines);
    if (Status s = handle(lines); !s.ok()) return s;
    // Bytes after the final line are ignored, malformed or not.
    if (!parsed.ok() && !done_) return fail(invalid_stream(kApi, parsed.error().message));
    out_.flush();  // this read's deltas, one per block
    return Ok{};
  }

  Result<AssistantMessage> finish() override {
    if (error_) return *error_;
    if (!done_) {
      // A final line without LF is parsed too; when it does not parse it was cut off, which is
      // reported as incomplete below.
      std::vector<json> lines;
      (void)parser_.finish(lines);
      if (Status s = handle(lines); !s.ok()) return s.error();
    }
    out_.flush();
    if (!done_) return fail(incomplete_stream(kApi)).error();
    out_.end_all_tool_calls();
    error_ = Error{"PROVIDER_STREAM_FINISHED", "finish() called twice"};
    return out_.message();
  }

  const AssistantMessage& partial() const override { return out_.message(); }

 private:
  Status fail(Error error) {
    out_.flush();  // what arrived before the error is reported before it
    mark_failed(out_.message(), error);
    error_ = error;
    return error;
  }

  Status handle(const std::vector<json>& lines) {
    for (const json& line : lines) {
      if (done_) break;
      if (Status s = on_line(line); !s.ok()) return fail(s.error());
    }
    return Ok{};
  }

  Status on_line(const json& line) {
    if (!line.is_object()) return invalid_stream(kApi, "line is not a JSON object");
    if (auto err = line.find("error"); err != line.end() && !err->is_null()) {
      return stream_error(err->is_string() ? err->get<std::string>() : str(*err, "message"));
    }
    if (auto msg = line.find("message"); msg != line.end() && msg->is_object()) read_message(*msg);
    if (auto done = line.find("done"); done != line.end() && done->is_boolean() && done->get<bool>()) {
      read_done(line);
    }
    return Ok{};
  }

  void read_message(const json& msg) {
    if (const std::string thinking = str(msg, "thinking"); !thinking.empty()) {
      if (!thinking_) {
        thinking_ = out_.begin_thinking();
        text_.reset();
      }
      out_.add_thinking(*thinking_, thinking);
    }
    if (const std::string text = str(msg, "content"); !text.empty()) {
      if (!text_) {
        text_ = out_.begin_text();
        thinking_.reset();
      }
      out_.add_text(*text_, text);
    }
    auto calls = msg.find("tool_calls");
    if (calls == msg.end() || !calls->is_array()) return;
    for (const json& call : *calls) {
      if (call.is_object()) read_tool_call(call);
    }
  }

  void read_tool_call(const json& call) {
    const json fn = obj(call, "function");
    std::string id = str(call, "id");
    if (id.empty()) id = generated_tool_call_id();
    const std::size_t c = out_.begin_tool_call(std::move(id), str(fn, "name"));
    text_.reset();
    thinking_.reset();
    if (auto args = fn.find("arguments"); args != fn.end()) {
      out_.add_tool_args(c, args->is_string() ? args->get<std::string>() : dump_body(*args));
    }
    out_.end_tool_call(c);
  }

  void read_done(const json& line) {
    out_.set_usage(int_at(line, "prompt_eval_count"), int_at(line, "eval_count"), 0, 0);
    const std::string reason = str(line, "done_reason");
    AssistantMessage& m = out_.message();
    if (reason == "length") m.stop_reason = StopReason::Length;
    else if (out_.has_tool_calls()) m.stop_reason = StopReason::ToolUse;
    else m.stop_reason = StopReason::Stop;  // "stop", "load", "unload", absent
    done_ = true;
  }

  MessageBuilder out_;
  NdjsonParser parser_;
  std::optional<std::size_t> text_, thinking_;
  bool done_ = false;
  std::optional<Error> error_;
};

HttpRequest build_request(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  return bearer_request(model, "/api/chat", "application/x-ndjson", build_body(model, context, options));
}

}  // namespace
}  // namespace ollama_wire

const ProviderApi& ollama_api() {
  static const wire::BasicApi<ollama_wire::Decoder> api{ollama_wire::kApi, &ollama_wire::build_request};
  return api;
}

}  // namespace pincer::llm
