#include "memory/dreaming/explain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "automation/cron_expr.h"
#include "automation/schedule.h"
#include "memory/dreaming/recall_store.h"
#include "memory/dreaming/snippet_rules.h"
#include "memory/dreaming/sweep.h"

namespace pincer::memory::dreaming {

using nlohmann::json;
namespace fs = std::filesystem;

namespace detail_dreaming_explain {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string num3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

/// A gate's number: counts as integers, the score with three decimals.
std::string gate_num(const std::string& gate, double v) {
  return gate == "score" ? num3(v) : std::to_string(static_cast<long long>(v));
}

json candidate_json(const Candidate& c) {
  return {{"key", c.entry.key}, {"path", c.entry.path}, {"startLine", c.entry.start_line},
          {"endLine", c.entry.end_line}, {"snippet", c.entry.snippet}, {"score", c.score.score},
          {"recallCount", c.entry.recall_count}, {"uniqueQueries", c.unique_queries}, {"passes", c.passes}};
}

}  // namespace detail_dreaming_explain

Result<json> promotion_preview(const fs::path& workspace, const DreamingSettings& s, int64_t now_ms, int limit,
                               bool include_failing) {
  auto store = load_recall_store(workspace);
  if (!store) return store.error();
  auto phases = load_phase_store(workspace);
  if (!phases) return phases.error();
  json out = json::array();
  for (const auto& c : rank_candidates(*store, *phases, s, now_ms, include_failing)) {
    if (limit > 0 && static_cast<int>(out.size()) >= limit) break;
    out.push_back(detail_dreaming_explain::candidate_json(c));
  }
  return json{{"candidates", out}, {"storePath", recall_store_path(workspace).string()}};
}

Result<json> explain_promotion(const fs::path& workspace, const DreamingSettings& s, int64_t now_ms,
                               const std::string& text) {
  auto store = load_recall_store(workspace);
  if (!store) return store.error();
  auto phases = load_phase_store(workspace);
  if (!phases) return phases.error();
  const std::string needle = detail_dreaming_explain::lower(normalize_snippet(text));
  json matches = json::array();
  for (const auto& [key, e] : store->entries) {
    if (!needle.empty() && detail_dreaming_explain::lower(e.snippet).find(needle) == std::string::npos &&
        detail_dreaming_explain::lower(e.path).find(needle) == std::string::npos &&
        detail_dreaming_explain::lower(key).find(needle) == std::string::npos) {
      continue;
    }
    // Score it as if not promoted yet, so a promoted entry still shows its numbers.
    RecallStore one;
    one.entries[key] = e;
    one.entries[key].promoted_at.clear();
    const auto ranked = rank_candidates(one, *phases, s, now_ms, true);
    json m = {{"key", key}, {"path", e.path}, {"startLine", e.start_line}, {"endLine", e.end_line},
              {"snippet", e.snippet}, {"recallCount", e.recall_count}, {"uniqueQueries", e.query_hashes.size()},
              {"recallDays", e.recall_days}, {"conceptTags", e.concept_tags}};
    json reasons = json::array();
    const bool untrusted = is_untrusted_snippet(e.snippet);
    const bool short_term = is_short_term_path(e.path);
    std::error_code ec;
    const bool present = fs::is_regular_file(workspace / e.path, ec);
    m["untrusted"] = untrusted;
    m["sourcePresent"] = present;
    bool would = !ranked.empty() && ranked.front().passes;
    if (!ranked.empty()) {
      const auto& c = ranked.front();
      m["score"] = c.score.score;
      m["components"] = {{"frequency", c.score.frequency}, {"relevance", c.score.relevance},
                         {"diversity", c.score.diversity}, {"recency", c.score.recency},
                         {"consolidation", c.score.consolidation}, {"conceptual", c.score.conceptual},
                         {"lightBoost", c.score.light_boost}, {"remBoost", c.score.rem_boost}};
      json gates = json::array();
      for (const auto& g : c.gates) {
        gates.push_back({{"name", g.name}, {"value", g.value}, {"threshold", g.threshold}, {"passed", g.passed}});
        if (!g.passed) {
          reasons.push_back(g.name + " " + detail_dreaming_explain::gate_num(g.name, g.value) + " is below " +
                            detail_dreaming_explain::gate_num(g.name, g.threshold));
        }
      }
      m["gates"] = gates;
    } else {
      m["gates"] = json::array();
      if (untrusted) reasons.push_back("its text is marked untrusted: never promoted");
      else if (!short_term) reasons.push_back("it is not a daily note (memory/YYYY-MM-DD.md)");
      else reasons.push_back("its text cannot be promoted (empty, a heading or dreaming's own output)");
    }
    if (!e.promoted_at.empty()) {
      m["promotedAt"] = e.promoted_at;
      reasons.push_back("already promoted at " + e.promoted_at);
      would = false;
    }
    if (!present) {
      reasons.push_back("the daily note " + e.path + " is gone: the candidate is withdrawn");
      would = false;
    }
    m["wouldPromote"] = would;
    m["reasons"] = reasons;
    matches.push_back(std::move(m));
  }
  return json{{"query", text}, {"matches", matches}};
}

std::string format_explanation(const json& x) {
  using detail_dreaming_explain::num3;
  const auto& matches = x.at("matches");
  if (matches.empty()) return "No recall entry matches \"" + x.value("query", "") + "\".\n";
  std::string out;
  for (const auto& m : matches) {
    out += m.value("path", "") + "#L" + std::to_string(m.value("startLine", 0)) + "-L" +
           std::to_string(m.value("endLine", 0)) + ": " + m.value("snippet", "") + "\n";
    out += m.value("wouldPromote", false) ? "  would be promoted\n" : "  would NOT be promoted\n";
    if (m.contains("score")) {
      out += "  score " + num3(m["score"].get<double>()) + " =";
      const auto& c = m["components"];
      out += " 0.24×frequency " + num3(c.value("frequency", 0.0)) + " + 0.30×relevance " + num3(c.value("relevance", 0.0)) +
             " + 0.15×diversity " + num3(c.value("diversity", 0.0)) + " + 0.15×recency " + num3(c.value("recency", 0.0)) +
             " + 0.10×consolidation " + num3(c.value("consolidation", 0.0)) + " + 0.06×conceptual " +
             num3(c.value("conceptual", 0.0)) + " + light " + num3(c.value("lightBoost", 0.0)) + " + REM " +
             num3(c.value("remBoost", 0.0)) + "\n";
    }
    for (const auto& g : m["gates"]) {
      const std::string name = g.value("name", "");
      out += std::string("  [") + (g.value("passed", false) ? "pass" : "FAIL") + "] " + name + " " +
             detail_dreaming_explain::gate_num(name, g.value("value", 0.0)) + " (needs >= " +
             detail_dreaming_explain::gate_num(name, g.value("threshold", 0.0)) + ")\n";
    }
    for (const auto& r : m["reasons"]) out += "  - " + r.get<std::string>() + "\n";
  }
  return out;
}

json dreaming_status(const fs::path& workspace, const DreamingSettings& s, bool cron_enabled, int64_t now_ms) {
  json out = dreaming_schedule(s, cron_enabled, now_ms);
  out["storePath"] = recall_store_path(workspace).string();
  if (auto store = load_recall_store(workspace)) {
    int promoted = 0;
    for (const auto& [k, e] : store->entries) promoted += e.promoted_at.empty() ? 0 : 1;
    out["entries"] = store->entries.size();
    out["promoted"] = promoted;
  } else {
    out["storeError"] = store.error().message;
  }
  return out;
}

json dreaming_schedule(const DreamingSettings& s, bool cron_enabled, int64_t now_ms) {
  json out = {{"enabled", s.enabled}, {"frequency", s.frequency}, {"timezone", s.timezone}, {"nonDurable", s.non_durable}};
  if (!s.enabled) {
    out["noSweepReason"] = std::string(kDreamingConfigPath) + ".enabled is false";
  } else if (!cron_enabled) {
    out["noSweepReason"] = "cron.enabled is false (the managed sweep job never runs on its schedule)";
  } else if (auto expr = automation::parse_cron_expr(s.frequency); !expr) {
    out["noSweepReason"] = std::string(kDreamingConfigPath) + ".frequency: " + expr.error().message;
  } else if (auto next = automation::cron_next_after(*expr, s.timezone, now_ms)) {
    out["nextSweepAtMs"] = *next;
    out["nextSweepAt"] = iso_utc(*next);
  } else {
    out["noSweepReason"] = "the frequency \"" + s.frequency + "\" never matches";
  }
  return out;
}

}  // namespace pincer::memory::dreaming
