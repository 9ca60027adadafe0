// The API registry and the building blocks shared by the wire-API implementations (provider.h).
#include "llm/provider.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <set>

#include "core/json_dump.h"
#include "llm/anthropic_messages.h"
#include "llm/google_generative_ai.h"
#include "llm/ndjson_parser.h"
#include "llm/ollama.h"
#include "llm/openai_completions.h"
#include "llm/openai_responses.h"

namespace pincer::llm {

using nlohmann::json;

const ProviderApi* find_api(std::string_view api) {
  for (const ProviderApi* p : {&openai_completions_api(), &openai_responses_api(),
                               &anthropic_messages_api(), &ollama_api(), &google_generative_ai_api()}) {
    if (p->name() == api) return p;
  }
  return nullptr;
}

std::vector<std::string_view> api_names() {
  return {openai_completions_api().name(), openai_responses_api().name(),
          anthropic_messages_api().name(), ollama_api().name(), google_generative_ai_api().name()};
}

std::string_view to_string(ThinkingLevel level) {
  switch (level) {
    case ThinkingLevel::Off: return "off";
    case ThinkingLevel::Minimal: return "minimal";
    case ThinkingLevel::Low: return "low";
    case ThinkingLevel::Medium: return "medium";
    case ThinkingLevel::High: return "high";
    case ThinkingLevel::XHigh: return "xhigh";
  }
  return "off";
}

namespace wire {

// ---------------------------------------------------------------------------------------------
// MessageBuilder
// ---------------------------------------------------------------------------------------------

namespace {
int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

MessageBuilder::MessageBuilder(const ModelSpec& model, StreamSink sink) : sink_(std::move(sink)) {
  msg_.api = model.api;
  msg_.provider = model.provider;
  msg_.model = model.id;
  msg_.timestamp = now_ms();
}

void MessageBuilder::emit(StreamEvent::Kind kind, std::size_t index, std::string_view delta) {
  flush();
  if (sink_) sink_(StreamEvent{kind, index, std::string(delta)}, msg_);
}

void MessageBuilder::add_delta(StreamEvent::Kind kind, std::size_t index, std::string_view delta) {
  if (held_ && (held_->kind != kind || held_->content_index != index)) flush();
  if (held_) held_->delta.append(delta);
  else held_ = StreamEvent{kind, index, std::string(delta)};
}

void MessageBuilder::flush() {
  if (!held_) return;
  const StreamEvent event = std::move(*held_);
  held_.reset();
  if (sink_) sink_(event, msg_);
}

std::size_t MessageBuilder::begin_text() {
  flush();
  msg_.content.emplace_back(TextContent{});
  return msg_.content.size() - 1;
}

void MessageBuilder::add_text(std::size_t index, std::string_view delta) {
  auto* text = index < msg_.content.size() ? std::get_if<TextContent>(&msg_.content[index]) : nullptr;
  if (delta.empty() || text == nullptr) return;
  text->text.append(delta);
  add_delta(StreamEvent::Kind::TextDelta, index, delta);
}

std::size_t MessageBuilder::begin_thinking() {
  flush();
  msg_.content.emplace_back(ThinkingContent{});
  return msg_.content.size() - 1;
}

void MessageBuilder::add_thinking(std::size_t index, std::string_view delta) {
  auto* th = index < msg_.content.size() ? std::get_if<ThinkingContent>(&msg_.content[index]) : nullptr;
  if (delta.empty() || th == nullptr) return;
  th->thinking.append(delta);
  add_delta(StreamEvent::Kind::ThinkingDelta, index, delta);
}

std::size_t MessageBuilder::begin_tool_call(std::string id, std::string name) {
  flush();
  msg_.content.emplace_back(ToolCall{std::move(id), std::move(name), json::object()});
  const std::size_t index = msg_.content.size() - 1;
  args_[index] = PendingArgs{};
  emit(StreamEvent::Kind::ToolCallStart, index, {});
  return index;
}

void MessageBuilder::add_tool_args(std::size_t index, std::string_view json_fragment) {
  auto it = args_.find(index);
  if (it == args_.end() || it->second.ended || json_fragment.empty()) return;
  it->second.text.append(json_fragment);
  emit(StreamEvent::Kind::ToolCallDelta, index, json_fragment);
}

void MessageBuilder::set_tool_args(std::size_t index, std::string json_text) {
  auto it = args_.find(index);
  if (it == args_.end() || it->second.ended) return;
  it->second.text = std::move(json_text);
}

void MessageBuilder::end_tool_call(std::size_t index) {
  auto it = args_.find(index);
  if (it == args_.end() || it->second.ended) return;
  it->second.ended = true;
  const std::string& text = it->second.text;
  ToolCall& call = tool_call(index);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    call.arguments = json::object();
  } else if (auto parsed = parse_json(text)) {
    call.arguments = std::move(*parsed);
  } else {
    call.arguments = text;
  }
  emit(StreamEvent::Kind::ToolCallEnd, index, {});
}

void MessageBuilder::end_all_tool_calls() {
  for (auto& [index, pending] : args_) {
    if (!pending.ended) end_tool_call(index);
  }
}

void MessageBuilder::complete_with_tool_use() {
  flush();
  end_all_tool_calls();
  if (msg_.stop_reason == StopReason::Stop && has_tool_calls()) msg_.stop_reason = StopReason::ToolUse;
}

void MessageBuilder::set_usage(int64_t input, int64_t output, int64_t cache_read, int64_t cache_write) {
  Usage& u = msg_.usage;
  u.input = std::max<int64_t>(0, input);  // e.g. prompt − cached with a bogus cached count
  u.output = std::max<int64_t>(0, output);
  u.cache_read = std::max<int64_t>(0, cache_read);
  u.cache_write = std::max<int64_t>(0, cache_write);
  u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
}

// ---------------------------------------------------------------------------------------------
// SseStreamDecoder
// ---------------------------------------------------------------------------------------------

SseStreamDecoder::SseStreamDecoder(const ModelSpec& model, StreamSink sink)
    : out_(model, std::move(sink)), api_(model.api) {}

Status SseStreamDecoder::fail(Error error) {
  out_.flush();  // what arrived before the error is reported before it
  mark_failed(out_.message(), error);
  error_ = error;
  return error;
}

Status SseStreamDecoder::handle(std::vector<SseEvent>& events) {
  for (const SseEvent& event : events) {
    if (done_) break;
    Status s = on_event(event);
    if (!s.ok()) return fail(s.error());
  }
  return Ok{};
}

Status SseStreamDecoder::feed(std::string_view body_bytes) {
  if (error_) return *error_;
  if (done_) return Ok{};
  std::vector<SseEvent> events;
  Status parsed = parser_.feed(body_bytes, events);
  if (Status s = handle(events); !s.ok()) return s;
  // Bytes after the terminal event are ignored, malformed or not.
  if (!parsed.ok() && !done_) return fail(invalid_stream(api_, parsed.error().message));
  out_.flush();  // this read's deltas, one per block
  return Ok{};
}

Result<AssistantMessage> SseStreamDecoder::finish() {
  if (error_) return *error_;
  if (!done_) {
    // Lenient: servers sometimes omit the last blank line, so an unterminated final event is
    // processed too. When it does not parse it was cut off: that is reported as incomplete below.
    std::vector<SseEvent> events;
    parser_.flush(events);
    for (const SseEvent& event : events) {
      if (done_) break;
      Status s = on_event(event);
      if (!s.ok() && s.error().code == "PROVIDER_STREAM_ERROR") return fail(s.error()).error();
      if (!s.ok()) break;
    }
  }
  out_.flush();
  if (!done_ && !complete_without_terminal()) {
    Error e = incomplete_stream(api_);
    mark_failed(out_.message(), e);
    error_ = e;
    return e;
  }
  on_complete();
  done_ = true;
  error_ = Error{"PROVIDER_STREAM_FINISHED", "finish() called twice"};
  return out_.message();
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

Error stream_error(std::string message) {
  if (message.empty()) message = "provider reported an error";
  return Error{"PROVIDER_STREAM_ERROR", std::move(message)};
}

Error stream_error(const std::string& code, const std::string& message) {
  return stream_error(code.empty() ? message : code + ": " + message);
}

Error invalid_stream(std::string_view api, std::string_view what) {
  return Error{"PROVIDER_STREAM_INVALID", std::string(api) + " stream: " + std::string(what)};
}

Error incomplete_stream(std::string_view api) {
  return Error{"PROVIDER_STREAM_INCOMPLETE",
               std::string(api) + " stream ended before the response was complete"};
}

void mark_failed(AssistantMessage& msg, const Error& error) {
  msg.stop_reason = StopReason::Error;
  msg.error_message = error.message;
}

// ---------------------------------------------------------------------------------------------
// JSON and HTTP helpers
// ---------------------------------------------------------------------------------------------

std::optional<json> parse_json(std::string_view text) {
  if (json_nesting_exceeds(text)) return std::nullopt;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

Result<json> event_object(std::string_view api, std::string_view data, std::string_view what) {
  auto j = parse_json(data);
  if (!j || !j->is_object()) return invalid_stream(api, what);
  return std::move(*j);
}

std::string event_type(const json& data, const SseEvent& event) {
  std::string type = str(data, "type");
  return type.empty() ? event.type : type;
}

std::string dump_body(const json& body) {
  return json_dump::compact(body);  // = dump(-1, ' ', false, replace), without its per-byte cost
}

std::string join_url(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  return std::string(base) + std::string(path);
}

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

void set_header(HttpRequest& req, std::string_view name, std::string value) {
  for (auto& [k, v] : req.headers) {
    if (iequals(k, name)) {
      v = std::move(value);
      return;
    }
  }
  req.headers.emplace_back(std::string(name), std::move(value));
}

void add_headers(HttpRequest& req, const ModelSpec& model,
                 std::vector<std::pair<std::string, std::string>> auth, std::string_view accept) {
  set_header(req, "Content-Type", "application/json");
  set_header(req, "Accept", std::string(accept));
  for (auto& [k, v] : auth) set_header(req, k, std::move(v));
  for (const auto& [k, v] : model.headers) set_header(req, k, v);
}

HttpRequest bearer_request(const ModelSpec& model, std::string_view path, std::string_view accept, const json& body) {
  return bearer_request(model, path, accept, dump_body(body));
}

HttpRequest bearer_request(const ModelSpec& model, std::string_view path, std::string_view accept, std::string body) {
  HttpRequest req;
  req.url = join_url(model.base_url, path);
  std::vector<std::pair<std::string, std::string>> auth;
  if (!model.api_key.empty()) auth.emplace_back("Authorization", "Bearer " + model.api_key);
  add_headers(req, model, std::move(auth), accept);
  req.body = std::move(body);
  return req;
}

const json& obj(const json& o, std::string_view key) {
  static const json kEmpty = json::object();
  if (!o.is_object()) return kEmpty;
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : kEmpty;
}

std::string str(const json& obj, std::string_view key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

int64_t int_at(const json& obj, std::string_view key) {
  constexpr int64_t kLimit = int64_t{1} << 53;  // keeps sums of a few values far from overflow
  if (!obj.is_object()) return 0;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return 0;
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (!(d > -static_cast<double>(kLimit) && d < static_cast<double>(kLimit))) return 0;  // NaN too
    return static_cast<int64_t>(d);
  }
  if (it->is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), kLimit));
  return std::clamp<int64_t>(it->get<int64_t>(), -kLimit, kLimit);
}

bool accepts_images(const ModelSpec& model) {
  return std::find(model.input.begin(), model.input.end(), "image") != model.input.end();
}

std::string data_url(const ImageContent& image) {
  return "data:" + image.mime_type + ";base64," + image.data;
}

std::string joined_text(const std::vector<ContentBlock>& blocks) {
  std::string out;
  bool first = true;
  for (const auto& block : blocks) {
    if (const auto* t = std::get_if<TextContent>(&block)) {
      if (!first) out += '\n';
      out += t->text;
      first = false;
    }
  }
  return out;
}

bool has_images(const std::vector<ContentBlock>& blocks) {
  return std::any_of(blocks.begin(), blocks.end(),
                     [](const ContentBlock& b) { return std::holds_alternative<ImageContent>(b); });
}

// ---------------------------------------------------------------------------------------------
// History preparation
// ---------------------------------------------------------------------------------------------

namespace {

bool same_model(const AssistantMessage& m, const ModelSpec& model) {
  return m.provider == model.provider && m.api == model.api && m.model == model.id;
}

/// Thinking/tool-call rewriting of one kept assistant message.
AssistantMessage adapt_assistant(const AssistantMessage& in, const ModelSpec& model,
                                 const ToolIdMapper& map_id) {
  AssistantMessage out = in;
  out.content.clear();
  const bool same = same_model(in, model);
  for (const auto& block : in.content) {
    if (const auto* th = std::get_if<ThinkingContent>(&block)) {
      if (same) {
        out.content.push_back(*th);
      } else if (!th->redacted && th->thinking.find_first_not_of(" \t\r\n") != std::string::npos) {
        out.content.emplace_back(TextContent{th->thinking});
      }
    } else if (const auto* call = std::get_if<ToolCall>(&block)) {
      ToolCall copy = *call;
      if (map_id) copy.id = map_id(copy.id);
      out.content.emplace_back(std::move(copy));
    } else {
      out.content.push_back(block);
    }
  }
  return out;
}

/// Whether adapt_assistant would change `in` (thinking from another model, a tool-call id that
/// `map_id` rewrites).
bool needs_adaptation(const AssistantMessage& in, const ModelSpec& model, const ToolIdMapper& map_id) {
  bool thinking = false;
  for (const auto& block : in.content) {
    if (std::holds_alternative<ThinkingContent>(block)) thinking = true;
    else if (const auto* call = std::get_if<ToolCall>(&block); call && map_id && map_id(call->id) != call->id) return true;
  }
  return thinking && !same_model(in, model);
}

struct PendingCalls {
  std::vector<std::pair<std::string, std::string>> calls;  ///< (id, name) awaiting results
  std::set<std::string> answered;

  void flush_synthetic(PreparedHistory& out) {
    for (const auto& [id, name] : calls) {
      if (answered.count(id)) continue;
      ToolResultMessage r;
      r.tool_call_id = id;
      r.tool_name = name;
      r.content.emplace_back(TextContent{"No result provided"});
      r.is_error = true;
      out.add_owned(std::move(r));
    }
    calls.clear();
    answered.clear();
  }
  bool expects(const std::string& id) const {
    return std::any_of(calls.begin(), calls.end(), [&](const auto& c) { return c.first == id; });
  }
};

}  // namespace

namespace {

const SharedMessage* shared_at(const std::vector<Message>&, std::size_t) { return nullptr; }
const SharedMessage* shared_at(const MessageList& messages, std::size_t i) { return &messages.shared(i); }

template <typename Messages>
PreparedHistory prepare(const ModelSpec& model, const Messages& messages, const ToolIdMapper& map_id) {
  PreparedHistory out;
  PendingCalls pending;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& message = messages[i];
    if (const auto* a = std::get_if<AssistantMessage>(&message)) {
      pending.flush_synthetic(out);
      if (a->stop_reason == StopReason::Error || a->stop_reason == StopReason::Aborted) continue;
      if (needs_adaptation(*a, model, map_id)) {
        AssistantMessage adapted = adapt_assistant(*a, model, map_id);
        for (const ToolCall* call : adapted.tool_calls()) pending.calls.emplace_back(call->id, call->name);
        out.add_owned(std::move(adapted));
      } else {
        for (const ToolCall* call : a->tool_calls()) pending.calls.emplace_back(call->id, call->name);
        out.add(message, shared_at(messages, i));
      }
    } else if (const auto* r = std::get_if<ToolResultMessage>(&message)) {
      const std::string id = map_id ? map_id(r->tool_call_id) : r->tool_call_id;
      if (!pending.expects(id) || pending.answered.count(id)) continue;
      pending.answered.insert(id);
      if (id == r->tool_call_id) {
        out.add(message, shared_at(messages, i));
      } else {
        ToolResultMessage copy = *r;
        copy.tool_call_id = id;
        out.add_owned(std::move(copy));
      }
    } else {
      pending.flush_synthetic(out);
      out.add(message, shared_at(messages, i));
    }
  }
  return out;
}

}  // namespace

PreparedHistory prepare_history(const ModelSpec& model, const std::vector<Message>& messages, const ToolIdMapper& map_id) {
  return prepare(model, messages, map_id);
}

PreparedHistory prepare_history(const ModelSpec& model, const MessageList& messages, const ToolIdMapper& map_id) {
  return prepare(model, messages, map_id);
}

std::string generated_tool_call_id() {
  static std::atomic<uint64_t> counter{0};
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  auto base36 = [](uint64_t v) {
    std::string s;
    do {
      s.insert(s.begin(), kDigits[v % 36]);
      v /= 36;
    } while (v != 0);
    return s;
  };
  return "call_" + base36(static_cast<uint64_t>(now_ms())) + "_" + base36(++counter);
}

}  // namespace wire
}  // namespace pincer::llm
