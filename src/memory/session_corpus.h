// The sessions corpus (OpenClaw's memorySearch `sources: ["sessions"]` with
// `experimental.sessionMemory`): an agent's past session transcripts, searchable like its notes.
//
// Each transcript `<state>/agents/<id>/sessions/<sessionId>.jsonl` (and each `/new` archive
// `….jsonl.reset.<time>`) is rendered as OpenClaw renders it for memory: one `User: …` or
// `Assistant: …` line per text message (whitespace collapsed, secrets redacted, lines over 800
// characters wrapped at a space; tool calls, tool results, silent `NO_REPLY`/`HEARTBEAT_OK`
// answers and custom entries left out), chunked like a Markdown file. A chunk's start/end lines
// are the transcript's own JSONL line numbers; beside it the index keeps the session key (from
// sessions.json), the session id, the user turns it spans (1 = the first user message) and its
// time (temporal decay ranks old sessions lower).
//
// Incremental (the file is append-only): the index keeps how far each transcript was read (byte
// offset, lines, turns, the last bytes read). A sync reads only what was appended — from the start
// of the file's last chunk when that chunk is still small, so a session does not end up as one
// tiny chunk per turn — and only complete lines (a torn last line waits for its newline). A file
// renamed (the `/new` archive keeps the inode) keeps its chunks under the new name; a file that
// shrank or whose read part changed is read again; a file gone loses its chunks.
//
// Not thread-safe: called by MemoryIndex under its mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "memory/index_db.h"
#include "memory/memory_config.h"

namespace pincer::memory {

/// One rendered line of a transcript.
struct SessionLine {
  std::string text;        ///< "User: …" or "Assistant: …"
  int jsonl_line = 0;      ///< 1-based line of the transcript file it comes from
  int64_t byte_start = 0;  ///< file offset of that JSONL line
  int turns_before = 0;    ///< user turns before that JSONL line
  int turn = 0;            ///< the user turn it belongs to (0: before the first user message)
  int64_t ts_ms = 0;       ///< the message's time (ms since the epoch); 0 = unknown
};

/// What render_session_lines read.
struct RenderedTranscript {
  std::vector<SessionLine> lines;
  int64_t end_offset = 0;  ///< file offset just past the last complete (newline-ended) line
  int lines_total = 0;     ///< JSONL lines up to end_offset
  int turns_total = 0;     ///< user turns up to end_offset
};

/// Renders the complete lines of `bytes`, which are the file's bytes from `start_offset`, preceded
/// by `line_base` lines and `turn_base` user turns. Lines that are not JSON objects are skipped.
RenderedTranscript render_session_lines(std::string_view bytes, int64_t start_offset, int line_base, int turn_base);

/// The session id a transcript file name belongs to ("<id>.jsonl", "<id>-topic-<t>.jsonl", or
/// either with ".reset.<time>"); "" for any other name (".deleted.", ".bak." and other files).
std::string session_id_of_transcript(const std::string& file_name);

struct SessionSyncReport {
  int files = 0;    ///< transcripts seen
  int changed = 0;  ///< transcripts (partly) read
  int removed = 0;  ///< transcripts gone
};

/// Brings the sessions corpus of `db` in step with `settings.sessions_dir` (one transaction).
/// With `settings.sessions_source` false, removes what an earlier sync indexed. Errors
/// "MEMORY_INDEX_SQL".
Result<SessionSyncReport> sync_session_corpus(IndexDb& db, const MemorySettings& settings);

/// Session facts of a sessions-corpus chunk, for its search hit.
struct SessionHitInfo {
  std::string session_key;  ///< "" when sessions.json did not name it (an archive seen only after its reset)
  std::string session_id;
  int turn_start = 0;
  int turn_end = 0;
  int64_t ts_ms = 0;
};

/// The facts of the chunks `ids` that belong to the sessions corpus, by chunk id.
std::map<int64_t, SessionHitInfo> session_hit_info(IndexDb& db, const std::vector<int64_t>& ids);

}  // namespace pincer::memory
