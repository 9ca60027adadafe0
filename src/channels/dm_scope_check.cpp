#include "channels/dm_scope_check.h"

#include <algorithm>

#include "channels/channel_access.h"
#include "channels/channel_accounts.h"
#include "channels/pairing_store.h"

namespace pincer::channels {

using nlohmann::json;

DmReach dm_reach(const json& effective, const std::filesystem::path& state_dir) {
  DmReach out;
  const json channels = effective.value("channels", json::object());
  const PairingStore pairing(state_dir / "channels" / "pairing.json");
  auto add = [&](const ChannelAccount& a, const std::string& id) {
    if (id == "*") {
      out.open.push_back(a.config_path + ".allowFrom");
      return;
    }
    std::string entry = a.channel + ":" + a.account_id + ":" + id;
    if (std::find(out.senders.begin(), out.senders.end(), entry) == out.senders.end()) out.senders.push_back(std::move(entry));
  };
  for (const auto& a : list_channel_accounts(channels)) {
    // A webhook's senders never share the main session (the inbound pipeline gives each its own).
    if (a.channel == "webhook") continue;
    // The pipeline's own reading of the account (OpenClaw's dm.policy / dm.allowFrom / dm.enabled too).
    const routing::ChannelAccessConfig access = access_config_from_json(a.config, a.channel);
    if (access.dm_policy == routing::DmPolicy::Disabled) continue;
    if (access.dm_policy == routing::DmPolicy::Open) {
      out.open.push_back(a.config_path + (a.config.contains("dmPolicy") ? ".dmPolicy" : ".dm.policy"));
      continue;
    }
    for (const std::string& id : access.allow_from) add(a, id);
    if (access.dm_policy == routing::DmPolicy::Pairing) {
      for (const auto& id : pairing.approved(a.channel, a.account_id)) add(a, id);
    }
  }
  return out;
}

std::vector<std::string> dm_scope_warnings(const json& effective, const std::filesystem::path& state_dir) {
  const std::string scope = effective.value("session", json::object()).value("dmScope", "main");
  if (scope != "main") return {};
  const DmReach reach = dm_reach(effective, state_dir);
  if (reach.open.empty() && reach.senders.size() <= 1) return {};
  std::string who;
  if (!reach.open.empty()) who = "anyone (" + reach.open.front() + ")";
  for (std::size_t i = 0; i < reach.senders.size() && i < 5; ++i) {
    who += (who.empty() ? "" : ", ") + reach.senders[i];
  }
  if (reach.senders.size() > 5) who += " and " + std::to_string(reach.senders.size() - 5) + " more";
  return {"session.dmScope is \"main\" and " +
          (reach.open.empty() ? std::to_string(reach.senders.size()) + " DM senders" : std::string("more than one DM sender")) +
          " can reach the agents (" + who +
          "): all their direct messages, and the tool output they cause, share the owner's main session. Unless "
          "they are all you, set session.dmScope to \"per-channel-peer\" (pincer config set session.dmScope "
          "per-channel-peer)"};
}

}  // namespace pincer::channels
