// Agent add/update/delete on the config text (contract in workspace_roster.h). The file name sorts
// last in src/agent on purpose: the unity build batches the folder's files in name order, and a new
// file earlier in the order would move others into batches whose local helpers collide.
#include "agent/workspace_roster.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <system_error>

#include "core/ascii_fold.h"
#include "core/json5.h"
#include "core/json5_edit.h"
#include "store/session_keys.h"
#include "tools/sandbox/sandbox.h"

namespace pincer::agent::admin {
namespace roster_detail {  // named: the unity build joins several files into one unit

namespace fs = std::filesystem;
using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

/// The parsed document of the text, and its agents.
struct Parsed {
  json doc;
  AgentsConfig agents;
  const json* list = nullptr;      ///< agents.list (an array) or nullptr
  const json* bindings = nullptr;  ///< bindings (an array) or nullptr
};

Result<Parsed> parse(const ConfigSource& source) {
  auto doc = json5::parse(source.text);
  if (!doc) return Error{"CONFIG_INVALID", "the config is not valid JSON5: " + doc.error().message};
  Parsed p;
  p.doc = std::move(*doc);
  if (!p.doc.is_object()) return Error{"CONFIG_INVALID", "the config is not an object"};
  if (p.doc.contains("agents") && p.doc["agents"].is_object() && p.doc["agents"].contains("list")) {
    const json& list = p.doc["agents"]["list"];
    if (!list.is_array()) return Error{"CONFIG_INVALID", "agents.list is not a list"};
    p.list = &list;
  }
  if (p.doc.contains("bindings")) {
    if (!p.doc["bindings"].is_array()) return Error{"CONFIG_INVALID", "bindings is not a list"};
    p.bindings = &p.doc["bindings"];
  }
  auto agents = resolve_agents(p.doc, source.state_dir, source.env);
  if (!agents) return agents.error();
  p.agents = std::move(*agents);
  return p;
}

/// Index of the agents.list entry with this id, or nullopt.
std::optional<std::size_t> entry_index(const Parsed& p, std::string_view id) {
  if (p.list == nullptr) return std::nullopt;
  for (std::size_t i = 0; i < p.list->size(); ++i) {
    const json& e = (*p.list)[i];
    if (e.is_object() && e.contains("id") && e["id"].is_string() && trim(e["id"].get<std::string>()) == id) return i;
  }
  return std::nullopt;
}

json5::Path list_path() { return {std::string("agents"), std::string("list")}; }

fs::path weakly(const fs::path& p) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : out.lexically_normal();
}

std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& part : p) {
    if (!part.empty()) out.push_back(part.string());  // a trailing "/" gives an empty part
  }
  return out;
}

/// `inner` is `outer` or lies beneath it, by whole components.
bool lexically_within(const fs::path& inner, const fs::path& outer) {
  const auto i = components(inner), o = components(outer);
  return o.size() <= i.size() && std::equal(o.begin(), o.end(), i.begin());
}

/// The first other agent whose workspace overlaps `workspace`, or nullptr.
const AgentSettings* workspace_owner(const AgentsConfig& agents, const fs::path& workspace, std::string_view except) {
  for (const auto& a : agents.agents) {
    if (a.id != except && paths_overlap(a.workspace, workspace)) return &a;
  }
  return nullptr;
}

/// The workspace of a created or updated agent, checked (workspace_location_problem) and against
/// the other agents' workspaces.
std::optional<Error> workspace_refusal(const AgentsConfig& agents, const AgentSettings& agent, const ConfigSource& source);

Error workspace_in_use(const fs::path& workspace, const AgentSettings& owner) {
  const bool same = weakly(workspace) == weakly(owner.workspace);
  return Error{"WORKSPACE_IN_USE", "workspace " + workspace.string() + (same ? " is" : " overlaps") + " the workspace of agent \"" +
                                       owner.id + "\" (" + owner.workspace.string() +
                                       "); every agent needs its own"};
}

std::optional<Error> workspace_refusal(const AgentsConfig& agents, const AgentSettings& agent, const ConfigSource& source) {
  std::string home;
  if (source.env) home = source.env("HOME").value_or("");
  if (auto problem = workspace_location_problem(agent.workspace, source.state_dir, home)) {
    return Error{"WORKSPACE_FORBIDDEN", *problem};
  }
  if (const AgentSettings* owner = workspace_owner(agents, agent.workspace, agent.id)) return workspace_in_use(agent.workspace, *owner);
  return std::nullopt;
}

/// Binding `b` routes the same channel and account as `want`.
bool same_route(const json& b, const ChannelBinding& want) {
  if (!b.is_object() || !b.contains("match") || !b["match"].is_object()) return false;
  if (b.contains("type") && b["type"] != "route") return false;
  const json& m = b["match"];
  if (m.contains("peer") || m.contains("guildId") || m.contains("teamId")) return false;
  if (!m.contains("channel") || !m["channel"].is_string() || lower(trim(m["channel"].get<std::string>())) != want.channel) return false;
  std::string account = m.contains("accountId") && m["accountId"].is_string() ? trim(m["accountId"].get<std::string>()) : "";
  std::string wanted = want.account_id.value_or("");
  if (account != "*") account = account.empty() ? "default" : store::normalize_account_id(account);
  if (wanted != "*") wanted = wanted.empty() ? "default" : store::normalize_account_id(wanted);
  return account == wanted;
}

std::string binding_agent(const json& b) {
  return b.is_object() && b.contains("agentId") && b["agentId"].is_string() ? trim(b["agentId"].get<std::string>()) : "";
}

Result<AgentSettings> resolved_agent(const std::string& text, const ConfigSource& source, std::string_view id) {
  ConfigSource next = source;
  next.text = text;
  auto p = parse(next);
  if (!p) return p.error();
  const AgentSettings* a = p->agents.find(id);
  if (a == nullptr) return Error{"EDIT_FAILED", "agent \"" + std::string(id) + "\" is missing after the edit"};
  return *a;
}

/// Fields of an object in the order the file should show them (json objects sort their keys).
using Fields = std::vector<std::pair<std::string, json>>;

/// Sets `at` (or `at[index]`) to an object of `fields`, written in that order: the first field
/// makes the object, the others are appended one by one (json5_edit appends after the last member).
Result<std::string> set_in_order(const std::string& text, json5::Path at, std::optional<std::size_t> index, const Fields& fields) {
  if (index) at.emplace_back(*index);
  auto out = json5::set(text, at, json{{fields.front().first, fields.front().second}});
  for (std::size_t i = 1; out && i < fields.size(); ++i) {
    json5::Path key = at;
    key.emplace_back(fields[i].first);
    out = json5::set(*out, key, fields[i].second);
  }
  return out;
}

}  // namespace roster_detail

using namespace roster_detail;

std::optional<std::string> agent_id_problem(std::string_view id) {
  const std::string normalized = store::normalize_agent_id(id);
  if (!id.empty() && normalized == id) return std::nullopt;
  std::string msg = "agent id \"" + std::string(id) +
                    "\" is not valid: use lowercase letters, digits, \"_\" and \"-\" (at most 64, starting with a letter or digit)";
  // The suggestion spells accented letters in ASCII ("émile" → "emile", not "mile").
  const std::string suggested = store::normalize_agent_id(ascii_fold::to_ascii(id));
  if (!trim(id).empty() && suggested != "main") msg += ", e.g. \"" + suggested + "\"";
  return msg;
}

json ChannelBinding::to_json(std::string_view agent_id) const {
  json match = {{"channel", channel}};
  if (account_id) match["accountId"] = *account_id;
  return json{{"agentId", std::string(agent_id)}, {"match", std::move(match)}};
}

std::string ChannelBinding::label() const { return account_id ? channel + ":" + *account_id : channel; }

const std::vector<std::string>& bind_channels() {
  // The channels ChannelManager builds (src/channels/channel_manager.cpp).
  static const std::vector<std::string> kChannels = {"telegram", "discord", "slack", "matrix", "email", "irc", "webhook"};
  return kChannels;
}

Result<ChannelBinding> parse_bind_spec(std::string_view spec) {
  const std::string s = trim(spec);
  const auto colon = s.find(':');
  ChannelBinding b;
  b.channel = lower(trim(s.substr(0, colon)));
  auto bad = [&](const std::string& why) {
    return Error{"INVALID_BIND", "--bind \"" + std::string(spec) + "\": " + why + " (expected channel[:accountId], e.g. telegram, telegram:ops, telegram:*)"};
  };
  if (b.channel.empty()) return bad("no channel");
  for (char c : b.channel) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return bad("the channel is not a channel id");
  }
  const auto& known = bind_channels();
  if (std::find(known.begin(), known.end(), b.channel) == known.end()) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return Error{"INVALID_BIND", "--bind \"" + std::string(spec) + "\": unknown channel \"" + b.channel + "\" (known channels: " + list + ")"};
  }
  if (colon != std::string::npos) {
    const std::string account = trim(s.substr(colon + 1));
    if (account.empty()) return bad("empty account id");
    if (account != "*" && store::normalize_account_id(account) != lower(account)) return bad("the account id is not valid");
    b.account_id = account == "*" ? account : lower(account);
  }
  return b;
}

bool paths_overlap(const fs::path& a, const fs::path& b) {
  const fs::path la = a.lexically_normal(), lb = b.lexically_normal();
  if (lexically_within(la, lb) || lexically_within(lb, la)) return true;
  const fs::path ca = weakly(a), cb = weakly(b);
  return lexically_within(ca, cb) || lexically_within(cb, ca);
}

Result<CreatePlan> plan_create(const ConfigSource& source, const CreateRequest& request) {
  if (auto problem = agent_id_problem(request.id)) return Error{"INVALID_ID", *problem};
  auto p = parse(source);
  if (!p) return p.error();
  if (p->agents.find(request.id) != nullptr) {
    return Error{"AGENT_EXISTS", "agent \"" + request.id + "\" already exists" +
                                     (p->list == nullptr || p->list->empty() ? std::string(" (the implicit default agent)") : "")};
  }
  // The same route twice in one request ("telegram" and "telegram:default" are one route).
  for (std::size_t i = 0; i < request.bindings.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (same_route(request.bindings[j].to_json(request.id), request.bindings[i])) {
        return Error{"DUPLICATE_BIND", "--bind " + request.bindings[i].label() + ": the same route as --bind " + request.bindings[j].label() +
                                           " (give each binding once)"};
      }
    }
  }
  // Bindings another agent holds.
  if (p->bindings != nullptr) {
    for (const auto& want : request.bindings) {
      for (std::size_t i = 0; i < p->bindings->size(); ++i) {
        const json& b = (*p->bindings)[i];
        if (same_route(b, want)) {
          return Error{"BINDING_IN_USE", "--bind " + want.label() + ": bindings[" + std::to_string(i) + "] already routes it to agent \"" +
                                             binding_agent(b) + "\""};
        }
      }
    }
  }
  Fields entry = {{"id", request.id}};
  if (!trim(request.name).empty()) entry.emplace_back("name", trim(request.name));
  if (!trim(request.workspace).empty()) entry.emplace_back("workspace", trim(request.workspace));
  if (!trim(request.model).empty()) entry.emplace_back("model", trim(request.model));

  CreatePlan plan;
  Result<std::string> text = std::string(source.text);
  std::size_t index = p->list == nullptr ? 0 : p->list->size();
  if (index == 0) {
    // Keep the implicit default agent the default: write it first.
    plan.wrote_implicit_main = true;
    text = set_in_order(*text, list_path(), index++, {{"id", p->agents.default_id}, {"default", true}});
    if (!text) return text.error();
  }
  text = set_in_order(*text, list_path(), index, entry);
  if (!text) return text.error();
  std::size_t next = p->bindings == nullptr ? 0 : p->bindings->size();
  const json5::Path bindings_path{std::string("bindings")};
  for (const auto& want : request.bindings) {
    text = set_in_order(*text, bindings_path, next, {{"agentId", request.id}});
    if (!text) return text.error();
    json5::Path match_path = bindings_path;
    match_path.emplace_back(next++);
    Fields match = {{"channel", want.channel}};
    if (want.account_id) match.emplace_back("accountId", *want.account_id);
    match_path.emplace_back(std::string("match"));
    text = set_in_order(*text, match_path, std::nullopt, match);
    if (!text) return text.error();
    plan.bindings.push_back(want.to_json(request.id));
  }
  auto agent = resolved_agent(*text, source, request.id);
  if (!agent) return agent.error();
  if (auto refused = workspace_refusal(p->agents, *agent, source)) return *refused;
  plan.text = std::move(*text);
  plan.agent = std::move(*agent);
  return plan;
}

Result<UpdatePlan> plan_update(const ConfigSource& source, const UpdateRequest& request) {
  auto p = parse(source);
  if (!p) return p.error();
  const auto index = entry_index(*p, request.id);
  if (!index) return Error{"NOT_FOUND", "agent \"" + request.id + "\" is not in agents.list"};
  json5::Path at = list_path();
  at.emplace_back(*index);
  auto key = [&](const char* name) {
    json5::Path k = at;
    k.emplace_back(std::string(name));
    return k;
  };
  Result<std::string> text = std::string(source.text);
  if (request.name && !trim(*request.name).empty()) text = json5::set(*text, key("name"), trim(*request.name));
  if (!text) return text.error();
  if (request.workspace && !trim(*request.workspace).empty()) text = json5::set(*text, key("workspace"), trim(*request.workspace));
  if (!text) return text.error();
  if (request.model) {
    const json& entry = (*p->list)[*index];
    if (request.model->is_null()) {
      if (entry.contains("model")) text = json5::unset(*text, key("model"));
    } else {
      text = json5::set(*text, key("model"), *request.model);
    }
    if (!text) return text.error();
  }
  auto agent = resolved_agent(*text, source, request.id);
  if (!agent) return agent.error();
  if (request.workspace && !trim(*request.workspace).empty()) {
    if (auto refused = workspace_refusal(p->agents, *agent, source)) return *refused;
  }
  return UpdatePlan{std::move(*text), std::move(*agent)};
}

Result<DeletePlan> plan_delete(const ConfigSource& source, std::string_view id) {
  auto p = parse(source);
  if (!p) return p.error();
  const AgentSettings* agent = p->agents.find(id);
  const auto index = entry_index(*p, id);
  if (agent == nullptr || !index) return Error{"NOT_FOUND", "agent \"" + std::string(id) + "\" is not in agents.list"};
  if (agent->is_default) {
    return Error{"DEFAULT_AGENT", "agent \"" + std::string(id) +
                                      "\" is the default agent and cannot be deleted (mark another agent `default: true` first)"};
  }
  DeletePlan plan;
  plan.agent = *agent;
  for (const auto& a : p->agents.agents) {
    if (a.id != id) plan.remaining.push_back(a);
  }
  // Bindings first, from the last (indexes stay valid), then the entry.
  Result<std::string> text = std::string(source.text);
  if (p->bindings != nullptr) {
    std::vector<std::size_t> drop;
    for (std::size_t i = 0; i < p->bindings->size(); ++i) {
      if (store::normalize_agent_id(binding_agent((*p->bindings)[i])) == id && !binding_agent((*p->bindings)[i]).empty()) {
        drop.push_back(i);
        plan.removed_bindings.push_back((*p->bindings)[i]);
      }
    }
    for (auto it = drop.rbegin(); it != drop.rend(); ++it) {
      text = json5::unset(*text, json5::Path{std::string("bindings"), *it});
      if (!text) return text.error();
    }
  }
  json5::Path at = list_path();
  at.emplace_back(*index);
  text = json5::unset(*text, at);
  if (!text) return text.error();
  plan.text = std::move(*text);
  return plan;
}

std::optional<std::string> workspace_location_problem(const fs::path& workspace, const fs::path& state_dir,
                                                      const std::string& home) {
  const std::string shown = workspace.string();
  if (auto refusal = tools::sandbox::workspace_host_path_refusal(workspace); !refusal.empty()) {
    return "workspace " + shown + " is not allowed: it " + refusal + " (system and credential folders are never an agent's workspace)";
  }
  for (const fs::path& ws : {workspace.lexically_normal(), weakly(workspace)}) {
    if (!home.empty() && (ws == fs::path(home).lexically_normal() || ws == weakly(home))) {
      return "workspace " + shown + " is your whole home folder; give the agent a folder of its own";
    }
    for (const fs::path& state : {state_dir.lexically_normal(), weakly(state_dir)}) {
      if (lexically_within(state, ws)) {
        return "workspace " + shown + " is or holds Pincer's state directory " + state.string() +
               " (its sessions, credentials and config)";
      }
      if (!lexically_within(ws, state)) continue;
      // Inside the state directory only the agent workspaces (<state>/workspace, workspace-<id>).
      const fs::path within = ws.lexically_relative(state);
      const std::string top = within.begin()->string();
      if (top != "workspace" && !top.starts_with("workspace-")) {
        // Name the state directory the workspace is in, and Pincer's folder there when the
        // workspace lies deeper (the workspace itself is already named).
        const std::string rule = " (in the state directory only " + (state / "workspace").string() + " and " +
                                 (state / "workspace-<id>").string() + " folders may be workspaces)";
        if (std::distance(within.begin(), within.end()) == 1) {
          return "workspace " + shown + " is inside Pincer's state directory " + state.string() + rule;
        }
        return "workspace " + shown + " is inside Pincer's folder " + (state / top).string() + " of its state directory " +
               state.string() + rule;
      }
    }
  }
  return std::nullopt;
}

FilesOutcome move_agent_files_to_trash(const DeletePlan& plan, const fs::path& state_dir, std::int64_t now_ms) {
  FilesOutcome out;
  std::vector<fs::path> targets;
  for (const auto& other : plan.remaining) {
    if (paths_overlap(other.workspace, plan.agent.workspace)) out.workspace_shared_with.push_back(other.id);
  }
  if (!out.workspace_shared_with.empty()) {
    out.workspace_retained = true;
    out.workspace_retained_reason = "shared with agent \"" + out.workspace_shared_with.front() + "\"";
  } else if (auto problem = workspace_location_problem(plan.agent.workspace, state_dir, "")) {
    // Never move Pincer's own folders (or a protected one) away, whatever the config says.
    out.workspace_retained = true;
    out.workspace_retained_reason = *problem;
  } else if (!lexically_within(weakly(plan.agent.workspace), weakly(state_dir))) {
    // A folder of the user's own (a project used as the workspace) is never moved away.
    out.workspace_retained = true;
    out.workspace_retained_reason = "outside the state directory " + state_dir.string() + " (a folder of your own)";
  } else {
    targets.push_back(plan.agent.workspace);
  }
  targets.push_back(plan.agent.agent_dir);

  std::time_t secs = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  const fs::path trash = state_dir / "trash" / "agents" / (plan.agent.id + "-" + stamp);
  const char* names[] = {"workspace", "agent"};
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const fs::path& from = targets[i];
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(from, ec))) {
      out.removed.push_back({from.string(), "missing", ""});
      continue;
    }
    const fs::path to = trash / names[targets.size() == 1 ? 1 : i];
    fs::create_directories(trash, ec);
    if (ec) {
      out.failed.push_back({from.string(), "cannot create " + trash.string() + ": " + ec.message()});
      continue;
    }
    fs::rename(from, to, ec);
    if (ec) {
      out.failed.push_back({from.string(), ec.value() == EXDEV ? "on another file system than the state directory; remove it yourself"
                                                               : ec.message()});
      continue;
    }
    out.removed.push_back({from.string(), "trash", to.string()});
  }
  return out;
}

json list_rows(const AgentsConfig& agents, const json& bindings, bool with_bindings) {
  json rows = json::array();
  for (const auto& a : agents.agents) {
    json row = {{"id", a.id}, {"isDefault", a.is_default}, {"workspace", a.workspace.string()}, {"agentDir", a.agent_dir.string()}};
    if (!a.name.empty()) row["name"] = a.name;
    if (!a.model.primary.empty()) row["model"] = a.model.primary;
    json routes = json::array();
    if (bindings.is_array()) {
      for (const auto& b : bindings) {
        const std::string owner = binding_agent(b);
        const bool mine = owner.empty() ? false : store::normalize_agent_id(owner) == a.id;
        if (mine) routes.push_back(b);
      }
    }
    row["bindings"] = routes.size();
    if (with_bindings) row["routes"] = std::move(routes);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pincer::agent::admin
