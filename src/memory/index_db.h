// The SQLite side of a memory index (SPEC MM-4): schema, open-or-rebuild, statements.
//
// Tables: meta(key, value) — layout fingerprint; files(path, hash, mtime, size);
// chunks(id, path, source, start_line, end_line, hash, text) with two external-content FTS5
// tables kept in step by triggers: chunks_fts (unicode61: words) and chunks_tri (trigram: CJK and
// substrings); embedding_cache(provider, model, hash, dims, vec) — vectors by content hash, so a
// rebuild or a moved paragraph never pays for the same embedding twice. The sessions corpus adds
// session_files(path, inode, size, offset, lines, turns, tail_hash, session_key, session_id) — how
// far each transcript was read — and session_chunks(chunk_id, byte_start, turns_before,
// turn_start, turn_end, ts) beside its chunks (source 'sessions'), removed with them by a trigger.
//
// Not thread-safe: the owner (MemoryIndex) serialises access with its mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pincer::memory {

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return st_ != nullptr; }
  Stmt& bind(int i, const std::string& v);
  Stmt& bind(int i, int64_t v);
  Stmt& bind_blob(int i, const void* data, int bytes);
  /// True while a row is available; false at the end or on error (see error()).
  bool step();
  int64_t int_at(int col) const;
  double double_at(int col) const;
  std::string text_at(int col) const;
  const void* blob_at(int col, int& bytes) const;
  int rc() const { return rc_; }
  void reset();

 private:
  sqlite3_stmt* st_ = nullptr;
  int rc_ = 0;
};

class IndexDb {
 public:
  /// Opens or creates the index at `path` (parent folders created). A file that is not a
  /// readable SQLite database, or fails `PRAGMA quick_check`, is deleted and created anew (the
  /// Markdown files are the truth); `rebuilt_reason` then says why. Error "MEMORY_INDEX_OPEN".
  static Result<std::unique_ptr<IndexDb>> open(const std::filesystem::path& path, std::string* rebuilt_reason);
  ~IndexDb();

  sqlite3* handle() const { return db_; }
  /// Runs SQL without results. Error "MEMORY_INDEX_SQL" naming the statement's start and SQLite's message.
  Status exec(const std::string& sql);
  std::string meta(const std::string& key);
  Status set_meta(const std::string& key, const std::string& value);
  std::string last_error() const;

 private:
  explicit IndexDb(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

}  // namespace pincer::memory
