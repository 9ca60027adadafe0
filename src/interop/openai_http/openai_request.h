// The OpenAI-compatible HTTP API (SPEC IX-4, GW-9; docs/interop.md): request bodies of
// `POST /v1/chat/completions` and `POST /v1/responses` checked and turned into one agent turn,
// the agent a `model` name targets, and the session a request joins. Pure functions; thread-safe.
//
// What matches OpenClaw (its src/gateway/openai-http.ts, openresponses-http.ts, http-utils.ts):
//   - the prompt: system/developer messages (and `instructions`) are set apart; the current
//     message is the last user (or tool) message; earlier user/assistant/tool messages of the
//     request go before it as a context block ("[Chat messages since your last reply - for
//     context]" … "[Current message - respond to this]"); a request with one message sends it as is;
//   - models: `pincer`, `pincer/default` (also `openclaw`, `openclaw/default`) = the default agent;
//     `pincer/<id>`, `pincer:<id>`, `openclaw/<id>`, `openclaw:<id>`, `agent:<id>` = that agent;
//   - sessions: an explicit key header wins (reserved namespaces `subagent:`, `cron:`, `acp:` are
//     refused), else the `user` field gives `agent:<id>:<prefix>-user:<user>`, else a fresh
//     `agent:<id>:<prefix>:<uuid>` per request; prefix `openai` (chat) or `openresponses`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::interop::openai_http {

/// An error as OpenAI answers it: HTTP `status`, body {"error": {message, type, code}}.
struct ApiError {
  int status = 400;
  std::string type = "invalid_request_error";  ///< invalid_request_error | authentication_error | api_error …
  std::string code;                            ///< "" → null
  std::string message;                         ///< one line naming what was wrong and where
};

template <class T>
using Outcome = std::variant<T, ApiError>;

enum class Endpoint { ChatCompletions, Responses };

/// Longest `user` accepted, in bytes (it becomes part of a session key, store::kMaxSessionKeyBytes).
inline constexpr std::size_t kMaxUserBytes = 256;
/// The model name answered when a request names none, and the prefix of per-agent names.
inline constexpr std::string_view kModelName = "pincer";

/// One agent turn asked for by a request body.
struct TurnRequest {
  std::string model;           ///< as the client wrote it; kModelName when absent
  bool stream = false;
  bool include_usage = false;  ///< chat: stream_options.include_usage (a usage chunk before [DONE])
  std::string user;            ///< trimmed; "" = none
  std::string message;         ///< the text the agent gets (OpenClaw's prompt, see above)
  /// System/developer messages and `instructions`, in order. Pincer's agent keeps its own system
  /// prompt: these are not applied (docs/interop.md says so).
  std::vector<std::string> system;
};

/// Parses a `/v1/chat/completions` body. Errors (400): not a JSON object, `messages` missing or
/// not a non-empty array, a message that is not an object or has no string `role`, a content of
/// the wrong type, `image_url`/audio/file parts (not supported), a bad `model`/`stream`/`user`
/// type, a `user` longer than kMaxUserBytes or with control characters, no user message.
Outcome<TurnRequest> parse_chat_request(std::string_view body);

/// Parses a `/v1/responses` body: `input` a string or an array of message items
/// ({role, content: string | [{type: input_text|output_text|text, text}]}) and
/// function_call_output items; `instructions` joins `system`. Errors as parse_chat_request.
Outcome<TurnRequest> parse_responses_request(std::string_view body);

/// The agent id `model` targets (see above; ids normalised as store::normalize_agent_id), or
/// nullopt when it is not one of those names (an unknown model: 404 model_not_found).
std::optional<std::string> agent_of_model(std::string_view model, std::string_view default_agent);

/// Where a turn goes.
struct SessionChoice {
  std::string agent_id;
  std::string session_key;  ///< as AgentService::send takes it
  bool fresh = false;       ///< a new session for this request only
};

/// Chooses the agent and session. `headers` (names lower-cased): `x-pincer-agent-id` or
/// `x-openclaw-agent-id` overrides the model's agent, `x-pincer-session-key` or
/// `x-openclaw-session-key` names the session. `known_agents`: the configured agent ids.
/// `new_id` gives the uuid of a fresh session. Errors: 404 model_not_found (unknown model),
/// 404 agent_not_found (an agent that is not configured), 400 (a bad or reserved session key).
Outcome<SessionChoice> choose_session(const std::map<std::string, std::string>& headers, const TurnRequest& turn,
                                      Endpoint endpoint, std::string_view default_agent,
                                      const std::vector<std::string>& known_agents, const std::string& new_id);

}  // namespace pincer::interop::openai_http
