// Channel methods in OpenClaw's shapes (GW-7 "channels.status"; the Control UI's Channels page):
//
//   channels.status {probe?, timeoutMs? 1..60000 (10000)}
//       → OpenClaw's ChannelsStatusResult {ts, channelOrder, channelLabels, channels: {<id>:
//         {configured, running}}, channelAccounts: {<id>: [account]}, channelDefaultAccountId}.
//         Each account is Pincer's account status (accountId, running, mode, lastError, bot, nick,
//         restarts, startedAt … — OpenClaw's account snapshot allows more fields) plus
//         `lastStartAt`. With probe:true each account is checked against its platform first (a
//         `probe` object per account); the answer comes when all answered or at the timeout.
//         The inbound pipeline's counters are in `status.channelPipeline`.
//   channels.pairing.list {channel?, accountId?}
//       → {accounts, requests, commandOwnerConfigured, limits}: the pending DM pairing requests
//         of the channels' pairing store (CH-3), in OpenClaw's ChannelsPairingListResult.
//
// Loop thread.
#include <cctype>
#include <map>

#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace channel_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

std::string channel_label(const std::string& id) {
  if (id == "irc") return "IRC";
  if (id.empty()) return "?";
  return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(id[0])))) + id.substr(1);
}

}  // namespace channel_methods

nlohmann::json openclaw_channels_status(const nlohmann::json& status, int64_t now_ms) {
  using nlohmann::json;
  using channel_methods::channel_label;
  json order = json::array(), labels = json::object(), channels = json::object(), accounts = json::object(),
       defaults = json::object();
  for (const auto& account : status.value("channels", json::array())) {
    const std::string id = account.value("channel", "");
    if (id.empty()) continue;
    if (!channels.contains(id)) {
      order.push_back(id);
      labels[id] = channel_label(id);
      channels[id] = {{"configured", true}, {"running", false}};
      accounts[id] = json::array();
    }
    json entry = account;
    if (!entry.contains("accountId") || !entry["accountId"].is_string() || entry["accountId"].get_ref<const std::string&>().empty()) {
      entry["accountId"] = "default";
    }
    if (entry.contains("startedAt") && entry["startedAt"].is_number_integer() && entry["startedAt"].get<int64_t>() > 0) {
      entry["lastStartAt"] = entry["startedAt"];
    }
    entry["configured"] = true;
    if (entry.value("running", false)) channels[id]["running"] = true;
    const std::string account_id = entry["accountId"];
    if (!defaults.contains(id) || account_id == "default") defaults[id] = account_id;
    accounts[id].push_back(std::move(entry));
  }
  return json{{"ts", now_ms},
              {"channelOrder", std::move(order)},
              {"channelLabels", std::move(labels)},
              {"channels", std::move(channels)},
              {"channelAccounts", std::move(accounts)},
              {"channelDefaultAccountId", std::move(defaults)}};
}

namespace channel_methods {

MethodResult channels_status(MethodContext& ctx) {
  Params p("channels.status", ctx.request.params);
  int64_t timeout_ms = 10'000;
  if (auto e = p.only({"probe", "timeoutMs"})) return *e;
  if (auto e = p.integer("timeoutMs", timeout_ms, 1, 60'000)) return *e;
  const json& params = ctx.request.params;
  if (params.is_object() && params.contains("probe") && !params["probe"].is_boolean()) {
    return invalid_params("channels.status", "/probe must be boolean");
  }
  const bool probe = params.is_object() && params.value("probe", false);
  Gateway& gw = ctx.gateway;
  const auto& provider = gw.channels_status();
  if (!provider) return openclaw_channels_status(json::object(), gw.clock().wall_ms());
  if (!probe || !gw.channels_probe()) return openclaw_channels_status(provider(), gw.clock().wall_ms());
  const ConnId conn = ctx.client.id;
  const std::string request_id = ctx.request.id;
  gw.channels_probe()(timeout_ms, [&gw, conn, request_id](json result) {
    gw.send_to(conn, build_ok_value(request_id, openclaw_channels_status(result, gw.clock().wall_ms())));
  });
  return Deferred{};
}

}  // namespace channel_methods

void register_channel_methods(MethodRegistry& registry) {
  registry.add({"channels.status", channel_methods::channels_status});
}

}  // namespace pincer::gateway
