// AgentService's `/tree` (SPEC SS-4): listing a session's branches and queueing a switch
// (agent_service.h). The switch itself runs on the session's lane (agent_run_branch.cpp).
#include "agent/agent_service_impl.h"

#include <set>

#include "agent/memory_flush.h"
#include "core/ids.h"
#include "store/session_keys.h"
#include "store/session_tree.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

// "; the ids /tree lists: a1b2c3d4 (…), …": the turns of this branch (the latest ten, as /tree
// shows them) and the other branches' leaves.
std::string valid_tree_ids(const Result<json>& view) {
  if (!view) return "";
  std::vector<std::string> ids;
  const json& turns = (*view)["turns"];
  for (std::size_t i = turns.size() > 10 ? turns.size() - 10 : 0; i < turns.size(); ++i) ids.push_back(turns[i].value("entryId", ""));
  for (const auto& b : (*view)["branches"]) ids.push_back(b.value("leafId", "") + " (a branch)");
  if (ids.empty()) return "";
  std::string out = "; the ids /tree lists: ";
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + ids[i];
  return out;
}

}  // namespace

Result<store::TranscriptContents> AgentService::read_session(const std::string& key) {
  const std::string agent_id = store::agent_id_from_session_key(key);
  const store::SessionEntry* entry = index_for(agent_id).get(key);
  if (!entry) return Error{"SESSION_NOT_FOUND", "this session has no messages yet"};
  auto file = store::transcript_path(store::sessions_dir(state_dir(), agent_id), entry->session_id());
  if (!file) return file.error();
  if (!std::filesystem::exists(*file)) return Error{"SESSION_NOT_FOUND", "this session has no messages yet"};
  return store::read_transcript(*file);
}

Result<json> AgentService::session_tree(const std::string& session_key) {
  const std::string key = canonical_key(session_key);
  auto contents = read_session(key);
  if (!contents) return contents.error();
  const store::TreeView view = store::tree_view(contents->entries);
  json out = {{"sessionKey", key}, {"leafId", view.leaf_id}, {"turns", json::array()}, {"branches", json::array()}};
  std::set<std::string> flush_turns;  // CX-10: a flush turn is not the user's (memory_flush.h)
  for (const auto& e : contents->entries) {
    if (e.type != "message" || !e.raw.contains("message")) continue;
    const json& m = e.raw["message"];
    if (hidden_messages({m}).front() && m.is_object() && m.value("role", "") == "user") flush_turns.insert(e.id);
  }
  for (const auto& t : view.turns) {
    if (!flush_turns.contains(t.entry_id)) out["turns"].push_back({{"entryId", t.entry_id}, {"text", t.text}});
  }
  for (const auto& b : view.branches) {
    out["branches"].push_back({{"leafId", b.leaf_id},
                               {"forkId", b.fork_id},
                               {"messages", b.messages},
                               {"timestamp", b.timestamp},
                               {"text", b.text}});
  }
  return out;
}

Result<SendAccepted> AgentService::switch_branch(const std::string& session_key, const std::string& entry_id,
                                                 RunEventSink sink) {
  if (entry_id.empty()) return Error{"INVALID_REQUEST", "/tree needs the id of an entry (/tree lists them)"};
  // Checked now, so a wrong id is answered at once; planned again on the lane, after the runs
  // queued before it.
  auto contents = read_session(canonical_key(session_key));
  if (!contents) return contents.error();
  if (auto plan = store::plan_branch_switch(contents->entries, entry_id); !plan) {
    Error error = plan.error();
    if (error.code != "NOTHING_TO_DO") error.message += valid_tree_ids(session_tree(session_key));  // what /tree lists
    return error;
  }
  SendRequest request;
  request.session_key = session_key;
  request.run_id = "tree-" + ids::uuid_v4();
  request.branch_to = entry_id;
  request.source = "tree";  // journaled: a switch a restart cut off is carried out after it (SS-6)
  return send(request, sink ? std::move(sink) : [](const RunEvent&) {});
}

}  // namespace pincer::agent
