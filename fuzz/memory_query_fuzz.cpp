// libFuzzer target for the memory FTS query builder (src/memory/fts_query.h) against a real FTS5
// index: user text must never be FTS5 syntax.
//
// Checked on every input: every MATCH expression build_fts_query makes is accepted by SQLite
// (unicode61 and trigram tables) — no syntax error, whatever the bytes — and is made only of
// quoted terms joined by OR.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "memory/fts_query.h"

namespace {

sqlite3* db() {
  static sqlite3* handle = [] {
    sqlite3* d = nullptr;
    if (sqlite3_open(":memory:", &d) != SQLITE_OK) std::abort();
    const char* schema =
        "CREATE VIRTUAL TABLE w USING fts5(text, tokenize='unicode61');"
        "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram');"
        "INSERT INTO w VALUES('the cat sat on the mat'); INSERT INTO t VALUES('我喜欢蓝色的杯子');";
    if (sqlite3_exec(d, schema, nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
    return d;
  }();
  return handle;
}

void must_run(const char* table, const std::string& match) {
  if (match.empty()) return;
  // Only "…" terms and " OR " between them.
  bool in_quote = false;
  for (std::size_t i = 0; i < match.size(); ++i) {
    if (match[i] == '"') {
      if (in_quote && i + 1 < match.size() && match[i + 1] == '"') {
        ++i;
        continue;
      }
      in_quote = !in_quote;
    } else if (!in_quote && match.compare(i, 4, " OR ") == 0) {
      i += 3;
    } else if (!in_quote) {
      std::abort();
    }
  }
  if (in_quote) std::abort();
  const std::string sql = std::string("SELECT rowid FROM ") + table + " WHERE " + table + " MATCH ?";
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK) std::abort();
  sqlite3_bind_text(st, 1, match.data(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
  }
  if (rc != SQLITE_DONE) std::abort();  // a syntax error would be SQLITE_ERROR
  sqlite3_finalize(st);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto q = pincer::memory::build_fts_query(text);
  must_run("w", q.words);
  must_run("t", q.trigrams);
  return 0;
}
