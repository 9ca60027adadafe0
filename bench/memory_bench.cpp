// The memory benchmark's in-process side (bench/memory_bench.sh; issue 13 item 9): Pincer's
// memory index on the corpus of bench/memory_corpus.mjs — index time and RSS, then search
// latency p50/p99, keyword-only and hybrid (chunk vectors cached, each query embedded by the mock
// LLM over HTTP, as a real search does). Not part of the test suite; nothing is asserted.
//
//   memory_bench --workspace W --state S --queries Q.json --embed-url http://127.0.0.1:P/v1 --json out.json
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memory/memory_index.h"

using nlohmann::json;
namespace fs = std::filesystem;
using pincer::memory::MemoryIndex;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// VmRSS / VmHWM of this process, KiB.
long proc_status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size() + 1));
  }
  return -1;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

json run_side(const std::string& label, const json& config, const fs::path& ws, const fs::path& state,
              const std::vector<std::string>& queries) {
  json out = {{"label", label}};
  auto settings = pincer::memory::resolve_memory_settings(config, "main", ws, state, {});
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(settings.store_path.string() + suffix, ec);
  const double t0 = now_ms();
  auto idx = MemoryIndex::open(settings, ws, "main");
  if (!idx) throw std::runtime_error(idx.error().message);
  auto sync = (*idx)->sync(true);
  if (!sync) throw std::runtime_error(sync.error().message);
  const double t_sync = now_ms();
  int embedded = 0;
  if (settings.has_embeddings()) {
    auto e = (*idx)->embed_pending();
    if (!e) throw std::runtime_error("embeddings: " + e.error().message);
    embedded = *e;
  }
  const double t1 = now_ms();
  out["files"] = sync->files;
  out["chunks"] = sync->chunks;
  out["embedded"] = embedded;
  out["indexMs"] = t1 - t0;
  out["chunkMs"] = t_sync - t0;
  out["embedMs"] = t1 - t_sync;
  out["rssAfterIndexKiB"] = proc_status_kib("VmRSS");
  // The first search pays for loading the vectors (what a gateway's first search after start pays);
  // then 4 more warm-up searches, then every query once.
  const double f0 = now_ms();
  (void)(*idx)->search(queries.at(0), std::nullopt, std::nullopt);
  out["firstSearchMs"] = now_ms() - f0;
  for (std::size_t i = 1; i < std::min<std::size_t>(5, queries.size()); ++i) (void)(*idx)->search(queries[i], std::nullopt, std::nullopt);
  std::vector<double> lat;
  int hits = 0, partial = 0;
  std::string mode;
  for (const auto& q : queries) {
    const double a = now_ms();
    auto r = (*idx)->search(q, std::nullopt, std::nullopt);
    lat.push_back(now_ms() - a);
    if (!r) throw std::runtime_error("search: " + r.error().message);
    hits += r->results.empty() ? 0 : 1;
    partial += r->partial ? 1 : 0;
    mode = r->mode;
  }
  out["queries"] = queries.size();
  out["queriesWithHits"] = hits;
  out["partial"] = partial;
  out["mode"] = mode;
  out["searchP50Ms"] = percentile(lat, 0.50);
  out["searchP99Ms"] = percentile(lat, 0.99);
  out["searchMaxMs"] = percentile(lat, 1.0);
  out["rssAfterSearchKiB"] = proc_status_kib("VmRSS");
  out["peakRssKiB"] = proc_status_kib("VmHWM");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ws, state, queries_file, embed_url, json_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--workspace") ws = v;
    else if (k == "--state") state = v;
    else if (k == "--queries") queries_file = v;
    else if (k == "--embed-url") embed_url = v;
    else if (k == "--json") json_out = v;
    else {
      std::cerr << "memory_bench: unknown option " << k << "\n";
      return 2;
    }
  }
  if (ws.empty() || state.empty() || queries_file.empty()) {
    std::cerr << "usage: memory_bench --workspace W --state S --queries Q.json [--embed-url URL] [--json out]\n";
    return 2;
  }
  std::ifstream qin(queries_file);
  const std::vector<std::string> queries = json::parse(qin).get<std::vector<std::string>>();
  json result = {{"rssStartKiB", proc_status_kib("VmRSS")}};
  try {
    json keyword = {{"memory", {{"search", {{"provider", "none"}, {"store", {{"path", (fs::path(state) / "keyword.sqlite").string()}}}}}}}};
    result["keyword"] = run_side("keyword", keyword, ws, state, queries);
    if (!embed_url.empty()) {
      json hybrid = {{"memory",
                      {{"search",
                        {{"provider", "openai-compatible"},
                         {"model", "text-embedding-3-small"},
                         {"remote", {{"baseUrl", embed_url}, {"apiKey", "mock-local"}}},
                         {"store", {{"path", (fs::path(state) / "hybrid.sqlite").string()}}}}}}}};
      result["hybrid"] = run_side("hybrid", hybrid, ws, state, queries);
    }
  } catch (const std::exception& e) {
    std::cerr << "memory_bench: " << e.what() << "\n";
    return 1;
  }
  const std::string text = result.dump(2);
  if (!json_out.empty()) std::ofstream(json_out) << text << "\n";
  std::cout << text << "\n";
  return 0;
}
