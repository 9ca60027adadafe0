// Reading OpenClaw's SQLite state (cli/openclaw_import_sqlite.h): the database copied to a private
// temporary directory, the tables read with prepared statements, zstd rows decoded with libzstd.
#include "cli/openclaw_import_sqlite.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "core/json5.h"
#include "llm/ndjson_parser.h"
#include "store/atomic_file.h"
#include "store/transcript.h"

namespace pincer::cli::openclaw::sqlite_state {
namespace detail_oc_sqlite {

namespace fs = std::filesystem;
using nlohmann::json;

Error invalid(const fs::path& db, const std::string& what) { return Error{"SQLITE_INVALID", db.string() + ": " + what}; }

// A private copy of a database (and its -wal file), removed on destruction.
class DbCopy {
 public:
  ~DbCopy() {
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }
  Status make(const fs::path& db) {
    std::error_code ec;
    std::string tmpl = (fs::temp_directory_path(ec) / "pincer-openclaw-db-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Error{"IO_ERROR", "cannot create a temporary directory for " + db.string() + ": " + std::strerror(errno)};
    }
    dir_ = tmpl;
    copy_ = dir_ / "copy.sqlite";
    for (const char* suffix : {"", "-wal"}) {
      const fs::path src = db.string() + suffix;
      if (*suffix != '\0' && !fs::exists(src, ec)) continue;
      auto bytes = store::read_file(src, std::size_t{16} << 30);
      if (!bytes) return Error{"IO_ERROR", "cannot read " + src.string() + ": " + bytes.error().message};
      auto st = store::write_file_atomic(copy_.string() + suffix, *bytes, 0600);
      if (!st) return st;
    }
    return Ok{};
  }
  const fs::path& path() const { return copy_; }

 private:
  fs::path dir_, copy_;
};

// An open database and a few helpers over the C API.
class Db {
 public:
  ~Db() {
    if (db_ != nullptr) sqlite3_close(db_);
  }
  Status open(const fs::path& source) {
    source_ = source;
    if (auto st = copy_.make(source); !st) return st;
    // The private copy is opened read-write only so that SQLite can replay its -wal file.
    if (sqlite3_open_v2(copy_.path().c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      return invalid(source_, std::string("cannot open: ") + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
    }
    char* err = nullptr;
    if (sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err) != SQLITE_OK) {
      std::string m = err ? err : "unknown error";
      sqlite3_free(err);
      return invalid(source_, "not a readable SQLite database: " + m);
    }
    return Ok{};
  }
  const fs::path& source() const { return source_; }

  // The column names of `table`; empty when the table does not exist.
  std::set<std::string> columns(const std::string& table) {
    std::set<std::string> out;
    sqlite3_stmt* st = nullptr;
    const std::string sql = "SELECT name FROM pragma_table_info(?1)";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
    sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
  }

  // Checks that `table` has `needed` columns: false when the table is missing, an error when it
  // exists without one of them.
  Result<bool> has_table(const std::string& table, std::initializer_list<const char*> needed) {
    auto cols = columns(table);
    if (cols.empty()) return false;
    for (const char* c : needed) {
      if (!cols.contains(c)) return invalid(source_, "table " + table + " has no column " + c + " (not an OpenClaw 2026.9 schema)");
    }
    return true;
  }

  // Runs `sql` and calls `row(stmt)` per row; errors name `table`.
  template <class F>
  Status each(const std::string& table, const std::string& sql, F&& row) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      return invalid(source_, "table " + table + ": " + sqlite3_errmsg(db_));
    }
    int rc = SQLITE_ROW;
    Status result = Ok{};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      result = row(st);
      if (!result) break;
    }
    if (result && rc != SQLITE_DONE) result = invalid(source_, "table " + table + ": " + sqlite3_errmsg(db_));
    sqlite3_finalize(st);
    return result;
  }

 private:
  fs::path source_;
  DbCopy copy_;
  sqlite3* db_ = nullptr;
};

std::string text(sqlite3_stmt* st, int col) {
  const unsigned char* p = sqlite3_column_text(st, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st, col)));
}
bool is_null(sqlite3_stmt* st, int col) { return sqlite3_column_type(st, col) == SQLITE_NULL; }

Result<json> parse_cell(const Db& db, const std::string& table, const std::string& row, const std::string& cell) {
  if (llm::json_nesting_exceeds(cell, json5::kMaxDepth)) {
    return invalid(db.source(), "table " + table + ", row " + row + ": nesting too deep (more than " +
                                    std::to_string(json5::kMaxDepth) + " levels)");
  }
  json j = json::parse(cell, nullptr, false);
  if (j.is_discarded()) return invalid(db.source(), "table " + table + ", row " + row + ": not valid JSON");
  return j;
}

// The header line of a transcript: pi's version 3 for OpenClaw's 4 (same entry lines).
std::string header_line(const std::string& event) {
  auto header = nlohmann::ordered_json::parse(event);  // key order kept (already parsed once)
  auto v = header.find("version");
  if (v != header.end() && v->is_number_integer() && v->get<int64_t>() > store::kTranscriptVersion) {
    *v = store::kTranscriptVersion;
  }
  return header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Status read_sessions(Db& db, AgentState& out) {
  auto has = db.has_table("session_nodes", {"session_key", "current_session_id", "entry_json"});
  if (!has) return has.error();
  if (!*has) return Ok{};
  // Columns of their own in 2026.9 (the entry's own value wins when it has one): label, display
  // name, and the session's parent links (the subagent's spawner, the parent session).
  static const std::pair<const char*, const char*> kColumns[] = {
      {"label", "label"}, {"display_name", "displayName"}, {"spawned_by", "spawnedBy"}, {"parent_session_key", "parentSessionKey"}};
  const auto cols = db.columns("session_nodes");
  std::string sql = "SELECT session_key, current_session_id, entry_json";
  for (const auto& [col, key] : kColumns) sql += std::string(", ") + (cols.contains(col) ? col : "NULL");
  sql += " FROM session_nodes ORDER BY session_key";
  return db.each("session_nodes", sql,
                 [&](sqlite3_stmt* st) -> Status {
                   const std::string key = text(st, 0);
                   const std::string row = "session_key=" + key;
                   nlohmann::ordered_json entry = nlohmann::ordered_json::object();
                   if (!is_null(st, 2)) {
                     if (llm::json_nesting_exceeds(text(st, 2), json5::kMaxDepth)) {
                       return invalid(db.source(), "table session_nodes, row " + row + ": entry_json: nesting too deep (more than " +
                                                       std::to_string(json5::kMaxDepth) + " levels)");
                     }
                     entry = nlohmann::ordered_json::parse(text(st, 2), nullptr, false);
                     if (entry.is_discarded() || !entry.is_object()) {
                       return invalid(db.source(), "table session_nodes, row " + row + ": entry_json is not a JSON object");
                     }
                   }
                   if (!is_null(st, 1)) entry["sessionId"] = text(st, 1);
                   int col = 3;
                   for (const auto& c : kColumns) {
                     if (!is_null(st, col) && !entry.contains(c.second)) entry[c.second] = text(st, col);
                     ++col;
                   }
                   if (!entry.contains("sessionId")) {
                     return invalid(db.source(), "table session_nodes, row " + row + ": no current_session_id");
                   }
                   out.sessions[key] = std::move(entry);
                   return Ok{};
                 });
}

// The id names a file: OpenClaw's are UUIDs; anything that could leave the directory is refused.
bool is_file_name(const std::string& id) {
  return !id.empty() && id.size() <= 200 && id[0] != '.' &&
         id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

// One transcript event before it is written: its text and where it came from.
struct PendingEvent {
  std::string text;
  bool compressed = false;  // a zstd row of transcript_events
  bool cold = false;        // from the cold archive
};
using SessionEvents = std::map<std::string, std::map<std::int64_t, PendingEvent>>;  // id → seq → event

// The events OpenClaw moved to cold archives (openclaw_import_sqlite_cold.cpp).
Status read_cold_events(Db& db, SessionEvents& out) {
  auto has = db.has_table("session_transcript_cold_archives", {"session_id", "archive_name", "archive_sha256",
                                                               "archive_bytes", "event_count", "storage", "archive_blob"});
  if (!has) return has.error();
  if (!*has) return Ok{};
  return db.each(
      "session_transcript_cold_archives",
      "SELECT session_id, archive_name, archive_sha256, archive_bytes, event_count, storage, archive_blob "
      "FROM session_transcript_cold_archives ORDER BY session_id",
      [&](sqlite3_stmt* s) -> Status {
        ColdArchive a;
        a.session_id = text(s, 0);
        if (!is_file_name(a.session_id)) {
          return invalid(db.source(), "table session_transcript_cold_archives, row session_id=" + a.session_id +
                                          ": session_id is not a file name");
        }
        a.archive_name = text(s, 1);
        a.archive_sha256 = text(s, 2);
        a.archive_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(s, 3));
        a.event_count = static_cast<std::uint64_t>(sqlite3_column_int64(s, 4));
        a.storage = text(s, 5);
        if (const auto* blob = static_cast<const char*>(sqlite3_column_blob(s, 6)); blob != nullptr) {
          a.blob.assign(blob, static_cast<std::size_t>(sqlite3_column_bytes(s, 6)));
        }
        auto events = read_cold_archive(a, db.source());
        if (!events) return events.error();
        auto& session = out[a.session_id];
        for (auto& [seq, event] : *events) session[seq] = PendingEvent{std::move(event), false, true};
        return Ok{};
      });
}

// Appends one event (in seq order) to its transcript: the session header first, as pi's version.
Status append_event(const Db& db, Transcript& t, const std::string& row, std::string event) {
  auto parsed = parse_cell(db, "transcript_events", row, event);
  if (!parsed) return parsed.error();
  if (!parsed->is_object() || !(*parsed)["type"].is_string()) {
    return invalid(db.source(), "table transcript_events, row " + row + ": not a transcript event (no \"type\")");
  }
  const std::string type = (*parsed)["type"].get<std::string>();
  if (t.events == 0 && type == "session") {
    t.jsonl += header_line(event);
  } else {
    if (t.events == 0) {
      return invalid(db.source(), "table transcript_events, row " + row + ": the first event is not the session header");
    }
    if (type == "message") ++t.messages;
    // The row's bytes as OpenClaw stored them; a line break inside would split the entry.
    if (event.find('\n') != std::string::npos) event = parsed->dump(-1, ' ', false, json::error_handler_t::replace);
    t.jsonl += event;
  }
  t.jsonl += '\n';
  ++t.events;
  return Ok{};
}

Status read_transcripts(Db& db, AgentState& out) {
  SessionEvents events;
  if (auto st = read_cold_events(db, events); !st) return st;
  auto has = db.has_table("transcript_events", {"session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes"});
  if (!has) return has.error();
  Status st = !*has ? Status(Ok{}) : db.each(
      "transcript_events",
      "SELECT session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events ORDER BY session_id, seq",
      [&](sqlite3_stmt* s) -> Status {
        const std::string id = text(s, 0);
        const std::int64_t seq = sqlite3_column_int64(s, 1);
        const std::string row = "session_id=" + id + " seq=" + std::to_string(seq);
        if (!is_file_name(id)) return invalid(db.source(), "table transcript_events, row " + row + ": session_id is not a file name");
        PendingEvent e;
        if (!is_null(s, 2)) {
          e.text = text(s, 2);
        } else if (!is_null(s, 3)) {
          const auto* blob = static_cast<const char*>(sqlite3_column_blob(s, 3));
          std::string frame(blob == nullptr ? "" : std::string(blob, static_cast<std::size_t>(sqlite3_column_bytes(s, 3))));
          const sqlite3_int64 size = sqlite3_column_int64(s, 4);
          if (is_null(s, 4) || size <= 0) {
            return invalid(db.source(), "table transcript_events, row " + row + ": compressed row without event_utf8_bytes");
          }
          auto decoded = zstd_decode(frame, static_cast<std::uint64_t>(size),
                                     db.source().string() + ": table transcript_events, row " + row);
          if (!decoded) return decoded.error();
          e.text = std::move(*decoded);
          e.compressed = true;
        } else {
          return invalid(db.source(), "table transcript_events, row " + row + ": neither event_json nor event_zstd");
        }
        // try_emplace leaves `e` untouched when the seq is already there (from the cold archive).
        auto [it, inserted] = events[id].try_emplace(seq, std::move(e));
        if (!inserted) {  // in both places: only acceptable when they agree
          if (it->second.text != e.text) {
            return invalid(db.source(), "table transcript_events, row " + row + ": differs from the same seq in the cold archive");
          }
          it->second.compressed = e.compressed;
          it->second.cold = false;
        }
        return Ok{};
      });
  if (!st) return st;
  for (auto& [id, by_seq] : events) {
    Transcript t;
    t.session_id = id;
    for (auto& [seq, e] : by_seq) {
      t.compressed += e.compressed ? 1 : 0;
      t.cold += e.cold ? 1 : 0;
      if (auto appended = append_event(db, t, "session_id=" + id + " seq=" + std::to_string(seq), std::move(e.text)); !appended) {
        return appended;
      }
    }
    if (t.cold > 0) ++out.cold_transcripts;
    out.transcripts.push_back(std::move(t));
  }
  return Ok{};
}

// {version, profiles} + {order, lastGood, usageStats} → one auth-profiles.json document.
Result<std::optional<json>> merge_auth(const Db& db, const std::string& table, std::optional<json> store,
                                       std::optional<json> state) {
  if (!store && !state) return std::optional<json>();
  json doc = store.value_or(json{{"version", 1}, {"profiles", json::object()}});
  if (state) {
    for (const char* k : {"order", "lastGood", "usageStats"}) {
      if (state->contains(k)) doc[k] = (*state)[k];
    }
  }
  if (!doc.contains("profiles") || !doc["profiles"].is_object()) {
    return invalid(db.source(), "table " + table + ": the auth profile store has no \"profiles\" object");
  }
  return std::optional<json>(std::move(doc));
}

Status read_auth(Db& db, AgentState& out) {
  std::optional<json> store, state;
  struct Source {
    const char* table;
    const char* key;
    const char* col;
  };
  for (const Source& src : {Source{"auth_profile_store", "store_key", "store_json"},
                            Source{"auth_profile_state", "state_key", "state_json"}}) {
    const char* table = src.table;  // plain pointers: lambdas capture them (not structured bindings)
    const char* key = src.key;
    const char* col = src.col;
    auto has = db.has_table(table, {key, col});
    if (!has) return has.error();
    if (!*has) continue;
    const std::string sql = std::string("SELECT ") + col + " FROM " + table + " WHERE " + key + " = 'primary'";
    Status st = db.each(table, sql, [&](sqlite3_stmt* s) -> Status {
      auto parsed = parse_cell(db, table, std::string(key) + "=primary", text(s, 0));
      if (!parsed) return parsed.error();
      if (!parsed->is_object()) return invalid(db.source(), std::string("table ") + table + ", row " + key + "=primary: not a JSON object");
      (std::string_view(table) == "auth_profile_store" ? store : state) = std::move(*parsed);
      return Ok{};
    });
    if (!st) return st;
  }
  auto doc = merge_auth(db, "auth_profile_store (store_key=primary)", std::move(store), std::move(state));
  if (!doc) return doc.error();
  if (!*doc) return Ok{};
  out.auth_profile_count = (**doc)["profiles"].size();
  out.auth_profiles = std::move(**doc);
  return Ok{};
}

Status read_archives(Db& db, AgentState& out) {
  auto warm = db.has_table("session_transcript_archives", {"session_id"});
  if (!warm) return warm.error();
  if (!*warm) return Ok{};
  return db.each("session_transcript_archives", "SELECT count(*) FROM session_transcript_archives", [&](sqlite3_stmt* s) -> Status {
    out.archived_transcripts = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
    return Ok{};
  });
}

}  // namespace detail_oc_sqlite

using namespace detail_oc_sqlite;

Result<std::string> zstd_decode(const std::string& frame, std::uint64_t expected_bytes, const std::string& where) {
  constexpr std::uint64_t kMax = 64u << 20;
  if (expected_bytes == 0 || expected_bytes > kMax) {
    return Error{"SQLITE_INVALID", where + ": recorded size " + std::to_string(expected_bytes) + " out of range"};
  }
  std::string out(static_cast<std::size_t>(expected_bytes) + 1, '\0');  // +1: detects a longer frame
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) {
    return Error{"SQLITE_INVALID", where + ": the zstd data does not decode (" + ZSTD_getErrorName(n) + ")"};
  }
  if (n != expected_bytes) {
    return Error{"SQLITE_INVALID", where + ": decoded " + std::to_string(n) + " bytes, the row records " +
                                       std::to_string(expected_bytes)};
  }
  out.resize(n);
  return out;
}

Result<AgentState> read_agent_db(const std::filesystem::path& path) {
  Db db;
  if (auto st = db.open(path); !st) return st.error();
  AgentState out;
  if (auto st = read_sessions(db, out); !st) return st.error();
  if (auto st = read_transcripts(db, out); !st) return st.error();
  if (auto st = read_auth(db, out); !st) return st.error();
  if (auto st = read_archives(db, out); !st) return st.error();
  return out;
}

Result<std::optional<nlohmann::json>> read_shared_auth(const std::filesystem::path& path) {
  Db db;
  if (auto st = db.open(path); !st) return st.error();
  auto has = db.has_table("config_machine_state", {"state_key", "value_json"});
  if (!has) return has.error();
  if (!*has) return std::optional<json>();
  std::optional<json> store, state;
  Status st = db.each("config_machine_state",
                      "SELECT state_key, value_json FROM config_machine_state "
                      "WHERE state_key IN ('authProfiles.store', 'authProfiles.state')",
                      [&](sqlite3_stmt* s) -> Status {
                        const std::string key = text(s, 0);
                        auto parsed = parse_cell(db, "config_machine_state", "state_key=" + key, text(s, 1));
                        if (!parsed) return parsed.error();
                        if (!parsed->is_object()) {
                          return invalid(db.source(), "table config_machine_state, row state_key=" + key + ": not a JSON object");
                        }
                        (key == "authProfiles.store" ? store : state) = std::move(*parsed);
                        return Ok{};
                      });
  if (!st) return st.error();
  return merge_auth(db, "config_machine_state (state_key=authProfiles.store)", std::move(store), std::move(state));
}

Result<std::optional<nlohmann::json>> read_cron_jobs(const std::filesystem::path& path) {
  Db db;
  if (auto st = db.open(path); !st) return st.error();
  auto has = db.has_table("cron_jobs", {"job_id", "job_json", "state_json"});
  if (!has) return has.error();
  if (!*has) return std::optional<json>();
  json jobs = json::array();
  const bool sorted = db.columns("cron_jobs").contains("sort_order");
  Status st = db.each("cron_jobs",
                      std::string("SELECT job_id, job_json, state_json FROM cron_jobs ORDER BY ") +
                          (sorted ? "sort_order, " : "") + "job_id",
                      [&](sqlite3_stmt* s) -> Status {
                        const std::string id = text(s, 0);
                        const std::string row = "job_id=" + id;
                        auto job = parse_cell(db, "cron_jobs", row, text(s, 1));
                        if (!job) return job.error();
                        if (!job->is_object()) return invalid(db.source(), "table cron_jobs, row " + row + ": job_json is not a JSON object");
                        if (!job->contains("id")) (*job)["id"] = id;
                        if (!(*job)["id"].is_string() || (*job)["id"].get<std::string>() != id) {
                          return invalid(db.source(), "table cron_jobs, row " + row + ": job_json has another id");
                        }
                        if (!is_null(s, 2)) {
                          auto state = parse_cell(db, "cron_jobs", row, text(s, 2));
                          if (!state) return state.error();
                          if (!state->is_object()) return invalid(db.source(), "table cron_jobs, row " + row + ": state_json is not a JSON object");
                          json& target = (*job)["state"];
                          if (!target.is_object()) target = json::object();
                          target.update(*state);
                        }
                        jobs.push_back(std::move(*job));
                        return Ok{};
                      });
  if (!st) return st.error();
  return std::optional<json>(std::move(jobs));
}

}  // namespace pincer::cli::openclaw::sqlite_state
