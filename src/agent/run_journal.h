// The run journal (SPEC SS-6, GW-10; issue 15 item 6): one durable record of every piece of work
// a run source handed to the agent — a channel message, `chat.send`, the `agent` method (later
// cron, heartbeat, hooks) — so that nothing acknowledged is lost to a crash or a kill -9 and
// nothing is answered twice. Each entry goes through
//   accepted  (written before the source acknowledges it: the RPC answer, the Telegram offset)
//   started   (a run took it: its run id)
//   resumed   (a later gateway started it again after a restart)
//   answered  (its run ended: replied, failed, aborted by the user, or given up)
// and the file `<state>/runs/journal.jsonl` holds one JSON line per step, appended and made
// durable (fdatasync) before the call returns:
//   {"op":"accepted","id":"j-…","ts":<ms>,"source":"chat.send","key":<dedupe key or "">,"request":{…}}
//   {"op":"started","id":…,"run":<run id>}   {"op":"resumed","id":…}
//   {"op":"note","id":…,"data":{…}}           (what the source wants back on resume: a preview id)
//   {"op":"answered","id":…,"outcome":"end"|"error"|"aborted"|"dropped"|"abandoned"|…}
// open() reads the file (a torn or invalid line is skipped with a warning), keeps the entries not
// answered and rewrites the file with only them (temp + fsync + rename); the file is compacted the
// same way while running once it holds more than kJournalCompactBytes of finished entries.
// (`started` is written without fdatasync: see started(); `answered` is made durable on the
// background thread, see answered().)
//
// What a source does with an unfinished entry at start-up is the source's business (the channel
// pipeline answers it in its chat, the gateway reruns it and broadcasts): see
// AgentService::take_unfinished / resume_unfinished. An entry is resumed at most once
// (kMaxResumes): one found unfinished again was cut off twice and is given up, so a message that
// crashes the gateway cannot crash it in a loop.
//
// Loop affinity: event-loop thread only (small synchronous appends with fdatasync, as the
// transcript's turn boundaries).
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::agent {

/// How many times an unfinished entry is started again after restarts before it is given up.
inline constexpr int kMaxResumes = 1;
/// Finished entries' bytes after which the file is rewritten while running (compaction).
inline constexpr std::size_t kJournalCompactBytes = 4u << 20;

/// One unfinished piece of work as open() found it (or as it is now).
struct JournalEntry {
  std::string id;           ///< "j-<uuid>"
  std::string source;       ///< "channel", "chat.send", "agent", …
  int64_t accepted_ms = 0;  ///< wall ms when accepted
  nlohmann::json request;   ///< what the source needs to run it again (its own shape)
  std::string dedupe_key;   ///< the platform message's identity ("" = none), see has_message()
  std::string run_id;       ///< the run that last started it ("" = never started)
  int resumes = 0;          ///< times it was started again after a restart
  nlohmann::json notes = nlohmann::json::object();  ///< note() data, merged (later keys win)
};

class RunJournal {
 public:
  /// `file`: `<state>/runs/journal.jsonl`; nothing is read or created before open().
  explicit RunJournal(std::filesystem::path file);
  ~RunJournal();
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;

  /// Reads the file, returns the unfinished entries in the order they were accepted, compacts
  /// the file and opens it for appending. Errors: "IO_ERROR" naming the file (then every later
  /// call fails with it too, and the caller refuses new work rather than lose it).
  Result<std::vector<JournalEntry>> open();

  /// Records new work; returns its id. `dedupe_key` (optional) names the platform message so that
  /// a redelivery is recognised (has_message). Errors: "IO_ERROR" (not recorded: refuse the work).
  Result<std::string> accept(const std::string& source, nlohmann::json request, const std::string& dedupe_key = "");
  /// Records that run `run_id` took entry `id`. Unknown ids are ignored (Ok). Written but not
  /// fdatasync'd (it is on the path of every turn to the model request): a process crash keeps it
  /// (the page cache), and a power loss that drops it also drops the turn's transcript lines,
  /// which reach the disk only at the turn's end — so the entry is then rerun from its start,
  /// which is what it needs.
  Status started(const std::string& id, const std::string& run_id);
  /// Records that the entry is being started again after a restart (counts towards kMaxResumes).
  Status resumed(const std::string& id);
  /// Merges `data` (an object) into the entry's notes; returned by open() after a restart.
  Status note(const std::string& id, const nlohmann::json& data);
  /// Records that the entry is finished with `outcome`; it is forgotten (and never resumed).
  /// Written at once (a process crash keeps it) and fdatasync'd in the background
  /// (store/background_sync.h), beside the turn's transcript: a turn's final event does not wait
  /// for the disk.
  Status answered(const std::string& id, const std::string& outcome);

  /// The unfinished entry `id`, or nullptr.
  const JournalEntry* find(const std::string& id) const;
  /// True when an unfinished entry carries `dedupe_key` (non-empty).
  bool has_message(const std::string& dedupe_key) const;
  /// Unfinished entries now.
  std::size_t unfinished() const { return entries_.size(); }
  const std::filesystem::path& path() const { return file_; }

 private:
  /// One line; `durable`: fdatasync before returning (every step but `started` and `answered`).
  Status append(const nlohmann::json& record, bool durable = true);
  /// append() of a record already written as one compact JSON line (no "\n"), for entry `id`.
  Status append_line(const std::string& id, std::string line, bool durable = true);
  Status compact();

  std::filesystem::path file_;
  int fd_ = -1;
  std::string open_error_;  ///< why open() failed ("" = fine / not opened yet)
  std::map<std::string, JournalEntry> entries_;  ///< unfinished, by id
  std::deque<std::string> order_;                ///< ids in acceptance order (may hold finished ones)
  std::map<std::string, std::string> by_key_;    ///< dedupe key → id
  std::size_t finished_bytes_ = 0;  ///< bytes of finished entries' lines since the last compaction
  std::map<std::string, std::size_t> entry_bytes_;  ///< bytes each unfinished entry's lines take
};

}  // namespace pincer::agent
