#include "memory/memory_config.h"

#include <cstdlib>

#include "store/session_index.h"

namespace pincer::memory {

using nlohmann::json;

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

const json* at(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

template <class T>
T get(const json& j, std::initializer_list<const char*> path, T fallback) {
  const json* v = at(j, path);
  if (!v || v->is_null()) return fallback;
  try {
    return v->get<T>();
  } catch (const json::exception&) {
    return fallback;
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
  if (const json* d = at(config, {"memory", "search"}); d && d->is_object()) search = *d;
  if (const json* list = at(config, {"agents", "list"}); list && list->is_array()) {
    for (const auto& a : *list) {
      if (a.is_object() && a.value("id", "") == agent_id) {
        if (const json* o = at(a, {"memory", "search"})) merge(search, *o);
      }
    }
  }
  s.backend = get<std::string>(config, {"memory", "backend"}, d.backend);
  s.citations = get<std::string>(config, {"memory", "citations"}, d.citations);
  s.enabled = get<bool>(search, {"enabled"}, d.enabled) && s.backend != "none";
  s.provider = get<std::string>(search, {"provider"}, d.provider);
  if (s.provider == "auto" || s.provider.empty()) s.provider = "none";
  s.model = get<std::string>(search, {"model"}, "");
  s.base_url = get<std::string>(search, {"remote", "baseUrl"}, "");
  s.api_key = get<std::string>(search, {"remote", "apiKey"}, "");
  if (const json* h = at(search, {"remote", "headers"}); h && h->is_object()) {
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
  s.batch_size = get<int>(search, {"remote", "batch", "size"}, d.batch_size);
  if (s.batch_size < 1) s.batch_size = 1;
  s.embed_timeout_ms = get<int64_t>(search, {"remote", "timeoutMs"}, d.embed_timeout_ms);
  if (const json* ex = at(search, {"extraPaths"}); ex && ex->is_array()) {
    for (const auto& p : *ex) {
      if (!p.is_string() || p.get<std::string>().empty()) continue;
      std::filesystem::path path = expand_home(p.get<std::string>(), env);
      s.extra_paths.push_back(path.is_absolute() ? path : workspace / path);
    }
  }
  s.chunking.tokens = get<int>(search, {"chunking", "tokens"}, d.chunking.tokens);
  s.chunking.overlap = get<int>(search, {"chunking", "overlap"}, d.chunking.overlap);
  s.max_results = get<int>(search, {"query", "maxResults"}, d.max_results);
  s.min_score = get<double>(search, {"query", "minScore"}, d.min_score);
  s.query_timeout_ms = get<int64_t>(search, {"query", "timeoutMs"}, d.query_timeout_ms);
  s.hybrid.vector_weight = get<double>(search, {"query", "hybrid", "vectorWeight"}, d.hybrid.vector_weight);
  s.hybrid.text_weight = get<double>(search, {"query", "hybrid", "textWeight"}, d.hybrid.text_weight);
  s.hybrid.candidate_multiplier = get<int>(search, {"query", "hybrid", "candidateMultiplier"}, d.hybrid.candidate_multiplier);
  s.hybrid.mmr = get<bool>(search, {"query", "hybrid", "mmr", "enabled"}, d.hybrid.mmr);
  s.hybrid.mmr_lambda = get<double>(search, {"query", "hybrid", "mmr", "lambda"}, d.hybrid.mmr_lambda);
  s.hybrid.decay = get<bool>(search, {"query", "hybrid", "temporalDecay", "enabled"}, d.hybrid.decay);
  s.hybrid.half_life_days = get<double>(search, {"query", "hybrid", "temporalDecay", "halfLifeDays"}, d.hybrid.half_life_days);
  s.watch = get<bool>(search, {"sync", "watch"}, d.watch);
  s.watch_debounce_ms = get<int64_t>(search, {"sync", "watchDebounceMs"}, d.watch_debounce_ms);
  // OpenClaw's source policy: "sessions" counts only with experimental.sessionMemory; nothing
  // left (or no list) means the memory files.
  const bool session_memory = get<bool>(search, {"experimental", "sessionMemory"}, false);
  if (const json* src = at(search, {"sources"}); src && src->is_array() && !src->empty()) {
    bool mem = false, sess = false;
    for (const auto& v : *src) {
      if (v == "memory") mem = true;
      if (v == "sessions" && session_memory) sess = true;
    }
    s.memory_source = mem || !sess;
    s.sessions_source = sess;
  }
  s.sessions_dir = store::sessions_dir(state_dir, agent_id);
  std::string store = get<std::string>(search, {"store", "path"}, "");
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
