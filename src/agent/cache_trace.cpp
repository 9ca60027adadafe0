#include "agent/cache_trace.h"

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace pincer::agent {

using nlohmann::json;

std::string fnv1a_hex(std::string_view bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

CacheTrace::CacheTrace(std::filesystem::path dir, std::string session_id, std::string session_key, std::string run_id,
                       int64_t max_file_bytes)
    : file_(dir / (session_id + ".jsonl")),
      session_key_(std::move(session_key)),
      run_id_(std::move(run_id)),
      max_bytes_(max_file_bytes) {}

void CacheTrace::record(const llm::Context& context, const llm::HttpRequest& request, const llm::ModelSpec& model,
                        int64_t now_ms) {
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (!loaded_previous_) {  // the session's previous call, from the last line of the file
    loaded_previous_ = true;
    std::ifstream in(file_);
    std::string line, last;
    while (std::getline(in, line)) {
      if (!line.empty()) last = line;
    }
    json prev = json::parse(last, nullptr, false);
    if (prev.is_object() && prev.contains("stages")) {
      const json& st = prev["stages"];
      for (const auto& d : st["messages"].value("digests", json::array())) previous_messages_.push_back(d);
      previous_system_ = st["prompt"].value("systemDigest", "");
      previous_tools_ = st["prompt"].value("toolsDigest", "");
    }
  }
  const bool first = previous_system_.empty() && previous_messages_.empty();
  json digests = json::array();
  std::vector<std::string> now;
  for (const auto& m : context.messages) now.push_back(fnv1a_hex(llm::to_json(m).dump()));
  for (const auto& d : now) digests.push_back(d);
  json tools = json::array();
  for (const auto& t : context.tools) tools.push_back({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters()}});
  const std::string tools_text = tools.dump();
  const std::string system_digest = fnv1a_hex(context.system_prompt), tools_digest = fnv1a_hex(tools_text);
  int64_t first_changed = -1;
  if (!first) {
    std::size_t i = 0;
    while (i < now.size() && i < previous_messages_.size() && now[i] == previous_messages_[i]) ++i;
    first_changed = static_cast<int64_t>(i);
  }
  json rec = {{"ts", now_ms},
              {"runId", run_id_},
              {"sessionKey", session_key_},
              {"provider", model.provider},
              {"model", model.id},
              {"api", model.api},
              {"call", ++calls_},
              {"stages",
               {{"prompt",
                 {{"systemChars", context.system_prompt.size()},
                  {"systemDigest", system_digest},
                  {"tools", context.tools.size()},
                  {"toolsDigest", tools_digest}}},
                {"messages", {{"count", now.size()}, {"digests", digests}}},
                {"request", {{"bytes", request.body.size()}, {"digest", fnv1a_hex(request.body)}}}}},
              {"firstChangedMessage", first_changed},
              {"systemChanged", !first && system_digest != previous_system_},
              {"toolsChanged", !first && tools_digest != previous_tools_}};
  previous_messages_ = std::move(now);
  previous_system_ = system_digest;
  previous_tools_ = tools_digest;
  const std::string line = rec.dump() + "\n";
  if (auto size = std::filesystem::file_size(file_, ec); !ec && static_cast<int64_t>(size + line.size()) > max_bytes_) {
    auto old = file_;
    old += ".1";
    std::filesystem::rename(file_, old, ec);
  }
  std::ofstream out(file_, std::ios::app | std::ios::binary);
  out << line;
  if (!out) spdlog::warn("cache trace: cannot write {}", file_.string());
}

std::function<void(const llm::ModelSpec&, const llm::Context&, const llm::HttpRequest&)> make_cache_trace_hook(
    const json& config, const std::filesystem::path& state_dir, const std::string& session_id,
    const std::string& session_key, const std::string& run_id, const Clock& clock) {
  const json trace = config.is_object() && config.contains("diagnostics") && config["diagnostics"].is_object()
                         ? config["diagnostics"].value("cacheTrace", json::object())
                         : json::object();
  if (!trace.is_object() || !trace.value("enabled", false)) return {};
  auto t = std::make_shared<CacheTrace>(state_dir / "cache-trace", session_id, session_key, run_id,
                                        trace.value("maxFileBytes", int64_t{4194304}));
  return [t, &clock](const llm::ModelSpec& model, const llm::Context& context, const llm::HttpRequest& request) {
    t->record(context, request, model, clock.wall_ms());
  };
}

}  // namespace pincer::agent
