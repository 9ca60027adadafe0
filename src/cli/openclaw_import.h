// `pincer import openclaw` (issue #6 §4): brings a user's OpenClaw state into Pincer. Reads an
// OpenClaw state dir (default $OPENCLAW_STATE_DIR, else ~/.openclaw) and writes the equivalent
// Pincer state dir ($PINCER_HOME, else ~/.pincer). The source is only read, never changed.
//
// What is imported (docs/cli.md "pincer import openclaw" is the user-facing description):
//   openclaw.json      → pincer.json: every key Pincer understands (gateway, models.providers,
//                        agents, tools, logging), after "$include"; "${NAME}" env references are
//                        kept as written (Pincer substitutes them the same way when it loads the
//                        file), so no secret is needed at import time. Everything else is listed
//                        with its config path and the reason. The result passes config::validate.
//   workspaces         → a workspace inside the OpenClaw state dir is COPIED to Pincer's default
//                        location (<target>/workspace for the default agent, <target>/workspace-<id>
//                        for the others); a workspace elsewhere (the user's own project directory)
//                        is referenced by its absolute path and not copied.
//   agents/<id>/sessions/sessions.json + primary <sessionId>.jsonl transcripts
//                      → the same relative paths, bytes unchanged (archived *.reset.* / *.deleted.*
//                        files and sessions.json backups are not imported).
//   devices/paired.json → the same path, bytes unchanged (pending.json is not imported).
//   cron/jobs.json     → the same path, bytes unchanged: kept for the cron scheduler, not scheduled.
//
// Writing: nothing is written before everything has been read and checked. The import is staged in
// <target>/.openclaw-import-<random>/ (dirs 0700, files 0600, or 0700 for files executable by their
// owner) and each top-level item (pincer.json, workspace…, agents/<id>/sessions, devices/paired.json,
// cron/jobs.json) is then renamed into place; if a rename fails, the ones already done are undone.
// An item that already exists in the target (an empty directory does not count) makes the import
// refuse, unless `force`: then the existing item is first renamed to
// `<item>.pre-import-<archive timestamp>` (never deleted; listed in the report).
// A gateway running on the target (its gateway.lock held) makes the import refuse; the import
// holds that lock itself while it writes, and removes staging dirs left by a killed import.
//
// Two layers: map_config() is the pure mapping of the config document (unit-tested without files);
// run_import() does the I/O. Blocking file I/O: CLI use only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/result.h"

namespace pincer::cli::openclaw {

/// A config value that was carried over. Paths use config-path syntax (`agents.list[0].model`,
/// `models.providers["my.lab"]`); `to` is "" when the value needs no key in pincer.json (e.g. a
/// workspace copied to Pincer's default location).
struct MappedKey {
  std::string from;  ///< path in openclaw.json
  std::string to;    ///< path in pincer.json
  std::string note;  ///< how it was translated, "" when unchanged
};

/// Something not imported, and why. `path` is a config path (config report) or a path relative to
/// the OpenClaw state dir (files report).
struct Skipped {
  std::string path;
  std::string reason;
};

/// Where one agent's workspace comes from and goes.
struct WorkspacePlan {
  std::string agent_id;
  std::filesystem::path source;  ///< absolute OpenClaw workspace directory (lexically normal)
  std::string from;              ///< config path that named it; "" = OpenClaw's default location
  /// true: copied to <target>/<dest>. false with a `dest`: another agent has the same source,
  /// and its copy at <target>/<dest> is shared. false without: used in place (pincer.json holds
  /// the absolute `source`).
  bool copy = true;
  std::string dest;  ///< directory relative to the Pincer state dir ("workspace", "workspace-<id>")
};

/// The result of mapping openclaw.json.
struct ConfigMapping {
  nlohmann::json config = nlohmann::json::object();  ///< pincer.json content; passes config::validate
  std::vector<MappedKey> mapped;                     ///< in document order
  std::vector<Skipped> skipped;                      ///< unmapped keys (highest path of each subtree)
  std::vector<std::string> warnings;                 ///< mapped, but needs the user's attention
  std::vector<WorkspacePlan> workspaces;             ///< one per agent (the implicit "main" when none)
};

/// What map_config() needs to know about the environment.
struct MapContext {
  std::filesystem::path source_dir;  ///< the OpenClaw state dir, absolute
  std::string home;                  ///< $HOME, for "~" in workspace paths ("" = not set)
};

/// Maps an OpenClaw config document ($include already resolved, env references kept) to a Pincer
/// one. Pure and total: any input gives a mapping (a non-object document maps to an empty config
/// with one skipped entry). Rules, in short (each decision is in `mapped`/`skipped`):
///   * gateway: port, bind (loopback|lan|custom as is; "auto" → loopback; "tailnet" skipped),
///     customBindHost, auth {mode, token, password, rateLimit, trustedProxy}, trustedProxies,
///     controlUi.allowedOrigins. Without auth.mode, a configured password selects "password"
///     mode (OpenClaw's rule). Secrets: strings are kept (incl. "${NAME}"); OpenClaw's "$NAME"
///     shorthand, "secretref-env:NAME" markers and {source:"env", id:NAME} SecretRefs become
///     "${NAME}"; other secret sources are skipped.
///   * models.providers.<id>: baseUrl, apiKey, api (the four Pincer speaks; a provider with
///     another api is skipped), headers, models[] {id, name, contextWindow, maxTokens, reasoning,
///     input}. A model whose own `api` differs from its provider's is skipped.
///   * agents.defaults: model, thinkingDefault, timeoutSeconds, contextTokens, maxConcurrent,
///     bootstrapMaxChars, bootstrapTotalMaxChars, bootstrapTruncationWarning, heartbeat, and in
///     OpenClaw's shape subagents, compaction, sandbox, userTimezone, contextEngine,
///     startupContext; agents.list[]: id (normalised as OpenClaw does), name, default, model;
///     workspaces per `workspaces`.
///   * tools: profile, allow, alsoAllow, deny, exec.timeoutSec.
///   * logging: level (silent → off, fatal → error), consoleStyle (compact → plain).
///   * hooks, mcp (their own rules); memory, session, skills, approvals, commands and
///     plugins.entries.{active-memory, memory-core} (active recall, dreaming) in OpenClaw's shape.
///   * Every other key is skipped with a reason. Finally, any value Pincer's schema rejects is
///     removed (with the schema's message as the reason), so `config` always validates.
ConfigMapping map_config(const nlohmann::json& openclaw, const MapContext& ctx);

/// One item copied (or, in a dry run, to be copied).
struct CopiedItem {
  std::string kind;      ///< "workspace" | "sessions" | "auth-profiles" | "devices" | "cron"
  std::string agent_id;  ///< workspace/sessions: the agent
  std::filesystem::path from, to;
  std::uint64_t files = 0;  ///< regular files copied
  std::uint64_t bytes = 0;  ///< their total size
  std::uint64_t count = 0;  ///< sessions in sessions.json | auth profiles | paired devices | cron jobs (else 0)
  std::string note;
};

/// An existing target item moved aside by `force`.
struct Backup {
  std::filesystem::path path, backup;
};

/// Everything the import did or would do.
struct ImportReport {
  std::filesystem::path source, target;
  std::filesystem::path config_source;  ///< <source>/openclaw.json
  std::filesystem::path config_target;  ///< <target>/pincer.json
  bool config_source_exists = false;
  bool dry_run = false, force = false;
  std::vector<MappedKey> mapped;
  std::vector<Skipped> config_skipped;
  std::vector<CopiedItem> copied;
  std::vector<Skipped> skipped;  ///< files and directories of the source not imported
  std::vector<std::filesystem::path> conflicts;  ///< target items that already exist
  std::vector<Backup> backups;
  std::vector<std::string> warnings;
  /// What was read, per kind ("sessions", "transcripts", "messages", "cron jobs", "auth profiles",
  /// "memory files"); the SQLite part of the import checks the written files against them.
  std::map<std::string, std::uint64_t> counts;
  bool written = false;  ///< the import was committed
};

/// Exit codes of `pincer import openclaw`.
inline constexpr int kExitOk = 0;         ///< imported (or dry run done)
inline constexpr int kExitFailed = 1;     ///< I/O failure, target items exist, gateway running
inline constexpr int kExitBadSource = 2;  ///< missing/unusable source dir or invalid openclaw.json

/// Options of run_import().
struct ImportOptions {
  std::filesystem::path source;  ///< the OpenClaw state dir
  std::filesystem::path target;  ///< the Pincer state dir (created 0700 when missing)
  bool dry_run = false;          ///< plan and report; write nothing at all
  bool force = false;            ///< move existing target items aside instead of refusing
  config::EnvLookup env;         ///< HOME, and the env references checked for warnings
  std::int64_t now_ms = 0;       ///< wall clock, names backups
};

/// The outcome: the exit code, the report (filled as far as the import got), and the error.
struct ImportOutcome {
  int exit_code = kExitOk;
  ImportReport report;
  std::optional<Error> error;  ///< set iff exit_code != 0; the message names the file
};

/// Runs the import. Error codes: "SOURCE_INVALID" (exit 2: source missing, not a directory, not
/// an OpenClaw state dir, or overlapping the target), "CONFIG_INVALID" (exit 2: openclaw.json
/// unreadable or invalid; message "<file>:<line>:<col>: …" or "<file>: …"), "TARGET_EXISTS"
/// (exit 1: lists the existing items; use force), "GATEWAY_ALREADY_RUNNING" (exit 1), "IO_ERROR"
/// (exit 1: names the file and the failing step; nothing was left half-imported).
ImportOutcome run_import(const ImportOptions& options);

/// Removes OpenClaw's own cron jobs from `jobs` (a JSON array; anything else is left alone): those
/// with a "declarationKey" (its heartbeat, plugins' maintenance turns), which OpenClaw declares
/// again itself and which as Pincer jobs would run OpenClaw's prompts. Each is added to
/// report.skipped as "<where> job_id=<id>". Returns how many were removed.
std::size_t drop_managed_cron_jobs(nlohmann::json& jobs, const std::string& where, ImportReport& report);

/// True when `p` is strictly below `dir` (both lexically normal and absolute; `dir` itself is not).
bool is_below(const std::filesystem::path& p, const std::filesystem::path& dir);

/// The report as JSON: {ok, dryRun, force, written, source, target, config {source, target,
/// sourceExists, mapped [{from, to, note?}], skipped [{path, reason}]}, copied [{kind, agentId?,
/// from, to, files, bytes, count, note?}], skipped [{path, reason}], conflicts [path],
/// backups [{path, backup}], warnings [text], counts {kind: n}, error? {code, message}}. Never holds secret values.
nlohmann::json to_json(const ImportOutcome& outcome);

/// The report for people, several lines ending in "\n" (the error itself is printed separately).
std::string to_text(const ImportOutcome& outcome);

}  // namespace pincer::cli::openclaw
