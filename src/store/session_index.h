// The session index `<state>/agents/<agentId>/sessions/sessions.json` (openclaw-protocol.md §5.2,
// SPEC SS-1): a JSON object mapping session key → SessionEntry, shared with OpenClaw.
//
// Shape of one entry: {"sessionId": <string, required>, "updatedAt": <ms since epoch, required>,
// "sessionFile"?: <path>, …} plus any of OpenClaw's ~70 optional fields (model overrides, token
// counters, delivery context, …). Pincer interprets only the three named fields; every field is
// kept verbatim, in its original order, so a file written by OpenClaw survives load → save
// byte for byte (same 2-space layout as JSON.stringify(store, null, 2), no trailing newline unless
// the loaded file had one).
//
// Keys are canonical lowercase (canonical_store_key); mixed-case keys found on load are migrated
// (when two keys collide the entry with the newer updatedAt wins) and the file is rewritten on the
// next save(). Saves are atomic (temp file + fsync + rename, mode 0600).
//
// Errors are values: a file that is not valid JSON is "SESSIONS_CORRUPT" with the message
// "<path>:<line>:<col>: <what>", and a valid file with a broken entry is "SESSIONS_INVALID" naming
// the key. Nothing is dropped silently: after such an error the index stays empty and refuses to
// save() (that would overwrite the evidence) until the caller explicitly calls quarantine().
//
// Thread affinity: not synchronised; one owner (a worker or a strand). All I/O is blocking: call
// it off the event loop. The object itself is the per-process cache: load() only re-reads the file
// when it changed on disk since the last load()/save().
//
// Pattern for one change (OpenClaw's updateSessionStore): load(); upsert()/remove(); save(). The
// load() is free when nothing changed, and picks up edits made by others (a user editing the file)
// so that save() does not overwrite them. Only one process may write a state dir (GW-1).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/result.h"

namespace pincer::store {

/// JSON that keeps object keys in insertion (file) order.
using OrderedJson = nlohmann::ordered_json;

/// `<state>/agents/<normalize_agent_id(agent_id)>/sessions`.
std::filesystem::path sessions_dir(const std::filesystem::path& state_dir, std::string_view agent_id);
/// `sessions_dir(…)/sessions.json`.
std::filesystem::path session_index_path(const std::filesystem::path& state_dir, std::string_view agent_id);

/// One value of sessions.json. All fields live in one ordered JSON object; the accessors read the
/// fields Pincer needs. Invariant: "sessionId" is a non-empty string.
class SessionEntry {
 public:
  /// Validates an entry object. Errors: "SESSIONS_INVALID" (not an object, "sessionId" missing,
  /// empty or not a string, "updatedAt" present but not a number).
  static Result<SessionEntry> from_json(OrderedJson fields);
  /// A minimal entry {sessionId, updatedAt}.
  static SessionEntry make(std::string session_id, int64_t updated_at_ms);

  std::string session_id() const;
  /// "updatedAt" in ms since the epoch; 0 when absent (entries OpenClaw wrote before it existed).
  int64_t updated_at() const;
  /// "sessionFile": the transcript path when it is not the default `<sessionId>.jsonl`.
  std::optional<std::string> session_file() const;
  /// Any field by its JSON name; nullptr when absent.
  const OrderedJson* field(std::string_view name) const;
  /// Every field, in order.
  const OrderedJson& json() const { return fields_; }

 private:
  explicit SessionEntry(OrderedJson fields) : fields_(std::move(fields)) {}
  friend class SessionIndex;
  OrderedJson fields_;
};

/// How upsert() treats updatedAt.
enum class MergePolicy {
  TouchActivity,     ///< updatedAt = max(existing, patch, now): a real turn happened
  PreserveActivity,  ///< keep the existing updatedAt (metadata and route updates, OpenClaw #49515)
};

/// Options of upsert().
struct UpsertOptions {
  MergePolicy policy = MergePolicy::TouchActivity;
  std::vector<std::string> remove_fields;  ///< fields to delete (JSON has no `undefined`)
};

/// A key and its entry, as listed.
struct SessionListing {
  std::string key;
  SessionEntry entry;
};

/// The sessions.json of one agent.
class SessionIndex {
 public:
  /// `clock` provides "now" for upsert() and quarantine timestamps; it must outlive the index.
  SessionIndex(std::filesystem::path file, const Clock& clock);

  const std::filesystem::path& path() const { return file_; }

  /// (Re)reads the file. A missing file is an empty index. Skips the parse when the file's size,
  /// mtime and inode are unchanged since the last load()/save() (unsaved changes are kept then);
  /// otherwise unsaved changes are discarded. Errors: "SESSIONS_CORRUPT", "SESSIONS_INVALID",
  /// "IO_ERROR", "TOO_LARGE" — after which the index is empty and save() is refused.
  Status load();

  /// The entry for `key` (canonicalised: trimmed, lowercased), or nullptr.
  const SessionEntry* get(std::string_view key) const;

  /// Merges `patch` (a JSON object of fields) into the entry for `key`, creating it if needed, as
  /// OpenClaw's mergeSessionEntry: fields are overwritten shallowly (existing keys keep their
  /// position, new keys are appended); sessionId = patch's ?? existing ?? a new UUID v4;
  /// updatedAt per `options.policy`; when the patch changes "model" without giving
  /// "modelProvider", the stale "modelProvider" is removed. In memory only: call save().
  /// Errors: "SESSIONS_INVALID" (patch not an object, bad sessionId/updatedAt),
  /// "SESSIONS_UNAVAILABLE" (after a failed load()).
  Result<SessionEntry> upsert(std::string_view key, const OrderedJson& patch, const UpsertOptions& options = {});

  /// Sets the entry for `key` as given, without merging (updatedAt is kept as it is): rebuilding an
  /// index (store/session_recovery.h). In memory only: call save(). Errors: "SESSIONS_INVALID"
  /// (empty key), "SESSIONS_UNAVAILABLE" (after a failed load()).
  Status restore(std::string_view key, SessionEntry entry);

  /// Removes the entry; false when there was none. In memory only: call save().
  bool remove(std::string_view key);

  /// Every entry, most recently updated first (ties: key order).
  std::vector<SessionListing> list() const;
  std::size_t size() const { return entries_.size(); }
  /// True when there are changes not yet saved.
  bool dirty() const { return dirty_; }

  /// Writes the index atomically (mode 0600), in the original key order with new keys last. Skips
  /// the write when the serialised bytes equal what is on disk. Errors: "IO_ERROR",
  /// "SESSIONS_UNAVAILABLE" (after a failed load(): quarantine() first).
  Status save();

  /// The explicit recovery path after "SESSIONS_CORRUPT"/"SESSIONS_INVALID": renames the file to
  /// `sessions.json.corrupt.<archive timestamp>` (kept for inspection; never deleted), clears the
  /// index and allows saving again. Returns the new path. Errors: "NOT_FOUND", "IO_ERROR".
  Result<std::filesystem::path> quarantine();

  /// The serialised form save() writes.
  std::string serialize() const;

 private:
  struct Slot {
    uint64_t order;  ///< position in the file; new keys get increasing numbers
    SessionEntry entry;
  };
  struct FileStamp {
    bool exists = false;
    uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uintmax_t inode = 0;
    bool operator==(const FileStamp&) const = default;
  };

  Status parse(const std::string& text);
  void put(std::string key, SessionEntry entry);
  FileStamp stamp() const;
  void reset();

  std::filesystem::path file_;
  const Clock* clock_;
  std::map<std::string, Slot, std::less<>> entries_;
  uint64_t next_order_ = 0;
  bool trailing_newline_ = false;
  bool dirty_ = false;
  bool unavailable_ = false;      ///< the last load() failed
  std::optional<FileStamp> loaded_stamp_;  ///< the file as of the last load()/save()
  std::string on_disk_;           ///< the bytes of the last load()/save()
};

}  // namespace pincer::store
