#include "memory/dreaming/recall_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "automation/schedule.h"
#include "core/civil_date.h"
#include "core/ids.h"
#include "memory/daily_notes.h"
#include "memory/dreaming/snippet_rules.h"
#include "store/atomic_file.h"

namespace pincer::memory::dreaming {

using nlohmann::json;
namespace fs = std::filesystem;

namespace detail_dreaming_store {

Result<json> read_json(const fs::path& path) {
  auto text = store::read_file(path, 64u << 20);
  if (!text) {
    if (text.error().code == "NOT_FOUND") return json::object();
    return Error{text.error().code == "TOO_LARGE" ? "DREAMING_STATE_INVALID" : "IO_ERROR", text.error().message};
  }
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Error{"DREAMING_STATE_INVALID",
                 path.string() + " is not a JSON object; it is left as it is (move it away to start afresh)"};
  }
  return j;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_string() && !v.get<std::string>().empty()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

template <class T>
T num(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<T>();
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void push_recent_distinct(std::vector<std::string>& v, const std::string& value, std::size_t limit) {
  if (value.empty()) return;
  if (std::find(v.begin(), v.end(), value) == v.end()) v.push_back(value);
  if (v.size() > limit) v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() - limit));
}

}  // namespace detail_dreaming_store

using detail_dreaming_store::num;
using detail_dreaming_store::str;
using detail_dreaming_store::strings;

fs::path dreams_dir(const fs::path& workspace) { return workspace / "memory" / ".dreams"; }
fs::path recall_store_path(const fs::path& workspace) { return dreams_dir(workspace) / "short-term-recall.json"; }
fs::path phase_store_path(const fs::path& workspace) { return dreams_dir(workspace) / "phase-signals.json"; }
fs::path promotion_lock_path(const fs::path& workspace) { return dreams_dir(workspace) / "short-term-promotion.lock"; }

std::string entry_key(std::string_view path, int start_line, int end_line) {
  return "memory:" + std::string(path) + ":" + std::to_string(start_line) + ":" + std::to_string(end_line);
}

std::string query_hash(std::string_view query) {
  std::string q = normalize_snippet(query);
  for (char& c : q) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ids::sha256_hex(q).substr(0, 12);
}

std::string iso_utc(int64_t unix_ms) {
  const int64_t days = unix_ms >= 0 ? unix_ms / 86'400'000 : (unix_ms - 86'399'999) / 86'400'000;
  const int64_t rem = unix_ms - days * 86'400'000;
  const auto c = civil::civil_from_days(days);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(c.year), static_cast<unsigned>(c.month),
                static_cast<unsigned>(c.day), static_cast<int>(rem / 3'600'000), static_cast<int>(rem / 60'000 % 60),
                static_cast<int>(rem / 1000 % 60), static_cast<int>(rem % 1000));
  return buf;
}

std::optional<int64_t> parse_iso_ms(std::string_view iso) {
  if (iso.empty()) return std::nullopt;
  return automation::parse_iso_instant(iso, "UTC");
}

std::string day_in_zone(int64_t unix_ms, std::string_view zone) {
  const auto offset = automation::zone_offset_seconds(zone, unix_ms);
  return date_stamp(unix_ms, offset ? *offset / 60 : 0);
}

Result<FileLock> FileLock::acquire(const fs::path& path, bool wait) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"IO_ERROR", "cannot open lock file " + path.string() + ": " + std::strerror(errno)};
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return Error{"DREAMING_LOCKED", "another dreaming sweep holds " + path.string()};
    return Error{"IO_ERROR", "cannot lock " + path.string() + ": " + std::strerror(err)};
  }
  const std::string owner = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, owner.data(), owner.size(), 0);
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

Result<FileLock> lock_store(const fs::path& workspace) {
  return FileLock::acquire(dreams_dir(workspace) / "recall-store.lock", true);
}

Result<RecallStore> load_recall_store(const fs::path& workspace) {
  auto j = detail_dreaming_store::read_json(recall_store_path(workspace));
  if (!j) return j.error();
  RecallStore s;
  s.updated_at = str(*j, "updatedAt");
  auto entries = j->find("entries");
  if (entries == j->end() || !entries->is_object()) return s;
  for (auto it = entries->begin(); it != entries->end(); ++it) {
    const json& e = it.value();
    if (!e.is_object()) continue;
    RecallEntry r;
    r.path = str(e, "path");
    r.start_line = num<int>(e, "startLine", 0);
    r.end_line = num<int>(e, "endLine", 0);
    if (r.path.empty() || r.start_line < 1 || r.end_line < r.start_line) continue;  // not an entry
    r.key = it.key();
    r.snippet = str(e, "snippet");
    r.recall_count = std::max(0, num<int>(e, "recallCount", 0));
    r.grounded_count = std::clamp(num<int>(e, "groundedCount", 0), 0, r.recall_count);
    r.total_score = std::max(0.0, num<double>(e, "totalScore", 0));
    r.max_score = std::clamp(num<double>(e, "maxScore", 0), 0.0, 1.0);
    r.first_recalled_at = str(e, "firstRecalledAt");
    r.last_recalled_at = str(e, "lastRecalledAt");
    r.query_hashes = strings(e, "queryHashes");
    r.recall_days = strings(e, "recallDays");
    r.concept_tags = strings(e, "conceptTags");
    r.promoted_at = str(e, "promotedAt");
    s.entries[r.key] = std::move(r);
  }
  return s;
}

Status save_recall_store(const fs::path& workspace, const RecallStore& s) {
  json entries = json::object();
  for (const auto& [key, r] : s.entries) {
    json e = {{"key", key}, {"path", r.path}, {"startLine", r.start_line}, {"endLine", r.end_line},
              {"source", "memory"}, {"snippet", r.snippet}, {"recallCount", r.recall_count},
              {"totalScore", r.total_score}, {"maxScore", r.max_score}, {"firstRecalledAt", r.first_recalled_at},
              {"lastRecalledAt", r.last_recalled_at}, {"queryHashes", r.query_hashes},
              {"recallDays", r.recall_days}, {"conceptTags", r.concept_tags}};
    if (!r.promoted_at.empty()) e["promotedAt"] = r.promoted_at;
    if (r.grounded_count > 0) e["groundedCount"] = r.grounded_count;
    entries[key] = std::move(e);
  }
  const json doc = {{"version", 1}, {"updatedAt", s.updated_at}, {"entries", std::move(entries)}};
  return store::write_file_atomic(recall_store_path(workspace),
                                  doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

Result<PhaseStore> load_phase_store(const fs::path& workspace) {
  auto j = detail_dreaming_store::read_json(phase_store_path(workspace));
  if (!j) return j.error();
  PhaseStore s;
  s.updated_at = str(*j, "updatedAt");
  auto entries = j->find("entries");
  if (entries == j->end() || !entries->is_object()) return s;
  for (auto it = entries->begin(); it != entries->end(); ++it) {
    if (!it.value().is_object()) continue;
    PhaseEntry p;
    p.light_hits = std::max(0, num<int>(it.value(), "lightHits", 0));
    p.rem_hits = std::max(0, num<int>(it.value(), "remHits", 0));
    p.last_light_at = str(it.value(), "lastLightAt");
    p.last_rem_at = str(it.value(), "lastRemAt");
    if (p.light_hits > 0 || p.rem_hits > 0) s.entries[it.key()] = p;
  }
  return s;
}

Status save_phase_store(const fs::path& workspace, const PhaseStore& s) {
  json entries = json::object();
  for (const auto& [key, p] : s.entries) {
    json e = {{"key", key}, {"lightHits", p.light_hits}, {"remHits", p.rem_hits}};
    if (!p.last_light_at.empty()) e["lastLightAt"] = p.last_light_at;
    if (!p.last_rem_at.empty()) e["lastRemAt"] = p.last_rem_at;
    entries[key] = std::move(e);
  }
  const json doc = {{"version", 1}, {"updatedAt", s.updated_at}, {"entries", std::move(entries)}};
  return store::write_file_atomic(phase_store_path(workspace), doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

Status record_recalls(const fs::path& workspace, std::string_view query, const std::vector<RecallHit>& hits,
                      int64_t now_ms, std::string_view zone) {
  if (normalize_snippet(query).empty()) return Ok{};
  std::vector<const RecallHit*> relevant;
  for (const auto& h : hits) {
    if (h.source != "memory" || !is_short_term_path(h.path) || is_unpromotable_snippet(h.snippet)) continue;
    relevant.push_back(&h);
  }
  if (relevant.empty()) return Ok{};
  auto lock = lock_store(workspace);
  if (!lock) return lock.error();
  auto store = load_recall_store(workspace);
  if (!store) return store.error();
  const std::string now_iso = iso_utc(now_ms);
  const std::string today = day_in_zone(now_ms, zone);
  const std::string qh = query_hash(query);
  for (const RecallHit* h : relevant) {
    const int start = std::max(1, h->start_line);
    const int end = std::max(start, h->end_line);
    const std::string key = entry_key(h->path, start, end);
    RecallEntry& e = store->entries[key];
    const bool fresh = e.key.empty();
    e.key = key;
    e.path = h->path;
    e.start_line = start;
    e.end_line = end;
    const std::string snippet = normalize_snippet(h->snippet);
    if (!snippet.empty()) e.snippet = snippet;
    const double score = std::clamp(h->score, 0.0, 1.0);
    e.recall_count += 1;
    e.total_score += score;
    e.max_score = std::max(e.max_score, score);
    if (fresh || e.first_recalled_at.empty()) e.first_recalled_at = now_iso;
    e.last_recalled_at = now_iso;
    detail_dreaming_store::push_recent_distinct(e.query_hashes, qh, kMaxQueryHashes);
    detail_dreaming_store::push_recent_distinct(e.recall_days, today, kMaxRecallDays);
    if (auto tags = concept_tags(e.snippet); !tags.empty()) e.concept_tags = std::move(tags);
  }
  store->updated_at = now_iso;
  return save_recall_store(workspace, *store);
}

Status record_phase_signals(const fs::path& workspace, std::string_view phase, const std::vector<std::string>& keys,
                            int64_t now_ms) {
  if (keys.empty()) return Ok{};
  auto lock = lock_store(workspace);
  if (!lock) return lock.error();
  auto recalls = load_recall_store(workspace);
  if (!recalls) return recalls.error();
  auto signals = load_phase_store(workspace);
  if (!signals) return signals.error();
  const std::string now_iso = iso_utc(now_ms);
  for (const auto& key : keys) {
    if (!recalls->entries.count(key)) continue;
    PhaseEntry& p = signals->entries[key];
    if (phase == "light") {
      p.light_hits = std::min(9999, p.light_hits + 1);
      p.last_light_at = now_iso;
    } else {
      p.rem_hits = std::min(9999, p.rem_hits + 1);
      p.last_rem_at = now_iso;
    }
  }
  for (auto it = signals->entries.begin(); it != signals->entries.end();) {
    it = recalls->entries.count(it->first) ? std::next(it) : signals->entries.erase(it);
  }
  signals->updated_at = now_iso;
  return save_phase_store(workspace, *signals);
}

}  // namespace pincer::memory::dreaming
