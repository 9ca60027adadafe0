// The OpenAI-compatible HTTP API's answers (SPEC IX-4; docs/interop.md): error bodies, chat
// completions and their stream chunks, Responses objects and their SSE event sequence, the model
// list. Shapes as OpenAI's API reference and its official SDK read them. Pure; thread-safe
// except a ResponsesStream, which belongs to one answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "interop/openai_http/openai_request.h"

namespace pincer::interop::openai_http {

/// Token counts of a run (AgentService's summed usage).
struct TokenUsage {
  int64_t input = 0, output = 0, total = 0;
};

/// {"error": {"message", "type", "code"}} (code null when empty).
nlohmann::json error_body(const ApiError& error);
/// One SSE event without a name: "data: <json>\n\n".
std::string sse_data(const nlohmann::json& payload);
/// One named SSE event (Responses): "event: <payload.type>\ndata: <json>\n\n".
std::string sse_event(const nlohmann::json& payload);
/// The chat stream's end marker.
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";

/// OpenAI's finish_reason for a run's stop reason: "length" stays, anything else is "stop".
std::string finish_reason(std::string_view stop_reason);

/// A `chat.completion` object: one choice with the assistant's `text`.
nlohmann::json chat_completion(const std::string& id, int64_t created, const std::string& model, const std::string& text,
                               const std::string& finish, const TokenUsage& usage);
/// A `chat.completion.chunk`: `delta` ({role} or {content} or {}), `finish` ("" → null).
nlohmann::json chat_chunk(const std::string& id, int64_t created, const std::string& model, nlohmann::json delta,
                          const std::string& finish = "");
/// The usage chunk of `stream_options.include_usage`: empty choices, `usage` set.
nlohmann::json chat_usage_chunk(const std::string& id, int64_t created, const std::string& model, const TokenUsage& usage);

/// `GET /v1/models`: {object: "list", data: [{id, object: "model", created, owned_by}]} with
/// `pincer` (the default agent) first, then `pincer/<id>` for each agent.
nlohmann::json models_list(const std::vector<std::string>& agent_ids, int64_t created);
/// One entry of models_list by id (also the accepted aliases: `openclaw/<id>` …), or null.
nlohmann::json model_entry(std::string_view id, const std::vector<std::string>& agent_ids, std::string_view default_agent,
                           int64_t created);

/// A `response` object. `status`: in_progress | completed | failed | incomplete; `text` is the
/// output message's text (no output item while in progress with nothing yet); `error` set when failed.
nlohmann::json response_object(const std::string& id, const std::string& message_id, int64_t created,
                               const std::string& model, const std::string& status, const std::string* text,
                               const TokenUsage& usage, const ApiError* error = nullptr);

/// The SSE events of one streamed response, in OpenAI's order, each with its `sequence_number`:
/// start() = response.created, response.in_progress, response.output_item.added,
/// response.content_part.added; delta() = response.output_text.delta; completed() =
/// response.output_text.done, response.content_part.done, response.output_item.done,
/// response.completed; failed() = response.failed.
class ResponsesStream {
 public:
  ResponsesStream(std::string id, std::string message_id, int64_t created, std::string model);
  std::string start();
  std::string delta(const std::string& text);
  std::string completed(const std::string& stop_reason, const TokenUsage& usage);
  std::string failed(const ApiError& error, const TokenUsage& usage);
  const std::string& text() const { return text_; }

 private:
  std::string event(nlohmann::json payload);
  std::string id_, message_id_, model_, text_;
  int64_t created_ = 0;
  int64_t seq_ = 0;
};

}  // namespace pincer::interop::openai_http
