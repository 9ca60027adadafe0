// Inbound webhooks (AT-3; OpenClaw's `hooks` config, docs/automation.md "Hooks") — the pure part:
// the settings read from `hooks.*`, the request bodies of `POST <path>/wake` and `<path>/agent`,
// the session-key policy, and `hooks.mappings` (custom paths turned into a wake or an agent turn
// through `{{…}}` templates). The HTTP side, the runs and the delivery are app/hooks_runtime.h.
//
// Facts from OpenClaw's gateway (src/gateway/hooks.ts, hooks-mapping.ts): body limit 256 KiB;
// `wake {text, mode: now|next-heartbeat}`; `agent {message, name="Hook", agentId?, sessionKey?,
// wakeMode, deliver=true, channel="last", to?, model?, thinking?, timeoutSeconds?}`; a request's
// own sessionKey only with `allowRequestSessionKey`; keys limited to
// `allowedSessionKeyPrefixes`; generated keys `hook:<uuid>`; the `gmail` preset.
// Thread-safe: pure functions and values.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::automation {

/// OpenClaw's default `hooks.path`.
inline constexpr const char* kDefaultHooksPath = "/hooks";
/// OpenClaw's default `hooks.maxBodyBytes` (256 KiB).
inline constexpr std::size_t kDefaultHookMaxBodyBytes = 256 * 1024;
/// Longest idempotency key honoured, bytes (OpenClaw's MAX_HOOK_IDEMPOTENCY_KEY_LENGTH).
inline constexpr std::size_t kMaxHookIdempotencyKeyBytes = 256;

enum class HookWakeMode { Now, NextHeartbeat };
const char* to_string(HookWakeMode mode);

/// One `hooks.mappings[]` entry (or a preset's): which requests it takes and what it makes of them.
struct HookMapping {
  std::string id;            ///< `id`, default `mapping-<n>` (1-based)
  std::string match_path;    ///< the sub-path after `hooks.path` without slashes; "" = any
  std::string match_source;  ///< payload `source` must equal this; "" = any
  bool wake = false;         ///< `action: "wake"` (else "agent", the default)
  HookWakeMode wake_mode = HookWakeMode::Now;
  std::string name, agent_id, session_key, message_template, text_template, channel, to, model, thinking;
  std::optional<bool> deliver;
  std::optional<int64_t> timeout_seconds;
  bool allow_unsafe_external_content = false;
};

/// `hooks.*`, resolved.
struct HooksSettings {
  bool enabled = false;
  std::string token;                      ///< required when enabled
  std::string path = kDefaultHooksPath;   ///< leading '/', no trailing '/', never "/"
  std::size_t max_body_bytes = kDefaultHookMaxBodyBytes;
  std::string default_session_key;        ///< "" = a new `hook:<uuid>` per request
  bool allow_request_session_key = false;
  std::vector<std::string> allowed_session_key_prefixes;  ///< lower-case; empty = any
  std::optional<std::set<std::string>> allowed_agent_ids; ///< nullopt = any (also when it holds "*")
  std::vector<HookMapping> mappings;      ///< `mappings` first, then the presets'
};

/// Reads `hooks` of the effective config. Disabled (or absent) → settings with enabled=false and no
/// error. Errors ("CONFIG_INVALID", one line each joined by '\n', each naming its key):
/// `hooks.token` missing while enabled, `hooks.path` "/", an unknown preset,
/// `hooks.defaultSessionKey` outside `allowedSessionKeyPrefixes`, prefixes without `hook:` while
/// no default key is set (generated keys would all be refused), a mapping `transform` (JavaScript
/// transforms cannot run in Pincer), `hooks.token` equal to the gateway's token or password.
Result<HooksSettings> hooks_settings_from_config(const nlohmann::json& config);

/// A parsed `wake` request.
struct HookWake {
  std::string text;
  HookWakeMode mode = HookWakeMode::Now;
};

/// A parsed `agent` request (or a mapping's agent action).
struct HookAgentTurn {
  std::string message;
  std::string name = "Hook";
  std::string agent_id;     ///< "" = the default agent
  std::string session_key;  ///< as asked ("" = the default / a generated one)
  bool session_key_from_request = false;  ///< asked by the caller's body (needs allowRequestSessionKey)
  HookWakeMode wake_mode = HookWakeMode::Now;
  bool deliver = true;
  std::string channel = "last";
  std::string to, model, thinking;
  std::optional<int64_t> timeout_seconds;
  bool allow_unsafe_external_content = false;
};

using HookAction = std::variant<HookWake, HookAgentTurn>;

/// `{text, mode?}`. Errors ("INVALID_REQUEST"): "text required".
Result<HookWake> parse_hook_wake(const nlohmann::json& payload);
/// `{message, name?, agentId?, sessionKey?, wakeMode?, deliver?, channel?, to?, model?, thinking?,
/// timeoutSeconds?}` (fields of the wrong type count as absent, as OpenClaw's). Errors
/// ("INVALID_REQUEST"): "message required", "channel must be …" (`channels`: the known channel ids,
/// "last" always allowed), "model required" (a model given blank).
Result<HookAgentTurn> parse_hook_agent(const nlohmann::json& payload, const std::vector<std::string>& channels);

/// The hook token of a request: `Authorization: Bearer <token>`, else `x-pincer-token`, else
/// OpenClaw's `x-openclaw-token` (header names lower-cased). nullopt when none.
std::optional<std::string> hook_token_from_headers(const std::map<std::string, std::string>& headers);
/// The idempotency key: header `idempotency-key`, `x-pincer-idempotency-key`,
/// `x-openclaw-idempotency-key`, else the body's `idempotencyKey`; "" when none or over
/// kMaxHookIdempotencyKeyBytes.
std::string hook_idempotency_key(const std::map<std::string, std::string>& headers, const nlohmann::json& payload);

/// True when `agent_id` ("" = the default agent `default_agent`) may be targeted.
bool hook_agent_allowed(const HooksSettings& settings, const std::string& agent_id, const std::string& default_agent);

/// The session key a turn runs in (before the agent prefix is added): the request's (only with
/// allowRequestSessionKey, or a mapping's), else `defaultSessionKey`, else `hook:<new_id()>`; each
/// within allowedSessionKeyPrefixes (case-insensitive). Errors ("INVALID_REQUEST") with OpenClaw's
/// texts.
Result<std::string> resolve_hook_session_key(const HooksSettings& settings, const HookAgentTurn& turn,
                                             const std::function<std::string()>& new_id);

/// What a mapping's templates may read.
struct HookRequestContext {
  nlohmann::json payload = nlohmann::json::object();
  std::map<std::string, std::string> headers;  ///< lower-cased names
  std::map<std::string, std::string> query;
  std::string path;  ///< the sub-path after hooks.path, without slashes
  int64_t now_ms = 0;
};

/// Renders `{{expr}}` placeholders: `path`, `now` (ISO UTC), `headers.<name>`, `query.<name>`,
/// `payload.<path>` or a bare `<path>` into the payload (`a.b[0].c`; `__proto__`, `prototype`,
/// `constructor` never resolve). Strings as they are, numbers and booleans as text, objects and
/// arrays as JSON, missing values as "".
std::string render_hook_template(const std::string& tmpl, const HookRequestContext& ctx);

/// The first mapping that matches `ctx` (path, then payload `source`) turned into an action.
/// nullopt when none matches; an error ("INVALID_REQUEST") when the match renders an empty text or
/// message ("hook mapping requires text" / "… message") or names an unknown channel.
std::optional<Result<HookAction>> apply_hook_mappings(const HooksSettings& settings, const HookRequestContext& ctx,
                                                      const std::vector<std::string>& channels);

}  // namespace pincer::automation
