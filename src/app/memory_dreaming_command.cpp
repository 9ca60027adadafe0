#include "app/memory_dreaming_command.h"

#include <iostream>

#include "cli/invoked_command.h"
#include "core/clock.h"
#include "memory/dreaming/backfill.h"
#include "memory/dreaming/explain.h"
#include "memory/dreaming/sweep.h"

namespace pincer::app {

using nlohmann::json;
namespace dreaming = memory::dreaming;

int run_memory_promote(const json& config, const std::vector<DreamingAgent>& agents, bool apply, int limit,
                       bool json_out) {
  const dreaming::DreamingSettings s = dreaming::resolve_dreaming_settings(config);
  const int64_t now = SystemClock::instance().wall_ms();
  json rows = json::array();
  int rc = 0;
  for (const auto& [id, ws] : agents) {
    if (!apply) {
      auto preview = dreaming::promotion_preview(ws, s, now, limit, false);
      if (!preview) {
        std::cerr << "pincer: agent " << id << ": " << preview.error().message << "\n";
        rc = 1;
        continue;
      }
      (*preview)["agentId"] = id;
      rows.push_back(std::move(*preview));
      continue;
    }
    dreaming::SweepOptions o;
    o.now_ms = now;
    o.light_and_rem = false;
    if (limit > 0) o.limit = limit;
    auto r = dreaming::run_sweep(ws, s, o);
    if (!r) {
      std::cerr << "pincer: agent " << id << ": " << r.error().message << "\n";
      rc = 1;
      continue;
    }
    json row = r->to_json();
    row["agentId"] = id;
    rows.push_back(std::move(row));
  }
  if (json_out) {
    std::cout << rows.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return rc;
  }
  for (const auto& row : rows) {
    std::cout << "Agent " << row.value("agentId", "") << ":\n";
    if (!apply) {
      if (row["candidates"].empty()) {
        std::cout << "  no candidate passes every gate yet"
                  << (s.enabled ? ""
                          : std::string(" (dreaming is off, so searches record no recalls: set ") + dreaming::kDreamingConfigPath +
                                ".enabled to true)")
                  << "\n";
      }
      for (const auto& c : row["candidates"]) {
        std::cout << "  " << c.value("path", "") << "#L" << c.value("startLine", 0) << "-L" << c.value("endLine", 0)
                  << " score " << c.value("score", 0.0) << ", " << c.value("recallCount", 0) << " recalls, "
                  << c.value("uniqueQueries", 0) << " queries: " << c.value("snippet", "") << "\n";
      }
      continue;
    }
    const bool nd = row.value("nonDurable", false);
    if (row["promoted"].empty()) {  // nothing written: name no file, say why
      std::size_t passing = 0;
      for (const auto& c : row["candidates"]) passing += c.value("passes", false) ? 1 : 0;
      std::cout << "  nothing promoted: ";
      if (!s.enabled && row["candidates"].empty()) {
        std::cout << "dreaming is off, so searches record no recalls (set " << dreaming::kDreamingConfigPath
                  << ".enabled to true)";
      } else if (row["candidates"].empty()) {
        std::cout << "no recalled snippet is waiting for promotion (recalls are recorded when the agent's memory_search "
                     "finds something in a conversation, not by pincer memory search; a snippet already promoted is "
                     "not promoted again)";
      } else if (passing == 0) {
        std::cout << "none of the " << row["candidates"].size()
                  << " recalled snippets passed every promotion gate (" + cli::invoked_command() +
                      " memory promote-explain TEXT shows why)";
      } else {
        std::cout << passing << " passed every gate but none could be written"
                  << (row.value("timedOut", false) ? " in time" : " (withdrawn below)");
      }
      std::cout << "\n";
    } else {
      std::cout << "  " << (nd ? "would promote " : "promoted ") << row["promoted"].size() << " into "
                << row.value("memoryFile", "") << (nd ? " (nonDurable: the file is left unchanged)" : "") << "\n";
    }
    for (const auto& p : row["promoted"]) {
      std::cout << "  + " << p.value("path", "") << "#L" << p.value("startLine", 0) << "-L" << p.value("endLine", 0)
                << ": " << p.value("snippet", "") << "\n";
    }
    for (const auto& w : row["withdrawn"]) std::cout << "  - withdrawn " << w.value("key", "") << ": " << w.value("reason", "") << "\n";
  }
  if (!apply && !json_out) std::cout << "(preview: nothing written; --apply promotes)\n";
  return rc;
}

int run_memory_promote_explain(const json& config, const std::vector<DreamingAgent>& agents, const std::string& text,
                               bool json_out) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    std::cerr << "pincer: memory promote-explain needs words to look for (a snippet, a path or a key)\n";
    return 2;
  }
  const dreaming::DreamingSettings s = dreaming::resolve_dreaming_settings(config);
  const int64_t now = SystemClock::instance().wall_ms();
  json rows = json::array();
  int rc = 0;
  for (const auto& [id, ws] : agents) {
    auto x = dreaming::explain_promotion(ws, s, now, text);
    if (!x) {
      std::cerr << "pincer: agent " << id << ": " << x.error().message << "\n";
      rc = 1;
      continue;
    }
    (*x)["agentId"] = id;
    if (!json_out) std::cout << "Agent " << id << ":\n" << dreaming::format_explanation(*x);
    rows.push_back(std::move(*x));
  }
  if (json_out) std::cout << (rows.size() == 1 ? rows[0] : rows).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  return rc;
}

int run_memory_rem_backfill(const json& config, const std::vector<DreamingAgent>& agents, const std::string& path,
                            bool stage_short_term, bool rollback, bool rollback_short_term, bool json_out) {
  (void)config;
  const bool undo = rollback || rollback_short_term;
  if (undo && (!path.empty() || stage_short_term)) {
    std::cerr << "pincer: memory rem-backfill: --rollback/--rollback-short-term cannot be combined with --path or "
                 "--stage-short-term\n";
    return 2;
  }
  if (!undo && path.empty()) {
    std::cerr << "pincer: memory rem-backfill needs --path <file-or-folder> (or --rollback)\n";
    return 2;
  }
  json rows = json::array();
  int rc = 0;
  for (const auto& [id, ws] : agents) {
    json row;
    if (undo) {
      auto r = dreaming::rem_backfill_rollback(ws, rollback, rollback_short_term);
      if (!r) {
        std::cerr << "pincer: agent " << id << ": " << r.error().message << "\n";
        rc = 1;
        continue;
      }
      row = {{"agentId", id}, {"rollback", rollback}, {"rollbackShortTerm", rollback_short_term},
             {"removedEntries", r->removed_diary_blocks}, {"removedShortTermEntries", r->removed_recalls}};
      if (!json_out) {
        std::cout << "Agent " << id << ": removed " << r->removed_diary_blocks << " backfill diary block(s), "
                  << r->removed_recalls << " grounded recall entr" << (r->removed_recalls == 1 ? "y" : "ies") << "\n";
      }
    } else {
      auto r = dreaming::rem_backfill(ws, path, stage_short_term, SystemClock::instance().wall_ms());
      if (!r) {
        std::cerr << "pincer: agent " << id << ": " << r.error().message << "\n";
        rc = 1;
        continue;
      }
      row = r->to_json();
      row["agentId"] = id;
      if (!json_out) {
        std::cout << "Agent " << id << ": " << r->source_files.size() << " note(s) read; " << r->written
                  << " diary block(s) written to " << r->dreams_path.string() << " (" << r->replaced << " replaced)";
        if (stage_short_term) std::cout << "; " << r->staged << " grounded recall(s) staged";
        std::cout << "\n";
        for (const auto& f : r->not_staged) std::cout << "  not staged (outside the workspace's memory/ folder): " << f << "\n";
      }
    }
    rows.push_back(std::move(row));
  }
  if (json_out) std::cout << (rows.size() == 1 ? rows[0] : rows).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  return rc;
}

json dreaming_status_json(const json& config, const std::filesystem::path& workspace) {
  bool cron_enabled = true;
  if (auto c = config.find("cron"); c != config.end() && c->is_object()) {
    if (auto e = c->find("enabled"); e != c->end() && e->is_boolean()) cron_enabled = e->get<bool>();
  }
  return dreaming::dreaming_status(workspace, dreaming::resolve_dreaming_settings(config), cron_enabled,
                                   SystemClock::instance().wall_ms());
}

std::string dreaming_status_text(const json& st) {
  std::string out = "  dreaming: ";
  out += st.value("enabled", false) ? "on" : "off";
  if (st.value("nonDurable", false)) out += " (non-durable)";
  if (st.contains("nextSweepAt")) out += "; next sweep " + st.value("nextSweepAt", "") + " (" + st.value("frequency", "") + ", " + st.value("timezone", "") + ")";
  if (st.contains("noSweepReason")) out += "; no sweep scheduled: " + st.value("noSweepReason", "");
  out += "\n  recall store: " + std::to_string(st.value("entries", 0)) + " entries, " +
         std::to_string(st.value("promoted", 0)) + " promoted (" + st.value("storePath", "") + ")";
  if (st.contains("storeError")) out += "; " + st.value("storeError", "");
  return out + "\n";
}

}  // namespace pincer::app
