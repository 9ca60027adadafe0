#include "memory/session_corpus.h"

#include <sodium.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/redact.h"
#include "memory/chunker.h"
#include "store/transcript.h"

namespace pincer::memory {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kSessionWrapChars = 800;  // OpenClaw wraps long transcript lines too
constexpr std::size_t kTailBytes = 64;          // the last bytes read, to notice a rewritten file

std::string sessions_collapse_ws(std::string_view in) {
  std::string out;
  bool space = false;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

/// Splits at a space at most `max` bytes in (else at a UTF-8 boundary).
std::vector<std::string> sessions_wrap(const std::string& text, std::size_t max) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (text.size() - at > max) {
    std::size_t cut = text.rfind(' ', at + max);
    if (cut == std::string::npos || cut <= at) {
      cut = at + max;
      while (cut > at && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      if (cut == at) cut = at + max;
    }
    out.push_back(text.substr(at, cut - at));
    at = cut;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  if (at < text.size()) out.push_back(text.substr(at));
  return out;
}

std::string sessions_message_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& b : content) {
    if (b.is_object() && b.value("type", "") == "text" && b.contains("text") && b["text"].is_string()) {
      if (!out.empty()) out += '\n';
      out += b["text"].get<std::string>();
    }
  }
  return out;
}

int64_t sessions_message_time(const json& entry, const json& message) {
  for (const json* v : {&message, &entry}) {
    auto it = v->find("timestamp");
    if (it == v->end()) continue;
    if (it->is_number()) {
      const double t = it->get<double>();
      if (t > 0) return static_cast<int64_t>(t < 1e11 ? t * 1000 : t);
    }
    if (it->is_string()) {
      if (auto ms = store::parse_iso_timestamp(it->get<std::string>())) return *ms;
    }
  }
  return 0;
}

std::string sessions_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

/// The chunk hash the embedding cache is keyed by (SHA-256, as for the memory files' chunks).
std::string sessions_sha256(std::string_view data) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  return sessions_hex(std::string_view(reinterpret_cast<const char*>(h), sizeof h));
}

std::string sessions_read_range(const fs::path& file, int64_t from, int64_t to) {
  std::ifstream in(file, std::ios::binary);
  if (!in || to <= from) return {};
  in.seekg(from);
  std::string out(static_cast<std::size_t>(to - from), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

/// sessionId → session key, from sessions.json (empty when missing or unreadable).
std::map<std::string, std::string> sessions_keys_by_id(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::ifstream in(dir / "sessions.json", std::ios::binary);
  if (!in) return out;
  json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_object() && it->contains("sessionId") && (*it)["sessionId"].is_string()) {
      out[(*it)["sessionId"].get<std::string>()] = it.key();
    }
  }
  return out;
}

struct SessionFileRow {
  int64_t inode = 0, size = 0, offset = 0;
  int lines = 0, turns = 0;
  std::string tail_hash, key, id;
};

struct ListedTranscript {
  fs::path abs;
  std::string rel;
  std::string id;
  int64_t inode = 0, size = 0;
};

Status sessions_sql_error(IndexDb& db, const char* what) {
  return Error{"MEMORY_INDEX_SQL", std::string("memory index (sessions): ") + what + ": " + db.last_error()};
}

}  // namespace

std::string session_id_of_transcript(const std::string& file_name) {
  std::string base = file_name;
  if (auto a = store::parse_archive_name(file_name)) {
    if (a->reason != store::ArchiveReason::Reset) return "";
    base = a->base;
  }
  if (base.size() <= 6 || base.compare(base.size() - 6, 6, ".jsonl") != 0) return "";
  base.resize(base.size() - 6);
  if (auto t = base.find("-topic-"); t != std::string::npos) base.resize(t);
  return base;
}

RenderedTranscript render_session_lines(std::string_view bytes, int64_t start_offset, int line_base, int turn_base) {
  RenderedTranscript out;
  out.end_offset = start_offset;
  out.lines_total = line_base;
  out.turns_total = turn_base;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) break;  // torn or still being written: next time
    const std::string_view line = bytes.substr(pos, nl - pos);
    const int64_t line_start = start_offset + static_cast<int64_t>(pos);
    pos = nl + 1;
    const int jsonl_line = ++out.lines_total;
    const int turns_before = out.turns_total;
    out.end_offset = start_offset + static_cast<int64_t>(pos);
    json entry = json::parse(line, nullptr, false);
    if (!entry.is_object() || entry.value("type", "") != "message") continue;
    const json& msg = entry.contains("message") ? entry["message"] : json();
    if (!msg.is_object() || !msg.contains("role") || !msg["role"].is_string()) continue;
    const std::string role = msg["role"].get<std::string>();
    if (role != "user" && role != "assistant") continue;
    if (role == "user") ++out.turns_total;
    const std::string text = sessions_collapse_ws(sessions_message_text(msg.value("content", json())));
    if (text.empty() || text == "NO_REPLY" || text == "HEARTBEAT_OK") continue;
    const std::string safe = redact::apply(text);
    const int64_t ts = sessions_message_time(entry, msg);
    for (auto& part : sessions_wrap(safe, kSessionWrapChars)) {
      SessionLine l;
      l.text = (role == "user" ? "User: " : "Assistant: ") + part;
      l.jsonl_line = jsonl_line;
      l.byte_start = line_start;
      l.turns_before = turns_before;
      l.turn = out.turns_total;
      l.ts_ms = ts;
      out.lines.push_back(std::move(l));
    }
  }
  return out;
}

Result<SessionSyncReport> sync_session_corpus(IndexDb& db, const MemorySettings& settings) {
  SessionSyncReport report;
  std::map<std::string, SessionFileRow> known;
  {
    Stmt s(db.handle(), "SELECT path, inode, size, offset, lines, turns, tail_hash, session_key, session_id FROM session_files");
    while (s.step()) {
      SessionFileRow r;
      r.inode = s.int_at(1);
      r.size = s.int_at(2);
      r.offset = s.int_at(3);
      r.lines = static_cast<int>(s.int_at(4));
      r.turns = static_cast<int>(s.int_at(5));
      r.tail_hash = s.text_at(6);
      r.key = s.text_at(7);
      r.id = s.text_at(8);
      known[s.text_at(0)] = std::move(r);
    }
  }
  std::vector<ListedTranscript> listed;
  if (settings.sessions_source) {
    std::error_code ec;
    for (fs::directory_iterator it(settings.sessions_dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const std::string id = session_id_of_transcript(name);
      struct stat st{};
      if (id.empty() || ::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      listed.push_back({it->path(), "sessions/" + name, id, static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_size)});
    }
    std::sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.rel < b.rel; });
  }
  report.files = static_cast<int>(listed.size());
  // Nothing to do (the common case of a search): every file as read last time.
  bool work = listed.size() != known.size();
  for (const auto& f : listed) {
    auto k = known.find(f.rel);
    if (k == known.end() || k->second.inode != f.inode || k->second.size != f.size) work = true;
  }
  if (!work) return report;

  if (auto st = db.exec("BEGIN IMMEDIATE"); !st) return st.error();
  auto fail = [&](Status st) -> Result<SessionSyncReport> {
    (void)db.exec("ROLLBACK");
    return st.error();
  };
  auto run = [&](const char* sql, std::initializer_list<std::string> args) -> bool {
    Stmt s(db.handle(), sql);
    int i = 1;
    for (const auto& a : args) s.bind(i++, a);
    s.step();
    return s.rc() == SQLITE_DONE;
  };
  std::set<std::string> present;
  for (const auto& f : listed) present.insert(f.rel);
  // Renames first (a `/new` archive keeps the inode): the chunks move with the file.
  for (const auto& f : listed) {
    if (known.count(f.rel)) continue;
    for (auto it = known.begin(); it != known.end(); ++it) {
      if (present.count(it->first) || it->second.inode != f.inode || it->second.id != f.id) continue;
      if (!run("UPDATE chunks SET path = ? WHERE path = ?", {f.rel, it->first}) ||
          !run("UPDATE session_files SET path = ? WHERE path = ?", {f.rel, it->first})) {
        return fail(sessions_sql_error(db, "rename transcript"));
      }
      known[f.rel] = it->second;
      known.erase(it);
      break;
    }
  }
  for (auto it = known.begin(); it != known.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    if (!run("DELETE FROM chunks WHERE path = ?", {it->first}) || !run("DELETE FROM session_files WHERE path = ?", {it->first})) {
      return fail(sessions_sql_error(db, "remove transcript"));
    }
    ++report.removed;
    it = known.erase(it);
  }

  std::map<std::string, std::string> keys;
  bool keys_loaded = false;
  Stmt put_chunk(db.handle(), "INSERT INTO chunks(path, source, start_line, end_line, hash, text) VALUES(?, 'sessions', ?, ?, ?, ?)");
  Stmt put_info(db.handle(),
                "INSERT INTO session_chunks(chunk_id, byte_start, turns_before, turn_start, turn_end, ts) VALUES(?, ?, ?, ?, ?, ?)");
  Stmt tail(db.handle(),
            "SELECT c.id, c.start_line, length(c.text), sc.byte_start, sc.turns_before FROM chunks c JOIN session_chunks sc "
            "ON sc.chunk_id = c.id WHERE c.path = ? ORDER BY c.start_line DESC, c.id DESC LIMIT 1");
  for (const auto& f : listed) {
    auto k = known.find(f.rel);
    if (k != known.end() && k->second.inode == f.inode && k->second.size == f.size) continue;
    SessionFileRow row = k != known.end() ? k->second : SessionFileRow{};
    bool append = k != known.end() && row.inode == f.inode && f.size >= row.offset;
    if (append && row.offset > 0) {  // the part read before must be unchanged
      const int64_t from = std::max<int64_t>(0, row.offset - static_cast<int64_t>(kTailBytes));
      append = sessions_hex(sessions_read_range(f.abs, from, row.offset)) == row.tail_hash;
    }
    int64_t start = 0;
    int line_base = 0, turn_base = 0;
    if (append) {
      start = row.offset;
      line_base = row.lines;
      turn_base = row.turns;
      // A small last chunk is cut again together with what was appended.
      tail.reset();
      tail.bind(1, f.rel);
      if (tail.step() && tail.int_at(2) < static_cast<int64_t>(settings.chunking.tokens * kBytesPerToken / 2)) {
        const int64_t tail_id = tail.int_at(0);
        line_base = static_cast<int>(tail.int_at(1)) - 1;
        start = tail.int_at(3);
        turn_base = static_cast<int>(tail.int_at(4));
        tail.reset();
        Stmt drop(db.handle(), "DELETE FROM chunks WHERE id = ?");
        drop.bind(1, tail_id);
        drop.step();
        if (drop.rc() != SQLITE_DONE) return fail(sessions_sql_error(db, "drop tail chunk"));
      }
    } else if (k != known.end()) {
      if (!run("DELETE FROM chunks WHERE path = ?", {f.rel})) return fail(sessions_sql_error(db, "reset transcript"));
      row = SessionFileRow{};
    }
    tail.reset();
    const std::string bytes = sessions_read_range(f.abs, start, f.size);
    RenderedTranscript r = render_session_lines(bytes, start, line_base, turn_base);
    if (!r.lines.empty()) {
      std::string text;
      for (const auto& l : r.lines) {
        if (!text.empty()) text += '\n';
        text += l.text;
      }
      for (const auto& c : chunk_markdown(text, settings.chunking)) {
        const SessionLine& first = r.lines[static_cast<std::size_t>(c.start_line - 1)];
        const SessionLine& last = r.lines[static_cast<std::size_t>(c.end_line - 1)];
        int64_t ts = 0;
        for (int i = c.start_line; i <= c.end_line; ++i) ts = std::max(ts, r.lines[static_cast<std::size_t>(i - 1)].ts_ms);
        put_chunk.reset();
        put_chunk.bind(1, f.rel).bind(2, static_cast<int64_t>(first.jsonl_line)).bind(3, static_cast<int64_t>(last.jsonl_line));
        put_chunk.bind(4, sessions_sha256(c.text));
        put_chunk.bind(5, c.text);
        put_chunk.step();
        if (put_chunk.rc() != SQLITE_DONE) return fail(sessions_sql_error(db, "insert chunk"));
        put_info.reset();
        put_info.bind(1, static_cast<int64_t>(sqlite3_last_insert_rowid(db.handle()))).bind(2, first.byte_start);
        put_info.bind(3, static_cast<int64_t>(first.turns_before)).bind(4, static_cast<int64_t>(std::max(1, first.turn)));
        put_info.bind(5, static_cast<int64_t>(std::max(1, last.turn))).bind(6, ts);
        put_info.step();
        if (put_info.rc() != SQLITE_DONE) return fail(sessions_sql_error(db, "insert chunk facts"));
      }
    }
    if (row.key.empty()) {
      if (!keys_loaded) keys = sessions_keys_by_id(settings.sessions_dir);
      keys_loaded = true;
      if (auto it = keys.find(f.id); it != keys.end()) row.key = it->second;
    }
    const int64_t from = std::max<int64_t>(0, r.end_offset - static_cast<int64_t>(kTailBytes));
    const std::string tail_hash = r.end_offset > 0 ? sessions_hex(sessions_read_range(f.abs, from, r.end_offset)) : "";
    Stmt put_file(db.handle(),
                  "INSERT INTO session_files(path, inode, size, offset, lines, turns, tail_hash, session_key, session_id) "
                  "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET inode = excluded.inode, size = "
                  "excluded.size, offset = excluded.offset, lines = excluded.lines, turns = excluded.turns, tail_hash = "
                  "excluded.tail_hash, session_key = excluded.session_key, session_id = excluded.session_id");
    put_file.bind(1, f.rel).bind(2, f.inode).bind(3, f.size).bind(4, r.end_offset).bind(5, static_cast<int64_t>(r.lines_total));
    put_file.bind(6, static_cast<int64_t>(r.turns_total)).bind(7, tail_hash).bind(8, row.key).bind(9, f.id);
    put_file.step();
    if (put_file.rc() != SQLITE_DONE) return fail(sessions_sql_error(db, "update transcript"));
    ++report.changed;
  }
  if (auto st = db.exec("COMMIT"); !st) return fail(st);
  return report;
}

std::map<int64_t, SessionHitInfo> session_hit_info(IndexDb& db, const std::vector<int64_t>& ids) {
  std::map<int64_t, SessionHitInfo> out;
  Stmt s(db.handle(),
         "SELECT sc.turn_start, sc.turn_end, sc.ts, f.session_key, f.session_id FROM session_chunks sc JOIN chunks c ON "
         "c.id = sc.chunk_id LEFT JOIN session_files f ON f.path = c.path WHERE sc.chunk_id = ?");
  for (int64_t id : ids) {
    s.reset();
    s.bind(1, id);
    if (!s.step()) continue;
    SessionHitInfo h;
    h.turn_start = static_cast<int>(s.int_at(0));
    h.turn_end = static_cast<int>(s.int_at(1));
    h.ts_ms = s.int_at(2);
    h.session_key = s.text_at(3);
    h.session_id = s.text_at(4);
    out[id] = std::move(h);
  }
  return out;
}

}  // namespace pincer::memory
