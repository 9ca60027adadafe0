#include "memory/memory_config.h"

#include <cstdlib>

#include "core/json_lookup.h"
#include "store/session_index.h"

namespace pincer::memory {

using nlohmann::json;
using json_lookup::find_path;
using json_lookup::value_or;

namespace {

void merge(json& base, const json& over) {
  if (!over.is_object()) return;
  for (auto it = over.begin(); it != over.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object()) {
      merge(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

std::filesystem::path expand_home(const std::string& p, const std::map<std::string, std::string>& env) {
  if (p.rfind("~/", 0) == 0 || p == "~") {
    auto home = env.find("HOME");
    if (home != env.end()) return std::filesystem::path(home->second) / p.substr(p.size() > 1 ? 2 : 1);
  }
  return p;
}

}  // namespace

std::string MemorySettings::fingerprint() const {
  return "v1|" + provider + "|" + model + "|" + base_url + "|" + std::to_string(chunking.tokens) + "|" +
         std::to_string(chunking.overlap);
}

std::string disabled_reason(const MemorySettings& settings) {
  if (settings.enabled) return "";
  return settings.backend == "none" ? "memory.backend is \"none\"" : "memory.search.enabled is false";
}

MemorySettings resolve_memory_settings(const json& config, const std::string& agent_id,
                                       const std::filesystem::path& workspace, const std::filesystem::path& state_dir,
                                       const std::map<std::string, std::string>& env) {
  // The member initialisers of MemorySettings are the defaults (the schema's memory.search
  // defaults repeat them; memory_test checks that they agree).
  const MemorySettings d;
  MemorySettings s;
  json search = json::object();
  if (const json* d = find_path(config, {"memory", "search"}); d && d->is_object()) search = *d;
  if (const json* list = find_path(config, {"agents", "list"}); list && list->is_array()) {
    for (const auto& a : *list) {
      if (a.is_object() && a.value("id", "") == agent_id) {
        if (const json* o = find_path(a, {"memory", "search"})) merge(search, *o);
      }
    }
  }
  s.backend = value_or<std::string>(config, {"memory", "backend"}, d.backend);
  s.citations = value_or<std::string>(config, {"memory", "citations"}, d.citations);
  s.enabled = value_or<bool>(search, {"enabled"}, d.enabled) && s.backend != "none";
  s.provider = value_or<std::string>(search, {"provider"}, d.provider);
  if (s.provider == "auto" || s.provider.empty()) s.provider = "none";
  s.model = value_or<std::string>(search, {"model"}, "");
  s.base_url = value_or<std::string>(search, {"remote", "baseUrl"}, "");
  s.api_key = value_or<std::string>(search, {"remote", "apiKey"}, "");
  if (const json* h = find_path(search, {"remote", "headers"}); h && h->is_object()) {
    for (auto it = h->begin(); it != h->end(); ++it) {
      if (it.value().is_string()) s.headers[it.key()] = it.value().get<std::string>();
    }
  }
  if (s.model.empty()) {
    if (s.provider == "openai" || s.provider == "openai-compatible") s.model = "text-embedding-3-small";
    if (s.provider == "ollama") s.model = "nomic-embed-text";
    if (s.provider == "gemini") s.model = "gemini-embedding-001";
  }
  if (s.api_key.empty()) {
    const char* var = s.provider == "gemini" ? "GEMINI_API_KEY" : s.provider == "openai" ? "OPENAI_API_KEY" : nullptr;
    if (var) {
      if (auto it = env.find(var); it != env.end()) s.api_key = it->second;
    }
  }
  s.batch_size = value_or<int>(search, {"remote", "batch", "size"}, d.batch_size);
  if (s.batch_size < 1) s.batch_size = 1;
  s.embed_timeout_ms = value_or<int64_t>(search, {"remote", "timeoutMs"}, d.embed_timeout_ms);
  if (const json* ex = find_path(search, {"extraPaths"}); ex && ex->is_array()) {
    for (const auto& p : *ex) {
      if (!p.is_string() || p.get<std::string>().empty()) continue;
      std::filesystem::path path = expand_home(p.get<std::string>(), env);
      s.extra_paths.push_back(path.is_absolute() ? path : workspace / path);
    }
  }
  s.chunking.tokens = value_or<int>(search, {"chunking", "tokens"}, d.chunking.tokens);
  s.chunking.overlap = value_or<int>(search, {"chunking", "overlap"}, d.chunking.overlap);
  s.max_results = value_or<int>(search, {"query", "maxResults"}, d.max_results);
  s.min_score = value_or<double>(search, {"query", "minScore"}, d.min_score);
  s.query_timeout_ms = value_or<int64_t>(search, {"query", "timeoutMs"}, d.query_timeout_ms);
  s.hybrid.vector_weight = value_or<double>(search, {"query", "hybrid", "vectorWeight"}, d.hybrid.vector_weight);
  s.hybrid.text_weight = value_or<double>(search, {"query", "hybrid", "textWeight"}, d.hybrid.text_weight);
  s.hybrid.candidate_multiplier = value_or<int>(search, {"query", "hybrid", "candidateMultiplier"}, d.hybrid.candidate_multiplier);
  s.hybrid.mmr = value_or<bool>(search, {"query", "hybrid", "mmr", "enabled"}, d.hybrid.mmr);
  s.hybrid.mmr_lambda = value_or<double>(search, {"query", "hybrid", "mmr", "lambda"}, d.hybrid.mmr_lambda);
  s.hybrid.decay = value_or<bool>(search, {"query", "hybrid", "temporalDecay", "enabled"}, d.hybrid.decay);
  s.hybrid.half_life_days = value_or<double>(search, {"query", "hybrid", "temporalDecay", "halfLifeDays"}, d.hybrid.half_life_days);
  s.watch = value_or<bool>(search, {"sync", "watch"}, d.watch);
  s.watch_debounce_ms = value_or<int64_t>(search, {"sync", "watchDebounceMs"}, d.watch_debounce_ms);
  // OpenClaw's source policy: "sessions" counts only with experimental.sessionMemory; nothing
  // left (or no list) means the memory files.
  const bool session_memory = value_or<bool>(search, {"experimental", "sessionMemory"}, false);
  if (const json* src = find_path(search, {"sources"}); src && src->is_array() && !src->empty()) {
    bool mem = false, sess = false;
    for (const auto& v : *src) {
      if (v == "memory") mem = true;
      if (v == "sessions" && session_memory) sess = true;
    }
    s.memory_source = mem || !sess;
    s.sessions_source = sess;
  }
  s.sessions_dir = store::sessions_dir(state_dir, agent_id);
  std::string store = value_or<std::string>(search, {"store", "path"}, "");
  if (store.empty()) {
    s.store_path = state_dir / "memory" / (agent_id + ".sqlite");
  } else {
    for (auto pos = store.find("{agentId}"); pos != std::string::npos; pos = store.find("{agentId}")) {
      store.replace(pos, 9, agent_id);
    }
    std::filesystem::path p = expand_home(store, env);
    s.store_path = p.is_absolute() ? p : state_dir / p;
  }
  return s;
}

std::map<std::string, std::string> memory_env_from_process() {
  std::map<std::string, std::string> env;
  for (const char* name : {"HOME", "OPENAI_API_KEY", "GEMINI_API_KEY"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  return env;
}

}  // namespace pincer::memory
