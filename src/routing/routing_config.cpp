#include "routing/routing_config.h"

#include "routing/text_util.h"
#include "store/session_keys.h"

namespace pincer::routing {
namespace {

using nlohmann::json;

std::string string_at(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// allowFrom-style ids may be numbers in the file (Telegram ids); routing compares text.
std::string id_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return {};
}

std::optional<Binding> parse_binding(const json& entry) {
  if (!entry.is_object()) return std::nullopt;
  const std::string type = string_at(entry, "type");
  if (!type.empty() && type != "route") return std::nullopt;
  const auto match_it = entry.find("match");
  if (match_it == entry.end() || !match_it->is_object()) return std::nullopt;
  const json& m = *match_it;
  Binding b;
  b.agent_id = string_at(entry, "agentId");
  b.match.channel = string_at(m, "channel");
  if (m.contains("accountId") && m["accountId"].is_string()) b.match.account_id = m["accountId"].get<std::string>();
  if (m.contains("peer") && m["peer"].is_object()) {
    b.match.peer = BindingPeer{string_at(m["peer"], "kind"), id_text(m["peer"].value("id", json()))};
  }
  b.match.guild_id = id_text(m.value("guildId", json()));
  b.match.team_id = id_text(m.value("teamId", json()));
  if (m.contains("roles") && m["roles"].is_array()) {
    for (const json& r : m["roles"]) {
      if (std::string role = id_text(r); !role.empty()) b.match.roles.push_back(std::move(role));
    }
  }
  return b;
}

AgentDirectory parse_agents(const json& effective) {
  AgentDirectory dir;
  const json* list = nullptr;
  if (effective.is_object() && effective.contains("agents") && effective["agents"].is_object() &&
      effective["agents"].contains("list") && effective["agents"]["list"].is_array()) {
    list = &effective["agents"]["list"];
  }
  if (list == nullptr || list->empty()) return dir;
  std::string first;
  std::string marked;
  for (const json& agent : *list) {
    const std::string id = string_at(agent, "id");
    if (text::trim(id).empty()) continue;
    dir.agent_ids.push_back(id);
    if (first.empty()) first = id;
    if (marked.empty() && agent.value("default", false) == true) marked = id;
  }
  const std::string chosen = !marked.empty() ? marked : first;
  dir.default_agent_id = store::normalize_agent_id(chosen);
  return dir;
}

}  // namespace

RoutingConfig routing_config_from_json(const json& effective) {
  RoutingConfig config;
  if (!effective.is_object()) return config;
  if (effective.contains("bindings") && effective["bindings"].is_array()) {
    for (const json& entry : effective["bindings"]) {
      if (auto b = parse_binding(entry)) config.bindings.push_back(std::move(*b));
    }
  }
  config.agents = parse_agents(effective);
  if (effective.contains("session") && effective["session"].is_object()) {
    const json& session = effective["session"];
    if (auto scope = parse_dm_scope(string_at(session, "dmScope"))) config.dm_scope = *scope;
    if (session.contains("identityLinks") && session["identityLinks"].is_object()) {
      for (const auto& [name, ids] : session["identityLinks"].items()) {
        std::vector<std::string> list;
        if (ids.is_array()) {
          for (const json& id : ids) {
            if (std::string s = id_text(id); !s.empty()) list.push_back(std::move(s));
          }
        }
        config.identity_links.emplace_back(name, std::move(list));
      }
    }
  }
  return config;
}

}  // namespace pincer::routing
