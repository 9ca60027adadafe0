// A session's branches for the Control UI's chat page (SS-4 `/tree`, in OpenClaw's shapes):
//
//   sessions.branches.list   {sessionKey, agentId?} → {branches: [{leafEntryId, headline,
//                            messageCount, updatedAt?, active}]}: the active branch first (its
//                            headline the last user message on it, messageCount its user turns),
//                            then the others newest first (headline: their first user message
//                            after the fork, messageCount: messages after the fork). A session
//                            without a transcript has none.
//   sessions.branches.switch {sessionKey, agentId?, leafEntryId} → {}: queues the switch on the
//                            session's lane, as `/tree <id>` (it writes the branch summary); an
//                            unknown id fails that run (its chat events say why).
//
// Reads need operator.read, the switch operator.write. Loop thread.
#include "agent/agent_service.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/run_event_bridge.h"

namespace pincer::gateway {
namespace session_branch_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

MethodResult list(MethodContext& ctx) {
  Params p("sessions.branches.list", ctx.request.params);
  if (auto e = p.only({"sessionKey", "agentId"})) return *e;
  std::string key, agent_id;
  if (auto e = p.string("sessionKey", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto tree = agents->session_tree(agents->canonical_key(key, agent_id));
  if (!tree) {
    if (tree.error().code == "SESSION_NOT_FOUND") return json{{"branches", json::array()}};
    return RpcError::unavailable(tree.error().message);
  }
  json branches = json::array();
  const json& turns = (*tree)["turns"];
  if (!(*tree).value("leafId", "").empty()) {
    const std::string headline = turns.empty() ? "" : turns.back().value("text", "");
    branches.push_back({{"leafEntryId", (*tree)["leafId"]},
                        {"headline", headline.empty() ? "Current branch" : headline},
                        {"messageCount", turns.size()},
                        {"active", true}});
  }
  for (const auto& b : (*tree)["branches"]) {
    json entry = {{"leafEntryId", b.value("leafId", "")},
                  {"headline", b.value("text", "").empty() ? "Branch without a message" : b.value("text", "")},
                  {"messageCount", b.value("messages", 0)},
                  {"active", false}};
    if (!b.value("timestamp", "").empty()) entry["updatedAt"] = b["timestamp"];
    branches.push_back(std::move(entry));
  }
  return json{{"branches", std::move(branches)}};
}

MethodResult switch_to(MethodContext& ctx) {
  Params p("sessions.branches.switch", ctx.request.params);
  if (auto e = p.only({"sessionKey", "agentId", "leafEntryId"})) return *e;
  std::string key, agent_id, leaf;
  if (auto e = p.string("sessionKey", key, true, true)) return *e;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (auto e = p.string("leafEntryId", leaf, true, true)) return *e;
  auto* agents = ctx.gateway.agents();
  if (!agents) return no_runtime();
  auto queued = agents->switch_branch(agents->canonical_key(key, agent_id), leaf, make_run_event_sink(ctx.gateway));
  if (!queued) return RpcError::invalid(queued.error().message);
  return json::object();
}

}  // namespace session_branch_methods

void register_session_branch_methods(MethodRegistry& registry) {
  registry.add({"sessions.branches.list", session_branch_methods::list});
  registry.add({"sessions.branches.switch", session_branch_methods::switch_to});
}

}  // namespace pincer::gateway
