// `pincer import openclaw`, the SQLite state of a current OpenClaw (2026.9.x): an OpenClaw home
// keeps its sessions, transcripts and auth profiles per agent in
// `agents/<id>/agent/openclaw-agent.sqlite` and its cron jobs in `state/openclaw.sqlite`. This
// file reads them and turns them into the files Pincer reads (docs/cli.md "pincer import
// openclaw"):
//
//   session_nodes (session_key, current_session_id, entry_json)
//                       → agents/<id>/sessions/sessions.json: {session_key: entry} where entry is
//                         OpenClaw's session entry as stored (its keys, label, model, thinking,
//                         token counters), with "sessionId" = current_session_id and, when the
//                         entry lacks them, label / displayName / spawnedBy / parentSessionKey
//                         from their columns.
//   transcript_events (session_id, seq, event_json | event_zstd + event_utf8_bytes)
//                       → agents/<id>/sessions/<session_id>.jsonl, one event a line in seq order
//                         (a zstd row is decoded and its size checked against event_utf8_bytes);
//                         OpenClaw's "version": 4 session header is written as pi's version 3
//                         (the entry lines, ids and parentId links are unchanged).
//   session_transcript_cold_archives (session_id, archive_name, archive_sha256, event_count, …)
//                       → the events OpenClaw moved to a cold archive (sessions/cold/<sha256>.jsonl.zst
//                         or the archive_blob column) join that session's transcript above, merged
//                         with any rows still in transcript_events by seq.
//   auth_profile_store / auth_profile_state (row "primary": {version, profiles} and
//                         {order, lastGood, usageStats})
//                       → agents/<id>/agent/auth-profiles.json, the two documents merged (cooldowns
//                         kept). Without a row, the shared store of state/openclaw.sqlite
//                         (config_machine_state "authProfiles.store"/"authProfiles.state", where
//                         2026.9 keeps the credentials of all agents) is written for the agent;
//                         without that, a legacy auth-profiles.json next to the database is copied.
//   cron_jobs (job_id, job_json, state_json) of state/openclaw.sqlite
//                       → cron/jobs.json {version: 1, jobs: [job + state]}, same ids and schedules.
//                         Jobs with a "declarationKey" (OpenClaw's own heartbeat and plugin
//                         maintenance jobs, declared again by OpenClaw itself) are reported, not
//                         imported.
//
// The databases are never opened in place: each one (with its -wal file) is copied into a private
// temporary directory, opened there, and the copy removed; the source is only read. A database
// covers its agent entirely: the agent's legacy sessions/ directory is then reported, not imported
// (OpenClaw migrated it into the database); a cron_jobs table likewise replaces cron/jobs.json.
//
// Errors (Error::code): "SQLITE_INVALID" — the database cannot be opened or read, a table lacks a
// column, or a row is corrupt (not JSON, a zstd frame that does not decode or has the wrong size,
// a job whose id differs from its row); the message names the database, the table and the row id.
// "IMPORT_MISMATCH" — verify() found a count in the staged files different from what was read.
//
// Blocking file I/O; CLI use only (not thread-safe, no shared state).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/openclaw_import.h"
#include "core/result.h"

namespace pincer::cli::openclaw::sqlite_state {

/// One session's transcript as JSONL text.
struct Transcript {
  std::string session_id;
  std::string jsonl;           ///< header line + one line per event, each ending in "\n"
  std::uint64_t events = 0;    ///< rows read (the header included)
  std::uint64_t messages = 0;  ///< rows of type "message"
  std::uint64_t compressed = 0;  ///< rows that were zstd-compressed
  std::uint64_t cold = 0;        ///< events read from OpenClaw's cold archive
};

/// What one openclaw-agent.sqlite holds for Pincer.
struct AgentState {
  nlohmann::ordered_json sessions = nlohmann::ordered_json::object();  ///< sessions.json document
  std::vector<Transcript> transcripts;                                ///< by session id
  std::optional<nlohmann::json> auth_profiles;  ///< merged store + state; nullopt = no row
  std::uint64_t auth_profile_count = 0;         ///< entries of auth_profiles["profiles"]
  /// Rows of session_transcript_archives (transcripts of reset/deleted sessions; not imported,
  /// like the *.reset.* / *.deleted.* files of the JSON layout).
  std::uint64_t archived_transcripts = 0;
  /// Transcripts whose events (some or all) came from OpenClaw's cold archive.
  std::uint64_t cold_transcripts = 0;
};

/// A row of session_transcript_cold_archives.
struct ColdArchive {
  std::string session_id;
  std::string archive_name;    ///< "<sha256 hex>.jsonl.zst"
  std::string archive_sha256;  ///< lowercase hex of the compressed bytes
  std::uint64_t archive_bytes = 0;  ///< compressed size, bytes
  std::uint64_t event_count = 0;    ///< "event" records the archive holds
  std::string storage;              ///< "file" (sessions/cold/) or "sqlite" (blob below)
  std::string blob;                 ///< archive_blob when storage == "sqlite"
};

/// Where OpenClaw keeps a "file" cold archive of the agent database `agent_db`
/// (agents/<id>/agent/openclaw-agent.sqlite → agents/<id>/sessions/cold/<archive_name>).
std::filesystem::path cold_archive_path(const std::filesystem::path& agent_db, const std::string& archive_name);

/// Reads and checks one cold archive: its size and SHA-256 against the row, zstd-decoded (at most
/// 64 MiB, OpenClaw's own bound), the header's session id and the number of events. Returns
/// event_json by seq. Errors: "IO_ERROR" (the archive file is missing or unreadable),
/// "SQLITE_INVALID" (anything else), naming the database, the row and the archive line.
Result<std::map<std::int64_t, std::string>> read_cold_archive(const ColdArchive& archive,
                                                             const std::filesystem::path& agent_db);

/// Reads an agent database (copied first; see above). Missing tables read as empty.
Result<AgentState> read_agent_db(const std::filesystem::path& db);

/// The cron jobs of state/openclaw.sqlite; nullopt when the database has no cron_jobs table.
Result<std::optional<nlohmann::json>> read_cron_jobs(const std::filesystem::path& db);

/// The shared auth store of state/openclaw.sqlite (table config_machine_state, rows
/// "authProfiles.store" and "authProfiles.state", merged as for an agent); nullopt without one.
Result<std::optional<nlohmann::json>> read_shared_auth(const std::filesystem::path& db);

/// Decodes one zstd frame that must expand to exactly `expected_bytes`. Errors name `where`.
Result<std::string> zstd_decode(const std::string& frame, std::uint64_t expected_bytes, const std::string& where);

/// A file to write, relative to the Pincer state dir.
struct GeneratedFile {
  std::filesystem::path dest;
  std::string data;
};

/// The SQLite part of an import: the files to stage, the top-level items to install, and what was
/// read, for verify().
struct Plan {
  std::vector<GeneratedFile> files;
  std::vector<std::filesystem::path> installs;
  std::set<std::string> agents;  ///< agent ids whose directory the databases cover
  bool cron = false;             ///< the state database's cron_jobs table covers cron/jobs.json
  /// What one transcript must hold once staged: `<name>.jsonl` with `events` lines (header
  /// included), `messages` of them messages, and `warnings` lines Pincer's reader skips (0 for
  /// transcripts made from the database; a JSON-layout file is copied with its flaws as they are).
  struct TranscriptCount {
    std::string name;
    std::uint64_t events = 0;
    std::uint64_t messages = 0;
    std::uint64_t warnings = 0;
  };
  /// What one agent's staged files must hold (the same read-back check serves the JSON layout).
  struct Expected {
    std::string agent_id;
    std::uint64_t sessions = 0;
    std::vector<TranscriptCount> transcripts;
    std::optional<std::uint64_t> auth_profiles;
  };
  std::vector<Expected> expected;
  std::optional<std::uint64_t> cron_jobs;
};

/// Reads every database of the source (report.source) and plans the files; adds the items to
/// report.copied and the per-kind totals to report.counts ("sessions", "transcripts", "messages",
/// "cron jobs", "auth profiles"). `configured`: the agent ids of the mapped config (warns about
/// the others). Nothing is written.
Result<Plan> plan(ImportReport& report, const std::set<std::string>& configured);

/// Counts the memory Markdown files (MEMORY.md, memory.md, memory/**/*.md) of the copied
/// workspaces into report.counts["memory files"]; they are copied as they are with the workspace.
void count_memory_files(ImportReport& report);

/// Writes the planned files below `staging` (dirs 0700, files 0600).
Status stage(const Plan& plan, const std::filesystem::path& staging);

/// Reads the staged files back with Pincer's own readers (sessions.json, transcripts, the cron
/// store, auth-profiles.json) and checks every count against what was read ("IMPORT_MISMATCH").
Status verify(const Plan& plan, const std::filesystem::path& staging);

/// stage() + verify() into a private temporary directory, removed afterwards: what a dry run
/// does, so that it fails exactly where the import would.
Status verify_in_temp(const Plan& plan);

}  // namespace pincer::cli::openclaw::sqlite_state
