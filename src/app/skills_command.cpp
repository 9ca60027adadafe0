// `pincer skills list|info NAME|check|stats [--agent ID] [--json]` (SK-1..4), read from the files
// (no gateway needed): the skills an agent sees in the four locations, which are available and why
// the others are not, the SKILL.md files that did not load (file:line: what), safety findings, and
// per-skill usage with the candidate/trusted state of agent-written skills.
// Exit codes: 0; 1 `check` found a problem (a file that did not load or a blocked skill) or
// `info` names no skill; 2 invalid configuration or an unknown agent.
#include <cstdio>
#include <iostream>

#include "agent/agent_skills.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/invoked_command.h"
#include "core/config.h"
#include "core/paths.h"

namespace pincer::app {
namespace {

using nlohmann::json;

struct SkillsArgs {
  std::string agent;
  std::string name;
  bool json = false;
  bool eligible = false;
};

Result<agent::SkillsView> view_for(const std::string& agent_id) { return agent::load_skills_view_from_disk(agent_id); }

std::string state_word(const json& s) {
  if (s.value("blocked", false)) return "blocked";
  if (s.value("eligible", false)) return "available";
  return "unavailable";
}

int list(const SkillsArgs& a) {
  auto view = view_for(a.agent);
  if (!view) return fail(2, view.error().message);
  json status = agent::skills_status_json(*view);
  if (a.eligible) {
    json kept = json::array();
    for (auto& s : status["skills"]) {
      if (s.value("eligible", false)) kept.push_back(s);
    }
    status["skills"] = kept;
  }
  if (a.json) {
    print_json(status);
    return 0;
  }
  std::cout << "Skills of agent " << view->agent_id << " (" << status["skills"].size() << "):\n";
  for (const auto& s : status["skills"]) {
    std::string line = "  " + s.value("name", "") + "  [" + s.value("location", "") + "] " + state_word(s);
    if (!s.value("status", "").empty()) line += " (" + s.value("status", "") + ")";
    if (!s.value("eligible", false) && !s["reasons"].empty()) line += ": " + s["reasons"][0].get<std::string>();
    std::cout << line << "\n";
  }
  for (const auto& p : status["problems"]) {
    std::cout << "  not loaded: " << p.value("file", "") << ":" << p.value("line", 0) << ": " << p.value("message", "") << "\n";
  }
  return 0;
}

int info(const SkillsArgs& a) {
  auto view = view_for(a.agent);
  if (!view) return fail(2, view.error().message);
  json status = agent::skills_status_json(*view);
  for (const auto& s : status["skills"]) {
    if (s.value("name", "") != a.name) continue;
    if (a.json) {
      print_json(s);
      return 0;
    }
    std::cout << s.value("name", "") << ": " << s.value("description", "") << "\n"
              << "  file: " << s.value("filePath", "") << " [" << s.value("location", "") << "]\n"
              << "  state: " << state_word(s) << (s.value("status", "").empty() ? "" : " (" + s.value("status", "") + ")") << "\n";
    for (const auto& r : s["reasons"]) std::cout << "  - " << r.get<std::string>() << "\n";
    const auto& req = s["requirements"];
    for (const char* k : {"bins", "anyBins", "env", "config", "os"}) {
      if (!req[k].empty()) std::cout << "  requires " << k << ": " << req[k].dump() << "\n";
    }
    for (const auto& sh : s["shadowed"]) std::cout << "  shadows " << sh.get<std::string>() << "\n";
    if (s.contains("uses")) {
      std::cout << "  uses " << s.value("uses", 0) << ", successes " << s.value("successes", 0) << ", failures "
                << s.value("failures", 0) << "\n";
    }
    return 0;
  }
  return fail(1, "no skill named \"" + a.name + "\" for agent " + view->agent_id + " (" + cli::invoked_command() + " skills list)");
}

int check(const SkillsArgs& a) {
  auto view = view_for(a.agent);
  if (!view) return fail(2, view.error().message);
  json status = agent::skills_status_json(*view);
  std::size_t available = 0, unavailable = 0, blocked = 0;
  json blocked_list = json::array(), unavailable_list = json::array();
  for (const auto& s : status["skills"]) {
    if (s.value("blocked", false)) {
      ++blocked;
      blocked_list.push_back({{"name", s["name"]}, {"findings", s["findings"]}});
    } else if (s.value("eligible", false)) {
      ++available;
    } else {
      ++unavailable;
      unavailable_list.push_back({{"name", s["name"]}, {"reasons", s["reasons"]}});
    }
  }
  const bool bad = blocked > 0 || !status["problems"].empty();
  if (a.json) {
    print_json({{"agentId", view->agent_id}, {"available", available}, {"unavailable", unavailable_list},
                {"blocked", blocked_list}, {"problems", status["problems"]}});
    return bad ? 1 : 0;
  }
  std::cout << "agent " << view->agent_id << ": " << available << " available, " << unavailable << " unavailable, "
            << blocked << " blocked, " << status["problems"].size() << " not loaded\n";
  for (const auto& u : unavailable_list) {
    std::string reasons;
    for (const auto& r : u["reasons"]) reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    std::cout << "  unavailable " << u["name"].get<std::string>() << ": " << reasons << "\n";
  }
  for (const auto& b : blocked_list) {
    for (const auto& f : b["findings"]) {
      std::cout << "  BLOCKED " << b["name"].get<std::string>() << ": " << f.value("file", "") << ":" << f.value("line", 0)
                << ": " << f.value("rule", "") << ": " << f.value("excerpt", "") << "\n";
    }
  }
  for (const auto& p : status["problems"]) {
    std::cout << "  NOT LOADED " << p.value("file", "") << ":" << p.value("line", 0) << ": " << p.value("message", "") << "\n";
  }
  return bad ? 1 : 0;
}

int stats(const SkillsArgs& a) {
  const auto state = paths::state_dir(config::process_env());
  auto usage = skills::read_usage(state);
  if (!usage) return fail(1, usage.error().message);
  json rows = json::array();
  for (const auto& u : *usage) {
    rows.push_back({{"name", u.name}, {"file", u.file}, {"origin", u.origin}, {"status", u.status}, {"uses", u.uses},
                    {"successes", u.successes}, {"failures", u.failures}, {"successesSinceChange", u.since_change},
                    {"lastUsedAt", u.last_used_at}});
  }
  if (a.json) {
    print_json({{"skills", rows}});
    return 0;
  }
  if (rows.empty()) {
    std::cout << "No skill has been used or written by an agent yet.\n";
    return 0;
  }
  std::cout << "skill                          uses  ok  failed  status\n";
  for (const auto& r : rows) {
    std::string name = r["name"].get<std::string>();
    if (name.size() < 30) name.resize(30, ' ');
    std::printf("%s %5lld %3lld %7lld  %s\n", name.c_str(), static_cast<long long>(r["uses"].get<std::int64_t>()),
                static_cast<long long>(r["successes"].get<std::int64_t>()),
                static_cast<long long>(r["failures"].get<std::int64_t>()),
                r["status"].get<std::string>().empty() ? "-" : r["status"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace

void register_skills_commands(CLI::App& app, Action& action) {
  auto* skills = app.add_subcommand("skills", "Skills (SKILL.md): list, info, check, stats");
  skills->require_subcommand(1);
  auto args = std::make_shared<SkillsArgs>();
  auto common = [&](CLI::App* sub) {
    sub->add_option("--agent", args->agent, "Agent id (default: the default agent)");
    sub->add_flag("--json", args->json, "Print JSON");
  };
  auto* l = skills->add_subcommand("list", "Every skill the agent sees, available or not (and why)");
  common(l);
  l->add_flag("--eligible", args->eligible, "Only the available ones");
  on_parsed(l, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return list(*args);
  });
  auto* i = skills->add_subcommand("info", "One skill: file, location, requirements, state, usage");
  common(i);
  i->add_option("name", args->name, "Skill name")->required();
  on_parsed(i, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return info(*args);
  });
  auto* c = skills->add_subcommand("check", "Unavailable and blocked skills and files that did not load (exit 1 when any is blocked or broken)");
  common(c);
  on_parsed(c, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return check(*args);
  });
  auto* s = skills->add_subcommand("stats", "Uses, successes and failures per skill; candidate/trusted");
  s->add_flag("--json", args->json, "Print JSON");
  on_parsed(s, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return stats(*args);
  });
}

}  // namespace pincer::app
