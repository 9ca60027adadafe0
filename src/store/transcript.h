// Session transcripts: `{sessionId}.jsonl` in the pi-coding-agent session v3 format
// (openclaw-protocol.md §5.3-5.4, SPEC SS-2..SS-6), so that files move between Pincer, OpenClaw
// and pi unchanged.
//
// File shape, one JSON object per line, each line ending in "\n":
//   line 1  header  {"type":"session","version":3,"id":<sessionId>,"timestamp":<ISO>,"cwd":<str>,
//                    "parentSession"?:<str>, "sessionKey"?:<str> (Pincer's: the index key)}
//   then    entries {"type":…,"id":<8 lowercase hex, unique in the file>,
//                    "parentId":<id of the previous entry on the branch | null>,
//                    "timestamp":<ISO 8601 UTC with milliseconds, e.g. 2026-03-05T14:22:01.123Z>,
//                    …type-specific fields}
//   types   message {message}                      model_change {provider, modelId}
//           thinking_level_change {thinkingLevel}  compaction {summary, firstKeptEntryId,
//           branch_summary {fromId, summary,         tokensBefore, details?, fromHook?}
//             details?, fromHook?}                 custom {customType, data?}  (never sent to the LLM)
//           custom_message {customType, content,   label {targetId, label}
//             display, details?}                   session_info {name?}
//   Entries form a tree through parentId; the active branch is the path from a leaf to the root.
//   Unknown types are kept (returned by the reader) and ignored by the context rebuild.
//
// Writing is append-only: the file is opened with O_APPEND, every entry is one write(2) of one
// complete line, and existing bytes are never rewritten. Files are created with mode 0600.
// Durability (FsyncPolicy): by default every append is followed by fdatasync(2) before it is
// acknowledged, so an acknowledged entry survives power loss (SS-6); a writer opened with None
// leaves appends to the page cache until sync() (the gateway: once per turn); a crash in the middle of a
// write leaves at most a torn last line, which the reader skips with a warning. A write that fails
// (a full disk: ENOSPC, EFBIG, EIO) is taken back: the file is truncated to the size it had before
// the append, so it still ends in its last complete line and stays valid JSONL. If a file is found
// to end without "\n" when it is opened for appending (a crash), or the truncation itself fails, a
// single "\n" is appended first so that the torn fragment becomes an (ignored) invalid line
// instead of swallowing the next entry.
//
// Messages inside entries stay nlohmann::json in pi's AgentMessage shape; src/llm/messages.h
// converts user/assistant/toolResult messages to typed values, so this layer does not depend on llm/.
//
// Thread affinity: none of these types is synchronised. All functions here do blocking file I/O:
// call them from a worker, never on the event loop. One TranscriptWriter per file per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <algorithm>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/result.h"

namespace pincer::store {

using Json = nlohmann::json;

/// The format version written by this code.
inline constexpr int kTranscriptVersion = 3;

// ---------------------------------------------------------------------------------------------
// Timestamps
// ---------------------------------------------------------------------------------------------

/// ISO 8601 UTC with milliseconds, as JavaScript's Date.toISOString(): "2026-03-05T14:22:01.123Z".
std::string iso_timestamp(int64_t unix_ms);
/// Parses ISO 8601 "YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]" → ms since the epoch (UTC).
/// nullopt when malformed.
std::optional<int64_t> parse_iso_timestamp(std::string_view text);
/// iso_timestamp with every ':' replaced by '-' (archive file suffixes): "2026-03-05T14-22-01.123Z".
std::string archive_timestamp(int64_t unix_ms);
/// True when `text` matches ^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z$.
bool is_archive_timestamp(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Paths and archives
// ---------------------------------------------------------------------------------------------

/// `<sessions_dir>/<sessionId>.jsonl`, or `<sessionId>-topic-<encodeURIComponent(topic)>.jsonl`
/// for Telegram forum topics. Error "SESSION_ID_INVALID" when the id fails is_valid_session_id.
Result<std::filesystem::path> transcript_path(const std::filesystem::path& sessions_dir,
                                              std::string_view session_id,
                                              std::optional<std::string_view> topic = std::nullopt);

/// Why a file was archived; the middle word of `<file>.<reason>.<ts>`.
enum class ArchiveReason { Reset, Deleted, Bak };
std::string_view to_string(ArchiveReason reason);

/// Renames `file` to `<file>.<reason>.<archive_timestamp(now_ms)>` in the same directory, never
/// replacing an existing file (on a name clash the timestamp moves on by 1 ms). Returns the new
/// path. Errors: "NOT_FOUND" (no such file), "IO_ERROR".
Result<std::filesystem::path> archive_file(const std::filesystem::path& file, std::string_view reason,
                                           int64_t now_ms);
/// archive_file with reason "reset" | "deleted" | "bak" (what OpenClaw's cleanup recognises).
Result<std::filesystem::path> archive_transcript(const std::filesystem::path& file, ArchiveReason reason,
                                                 int64_t now_ms);

/// A parsed archive name `<base>.<reason>.<ts>` (e.g. "abc.jsonl.reset.2026-03-05T14-22-01.123Z").
struct ArchiveName {
  std::string base;  ///< the original file name, e.g. "abc.jsonl"
  ArchiveReason reason;
  std::string timestamp;  ///< the archive_timestamp part
};
/// nullopt when `file_name` is not an archive name (so it is a primary transcript if it ends in .jsonl).
std::optional<ArchiveName> parse_archive_name(std::string_view file_name);

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// One entry line of a transcript.
struct TranscriptEntry {
  std::string type;                      ///< "message", "compaction", … or an unknown type
  std::string id;                        ///< unique in the file (8 hex chars when written by pi/us)
  std::optional<std::string> parent_id;  ///< nullopt = root (JSON null or absent)
  std::string timestamp;                 ///< ISO 8601 as written ("" when absent)
  Json raw;                              ///< the whole line's object, every field (payload included)
  std::size_t line = 0;                  ///< 1-based line number in the file
};

/// A problem found while reading; reading goes on past it.
struct TranscriptWarning {
  std::size_t line = 0;  ///< 1-based line number
  std::string message;   ///< e.g. "invalid JSON: …", "torn last line (no trailing newline) skipped"
};

/// The contents of a transcript file.
struct TranscriptContents {
  Json header;            ///< the session header object; null when line 1 is not a header
  int version = 1;        ///< header "version" (absent = 1, as pi); entries are migrated in memory
  std::vector<TranscriptEntry> entries;  ///< in file order (the header is not an entry)
  std::vector<TranscriptWarning> warnings;
  /// The file does not end in "\n" (a torn write, or a hand-written file). The fragment is kept
  /// when it is a valid entry and skipped with a warning otherwise.
  bool missing_final_newline = false;

  /// The header's "id" (the session id), or "" without a header.
  std::string session_id() const;
  /// Index into `entries` of the entry with this id (the last one when ids repeat), or nullopt.
  std::optional<std::size_t> find(std::string_view id) const;
};

/// Parses transcript bytes. Never fails: every line that is a JSON object with a string "type" and
/// (for version ≥ 2) a string "id" is returned — the first such line as the header when its type is
/// "session" — and every other non-blank line produces a warning with its line number and is
/// skipped. A last line without "\n" is kept when valid (it is complete) and reported as a torn
/// line otherwise. Lines nested deeper than 512 levels are rejected.
/// Version 1 files (no ids) get ids "00000001"… chained in file order and compaction
/// "firstKeptEntryIndex" becomes "firstKeptEntryId"; version ≤ 2 "hookMessage" roles read as "custom".
TranscriptContents parse_transcript(std::string_view bytes);

/// Adds the entries of `tail` — bytes appended to the file `contents` was parsed from, which had
/// `lines_before` lines — exactly as parse_transcript would have read them, or returns false and
/// leaves `contents` unchanged when that cannot be done line by line: an older version (migrated),
/// a file that did not end in "\n", a tail that does not end in "\n", a line that is not a valid
/// entry, or an id already in use. Then the caller parses the whole file again.
bool append_transcript_tail(TranscriptContents& contents, std::string_view tail, std::size_t lines_before);

/// The same for one line whose parsed value is already at hand (a line this process just wrote:
/// AppendedLine): `value` must be exactly what parsing the line gives (json_dump::as_parsed), and
/// `line_no` is its 1-based line number. The same refusals as append_transcript_tail; on false
/// `contents` is unchanged.
bool append_transcript_value(TranscriptContents& contents, Json value, std::size_t line_no);

/// Reads and parses a file. Errors: "NOT_FOUND", "IO_ERROR", "TOO_LARGE" (over 1 GiB).
Result<TranscriptContents> read_transcript(const std::filesystem::path& file);

// ---------------------------------------------------------------------------------------------
// Context rebuild (SS-3)
// ---------------------------------------------------------------------------------------------

/// The entries on the path root → leaf. `leaf_id` nullopt means the last entry in file order; an
/// id that does not exist also falls back to the last entry (as pi does). Cycles in corrupt files
/// are cut. Pointers point into `entries`.
std::vector<const TranscriptEntry*> active_branch(const std::vector<TranscriptEntry>& entries,
                                                  std::optional<std::string_view> leaf_id = std::nullopt);

/// What the agent receives to continue a session.
struct SessionContext {
  /// pi AgentMessage objects in conversation order. Roles:
  ///  - "user" | "assistant" | "toolResult": the `message` of message entries, verbatim;
  ///  - "compactionSummary" {summary, tokensBefore, timestamp}: first, when the branch has a
  ///    compaction (from the latest one on the branch);
  ///  - "branchSummary" {summary, fromId, timestamp}: from branch_summary entries;
  ///  - "custom" {customType, content, display, details?, timestamp}: from custom_message entries
  ///    and custom-role messages; "bashExecution" messages pass through as written.
  /// Timestamps of synthesised messages are ms since the epoch (from the entry's ISO timestamp).
  /// With a compaction, the messages are: its summary, then the branch entries from
  /// firstKeptEntryId up to the compaction, then everything after it — older entries are omitted.
  /// Pass them through to_llm_messages() before building a provider request.
  std::vector<Json> messages;
  /// Parallel to `messages`: the id of the entry each message came from ("" for the synthesised
  /// compactionSummary). The context engine cuts at these ids (CX-9 firstKeptEntryId).
  std::vector<std::string> entry_ids;
  /// Index into `messages` of the first message recorded after the latest compaction (0 without
  /// one): usage reported before it describes a larger, pre-compaction context.
  std::size_t live_from = 0;
  std::string thinking_level = "off";  ///< the last thinking_level_change on the branch
  /// The last model_change or assistant message's {provider, model} on the branch; "" when none.
  std::string provider, model_id;
  std::string leaf_id;  ///< the leaf the branch was built from ("" for an empty transcript)
};

/// pi's buildSessionContext over the active branch ending at `leaf_id` (see active_branch).
SessionContext build_context(const std::vector<TranscriptEntry>& entries,
                             std::optional<std::string_view> leaf_id = std::nullopt);

/// Brings `context` — build_context(entries[0, first_new)) with the default leaf — up to date with
/// the entries from `first_new` on, without rebuilding it, when they continue its branch one after
/// the other and none is a compaction; returns false (context unchanged) otherwise, and then the
/// caller rebuilds. The result equals build_context(entries).
bool extend_context(SessionContext& context, const std::vector<TranscriptEntry>& entries, std::size_t first_new);

/// pi's convertToLlm: keeps user/assistant/toolResult messages as they are and turns the
/// pi-agent roles into user messages: compactionSummary → "The conversation history before this
/// point was compacted into the following summary:\n\n<summary>\n…\n</summary>", branchSummary →
/// "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n…
/// </summary>", custom → its content, bashExecution → "Ran `cmd`" plus output (dropped when
/// excludeFromContext). Messages of unknown roles are dropped.
std::vector<Json> to_llm_messages(const std::vector<Json>& agent_messages);

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// When appends reach the disk. EveryAppend: fdatasync after each entry, before it is
/// acknowledged (the default; a few ms per entry). None: appends go to the page cache (they
/// survive a process crash or kill -9, not a power loss) until sync() — the gateway's runs use
/// None and sync once at the end of each turn, in the background beside the run journal's
/// `answered` (store/background_sync.h: what a power loss in that moment can cost).
enum class FsyncPolicy { EveryAppend, None };

/// Options for a new transcript.
struct TranscriptCreateOptions {
  std::string session_id;                     ///< must pass is_valid_session_id
  std::string cwd;                            ///< the agent's working directory (workspace)
  std::optional<std::string> parent_session;  ///< path of the transcript this one was forked from
  FsyncPolicy fsync = FsyncPolicy::EveryAppend;
  /// The session's store key, written to the header as "sessionKey" (after pi's fields; pi and
  /// OpenClaw ignore it) when not empty, so that a damaged sessions.json can be rebuilt with its
  /// keys (store/session_recovery.h).
  std::string session_key = {};
};

/// One line a TranscriptWriter has just appended, for its observer (set_observer): a cache of the
/// parsed file can take the entry as it is instead of reading and parsing the line back.
struct AppendedLine {
  uint64_t offset = 0;  ///< where `text` starts in the file (bytes)
  std::string_view text;  ///< the bytes written, ending in "\n" (with a leading "\n" when a torn fragment was terminated)
  /// The line's entry as parsing `text` would give it (json_dump::as_parsed), or null when it
  /// cannot be had without parsing (a string that is not valid UTF-8, a non-finite number).
  Json value;
  /// The file as fstat(2) saw it right after the write: a size other than offset + text.size()
  /// means another program wrote too. mtime_ns: st_mtim in nanoseconds.
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
};

/// Appends entries to one transcript file. Move-only; closes the file when destroyed. The clock
/// (entry timestamps) must outlive the writer.
class TranscriptWriter {
 public:
  /// Creates a new file with its header line (O_EXCL, mode 0600, parent directories 0700).
  /// Errors: "SESSION_ID_INVALID", "TRANSCRIPT_EXISTS", "IO_ERROR".
  static Result<TranscriptWriter> create(const std::filesystem::path& file, const TranscriptCreateOptions& options,
                                         const Clock& clock);
  /// Opens an existing file for appending: reads it once to learn the ids in use and the leaf (the
  /// last entry). Errors: "NOT_FOUND", "IO_ERROR", "TRANSCRIPT_INVALID" (no session header),
  /// "TRANSCRIPT_VERSION" (a version-1 file: its entries have no ids, so appending would break
  /// pi's migration; archive it and start a new one). `warnings` receives the read warnings.
  static Result<TranscriptWriter> open(const std::filesystem::path& file, const Clock& clock,
                                       FsyncPolicy fsync = FsyncPolicy::EveryAppend,
                                       std::vector<TranscriptWarning>* warnings = nullptr);
  /// The same with the file's contents already read (e.g. for the context rebuild), so that a
  /// large transcript is not read twice. `contents` must be what read_transcript(file) returned.
  static Result<TranscriptWriter> open(const std::filesystem::path& file, const TranscriptContents& contents,
                                       const Clock& clock, FsyncPolicy fsync = FsyncPolicy::EveryAppend);

  TranscriptWriter(TranscriptWriter&& other) noexcept;
  TranscriptWriter& operator=(TranscriptWriter&& other) noexcept;
  TranscriptWriter(const TranscriptWriter&) = delete;
  TranscriptWriter& operator=(const TranscriptWriter&) = delete;
  ~TranscriptWriter();

  const std::filesystem::path& path() const { return path_; }
  /// The id new entries get as parentId; "" before the first entry.
  const std::string& leaf_id() const { return leaf_; }
  /// Moves the leaf (branching, SS-4): the next entry becomes a child of `entry_id`; "" makes the
  /// next entry a new root. Error "ENTRY_NOT_FOUND" for an id not in the file.
  Status set_leaf(std::string_view entry_id);
  bool contains(std::string_view entry_id) const { return std::find(ids_.begin(), ids_.end(), entry_id) != ids_.end(); }

  /// Appends {type, id, parentId: leaf, timestamp: now, …fields} and makes it the leaf. `fields`
  /// must be an object; its keys type/id/parentId/timestamp are ignored. Returns the new id.
  /// Errors: "IO_ERROR" naming the file and strerror (e.g. "No space left on device"): nothing is
  /// acknowledged, the leaf does not move, and the partial line is truncated away.
  /// (By value: the observer's parsed entry is made from it without a copy.)
  Result<std::string> append(std::string_view type, Json fields);

  Result<std::string> append_message(Json message);
  Result<std::string> append_model_change(std::string_view provider, std::string_view model_id);
  Result<std::string> append_thinking_level_change(std::string_view thinking_level);
  /// `details` null = omitted.
  Result<std::string> append_compaction(std::string_view summary, std::string_view first_kept_entry_id,
                                        int64_t tokens_before, const Json& details = nullptr,
                                        bool from_hook = false);
  Result<std::string> append_branch_summary(std::string_view from_id, std::string_view summary,
                                            const Json& details = nullptr, bool from_hook = false);
  /// `data` null = omitted.
  Result<std::string> append_custom(std::string_view custom_type, const Json& data = nullptr);
  /// `content`: a string or an array of text/image blocks.
  Result<std::string> append_custom_message(std::string_view custom_type, const Json& content, bool display,
                                            const Json& details = nullptr);
  Result<std::string> append_label(std::string_view target_id, std::optional<std::string_view> label);
  Result<std::string> append_session_info(std::optional<std::string_view> name);
  /// fdatasync(2) of everything appended so far (with FsyncPolicy::None: the durable points).
  /// Errors: "IO_ERROR" naming the file.
  Status sync();
  /// The same on the background thread (store/background_sync.h): returns at once; a failure is
  /// logged. For a turn's end, so that its final event does not wait for the disk.
  void sync_in_background() const;

  /// Called on this thread after each successful append (not after a failed one), with the line
  /// and the file's state after it. Costs a copy of the entry's JSON and one fstat per append
  /// while set; none when empty (the default).
  void set_observer(std::function<void(AppendedLine&)> observer) { observer_ = std::move(observer); }

 private:
  TranscriptWriter(std::filesystem::path path, int fd, const Clock& clock, FsyncPolicy fsync);
  std::string new_entry_id() const;
  /// Writes `line` and "\n" at the end of the file; `offset` receives where the written bytes start.
  Status write_line(const std::string& line, uint64_t* offset = nullptr);
  void notify(std::string_view type, const std::string& id, const std::string& parent, const std::string& timestamp,
              Json&& fields, const std::string& line, uint64_t offset);

  std::filesystem::path path_;
  int fd_ = -1;
  const Clock* clock_;
  FsyncPolicy fsync_;
  // Every entry id in the file. A plain vector: ids are short (no allocation each) and a writer is
  // opened per turn, so a hash set's node per entry cost more than the few look-ups (new ids, set_leaf).
  std::vector<std::string> ids_;
  std::string leaf_;
  bool needs_newline_ = false;  ///< the file ends in an unterminated fragment
  std::function<void(AppendedLine&)> observer_;
};

}  // namespace pincer::store
