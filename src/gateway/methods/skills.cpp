// skills.status {agentId?} (SK-1..4): OpenClaw's report of the skills an agent sees — each with
// source, eligibility, requirements and what is missing — plus Pincer's reasons, safety findings,
// candidate/trusted status, usage counts and the SKILL.md files that did not load (`problems`).
// Reads the skill folders on the loop (a few dozen small files).
#include "agent/agent_skills.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace {

MethodResult skills_status(MethodContext& ctx) {
  Params p("skills.status", ctx.request.params);
  if (auto e = p.only({"agentId"})) return *e;
  std::string agent_id;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  const auto& settings = ctx.gateway.settings();
  auto view = agent::load_skills_view(settings.config, settings.state_dir, agent_id);
  if (!view) return RpcError::invalid(view.error().message);
  return agent::skills_status_json(*view);
}

}  // namespace

void register_skill_methods(MethodRegistry& registry) { registry.add({"skills.status", skills_status}); }

}  // namespace pincer::gateway
