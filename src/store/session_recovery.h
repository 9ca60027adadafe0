// Rebuilding a damaged sessions.json from the transcripts beside it (SS-1).
//
// A sessions.json that does not parse (or holds a broken entry) is moved aside as
// `sessions.json.corrupt.<archive timestamp>` (kept, never deleted) and a new index is written with
// one entry per primary transcript `<sessionId>.jsonl` of the directory (archives such as
// `.reset.<ts>` / `.deleted.<ts>` are not sessions and are skipped):
//   - key: the header's "sessionKey" (written by Pincer since transcripts carry it); a transcript
//     without one (older files, OpenClaw's or pi's) is listed under `agent:<agentId>:recovered:<sessionId>`
//     so that its history stays reachable (`sessions list`, `chat.history`);
//   - sessionId: the header's "id" (it must equal the file name);
//   - updatedAt: the timestamp of the last entry (the header's when there is none, the file's mtime
//     when neither parses); sessionStartedAt: the header's timestamp.
// When two transcripts name the same key, the one updated last wins (the other stays on disk).
//
// OpenClaw (src/config/sessions/store.ts, loadSessionStore) recovers a damaged store only from its
// own `sessions.json.bak` or a leftover `sessions.json.*.tmp` and otherwise starts empty; Pincer
// writes no such copies (saves are temp file + rename), so it rebuilds from the transcripts.
//
// Blocking file I/O: call off the event loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/session_index.h"

namespace pincer::store {

/// One session found in a transcript.
struct FoundSession {
  std::string key;         ///< the store key it is listed under
  bool key_known = false;  ///< the header named it (else the `recovered:` key)
  std::string session_id;
  int64_t updated_at = 0;  ///< ms since the epoch
  int64_t started_at = 0;  ///< the header's timestamp; 0 when it does not parse
  std::filesystem::path file;
};

/// The key a transcript without "sessionKey" is listed under: `agent:<agentId>:recovered:<sessionId>`.
std::string recovered_session_key(std::string_view agent_id, std::string_view session_id);

/// Every primary transcript of `sessions_dir` as a session of agent `agent_id`, one per key (the
/// most recently updated), most recently updated first. Files whose first line is not a session
/// header, or whose header id is not the file name, are skipped. Reads each file's first line and
/// last 64 KiB only.
std::vector<FoundSession> sessions_from_transcripts(const std::filesystem::path& sessions_dir, std::string_view agent_id);

/// What recover_index() did.
struct IndexRecovery {
  std::string damage;                ///< why the index was not readable (load()'s message)
  std::filesystem::path kept_at;     ///< where the damaged file now is
  std::size_t recovered = 0;         ///< sessions rebuilt from transcripts
  std::size_t without_key = 0;       ///< of which under a `recovered:` key
};

/// After `index.load()` failed with `damage`: quarantine() the file, add every session of
/// sessions_from_transcripts(index's directory, agent_id), save. Errors: those of quarantine()
/// and save() (the index is then usable but may be empty).
Result<IndexRecovery> recover_index(SessionIndex& index, std::string_view agent_id, std::string damage);

/// A `sessions.json.corrupt.<ts>` left in `sessions_dir` by a recovery (the newest), if any.
std::optional<std::filesystem::path> damaged_index_copy(const std::filesystem::path& sessions_dir);

}  // namespace pincer::store
