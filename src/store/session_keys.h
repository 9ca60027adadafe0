// Canonical session keys (openclaw-protocol.md §5.5, SPEC RT-1) and session id validation.
//
// A store key has the form `agent:<agentId>:<rest>`, all lowercase, e.g. `agent:main:main`,
// `agent:main:telegram:direct:12345`, `agent:ops:cron:nightly:run:1f2e…`. Request keys arriving
// from clients may be short (`main`, `discord:group:987`) and are mapped onto store keys with
// to_agent_store_session_key(). Building keys for channels/peers (dmScope, identity links) is the
// routing layer's job; this file only holds the grammar shared by the store and routing.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pincer::store {

inline constexpr std::string_view kDefaultAgentId = "main";
inline constexpr std::string_view kDefaultMainKey = "main";
inline constexpr std::string_view kDefaultAccountId = "default";

/// Longest session key accepted, in bytes.
inline constexpr std::size_t kMaxSessionKeyBytes = 512;

/// The one check of a session key given by a client or a flag (chat.send, agent, sessions.*,
/// `pincer agent|chat --session`): nullopt when acceptable, else why not — empty or only
/// whitespace, longer than kMaxSessionKeyBytes, or holding a control character (a newline would
/// split the lines of `sessions list` and of logs). Printable Unicode is fine.
std::optional<std::string> session_key_problem(std::string_view key);

/// The internal session namespaces (`subagent:`, `cron:`, `acp:` after an optional `agent:<id>:`)
/// whose sessions the gateway creates itself; a session key that an outside client names (the
/// OpenAI HTTP API, `pincer acp`, `pincer mcp serve`) may not start one. Returns the namespace
/// ("subagent:" …) a key falls in, or nullopt.
std::optional<std::string> reserved_session_namespace(std::string_view key);

/// Agent id as OpenClaw normalises it: trimmed; if it matches ^[a-z0-9][a-z0-9_-]{0,63}$
/// (case-insensitive) it is lowercased; otherwise lowercased, every run of characters outside
/// [a-z0-9_-] replaced by "-", leading/trailing dashes trimmed, cut to 64 characters. An empty
/// result becomes "main". The result is always safe as a single path component.
std::string normalize_agent_id(std::string_view raw);

/// Account id: the same rules as normalize_agent_id, falling back to "default".
std::string normalize_account_id(std::string_view raw);

/// Main key: trimmed and lowercased; empty becomes "main" (`session.scope: "global"` passes "global").
std::string normalize_main_key(std::string_view raw);

/// `agent:<normalize_agent_id(agent_id)>:<normalize_main_key(main_key)>`.
std::string agent_main_session_key(std::string_view agent_id, std::string_view main_key = kDefaultMainKey);

/// A parsed `agent:<agentId>:<rest>` key.
struct ParsedSessionKey {
  std::string agent_id;  ///< lowercase, as written in the key (not re-normalised)
  std::string rest;      ///< everything after the agent id, lowercase, e.g. "telegram:direct:42"
};

/// Parses a store key: trimmed, lowercased, split on ':' with empty parts dropped; needs at least
/// three parts of which the first is "agent". `rest` is the remaining parts joined with ':'.
/// nullopt when the key does not have that shape.
std::optional<ParsedSessionKey> parse_agent_session_key(std::string_view key);

/// Request key → store key (OpenClaw `toAgentStoreSessionKey`): empty or "main" (any case) →
/// agent_main_session_key(agent_id, main_key); a key starting with "agent:" → kept, lowercased;
/// anything else → `agent:<normalize_agent_id(agent_id)>:<lowercased key>`. Keys are trimmed.
std::string to_agent_store_session_key(std::string_view agent_id, std::string_view request_key,
                                       std::string_view main_key = kDefaultMainKey);

/// Store key → request key: the `rest` of an agent key, or the trimmed key itself.
std::string to_agent_request_session_key(std::string_view store_key);

/// Agent that owns a key: the parsed agent id normalised, or "main" for non-agent keys.
std::string agent_id_from_session_key(std::string_view key);

/// What kind of string a caller passed as a session key.
enum class SessionKeyShape {
  Missing,         ///< empty or whitespace
  Agent,           ///< parses as agent:<id>:<rest>
  MalformedAgent,  ///< starts with "agent:" (any case) but does not parse
  LegacyOrAlias,   ///< anything else: a legacy short key or an alias such as "main"
};
SessionKeyShape classify_session_key_shape(std::string_view key);
/// "missing" | "agent" | "malformed_agent" | "legacy_or_alias" (OpenClaw's names).
std::string_view to_string(SessionKeyShape shape);

/// The form in which keys are stored in sessions.json: trimmed and lowercased. One legacy shape
/// is rewritten: the Telegram forum topic key of earlier Pincer versions,
/// "agent:<a>:telegram:group:<chat>:thread:<topic>", becomes OpenClaw's
/// "agent:<a>:telegram:group:<chat>:topic:<topic>" — so old topic sessions are found under the new
/// key (and migrated by the index's next save), and the old key still reaches them.
std::string canonical_store_key(std::string_view key);

/// True when `id` matches ^[a-z0-9][a-z0-9._-]{0,127}$ case-insensitively (OpenClaw's rule for
/// session ids; they name transcript files, so this also rules out path separators and "..").
bool is_valid_session_id(std::string_view id);

}  // namespace pincer::store
