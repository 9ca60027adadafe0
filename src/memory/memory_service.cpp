#include "memory/memory_service.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/clock.h"
#include "memory/dreaming/dreaming_settings.h"
#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/snippet_rules.h"
#include "memory/memory_files.h"

namespace pincer::memory {

using nlohmann::json;

MemoryService::MemoryService(json config, std::filesystem::path state_dir, std::map<std::string, std::string> env,
                             bool watch)
    : config_(std::move(config)), state_dir_(std::move(state_dir)), env_(std::move(env)), watch_(watch) {}

MemoryService::~MemoryService() { watcher_.reset(); }

void MemoryService::reconfigure(json config) {
  std::lock_guard lock(mu_);
  config_ = std::move(config);
  settings_cache_.clear();
  for (auto it = indexes_.begin(); it != indexes_.end();) {
    const MemorySettings now = resolve_memory_settings(config_, it->first, it->second->workspace(), state_dir_, env_);
    if (now != it->second->settings()) {
      spdlog::info("memory settings of agent {} changed: its index is reopened on next use", it->first);
      auto next = std::next(it);
      drop_locked(it);
      it = next;
    } else {
      ++it;
    }
  }
}

void MemoryService::drop_locked(std::map<std::string, std::shared_ptr<MemoryIndex>>::iterator it) {
  // The watcher lets go on its thread; a search in progress holds its own reference. The last
  // owner closes the SQLite connection and frees the vectors.
  if (watcher_) watcher_->unwatch(it->second.get());
  indexes_.erase(it);
}

std::size_t MemoryService::open_indexes() const {
  std::lock_guard lock(mu_);
  return indexes_.size();
}

MemorySettings MemoryService::settings_for(const std::string& agent_id, const std::filesystem::path& workspace) const {
  std::lock_guard lock(mu_);
  auto key = std::make_pair(agent_id, workspace.native());
  if (auto it = settings_cache_.find(key); it != settings_cache_.end()) return it->second;
  MemorySettings s = resolve_memory_settings(config_, agent_id, workspace, state_dir_, env_);
  if (settings_cache_.size() >= 64) settings_cache_.clear();  // bounded: agents × workspaces are few
  settings_cache_.emplace(std::move(key), s);
  return s;
}

bool MemoryService::enabled(const std::string& agent_id, const std::filesystem::path& workspace) const {
  return settings_for(agent_id, workspace).enabled;
}

Result<std::shared_ptr<MemoryIndex>> MemoryService::index(const std::string& agent_id,
                                                          const std::filesystem::path& workspace) {
  std::lock_guard lock(mu_);
  if (auto it = indexes_.find(agent_id); it != indexes_.end() && it->second->workspace() == workspace) {
    return it->second;
  }
  MemorySettings s = resolve_memory_settings(config_, agent_id, workspace, state_dir_, env_);
  auto opened = MemoryIndex::open(std::move(s), workspace, agent_id);
  if (!opened) return opened.error();
  std::shared_ptr<MemoryIndex> idx = std::move(*opened);
  if (auto it = indexes_.find(agent_id); it != indexes_.end()) drop_locked(it);
  indexes_[agent_id] = idx;
  if (watch_ && idx->settings().watch) {
    if (!watcher_) watcher_ = std::make_unique<MemoryWatcher>();
    watcher_->watch(idx);
  }
  return idx;
}

json MemoryService::search(const std::string& agent_id, const std::filesystem::path& workspace, const json& args) {
  auto unavailable = [&](const std::string& why, const std::string& action) {
    return json{{"results", json::array()}, {"disabled", true}, {"unavailable", true}, {"error", why},
                {"warning", "Memory search is unavailable: " + why}, {"action", action}};
  };
  const MemorySettings s = settings_for(agent_id, workspace);
  if (!s.enabled) {
    return unavailable("memory is disabled for agent " + agent_id,
                       "Memory is off (memory.backend or memory.search.enabled); tell the user if they expected it.");
  }
  // corpus (OpenClaw's): absent or "all" = the configured sources, "memory" or "sessions" = one.
  const std::string corpus = args.contains("corpus") && args["corpus"].is_string() ? args["corpus"].get<std::string>() : "all";
  Corpus which = Corpus::Configured;
  if (corpus == "memory") {
    which = Corpus::Memory;
  } else if (corpus == "sessions") {
    if (!s.sessions_source) {
      return unavailable("session transcript search is not enabled",
                         "Search corpus=memory instead; the user can enable it with memory.search.sources "
                         "[\"memory\", \"sessions\"] and memory.search.experimental.sessionMemory true.");
    }
    which = Corpus::Sessions;
  } else if (corpus != "all") {
    return unavailable("the " + corpus + " corpus is not indexed by Pincer", "Search corpus=memory instead.");
  }
  const std::string query = args.value("query", "");
  try {
    auto idx = index(agent_id, workspace);
    if (!idx) return unavailable(idx.error().message, "Run `pincer memory status --deep` to see what is wrong.");
    std::optional<int> max_results;
    std::optional<double> min_score;
    if (args.contains("maxResults") && args["maxResults"].is_number_integer()) max_results = args["maxResults"].get<int>();
    if (args.contains("minScore") && args["minScore"].is_number()) min_score = args["minScore"].get<double>();
    auto r = (*idx)->search(query, max_results, min_score, which);
    if (!r) return unavailable(r.error().message, "Run `pincer memory index --force` to rebuild the index.");
    if ((*idx)->settings().has_embeddings()) {
      std::lock_guard lock(mu_);  // watcher_ is created under it
      if (watcher_) watcher_->nudge(idx->get());
    }
    json results = json::array();
    const bool cite = s.citations != "off";
    for (const auto& h : r->results) {
      json hit = {{"path", h.path}, {"startLine", h.start_line}, {"endLine", h.end_line},
                  {"score", std::round(h.score * 10000) / 10000}, {"snippet", h.snippet}, {"source", h.source}};
      if (h.source == "sessions") {  // which conversation and turn the hit is from
        hit["sessionKey"] = h.session_key;
        hit["sessionId"] = h.session_id;
        hit["turn"] = h.turn;
        if (h.turn_end != h.turn) hit["turnEnd"] = h.turn_end;
      }
      if (cite) {
        hit["citation"] = h.path + "#L" + std::to_string(h.start_line) +
                          (h.end_line != h.start_line ? "-L" + std::to_string(h.end_line) : "");
      }
      results.push_back(std::move(hit));
    }
    json out = {{"results", results}, {"provider", r->provider}, {"model", r->model}, {"mode", r->mode},
                {"citations", s.citations}};
    if (r->partial) {
      out["partial"] = true;
      out["warning"] = r->warning;
    }
    return out;
  } catch (const std::exception& e) {
    return unavailable(std::string("internal error: ") + e.what(), "Run `pincer memory status --deep`.");
  }
}

void MemoryService::set_clock(std::function<int64_t()> now_ms) {
  std::lock_guard lock(mu_);
  now_ms_ = std::move(now_ms);
}

json MemoryService::search_for_session(const std::string& agent_id, const std::filesystem::path& workspace,
                                       const json& args, const std::string& session_key, const std::string& lane) {
  json out = search(agent_id, workspace, args);
  if (out.value("disabled", false) || !out.contains("results") || !out["results"].is_array() || out["results"].empty()) {
    return out;
  }
  dreaming::DreamingSettings ds;
  std::function<int64_t()> now;
  {
    std::lock_guard lock(mu_);
    ds = dreaming::resolve_dreaming_settings(config_);
    now = now_ms_;
  }
  if (!ds.enabled || !dreaming::is_ingested_session(session_key, lane)) return out;
  std::vector<dreaming::RecallHit> hits;
  for (const auto& r : out["results"]) {
    dreaming::RecallHit h;
    h.path = r.value("path", "");
    h.start_line = r.value("startLine", 1);
    h.end_line = r.value("endLine", 1);
    h.score = r.value("score", 0.0);
    h.snippet = r.value("snippet", "");
    h.source = r.value("source", "memory");
    hits.push_back(std::move(h));
  }
  const int64_t now_ms = now ? now() : SystemClock::instance().wall_ms();
  if (auto st = dreaming::record_recalls(workspace, args.contains("query") && args["query"].is_string() ? args["query"].get<std::string>() : std::string(), hits, now_ms, ds.timezone); !st) {
    spdlog::warn("dreaming: recall of agent {} not recorded: {}", agent_id, st.error().message);
  }
  return out;
}

json MemoryService::get(const std::string& agent_id, const std::filesystem::path& workspace, const json& args) {
  const std::string path = args.value("path", "");
  const MemorySettings s = settings_for(agent_id, workspace);
  if (!s.enabled) return {{"path", path}, {"text", ""}, {"disabled", true}, {"error", "memory is disabled"}};
  auto f = resolve_memory_path(workspace, s.extra_paths, path);
  if (!f) return {{"path", path}, {"text", ""}, {"error", f.error().message}};
  std::ifstream in(f->abs, std::ios::binary);
  if (!in) return {{"path", path}, {"text", ""}, {"error", "memory_get: cannot read " + path}};
  const int from = std::max(1, args.contains("from") && args["from"].is_number_integer() ? args["from"].get<int>() : 1);
  const bool explicit_lines = args.contains("lines") && args["lines"].is_number_integer();
  const int want = std::clamp(explicit_lines ? args["lines"].get<int>() : 200, 1, 2000);
  constexpr std::size_t kMaxChars = 40'000;
  std::string line, text;
  int n = 0, taken = 0;
  bool more = false;
  while (std::getline(in, line)) {
    ++n;
    if (n < from) continue;
    if (taken >= want || text.size() + line.size() + 1 > kMaxChars) {
      more = true;
      break;
    }
    text += line;
    text += '\n';
    ++taken;
  }
  json out = {{"path", f->rel}, {"text", tools::sanitize_utf8(text)}, {"from", from}, {"lines", taken}};
  if (more) {
    out["truncated"] = true;
    out["nextFrom"] = from + taken;
  }
  return out;
}

Status MemoryService::reset(const std::string& agent_id, const std::filesystem::path& workspace) {
  std::lock_guard lock(mu_);
  const MemorySettings s = resolve_memory_settings(config_, agent_id, workspace, state_dir_, env_);
  if (auto it = indexes_.find(agent_id); it != indexes_.end()) drop_locked(it);
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(s.store_path.string() + suffix, ec);
  if (ec) return Error{"MEMORY_RESET", "cannot delete " + s.store_path.string() + ": " + ec.message()};
  return Ok{};
}

}  // namespace pincer::memory
