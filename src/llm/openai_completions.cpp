// OpenAI Chat Completions (streaming): request building and stream decoding. See the header.
#include "llm/openai_completions.h"

#include <map>

#include "core/json_dump.h"
#include "llm/openai_chunk_scan.h"
#include "llm/wire_memo.h"

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

// The body is written straight to text (json_dump::Writer): it repeats the whole history on every
// call, and a tree of nodes built, serialized and freed per call was the largest CPU cost of a
// turn. Keys are written in sorted order, so the text is what a nlohmann dump of the same object
// would be.
using Writer = json_dump::Writer;

void image_part(Writer& w, const ImageContent& image) {
  w.begin_object().key("image_url").begin_object().key("url").string(data_url(image)).end_object();
  w.key("type").string("image_url").end_object();
}

void text_part(Writer& w, std::string_view text) {
  w.begin_object().key("text").string(text).key("type").string("text").end_object();
}

void add_user(const ModelSpec& model, const UserMessage& m, Writer& w) {
  if (m.content_is_string && m.content.size() == 1 && std::holds_alternative<TextContent>(m.content[0])) {
    w.begin_object().key("content").string(std::get<TextContent>(m.content[0]).text).key("role").string("user").end_object();
    return;
  }
  const bool images = accepts_images(model);
  bool any = false;
  for (const auto& block : m.content) {
    any = any || std::holds_alternative<TextContent>(block) || (images && std::holds_alternative<ImageContent>(block));
  }
  if (!any) return;
  w.begin_object().key("content").begin_array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block)) text_part(w, t->text);
    else if (const auto* img = std::get_if<ImageContent>(&block); img && images) image_part(w, *img);
  }
  w.end_array().key("role").string("user").end_object();
}

void arguments_text(Writer& w, const ToolCall& call) {
  if (call.arguments.is_string()) w.string(call.arguments.get_ref<const std::string&>());
  else w.string(dump_body(call.arguments));
}

void add_assistant(const AssistantMessage& m, Writer& w) {
  bool has_text = false;
  for (const auto& b : m.content) has_text = has_text || std::holds_alternative<TextContent>(b);
  const std::string text = has_text ? joined_text(m.content) : std::string();
  std::string thinking, field;
  for (const auto& b : m.content) {
    const auto* th = std::get_if<ThinkingContent>(&b);
    if (!th || th->redacted) continue;
    if (field.empty()) field = th->signature;
    if (!thinking.empty()) thinking += '\n';
    thinking += th->thinking;
  }
  const bool send_thinking = (field == "reasoning_content" || field == "reasoning") && !thinking.empty();
  const auto calls = m.tool_calls();
  if (text.empty() && calls.empty()) return;  // nothing to replay

  w.begin_object().key("content");
  if (text.empty()) w.null();
  else w.string(text);
  if (send_thinking) w.key(field).string(thinking);
  w.key("role").string("assistant");
  if (!calls.empty()) {
    w.key("tool_calls").begin_array();
    for (const ToolCall* call : calls) {
      w.begin_object().key("function").begin_object().key("arguments");
      arguments_text(w, *call);
      w.key("name").string(call->name).end_object();
      w.key("id").string(call->id).key("type").string("function").end_object();
    }
    w.end_array();
  }
  w.end_object();
}

void add_tool_result(const ModelSpec& model, const ToolResultMessage& m, Writer& w) {
  std::string text = joined_text(m.content);
  const bool images = has_images(m.content);
  if (text.empty()) text = images ? "(see attached image)" : "";
  w.begin_object().key("content").string(text).key("role").string("tool").key("tool_call_id").string(m.tool_call_id).end_object();
  if (!images || !accepts_images(model)) return;
  w.begin_object().key("content").begin_array();
  text_part(w, "Attached image(s) from tool result:");
  for (const auto& b : m.content) {
    if (const auto* img = std::get_if<ImageContent>(&b)) image_part(w, *img);
  }
  w.end_array().key("role").string("user").end_object();
}

/// One history message as the API's message object(s): nothing (a message with nothing to send),
/// one object, or two (a tool result with images: the result, then a user message with them).
void write_message(const ModelSpec& model, const Message& message, Writer& w) {
  if (const auto* u = std::get_if<UserMessage>(&message)) add_user(model, *u, w);
  else if (const auto* a = std::get_if<AssistantMessage>(&message)) add_assistant(*a, w);
  else add_tool_result(model, std::get<ToolResultMessage>(message), w);
}

void write_messages(const ModelSpec& model, const Context& context, Writer& w) {
  w.begin_array();
  if (!context.system_prompt.empty()) {
    const char* role = model.reasoning && is_openai_host(model) ? "developer" : "system";
    thread_local json_dump::StringMemo prompt_memo;  // a session's prompt is the same call after call
    w.begin_object().key("content").raw(prompt_memo.literal(context.system_prompt)).key("role").string(role).end_object();
  }
  // A kept history message is written once and its wire form reused by the next requests.
  thread_local WireMemo memo(kWireMemoBytes);
  const uint32_t variant = accepts_images(model) ? 1 : 0;  // what of the model changes a message's form
  const PreparedHistory history = prepare_history(model, context.messages, map_tool_id);
  std::string one;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Message& message = history[i];
    const SharedMessage* shared = history.shared(i);
    if (const WireForm* kept = shared ? memo.find(shared->get()) : nullptr; kept && kept->variant == variant) {
      if (!kept->text.empty()) w.raw(kept->text);
      continue;
    }
    one.clear();
    Writer mw(one);
    mw.begin_array();  // the writer's comma state for one element; the brackets are cut off below
    write_message(model, message, mw);
    mw.end_array();
    const std::string_view element = std::string_view(one).substr(1, one.size() - 2);
    if (!element.empty()) w.raw(element);
    if (shared) memo.put(*shared, WireForm{variant, std::string(element)}, element.size());
  }
  w.end_array();
}

std::string build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  const bool openai = is_openai_host(model);
  std::string body;
  // Most of it is the history: growing by doubling from a small buffer copied it several times.
  std::size_t estimate = 4096 + context.system_prompt.size() + context.messages.size() * 256;
  for (const auto& t : context.tools) estimate += t.description.size() + 512;
  body.reserve(estimate);
  Writer w(body);
  w.begin_object();
  w.key(openai ? "max_completion_tokens" : "max_tokens").integer(options.max_tokens.value_or(model.max_tokens));
  w.key("messages");
  write_messages(model, context, w);
  w.key("model").string(model.id);
  // OpenAI routes requests with the same key to the same prompt cache (other servers may reject
  // unknown fields, so only for OpenAI's own API).
  if (openai && !options.session_id.empty()) w.key("prompt_cache_key").string(options.session_id);
  if (model.reasoning && options.thinking != ThinkingLevel::Off) w.key("reasoning_effort").string(to_string(options.thinking));
  if (openai) w.key("store").boolean(false);
  w.key("stream").boolean(true);
  w.key("stream_options").begin_object().key("include_usage").boolean(true).end_object();
  if (!context.tools.empty()) {
    w.key("tools").begin_array();
    for (const auto& t : context.tools) {
      w.begin_object().key("function").begin_object();
      w.key("description").string(t.description).key("name").string(t.name).key("parameters").raw(t.parameters_json());
      w.end_object().key("type").string("function").end_object();
    }
    w.end_array();
  }
  w.end_object();
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
    // The usual chunk's few fields without a JSON tree; any other chunk is parsed fully.
    if (auto fields = openai_chunk::scan(event.data)) {
      read_fields(*fields);
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

  /// What on_event() does with a parsed chunk, from a scanned one (no error, no tool calls).
  void read_fields(const openai_chunk::Fields& f) {
    if (out_.message().response_id.empty()) out_.message().response_id = f.id;
    if (f.has_usage) out_.set_usage(f.prompt_tokens - f.cached_tokens, f.completion_tokens, f.cached_tokens, 0);
    if (!f.has_choice) return;
    if (f.has_delta) read_texts(f.reasoning_content, f.reasoning, f.content);
    if (f.finish_reason) set_finish(*f.finish_reason);
  }

  void read_delta(const json& delta) {
    read_texts(str(delta, "reasoning_content"), str(delta, "reasoning"), str(delta, "content"));
    auto calls = delta.find("tool_calls");
    if (calls == delta.end() || !calls->is_array()) return;
    for (const json& call : *calls) {
      if (call.is_object()) read_tool_call(call);
    }
  }

  /// The delta's text fields: "reasoning_content" or else "reasoning" (thinking), then "content".
  void read_texts(const std::string& reasoning_content, const std::string& reasoning, const std::string& content) {
    const std::pair<const char*, const std::string*> thinking_fields[] = {{"reasoning_content", &reasoning_content},
                                                                         {"reasoning", &reasoning}};
    for (const auto& [field, text_ptr] : thinking_fields) {
      const std::string& text = *text_ptr;
      if (text.empty()) continue;
      if (!thinking_) {
        thinking_ = out_.begin_thinking();
        out_.thinking(*thinking_).signature = field;
        text_.reset();
      }
      out_.add_thinking(*thinking_, text);
      break;  // servers that send both fields send the same text twice
    }
    if (!content.empty()) {
      if (!text_) {
        text_ = out_.begin_text();
        thinking_.reset();
      }
      out_.add_text(*text_, content);
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
