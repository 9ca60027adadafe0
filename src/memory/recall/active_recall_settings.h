// Active recall settings (SPEC DR-6): `plugins.entries["active-memory"]` of pincer.json, OpenClaw's
// key path and names (its "active-memory" plugin). Schema: core/config_schema_active_memory.cpp.
//
// Opt-in twice: the entry's `enabled` must be true and the agent's id must be in `config.agents`.
// Anything else (the default) makes resolve_active_recall() answer nullopt after two map lookups,
// so a turn of an agent without active recall does no other work.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::memory::recall {

/// How much of the conversation the recall sees (`config.queryMode`).
enum class QueryMode { Message, Recent, Full };
/// How eager the recall is to return memory (`config.promptStyle`); see recall_prompt.h.
enum class PromptStyle { Balanced, Strict, Contextual, RecallHeavy, PrecisionHeavy, PreferenceOnly };

std::string_view to_string(QueryMode mode);
std::string_view to_string(PromptStyle style);

/// Defaults (OpenClaw's): 15 s timeout, 15 s cache, 220-character summary, `recent` mode with 2
/// user turns of ≤ 220 chars and 1 assistant turn of ≤ 180 chars.
inline constexpr int64_t kDefaultTimeoutMs = 15'000;
inline constexpr int64_t kDefaultCacheTtlMs = 15'000;
inline constexpr int kDefaultMaxSummaryChars = 220;

struct ActiveRecallSettings {
  std::string model;  ///< "provider/model" of the recall call; "" = the run's model
  QueryMode query_mode = QueryMode::Recent;
  /// Explicit `promptStyle`, else by mode: message → strict, recent → balanced, full → contextual.
  PromptStyle prompt_style = PromptStyle::Balanced;
  int64_t timeout_ms = kDefaultTimeoutMs;    ///< the whole recall (search + model call), ms
  int64_t cache_ttl_ms = kDefaultCacheTtlMs;  ///< how long a result is reused for the same query, ms
  int max_summary_chars = kDefaultMaxSummaryChars;  ///< longest summary injected (code points)
  int recent_user_turns = 2;
  int recent_assistant_turns = 1;
  int recent_user_chars = 220;
  int recent_assistant_chars = 180;
  std::string prompt_override;  ///< replaces the default instructions ("" = none)
  std::string prompt_append;    ///< added after them ("" = none)
  bool logging = false;         ///< one info log line per recall
  /// Kinds of conversation recall runs in (`config.allowedChatTypes`): "direct", "group",
  /// "channel". Default direct only: memory about the user stays out of shared rooms.
  std::vector<std::string> allowed_chat_types = {"direct"};
};

/// The kind of conversation of a session key, as OpenClaw tells it: "group" or "channel" when the
/// key has that segment (`agent:main:discord:group:987`, `…:channel:…`), else "direct" (the main
/// session, `…:direct:<peer>`, an operator's own key).
std::string_view chat_type_of(std::string_view session_key);

/// True when recall may run in `session_key` under `s` (its chat type is allowed).
bool allowed_in(const ActiveRecallSettings& s, std::string_view session_key);

/// The settings when active recall is on for `agent_id`, else nullopt (entry missing or not
/// enabled, `config.enabled` false, agent not listed). Values outside the schema's ranges (the
/// loader refuses them) are clamped.
std::optional<ActiveRecallSettings> resolve_active_recall(const nlohmann::json& config, std::string_view agent_id);

}  // namespace pincer::memory::recall
