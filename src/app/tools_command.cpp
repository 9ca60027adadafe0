// `pincer tools explain [--agent ID] [--session KEY] [--owner|--non-owner] [--json]` (SPEC TL-2):
// the tool policy pipeline as a run of that agent/session would get it, from the config file (no
// gateway needed): each tool, allowed or the layer that removed it and why.
#include <iostream>
#include <memory>

#include "agent/agents_config.h"
#include "agent/tool_inventory.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/config_file.h"
#include "core/config.h"
#include "core/paths.h"
#include "tools/approvals/approval_manager.h"
#include "tools/policy/policy_pipeline.h"

namespace pincer::app {
namespace {

struct ExplainOptions {
  std::string agent, session;
  bool owner = false, non_owner = false, subagent = false, as_json = false;
};

int explain(const ExplainOptions& o) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = cli::load_for_local_command(paths::config_file(state), env);  // an unrelated unset secret only warns
  if (!loaded) return fail(2, loaded.error().message);
  const nlohmann::json& cfg = loaded->effective;
  auto agents = agent::resolve_agents(cfg, state, env);
  if (!agents) return fail(2, agents.error().message);

  agent::ToolsQuery query;
  query.agent_id = o.agent;
  query.session_key = o.session;
  if (o.owner) query.sender_is_owner = true;
  if (o.non_owner) query.sender_is_owner = false;
  query.subagent = o.subagent;
  tools::ToolRegistry registry = tools::ToolRegistry::builtin();
  auto explained = agent::explain_tools(registry, cfg, *agents, state, query);  // one rule with tools.effective
  if (!explained) {
    const auto& e = explained.error();
    return fail(2, (e.code == "INVALID_SESSION_KEY" ? "--session: " : "") + e.message);
  }
  const tools::policy::PolicyOrigin& origin = explained->origin;
  const tools::policy::PolicyDecision* decision = &explained->decision;

  const auto settings = tools::approvals::ApprovalSettings::from_config(cfg);
  std::string security = settings.security, ask = settings.ask;
  if (!origin.sender_is_owner) {
    security = settings.non_owner_security == "deny" || security == "deny" ? "deny"
               : settings.non_owner_security == "allowlist" || security == "allowlist" ? "allowlist" : "full";
    ask = settings.non_owner_ask == "always" || ask == "always" ? "always"
          : settings.non_owner_ask == "on-miss" || ask == "on-miss" ? "on-miss" : "off";
  }
  if (o.as_json) {
    nlohmann::json layers = tools::policy::layer_names();
    layers.push_back("memory");  // the memory tools when memory is off (agent/tool_inventory.h)
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& v : decision->verdicts) {
      nlohmann::json row = {{"tool", v.tool}, {"allowed", v.allowed}};
      if (!v.allowed) {
        row["layer"] = v.layer;
        row["reason"] = v.reason;
      }
      rows.push_back(std::move(row));
    }
    return print_json({{"agentId", origin.agent_id}, {"channel", origin.channel}, {"isGroup", origin.is_group},
                       {"senderIsOwner", origin.sender_is_owner}, {"layers", layers},
                       {"tools", rows}, {"exec", {{"security", security}, {"ask", ask}, {"approvals", settings.mode}}}});
  }
  std::cout << "agent " << origin.agent_id << (origin.channel.empty() ? "" : ", " + origin.channel + (origin.is_group ? " group " : " direct ") + origin.group_id)
            << (origin.sender_is_owner ? ", the owner" : ", a sender who is not the owner") << (origin.subagent ? ", subagent lane" : "")
            << "\n\n" << tools::policy::explain_text(*decision) << "\nexec: security " << security << ", ask " << ask
            << ", approvals " << settings.mode << " (the approvals file may tighten this)\n";
  return 0;
}

}  // namespace

void register_tools_commands(CLI::App& app, Action& action) {
  auto* tools = app.add_subcommand("tools", "The tool policy");
  tools->require_subcommand(1);
  auto o = std::make_shared<ExplainOptions>();
  auto* ex = tools->add_subcommand("explain", "Which tools a run gets, and which policy layer removed the others");
  ex->add_option("--agent", o->agent, "Agent id (default: the default agent)");
  ex->add_option("--session", o->session, "Session key, e.g. agent:main:telegram:group:-100123")
      ->check(session_key_check());
  ex->add_flag("--owner", o->owner, "As the owner's run");
  ex->add_flag("--non-owner", o->non_owner, "As the run of a sender who is not the owner");
  ex->add_flag("--subagent", o->subagent, "As a run on the subagent lane");
  ex->add_flag("--json", o->as_json, "Print JSON");
  on_parsed(ex, action, [o] {
    JsonErrors json_errors(o->as_json);  // --json: an error is {"ok": false, "error"} on stdout
    return explain(*o);
  });
}

}  // namespace pincer::app
