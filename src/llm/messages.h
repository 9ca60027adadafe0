// The conversation model shared by providers, the agent loop and transcripts (AG-*, PV-1, SS-1).
// Shapes follow pi-ai's message types (the format of OpenClaw/pi session v3 transcripts, see
// openclaw-protocol.md §5.3), so that a message round-trips to the transcript JSON unchanged.
// Internal messages are converted to a provider's wire format only at the call boundary (llm/*).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/shared_list.h"

namespace pincer::llm {

/// {type:"text", text}
struct TextContent {
  std::string text;
};
/// {type:"thinking", thinking, thinkingSignature?, redacted?}
struct ThinkingContent {
  std::string thinking;
  std::string signature;  ///< provider signature/encrypted content to replay (Anthropic, Responses)
  bool redacted = false;
};
/// {type:"image", data (base64), mimeType}; Pincer's transcripts store `{type:"image", mimeType,
/// ref}` instead of the data (agent/attachments.h: "media/<sha256>.<ext>" beside the transcript),
/// resolved back to data when the history is loaded. A block with a `ref` serialises without data.
struct ImageContent {
  std::string data;
  std::string mime_type;
  std::string ref = {};  ///< "" = inline data only
};
/// {type:"toolCall", id, name, arguments (object)}
struct ToolCall {
  std::string id;
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
};
using ContentBlock = std::variant<TextContent, ThinkingContent, ImageContent, ToolCall>;

/// Token counts of one model call; cost in USD (0 when the price is unknown).
struct Usage {
  int64_t input = 0, output = 0, cache_read = 0, cache_write = 0, total_tokens = 0;
  struct Cost {
    double input = 0, output = 0, cache_read = 0, cache_write = 0, total = 0;
  } cost;
};

/// Why the model stopped: "stop" | "length" | "toolUse" | "error" | "aborted".
enum class StopReason { Stop, Length, ToolUse, Error, Aborted };
std::string_view to_string(StopReason reason);
std::optional<StopReason> stop_reason_from_string(std::string_view s);

/// {role:"user", content: string | (text|image)[], timestamp}
struct UserMessage {
  std::vector<ContentBlock> content;  ///< text and image blocks
  bool content_is_string = true;      ///< serialise as a plain string (single text block)
  int64_t timestamp = 0;              ///< ms since epoch
};

/// {role:"assistant", content, api, provider, model, usage, stopReason, errorMessage?, responseId?, timestamp}
struct AssistantMessage {
  std::vector<ContentBlock> content;  ///< text, thinking and toolCall blocks
  std::string api, provider, model;
  Usage usage;
  StopReason stop_reason = StopReason::Stop;
  std::string error_message;
  std::string response_id;
  int64_t timestamp = 0;

  /// Concatenated text blocks.
  std::string text() const;
  std::vector<const ToolCall*> tool_calls() const;
};

/// {role:"toolResult", toolCallId, toolName, content:(text|image)[], details?, isError, timestamp}
struct ToolResultMessage {
  std::string tool_call_id, tool_name;
  std::vector<ContentBlock> content;
  nlohmann::json details;  ///< null: omitted
  bool is_error = false;
  int64_t timestamp = 0;
};

using Message = std::variant<UserMessage, AssistantMessage, ToolResultMessage>;
/// A message shared between the session's history and the requests made from it (immutable).
using SharedMessage = std::shared_ptr<const Message>;
/// The messages of a request: the history's own shared messages, not copies (core/shared_list.h).
using MessageList = SharedList<Message>;

/// pi-format JSON of a message / content block.
nlohmann::json to_json(const Message& message);
nlohmann::json to_json(const ContentBlock& block);
/// Parses pi-format JSON. Error code "MESSAGE_INVALID" naming the field.
Result<Message> message_from_json(const nlohmann::json& j);

/// A tool the model may call: name, description, JSON Schema of its arguments. The schema is
/// immutable and shared by copies: a run hands the same definitions to every model call and each
/// request context copies them, and deep copies of every tool's schema per call were a large part
/// of a turn's cost.
struct ToolDefinition {
  ToolDefinition() = default;
  ToolDefinition(std::string name, std::string description, nlohmann::json parameters);
  std::string name;
  std::string description;
  /// The JSON Schema of the arguments ({} when none was given).
  const nlohmann::json& parameters() const;
  /// parameters() as compact JSON text (json_dump::compact: what a nlohmann dump would write),
  /// serialised on first use and shared by copies: a session's request frame keeps its
  /// definitions across turns, and every request repeats the schemas. Any thread.
  const std::string& parameters_json() const;

 private:
  struct Schema {
    nlohmann::json value;
    mutable std::once_flag once{};
    mutable std::string compact{};
  };
  std::shared_ptr<const Schema> parameters_;
};

/// Everything sent to a model for one call.
struct Context {
  std::string system_prompt;
  MessageList messages;
  std::vector<ToolDefinition> tools;
};

/// A configured model (`models.providers.{id}` + one of its `models[]`).
struct ModelSpec {
  std::string provider;   ///< provider id, e.g. "openai", "mock"
  std::string id;         ///< model id, e.g. "gpt-4.1"
  std::string api;        ///< "openai-completions" | "openai-responses" | "anthropic-messages" | "ollama"
  std::string base_url;   ///< e.g. "https://api.openai.com/v1"
  std::string api_key;    ///< resolved secret ("" = none)
  std::map<std::string, std::string> headers;  ///< extra HTTP headers
  int64_t context_window = 128000;  ///< tokens
  int64_t max_tokens = 4096;        ///< output tokens per call
  bool reasoning = false;           ///< model supports thinking/reasoning
  std::vector<std::string> input = {"text"};  ///< "text", "image"
  /// OAuth refresh of the provider's `oauth` auth profiles (models.providers.<id>.oauth; "" = the
  /// built-in endpoint of a known provider, llm/auth/oauth_refresh.h): token endpoint URL, client
  /// id, body format "form" | "json".
  std::string oauth_token_url, oauth_client_id, oauth_body_format;
};

/// Thinking effort requested for a call: off | minimal | low | medium | high.
/// AG-7, in increasing order (step_down() walks it backwards).
enum class ThinkingLevel { Off, Minimal, Low, Medium, High, XHigh };

}  // namespace pincer::llm
