// `pincer sessions list|show` without a gateway: sessions are local files (sessions.json and the
// JSONL transcripts under <state>/agents/<id>/sessions/), so when no gateway answers on the local
// connection the CLI reads them itself. Read-only: nothing is repaired or written here (the
// gateway marks an interrupted turn when it next loads the session).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::app {

/// The payload `sessions.list` would give ({ts, count, totalCount, sessions: [{key, agentId,
/// sessionId, updatedAt, …}]}, newest first, at most `limit` rows when > 0), from every agent
/// directory under `state_dir`. An unreadable index is skipped with a warning on stderr.
nlohmann::json local_sessions_list(const std::filesystem::path& state_dir, int limit, int64_t now_ms);

/// The payload `chat.history` would give ({sessionKey, sessionId?, messages, thinkingLevel}) for
/// `key` ("main" is the default agent's main session; `default_agent` as in the config). Errors:
/// "SESSION_UNAVAILABLE" (the index or the transcript cannot be read).
Result<nlohmann::json> local_session_history(const std::filesystem::path& state_dir, const std::string& default_agent,
                                             const std::string& key, int limit);

}  // namespace pincer::app
