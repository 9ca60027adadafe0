#include "memory/memory_index.h"

#include <sodium.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "memory/chunker.h"
#include "memory/fts_query.h"
#include "memory/memory_files.h"
#include "memory/search.h"
#include "memory/session_corpus.h"

namespace pincer::memory {

using nlohmann::json;

namespace {

std::string sha256_hex(std::string_view data) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : h) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::optional<std::string> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status sql_error(IndexDb& db, const char* what) {
  return Error{"MEMORY_INDEX_SQL", std::string("memory index: ") + what + ": " + db.last_error()};
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Keyword candidates of one FTS table: chunk id → r = −bm25 (larger is better). `source` ""
/// = every corpus, else only chunks of that source.
void fts_candidates(IndexDb& db, const char* table, const std::string& match, int limit, const std::string& source,
                    std::map<int64_t, double>& out) {
  if (match.empty()) return;
  const std::string t = table;
  const std::string sql =
      source.empty() ? "SELECT rowid, bm25(" + t + ") FROM " + t + " WHERE " + t + " MATCH ? ORDER BY bm25(" + t + ") LIMIT ?"
                     : "SELECT " + t + ".rowid, bm25(" + t + ") FROM " + t + " JOIN chunks ON chunks.id = " + t +
                           ".rowid WHERE " + t + " MATCH ? AND chunks.source = ? ORDER BY bm25(" + t + ") LIMIT ?";
  Stmt s(db.handle(), sql.c_str());
  s.bind(1, match);
  if (source.empty()) {
    s.bind(2, static_cast<int64_t>(limit));
  } else {
    s.bind(2, source).bind(3, static_cast<int64_t>(limit));
  }
  while (s.step()) {
    const double r = std::max(1e-9, -s.double_at(1));
    auto& slot = out[s.int_at(0)];
    slot = std::max(slot, r);
  }
}

}  // namespace

int64_t today_days() {
  using namespace std::chrono;
  return duration_cast<days>(system_clock::now().time_since_epoch()).count();
}

Result<std::unique_ptr<MemoryIndex>> MemoryIndex::open(MemorySettings settings, std::filesystem::path workspace,
                                                       std::string agent_id) {
  std::string rebuilt;
  auto db = IndexDb::open(settings.store_path, &rebuilt);
  if (!db) return db.error();
  if (!rebuilt.empty()) {
    spdlog::warn("memory index {} of agent {} was unreadable ({}); rebuilt it from the Markdown files",
                 settings.store_path.string(), agent_id, rebuilt);
  }
  std::unique_ptr<MemoryIndex> idx(new MemoryIndex());
  idx->settings_ = std::move(settings);
  idx->workspace_ = std::move(workspace);
  idx->agent_id_ = std::move(agent_id);
  idx->db_ = std::move(*db);
  auto provider = make_embedding_provider(idx->settings_);
  if (provider) {
    idx->provider_ = std::move(*provider);
  } else {
    idx->provider_error_ = provider.error().message;
  }
  return idx;
}

Result<SyncReport> MemoryIndex::sync(bool force) {
  std::lock_guard lock(mu_);
  return sync_locked(force);
}

Result<SyncReport> MemoryIndex::sync_locked(bool force) {
  dirty_.store(false);
  IndexDb& db = *db_;
  SyncReport report;
  const std::string fp = settings_.fingerprint();
  if (force || db.meta("fingerprint") != fp) {
    if (!force && !db.meta("fingerprint").empty()) {
      spdlog::info("memory index of agent {}: the embedding provider or chunking changed; rebuilding", agent_id_);
    }
    report.rebuilt = true;
    if (auto st = db.exec("BEGIN; DELETE FROM chunks; DELETE FROM files; DELETE FROM session_files; COMMIT;"); !st) {
      (void)db.exec("ROLLBACK");
      return st.error();
    }
    if (auto st = db.set_meta("fingerprint", fp); !st) return st.error();
    vectors_loaded_ = false;
    vectors_.clear();
  }
  // memory.search.sources without "memory": no memory files (what was indexed goes).
  const auto files = settings_.memory_source ? list_memory_files(workspace_, settings_.extra_paths)
                                             : std::vector<MemoryFile>{};
  report.files = static_cast<int>(files.size());
  std::map<std::string, std::tuple<std::string, int64_t, int64_t>> known;  // rel → hash, mtime, size
  {
    Stmt s(db.handle(), "SELECT path, hash, mtime, size FROM files");
    while (s.step()) known[s.text_at(0)] = {s.text_at(1), s.int_at(2), s.int_at(3)};
  }
  if (auto st = db.exec("BEGIN IMMEDIATE"); !st) return st.error();
  auto fail = [&](Status st) -> Result<SyncReport> {
    (void)db.exec("ROLLBACK");
    return st.error();
  };
  Stmt del_chunks(db.handle(), "DELETE FROM chunks WHERE path = ?");
  Stmt del_file(db.handle(), "DELETE FROM files WHERE path = ?");
  Stmt put_file(db.handle(),
                "INSERT INTO files(path, hash, mtime, size) VALUES(?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "hash = excluded.hash, mtime = excluded.mtime, size = excluded.size");
  Stmt put_chunk(db.handle(), "INSERT INTO chunks(path, source, start_line, end_line, hash, text) VALUES(?, ?, ?, ?, ?, ?)");
  std::set<std::string> present;
  for (const auto& f : files) {
    present.insert(f.rel);
    auto it = known.find(f.rel);
    if (it != known.end() && std::get<1>(it->second) == f.mtime_ns && std::get<2>(it->second) == f.size) continue;
    auto content = read_file(f.abs);
    if (!content) continue;  // vanished or unreadable meanwhile: the next sync sees it
    const std::string hash = sha256_hex(*content);
    if (it == known.end() || std::get<0>(it->second) != hash) {
      del_chunks.reset();
      del_chunks.bind(1, f.rel);
      del_chunks.step();
      for (const auto& c : chunk_markdown(*content, settings_.chunking)) {
        put_chunk.reset();
        put_chunk.bind(1, f.rel).bind(2, std::string("memory")).bind(3, static_cast<int64_t>(c.start_line));
        put_chunk.bind(4, static_cast<int64_t>(c.end_line)).bind(5, sha256_hex(c.text)).bind(6, c.text);
        put_chunk.step();
        if (put_chunk.rc() != SQLITE_DONE) return fail(sql_error(db, "insert chunk"));
      }
      ++report.changed;
      vectors_loaded_ = false;
    }
    put_file.reset();
    put_file.bind(1, f.rel).bind(2, hash).bind(3, f.mtime_ns).bind(4, f.size);
    put_file.step();
    if (put_file.rc() != SQLITE_DONE) return fail(sql_error(db, "update file"));
  }
  for (const auto& [rel, _] : known) {
    if (present.count(rel)) continue;
    del_chunks.reset();
    del_chunks.bind(1, rel);
    del_chunks.step();
    del_file.reset();
    del_file.bind(1, rel);
    del_file.step();
    ++report.removed;
    vectors_loaded_ = false;
  }
  if (auto st = db.exec("COMMIT"); !st) return fail(st);
  auto sessions = sync_session_corpus(db, settings_);
  if (!sessions) return sessions.error();
  if (sessions->changed > 0 || sessions->removed > 0) {
    vectors_loaded_ = false;
    spdlog::info("memory index of agent {}: {} session transcript(s) read, {} removed", agent_id_, sessions->changed,
                 sessions->removed);
  }
  Stmt count(db.handle(), "SELECT count(*) FROM chunks");
  report.chunks = count.step() ? static_cast<int>(count.int_at(0)) : 0;
  if (report.changed > 0 || report.removed > 0) {
    spdlog::info("memory index of agent {}: {} file(s) re-indexed, {} removed, {} chunks", agent_id_, report.changed,
                 report.removed, report.chunks);
  }
  return report;
}

Result<int> MemoryIndex::embed_pending(int max_chunks) {
  if (!provider_) return 0;
  int done = 0;
  while (done < max_chunks) {
    std::vector<std::pair<std::string, std::string>> batch;  // hash, text
    {
      std::lock_guard lock(mu_);
      Stmt s(db_->handle(),
             "SELECT DISTINCT c.hash, c.text FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM embedding_cache e WHERE "
             "e.provider = ? AND e.model = ? AND e.hash = c.hash) LIMIT ?");
      s.bind(1, provider_->id()).bind(2, provider_->model()).bind(3, static_cast<int64_t>(settings_.batch_size));
      while (s.step()) batch.emplace_back(s.text_at(0), s.text_at(1));
    }
    if (batch.empty()) break;
    std::vector<std::string> texts;
    for (auto& [_, t] : batch) texts.push_back(t);
    auto vecs = provider_->embed(texts, settings_.embed_timeout_ms);  // without the lock
    if (!vecs) {
      std::lock_guard lock(mu_);
      last_embed_error_ = vecs.error().message;
      return vecs.error();
    }
    std::lock_guard lock(mu_);
    last_embed_error_.clear();
    (void)db_->exec("BEGIN");
    Stmt put(db_->handle(), "INSERT OR REPLACE INTO embedding_cache(provider, model, hash, dims, vec) VALUES(?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const Vector& v = (*vecs)[i];
      put.reset();
      put.bind(1, provider_->id()).bind(2, provider_->model()).bind(3, batch[i].first);
      put.bind(4, static_cast<int64_t>(v.size())).bind_blob(5, v.data(), static_cast<int>(v.size() * sizeof(float)));
      put.step();
    }
    (void)db_->exec("COMMIT");
    vectors_loaded_ = false;
    done += static_cast<int>(batch.size());
  }
  return done;
}

void MemoryIndex::load_vectors_locked() {
  if (vectors_loaded_ || !provider_) return;
  // CROSS JOIN keeps chunks outer, so each one is a primary-key lookup in embedding_cache; left
  // to itself the planner may scan chunks (no index on hash) once per cached vector: O(n²).
  vectors_.clear();
  Stmt s(db_->handle(),
         "SELECT c.id, e.vec, c.source = 'sessions' FROM chunks c CROSS JOIN embedding_cache e ON e.hash = c.hash AND "
         "e.provider = ? AND e.model = ?");
  s.bind(1, provider_->id()).bind(2, provider_->model());
  while (s.step()) {
    int bytes = 0;
    const void* p = s.blob_at(1, bytes);
    Vector v(static_cast<std::size_t>(bytes) / sizeof(float));
    if (!v.empty()) std::memcpy(v.data(), p, v.size() * sizeof(float));
    vectors_.push_back({s.int_at(0), s.int_at(2) != 0, std::move(v)});
  }
  vectors_loaded_ = true;
}

Result<SearchResponse> MemoryIndex::search(const std::string& query, std::optional<int> max_results_in,
                                           std::optional<double> min_score_in, Corpus corpus) {
  const int64_t started = now_ms();
  const int max_results = std::clamp(max_results_in.value_or(settings_.max_results), 1, 100);
  const double min_score = std::clamp(min_score_in.value_or(settings_.min_score), 0.0, 1.0);
  const int limit = max_results * std::max(1, settings_.hybrid.candidate_multiplier);
  SearchResponse resp;
  resp.provider = provider_ ? provider_->id() : "none";
  resp.model = provider_ ? provider_->model() : "";

  // The vector side first (outside the lock), bounded by what is left of the query budget.
  std::optional<Vector> qvec;
  if (provider_) {
    const int64_t budget = settings_.query_timeout_ms - (now_ms() - started);
    auto v = budget > 0 ? provider_->embed({query}, budget)
                        : Result<std::vector<Vector>>(Error{"EMBED_TIMEOUT", "no time left"});
    if (v && !v->empty()) {
      qvec = std::move((*v)[0]);
    } else {
      resp.partial = true;
      resp.warning = "Vector search unavailable (" + (v ? std::string("empty response") : v.error().message) +
                     "); these are keyword results only.";
    }
  } else if (!provider_error_.empty()) {
    resp.partial = true;
    resp.warning = provider_error_ + "; keyword results only.";
  }

  std::lock_guard lock(mu_);
  // Sync on every search (a stat per file; only changed files are read), so a note written a
  // moment ago is found even before the watcher's debounce fires.
  if (auto r = sync_locked(false); !r) return r.error();
  const FtsQuery fq = build_fts_query(query);
  // Both corpora are in one table; a filter only when one is asked for (the other may be on).
  const std::string only = corpus == Corpus::Memory ? "memory" : corpus == Corpus::Sessions ? "sessions" : "";
  std::map<int64_t, double> words, tri;
  fts_candidates(*db_, "chunks_fts", fq.words, limit, only, words);
  fts_candidates(*db_, "chunks_tri", fq.trigrams, limit, only, tri);
  for (const auto& s : fq.short_cjk) {  // 1–2 CJK characters: a substring scan
    Stmt st(db_->handle(), "SELECT id FROM chunks WHERE instr(text, ?1) > 0 AND (?3 = '' OR source = ?3) LIMIT ?2");
    st.bind(1, s).bind(2, static_cast<int64_t>(limit)).bind(3, only);
    while (st.step()) tri[st.int_at(0)] = std::max(tri[st.int_at(0)], 1.0);
  }
  std::map<int64_t, Candidate> cands;
  auto add_text = [&](const std::map<int64_t, double>& m) {
    double top = 0;
    for (const auto& [_, r] : m) top = std::max(top, r);
    for (const auto& [id, r] : m) {
      auto& c = cands[id];
      c.chunk_id = id;
      c.text_score = std::max(c.text_score, top > 0 ? r / top : 0);
    }
  };
  add_text(words);
  add_text(tri);
  const bool hybrid = qvec.has_value();
  if (hybrid) {
    load_vectors_locked();
    std::vector<std::pair<double, int64_t>> sims;
    sims.reserve(vectors_.size());
    for (const auto& sv : vectors_) {
      if ((corpus == Corpus::Memory && sv.session) || (corpus == Corpus::Sessions && !sv.session)) continue;
      sims.emplace_back(cosine(*qvec, sv.v), sv.chunk_id);
    }
    const std::size_t k = std::min<std::size_t>(sims.size(), static_cast<std::size_t>(limit));
    std::partial_sort(sims.begin(), sims.begin() + static_cast<std::ptrdiff_t>(k), sims.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < k; ++i) {
      auto& c = cands[sims[i].second];
      c.chunk_id = sims[i].second;
      c.vector_score = std::clamp(sims[i].first, 0.0, 1.0);
      c.has_vector = true;
    }
    // Keyword candidates that were not among the nearest still get their real similarity.
    for (const auto& sv : vectors_) {
      auto it = cands.find(sv.chunk_id);
      if (it != cands.end() && !it->second.has_vector) {
        it->second.vector_score = std::clamp(cosine(*qvec, sv.v), 0.0, 1.0);
        it->second.has_vector = true;
      }
    }
    resp.mode = "hybrid";
  }
  std::vector<Candidate> list;
  std::vector<int64_t> session_ids;
  Stmt row(db_->handle(), "SELECT path, source, start_line, end_line, text FROM chunks WHERE id = ?");
  for (auto& [id, c] : cands) {
    row.reset();
    row.bind(1, id);
    if (!row.step()) continue;
    c.path = row.text_at(0);
    c.source = row.text_at(1);
    c.start_line = static_cast<int>(row.int_at(2));
    c.end_line = static_cast<int>(row.int_at(3));
    c.text = row.text_at(4);
    c.day = note_day(c.path);
    if (c.source == "sessions") session_ids.push_back(id);
    list.push_back(std::move(c));
  }
  // A transcript's chunks decay by the time of their messages (an old session ranks lower).
  const auto sessions = session_ids.empty() ? std::map<int64_t, SessionHitInfo>{} : session_hit_info(*db_, session_ids);
  for (auto& c : list) {
    auto it = sessions.find(c.chunk_id);
    if (it != sessions.end() && it->second.ts_ms > 0) c.day = it->second.ts_ms / 86'400'000;
  }
  for (auto& c : rank(std::move(list), settings_.hybrid, hybrid, min_score, max_results, today_days())) {
    SearchHit h;
    h.path = c.path;
    h.start_line = c.start_line;
    h.end_line = c.end_line;
    h.score = c.score;
    h.snippet = make_snippet(c.text);
    h.source = c.source;
    if (auto it = sessions.find(c.chunk_id); it != sessions.end()) {
      h.session_key = it->second.session_key;
      h.session_id = it->second.session_id;
      h.turn = it->second.turn_start;
      h.turn_end = it->second.turn_end;
    }
    resp.results.push_back(std::move(h));
  }
  return resp;
}

json MemoryIndex::status(bool deep) {
  std::lock_guard lock(mu_);
  json out = {{"agentId", agent_id_},
              {"backend", settings_.backend},
              {"provider", provider_ ? provider_->id() : "none"},
              {"model", provider_ ? provider_->model() : ""},
              {"workspaceDir", workspace_.string()},
              {"dbPath", settings_.store_path.string()},
              {"dirty", dirty_.load()}};
  auto count = [&](const char* sql) {
    Stmt s(db_->handle(), sql);
    return s.step() ? s.int_at(0) : 0;
  };
  out["files"] = count("SELECT count(*) FROM files");
  out["chunks"] = count("SELECT count(*) FROM chunks");
  json sources = json::array();
  if (settings_.memory_source) sources.push_back("memory");
  if (settings_.sessions_source) {
    sources.push_back("sessions");
    out["sessionFiles"] = count("SELECT count(*) FROM session_files");
    out["sessionChunks"] = count("SELECT count(*) FROM chunks WHERE source = 'sessions'");
  }
  out["sources"] = sources;
  if (provider_) {
    Stmt s(db_->handle(),
           "SELECT count(DISTINCT c.hash), max(e.dims) FROM chunks c CROSS JOIN embedding_cache e ON e.hash = c.hash AND "
           "e.provider = ? AND e.model = ?");
    s.bind(1, provider_->id()).bind(2, provider_->model());
    if (s.step()) {
      out["vectors"] = s.int_at(0);
      out["dims"] = s.int_at(1);
    }
  }
  if (!provider_error_.empty()) out["providerError"] = provider_error_;
  if (!last_embed_error_.empty()) out["embeddingError"] = last_embed_error_;
  if (deep) {
    out["fts"] = {{"words", "unicode61"}, {"cjk", "trigram"}};
    out["chunking"] = {{"tokens", settings_.chunking.tokens}, {"overlap", settings_.chunking.overlap}};
    json files = json::array();
    Stmt s(db_->handle(), "SELECT f.path, f.size, (SELECT count(*) FROM chunks c WHERE c.path = f.path) FROM files f ORDER BY f.path");
    while (s.step()) files.push_back({{"path", s.text_at(0)}, {"size", s.int_at(1)}, {"chunks", s.int_at(2)}});
    out["fileList"] = files;
    if (provider_) {
      auto probe = provider_->embed({"ping"}, settings_.query_timeout_ms);
      out["embeddingProbe"] = probe ? json{{"ok", true}, {"dims", probe->empty() ? 0 : (*probe)[0].size()}}
                                    : json{{"ok", false}, {"error", probe.error().message}};
    }
  }
  return out;
}

}  // namespace pincer::memory
