#include "channels/channel_access.h"

#include <cstdint>
#include <vector>

namespace pincer::channels {

using nlohmann::json;

namespace {

std::vector<std::string> access_string_list(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& e : v) {
    if (e.is_string()) out.push_back(e.get<std::string>());
    else if (e.is_number_integer()) out.push_back(std::to_string(e.get<int64_t>()));
  }
  return out;
}

/// Adds the entries of `spelling` (an object of chat → settings) that `groups` lacks.
void add_missing_groups(json& groups, const json& spelling) {
  if (!spelling.is_object() || !groups.is_object()) return;
  for (const auto& [chat, g] : spelling.items()) {
    if (!groups.contains(chat)) groups[chat] = g;
  }
}

/// OpenClaw's Discord `guilds: {<guild id>: {requireMention?, users?, roles?, channels?: {<channel
/// id>: {allow?, requireMention?, users?, roles?}}}}` as group entries of the guild and of each channel.
/// A channel entry's users and roles are each its own when it sets them, else its guild's (OpenClaw:
/// `channel.users ?? guild.users`, `channel.roles ?? guild.roles`); its other keys are its own alone.
json discord_guild_groups(const json& guilds) {
  json out = json::object();
  if (!guilds.is_object()) return out;
  for (const auto& [guild, g] : guilds.items()) {
    if (!g.is_object()) continue;
    json entry = json::object();
    for (const char* key : {"requireMention", "enabled", "allow", "allowFrom", "users", "roles", "tools"}) {
      if (g.contains(key)) entry[key] = g[key];
    }
    out[guild] = entry;
    if (const json channels = g.value("channels", json()); channels.is_object()) {
      for (const auto& [channel, c] : channels.items()) {
        json own = c;
        if (own.is_object()) {
          if (!own.contains("users") && !own.contains("allowFrom")) {
            for (const char* key : {"allowFrom", "users"}) {
              if (g.contains(key)) own[key] = g[key];
            }
          }
          if (!own.contains("roles") && g.contains("roles")) own["roles"] = g["roles"];
        }
        out[channel] = std::move(own);
      }
    }
  }
  return out;
}

}  // namespace

routing::ChannelAccessConfig access_config_from_json(const json& c, const std::string& channel) {
  routing::ChannelAccessConfig out;
  if (!c.is_object()) return out;
  if (auto p = routing::parse_dm_policy(c.value("dmPolicy", "pairing"))) out.dm_policy = *p;
  if (auto p = routing::parse_group_policy(c.value("groupPolicy", "allowlist"))) out.group_policy = *p;
  out.allow_from = access_string_list(c.value("allowFrom", json::array()));
  if (c.contains("groupAllowFrom")) out.group_allow_from = access_string_list(c["groupAllowFrom"]);
  if (const json dm = c.value("dm", json()); dm.is_object()) {
    if (!c.contains("dmPolicy") && dm.contains("policy") && dm["policy"].is_string()) {
      if (auto p = routing::parse_dm_policy(dm["policy"].get<std::string>())) out.dm_policy = *p;
    }
    if (!c.contains("allowFrom") && dm.contains("allowFrom")) out.allow_from = access_string_list(dm["allowFrom"]);
    if (dm.value("enabled", true) == false) out.dm_policy = routing::DmPolicy::Disabled;
  }
  json groups = c.value("groups", json::object());
  add_missing_groups(groups, c.value("channels", json()));
  add_missing_groups(groups, c.value("rooms", json()));
  add_missing_groups(groups, discord_guild_groups(c.value("guilds", json())));
  for (const auto& [chat, g] : groups.items()) {
    if (!g.is_object()) continue;
    routing::GroupSettings s;
    if (g.contains("requireMention") && g["requireMention"].is_boolean()) s.require_mention = g["requireMention"].get<bool>();
    if (g.contains("enabled") && g["enabled"].is_boolean()) {
      s.enabled = g["enabled"].get<bool>();
    } else if (g.contains("allow") && g["allow"].is_boolean()) {
      s.enabled = g["allow"].get<bool>();
    }
    if (g.contains("allowFrom")) {
      s.allow_from = access_string_list(g["allowFrom"]);
    } else if (g.contains("users")) {
      s.allow_from = access_string_list(g["users"]);
    }
    if (g.contains("roles")) s.allow_roles = access_string_list(g["roles"]);
    out.groups[chat] = s;
  }
  out.id_prefixes = {channel};
  if (channel == "telegram") out.id_prefixes.push_back("tg");
  return out;
}

}  // namespace pincer::channels
