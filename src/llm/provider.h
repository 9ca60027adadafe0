// The wire-format interface of an LLM API (PV-1, PV-2): how a Context becomes one streaming HTTP
// request, and how the streamed response body becomes an AssistantMessage. No networking here —
// the HTTP client (core) sends the HttpRequest and feeds the body bytes to a StreamDecoder.
//
//   const ProviderApi* api = find_api(model.api);          // "openai-completions", ...
//   HttpRequest req = api->build_request(model, context, options);
//   auto decoder = api->make_decoder(model, [](const StreamEvent& e, const AssistantMessage& m) {...});
//   for each body chunk: if (auto s = decoder->feed(chunk); !s) -> PROVIDER_STREAM_ERROR
//   Result<AssistantMessage> final = decoder->finish();     // PROVIDER_STREAM_INCOMPLETE if cut
//
// Non-2xx responses are not fed to decoders: the caller classifies them with failover.h.
//
// The second half of this header holds building blocks shared by the API implementations
// (openai_completions.cpp, openai_responses.cpp, anthropic_messages.cpp, ollama.cpp,
// google_generative_ai.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "llm/messages.h"
#include "llm/sse_parser.h"

namespace pincer::llm {

/// One HTTP request to send. `url` is absolute; `body` is UTF-8 JSON. Headers always include
/// Content-Type and Accept, plus authentication when the model has an api_key, plus model.headers
/// (which override same-named defaults).
struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

/// Per-call choices.
struct RequestOptions {
  ThinkingLevel thinking = ThinkingLevel::Off;  ///< only used when model.reasoning
  std::optional<int64_t> max_tokens;            ///< output token cap; unset = model.max_tokens (every API)
  std::string session_id;                       ///< prompt-cache key where the API has one (Responses)
};

/// One incremental change to the partial message. `content_index` indexes
/// AssistantMessage::content of the partial message passed alongside.
///   TextDelta / ThinkingDelta: `delta` is appended text (a new index = a new block).
///   ToolCallStart: a toolCall block was added (id and name, when known, are in the partial).
///   ToolCallDelta: `delta` is a fragment of the arguments' JSON text (arguments in the partial stay
///                  {} until ToolCallEnd).
///   ToolCallEnd: the arguments are complete and parsed into the partial's block.
struct StreamEvent {
  enum class Kind { TextDelta, ThinkingDelta, ToolCallStart, ToolCallDelta, ToolCallEnd };
  Kind kind;
  std::size_t content_index = 0;
  std::string delta;
};

/// Called synchronously from StreamDecoder::feed/finish for every StreamEvent.
using StreamSink = std::function<void(const StreamEvent&, const AssistantMessage& partial)>;

/// Turns one streamed response body into an AssistantMessage. Not thread-safe; one per response.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  /// Consumes body bytes split anywhere. Errors (sticky; later calls return the same):
  ///   PROVIDER_STREAM_ERROR — the stream carried an error event; message = the provider's message
  ///                           prefixed with its error type/code when given ("overloaded_error: Overloaded");
  ///   PROVIDER_STREAM_INVALID — the body is not the expected format (bad JSON, oversized event).
  /// After an error, partial() has stop_reason Error and error_message set.
  virtual Status feed(std::string_view body_bytes) = 0;
  /// End of body. Returns the final message, or the sticky error, or PROVIDER_STREAM_INCOMPLETE
  /// when the body ended before the API's terminal event (connection cut mid-way). A last event or
  /// line without its terminator is still processed (servers omit it); one that does not parse was
  /// cut off and also gives PROVIDER_STREAM_INCOMPLETE. Later calls return an error.
  virtual Result<AssistantMessage> finish() = 0;
  /// The message as accumulated so far (api, provider, model and timestamp are set from the start).
  virtual const AssistantMessage& partial() const = 0;
};

/// One wire API ("openai-completions", "openai-responses", "anthropic-messages", "ollama",
/// "google-generative-ai").
/// Implementations are stateless singletons.
class ProviderApi {
 public:
  virtual ~ProviderApi() = default;
  virtual std::string_view name() const = 0;
  virtual HttpRequest build_request(const ModelSpec& model, const Context& context,
                                    const RequestOptions& options) const = 0;
  virtual std::unique_ptr<StreamDecoder> make_decoder(const ModelSpec& model, StreamSink sink) const = 0;
};

/// The API implementation for `api` (ModelSpec::api), or nullptr when unknown.
const ProviderApi* find_api(std::string_view api);
/// Names of all known APIs.
std::vector<std::string_view> api_names();

std::string_view to_string(ThinkingLevel level);  ///< "off" | "minimal" | "low" | "medium" | "high" | "xhigh"

// =============================================================================================
// Building blocks for API implementations
// =============================================================================================
namespace wire {

/// Accumulates the assistant message of one response and reports every change to the sink.
/// Consecutive text (or thinking) deltas of one block are reported as one delta at the next
/// flush() or other change: a decoder calls flush() at the end of each feed (a read of many SSE
/// events then costs one event downstream, not one per event; nothing waits longer than the read
/// it arrived in). Indices returned are positions in message().content. add_text/add_thinking/…_tool_args ignore
/// an index that is not a block of their kind (malformed streams must not crash the decoder);
/// thinking()/tool_call() require one.
class MessageBuilder {
 public:
  MessageBuilder(const ModelSpec& model, StreamSink sink);

  AssistantMessage& message() { return msg_; }
  const AssistantMessage& message() const { return msg_; }

  std::size_t begin_text();
  void add_text(std::size_t index, std::string_view delta);
  std::size_t begin_thinking();
  void add_thinking(std::size_t index, std::string_view delta);
  ThinkingContent& thinking(std::size_t index) { return std::get<ThinkingContent>(msg_.content[index]); }

  std::size_t begin_tool_call(std::string id, std::string name);
  ToolCall& tool_call(std::size_t index) { return std::get<ToolCall>(msg_.content[index]); }
  void add_tool_args(std::size_t index, std::string_view json_fragment);
  /// Replaces the accumulated argument text (APIs that resend the whole arguments at the end).
  void set_tool_args(std::size_t index, std::string json_text);
  /// Parses the accumulated arguments and emits ToolCallEnd; no-op when already ended.
  /// Empty text gives {}; text that is not valid JSON is kept as a JSON string (the tool layer
  /// rejects it and shows the model what it sent).
  void end_tool_call(std::size_t index);
  /// Ends every tool call not yet ended, in content order.
  void end_all_tool_calls();
  bool has_tool_calls() const { return !args_.empty(); }
  /// End of a response whose API has no tool-use stop reason of its own: ends open tool calls and
  /// turns stop reason Stop into ToolUse when the message has tool calls.
  void complete_with_tool_use();

  /// Sets usage (negative counts become 0) and total_tokens = input + output + cache_read + cache_write.
  void set_usage(int64_t input, int64_t output, int64_t cache_read, int64_t cache_write);

  /// Reports the text or thinking delta held back since the last report, if any.
  void flush();

 private:
  void emit(StreamEvent::Kind kind, std::size_t index, std::string_view delta);
  void add_delta(StreamEvent::Kind kind, std::size_t index, std::string_view delta);

  AssistantMessage msg_;
  StreamSink sink_;
  std::optional<StreamEvent> held_;  ///< a TextDelta/ThinkingDelta not yet reported (flush)
  struct PendingArgs {
    std::string text;
    bool ended = false;
  };
  std::map<std::size_t, PendingArgs> args_;  ///< by content index
};

/// Base of the SSE-framed decoders: runs the SSE parser, makes errors sticky and checks that the
/// terminal event arrived. Subclasses handle one event at a time.
class SseStreamDecoder : public StreamDecoder {
 public:
  SseStreamDecoder(const ModelSpec& model, StreamSink sink);
  Status feed(std::string_view body_bytes) final;
  Result<AssistantMessage> finish() final;
  const AssistantMessage& partial() const final { return out_.message(); }

 protected:
  /// Handles one event; an Error return ends the stream (use stream_error / invalid_stream).
  virtual Status on_event(const SseEvent& event) = 0;
  /// Called once when the terminal event was seen before the end of the body: set the final stop
  /// reason, end open blocks.
  virtual void on_complete() = 0;
  /// Whether a body that ends without the terminal event still counts as complete (e.g. Chat
  /// Completions servers that send finish_reason but omit "data: [DONE]").
  virtual bool complete_without_terminal() const { return false; }
  /// Subclasses call this on the API's terminal event; later events are ignored.
  void mark_done() { done_ = true; }
  bool done() const { return done_; }

  MessageBuilder out_;

 private:
  Status fail(Error error);
  Status handle(std::vector<SseEvent>& events);

  SseParser parser_;
  std::string api_;
  bool done_ = false;
  std::optional<Error> error_;
};

/// The ProviderApi of every wire API: a name, a function that builds the request and a decoder
/// type constructed as Decoder(model, sink). Stateless; each API keeps one as a function-local
/// static:  static const wire::BasicApi<Decoder> api{kApi, &build_request}; return api;
template <class Decoder>
class BasicApi final : public ProviderApi {
 public:
  using BuildFn = HttpRequest (*)(const ModelSpec&, const Context&, const RequestOptions&);
  BasicApi(std::string_view name, BuildFn build) : name_(name), build_(build) {}
  std::string_view name() const override { return name_; }
  HttpRequest build_request(const ModelSpec& model, const Context& context,
                            const RequestOptions& options) const override {
    return build_(model, context, options);
  }
  std::unique_ptr<StreamDecoder> make_decoder(const ModelSpec& model, StreamSink sink) const override {
    return std::make_unique<Decoder>(model, std::move(sink));
  }

 private:
  std::string_view name_;  ///< a string literal of the API's file
  BuildFn build_;
};

/// An SSE event's data parsed as a JSON object, or PROVIDER_STREAM_INVALID "<api> stream: <what>"
/// when it is not one (the first step of every JSON-over-SSE decoder).
Result<nlohmann::json> event_object(std::string_view api, std::string_view data, std::string_view what);
/// The event's type: the JSON "type" member, else the SSE `event:` name (Responses, Messages).
std::string event_type(const nlohmann::json& data, const SseEvent& event);

/// Error{"PROVIDER_STREAM_ERROR", message} for an error event in the stream.
Error stream_error(std::string message);
/// stream_error("<code>: <message>"), or just the message when `code` is empty (the form
/// failover.cpp reads the provider's code from).
Error stream_error(const std::string& code, const std::string& message);
/// Error{"PROVIDER_STREAM_INVALID", ...} for a body that is not the expected format.
Error invalid_stream(std::string_view api, std::string_view what);
/// Error{"PROVIDER_STREAM_INCOMPLETE", ...}.
Error incomplete_stream(std::string_view api);
/// Marks `msg` as failed with `error` (stop reason Error, error_message).
void mark_failed(AssistantMessage& msg, const Error& error);

/// Parses one event's JSON payload; nullopt when it is not valid JSON or nests deeper than
/// kMaxJsonDepth.
std::optional<nlohmann::json> parse_json(std::string_view text);
/// Serialises a request body; invalid UTF-8 is replaced with U+FFFD rather than throwing.
std::string dump_body(const nlohmann::json& body);
/// `base` without trailing slashes + `path` (which starts with '/').
std::string join_url(std::string_view base, std::string_view path);
/// Sets header `name` (case-insensitive) to `value`, replacing an existing one.
void set_header(HttpRequest& req, std::string_view name, std::string value);
/// Content-Type/Accept defaults, then `auth` headers, then model.headers.
void add_headers(HttpRequest& req, const ModelSpec& model,
                 std::vector<std::pair<std::string, std::string>> auth, std::string_view accept);
/// A POST of `body` to model.base_url + `path` with `Authorization: Bearer <api key>` (when the
/// model has a key) and the headers of add_headers: the request of the OpenAI-style wire APIs.
HttpRequest bearer_request(const ModelSpec& model, std::string_view path, std::string_view accept,
                           const nlohmann::json& body);
/// The same with a body already serialized (compact JSON text).
HttpRequest bearer_request(const ModelSpec& model, std::string_view path, std::string_view accept, std::string body);

/// Object at `key`, or an empty object when `obj` is not an object or the member is absent or not
/// an object. (nlohmann's value() throws on non-objects; decoders must not.)
const nlohmann::json& obj(const nlohmann::json& obj, std::string_view key);
/// String at `key`, or "" when absent or not a string.
std::string str(const nlohmann::json& obj, std::string_view key);
/// Integer at `key` (clamped to ±2^53; fractions truncated), or 0 when absent or not a number.
int64_t int_at(const nlohmann::json& obj, std::string_view key);

bool accepts_images(const ModelSpec& model);
/// "data:<mime>;base64,<data>"
std::string data_url(const ImageContent& image);
/// Texts of text blocks joined by "\n".
std::string joined_text(const std::vector<ContentBlock>& blocks);
bool has_images(const std::vector<ContentBlock>& blocks);

/// Rewrites a provider's tool-call id into one the target API accepts (applied to both the call
/// and its result, so pairs stay matched).
using ToolIdMapper = std::function<std::string(const std::string&)>;

/// Prepares stored history for `model` (what every API needs, as pi-ai's transformMessages):
///  - assistant messages that ended in error/aborted are skipped, with their tool results;
///  - thinking from another provider/api/model becomes plain text (empty thinking and redacted
///    thinking from another model are dropped);
///  - tool-call ids pass through `map_id` (when given), results follow;
///  - a tool call left without a result gets a synthetic error result "No result provided"
///    before the next user or assistant message;
///  - tool results that answer no kept tool call are dropped.
/// Messages that need no change are not copied: the result refers to `messages`, which must
/// outlive it (it is read while the request body is written).
class PreparedHistory {
 public:
  class Iterator {
   public:
    explicit Iterator(std::vector<const Message*>::const_iterator it) : it_(it) {}
    const Message& operator*() const { return **it_; }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return it_ != other.it_; }

   private:
    std::vector<const Message*>::const_iterator it_;
  };
  Iterator begin() const { return Iterator(items_.begin()); }
  Iterator end() const { return Iterator(items_.end()); }
  std::size_t size() const { return items_.size(); }
  const Message& operator[](std::size_t i) const { return *items_[i]; }
  /// The shared message item `i` is, when it is one of a MessageList's kept as it is (nullptr for
  /// adapted and synthetic ones, and for a history given as a vector): the key of its cached wire
  /// form (wire_memo.h).
  const SharedMessage* shared(std::size_t i) const { return shared_[i]; }

  void add(const Message& m, const SharedMessage* shared = nullptr) {
    items_.push_back(&m);
    shared_.push_back(shared);
  }
  /// A new message (an adapted or synthetic one), kept here. `T`: UserMessage, AssistantMessage
  /// or ToolResultMessage (built in place: no temporary variant).
  template <typename T>
  void add_owned(T&& m) {
    items_.push_back(&owned_.emplace_back(std::in_place_type<std::decay_t<T>>, std::forward<T>(m)));
    shared_.push_back(nullptr);
  }

 private:
  std::deque<Message> owned_;  // adapted and synthetic messages (a deque: their addresses stay put)
  std::vector<const Message*> items_;
  std::vector<const SharedMessage*> shared_;
};
PreparedHistory prepare_history(const ModelSpec& model, const std::vector<Message>& messages,
                                const ToolIdMapper& map_id = {});
PreparedHistory prepare_history(const ModelSpec& model, const MessageList& messages, const ToolIdMapper& map_id = {});
/// A temporary history would be gone before the result is read.
PreparedHistory prepare_history(const ModelSpec& model, std::vector<Message>&& messages,
                                const ToolIdMapper& map_id = {}) = delete;
PreparedHistory prepare_history(const ModelSpec& model, MessageList&& messages, const ToolIdMapper& map_id = {}) = delete;

/// A fresh id for APIs that do not give tool calls one (Ollama): "call_<base36 ms>_<n>".
std::string generated_tool_call_id();

}  // namespace wire
}  // namespace pincer::llm
