// The per-page lists of OpenClaw features Pincer does not have, answered in OpenClaw's result
// shapes with nothing in them, so that the Control UI's pages load and show "none" instead of an
// error (docs/compatibility.md lists each as "empty"; tests/compat/protocol-conformance.test.mjs
// checks each against OpenClaw's result schema):
//
//   talk.catalog           {modes, transports, brains: [], speech|transcription|realtime: {providers: []}}  (no voice)
//   environments.list      {environments: []}                   (no remote worker environments)
//   transcripts.list       {sessions: [], nextCursor: null}     (no meeting transcripts)
//   plugins.catalog.browse {items: []}                          (no plugins, no ClawHub catalog)
//   skills.search          {results: []}                        (no skill registry to search)
//   skills.proposals.list  {schema, updatedAt, proposals: [], installedSkills: []}  (no skill workshop)
//   worktrees.list         {worktrees: []}                      (no managed git worktrees)
//   node.list              {ts, nodes: []}                      (no node runtime: node devices pair, nothing runs on them)
//   usage.status           {updatedAt, providers: []}           (no provider quota windows are tracked: OpenClaw's
//                                                                answer when no provider reports usage)
//
// Params are checked only for their type (an object or absent). Loop thread.
#include <ctime>

#include "gateway/gateway.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace absent_feature_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

std::optional<RpcError> object_params(const MethodContext& ctx) {
  const json& p = ctx.request.params;
  if (!p.is_null() && !p.is_object()) return invalid_params(ctx.request.method, "must be object");
  return std::nullopt;
}

std::string iso_now(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

using Answer = json (*)(MethodContext&);

void add(MethodRegistry& registry, const char* name, Answer answer) {
  registry.add({name, [answer](MethodContext& ctx) -> MethodResult {
                  if (auto e = object_params(ctx)) return *e;
                  return answer(ctx);
                }});
}

}  // namespace absent_feature_methods

void register_absent_feature_methods(MethodRegistry& registry) {
  using namespace absent_feature_methods;
  add(registry, "talk.catalog", [](MethodContext&) {
    const json none = {{"providers", json::array()}};
    return json{{"modes", json::array()}, {"transports", json::array()}, {"brains", json::array()},
                {"speech", none}, {"transcription", none}, {"realtime", none}};
  });
  add(registry, "environments.list", [](MethodContext&) { return json{{"environments", json::array()}}; });
  add(registry, "transcripts.list", [](MethodContext&) { return json{{"sessions", json::array()}, {"nextCursor", nullptr}}; });
  add(registry, "plugins.catalog.browse", [](MethodContext&) { return json{{"items", json::array()}}; });
  add(registry, "skills.search", [](MethodContext&) { return json{{"results", json::array()}}; });
  add(registry, "skills.proposals.list", [](MethodContext& ctx) {
    return json{{"schema", "openclaw.skill-workshop.proposals-manifest.v1"},
                {"updatedAt", iso_now(ctx.gateway.clock().wall_ms())},
                {"proposals", json::array()},
                {"installedSkills", json::array()}};
  });
  add(registry, "worktrees.list", [](MethodContext&) { return json{{"worktrees", json::array()}}; });
  add(registry, "node.list", [](MethodContext& ctx) { return json{{"ts", ctx.gateway.clock().wall_ms()}, {"nodes", json::array()}}; });
  add(registry, "usage.status", [](MethodContext& ctx) {
    return json{{"updatedAt", ctx.gateway.clock().wall_ms()}, {"providers", json::array()}};
  });
}

}  // namespace pincer::gateway
