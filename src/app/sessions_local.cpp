#include "app/sessions_local.h"

#include <algorithm>
#include <iostream>

#include "agent/memory_flush.h"
#include "core/clock.h"
#include "store/session_index.h"
#include "store/session_keys.h"
#include "store/session_recovery.h"
#include "store/transcript.h"

namespace pincer::app {

using nlohmann::json;

json local_sessions_list(const std::filesystem::path& state_dir, int limit, int64_t now_ms) {
  json rows = json::array();
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator(state_dir / "agents", ec)) {
    const std::string agent_id = dir.path().filename().string();
    const auto file = store::session_index_path(state_dir, agent_id);
    if (!std::filesystem::exists(file, ec)) continue;
    store::SessionIndex index(file, SystemClock::instance());
    if (auto st = index.load(); !st) {
      // Damaged: list what its transcripts hold (the gateway rebuilds the file at its next use).
      const auto found = store::sessions_from_transcripts(file.parent_path(), agent_id);
      std::cerr << "pincer: " << file.string() << " is damaged (" << st.error().message << "); listing the "
                << found.size() << " session(s) found in its transcripts (the gateway rebuilds the index at its "
                << "next use of agent " << agent_id << ")\n";
      for (const auto& session : found) {
        json row = {{"sessionId", session.session_id}, {"updatedAt", session.updated_at}};
        row["key"] = session.key;
        row["agentId"] = agent_id;
        rows.push_back(std::move(row));
      }
      continue;
    }
    for (const auto& listing : index.list()) {
      json row = listing.entry.json();
      row["key"] = listing.key;
      row["agentId"] = agent_id;
      rows.push_back(std::move(row));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
    return a.value("updatedAt", int64_t{0}) > b.value("updatedAt", int64_t{0});
  });
  const std::size_t total = rows.size();
  if (limit > 0 && rows.size() > static_cast<std::size_t>(limit)) rows.erase(rows.begin() + limit, rows.end());
  return json{{"ts", now_ms}, {"count", rows.size()}, {"totalCount", total}, {"sessions", rows}};
}

Result<json> local_session_history(const std::filesystem::path& state_dir, const std::string& default_agent,
                                   const std::string& key, int limit) {
  const std::string canonical = store::to_agent_store_session_key(default_agent, key);
  const std::string agent_id = store::agent_id_from_session_key(canonical);
  json out = {{"sessionKey", canonical}, {"messages", json::array()}, {"thinkingLevel", "off"}};
  store::SessionIndex index(store::session_index_path(state_dir, agent_id), SystemClock::instance());
  if (auto st = index.load(); !st) return Error{"SESSION_UNAVAILABLE", st.error().message};
  const store::SessionEntry* entry = index.get(canonical);
  if (!entry) return out;
  out["sessionId"] = entry->session_id();
  auto file = store::transcript_path(store::sessions_dir(state_dir, agent_id), entry->session_id());
  std::error_code ec;
  if (!file || !std::filesystem::exists(*file, ec)) return out;
  auto contents = store::read_transcript(*file);
  if (!contents) return Error{"SESSION_UNAVAILABLE", "cannot read session " + canonical + ": " + contents.error().message};
  const store::SessionContext ctx = store::build_context(contents->entries);
  out["thinkingLevel"] = ctx.thinking_level;
  const std::size_t n = ctx.messages.size();
  const std::size_t first = limit > 0 && n > static_cast<std::size_t>(limit) ? n - static_cast<std::size_t>(limit) : 0;
  const std::vector<bool> hidden = agent::hidden_messages(ctx.messages);  // as chat.history (CX-10)
  for (std::size_t i = first; i < n; ++i) {
    if (!hidden[i]) out["messages"].push_back(ctx.messages[i]);
  }
  return out;
}

}  // namespace pincer::app
