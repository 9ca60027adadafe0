#include "app/channel_pairing_methods.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "channels/channel_accounts.h"
#include "channels/pairing_store.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"

namespace pincer::app {
namespace detail_channel_pairing {

using nlohmann::json;
using gateway::MethodContext;
using gateway::MethodResult;
using gateway::Params;
using gateway::RpcError;

std::string iso_time(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

std::string label_of(const std::string& channel) {
  if (channel == "irc") return "IRC";
  if (channel.empty()) return "?";
  return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(channel[0])))) + channel.substr(1);
}

bool same_code(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

channels::PairingStore store_of(const std::filesystem::path& state_dir) {
  return channels::PairingStore(state_dir / "channels" / "pairing.json");
}

MethodResult list(MethodContext& ctx, const std::filesystem::path& state_dir) {
  Params p("channels.pairing.list", ctx.request.params);
  if (auto e = p.only({"channel", "accountId"})) return *e;
  std::string channel, account;
  if (auto e = p.string("channel", channel, false)) return *e;
  if (auto e = p.string("accountId", account, false)) return *e;
  const json& cfg = ctx.gateway.settings().config;
  json accounts = json::array();
  for (const auto& a : channels::list_channel_accounts(cfg.value("channels", json::object()))) {
    if ((!channel.empty() && a.channel != channel) || (!account.empty() && a.account_id != account)) continue;
    if (a.config.value("dmPolicy", "pairing") != "pairing") continue;
    accounts.push_back({{"channel", a.channel}, {"channelLabel", label_of(a.channel)}, {"accountId", a.account_id},
                        {"notifySupported", false}});
  }
  json requests = json::array();
  for (const auto& r : store_of(state_dir).pending(ctx.gateway.clock().wall_ms())) {
    if ((!channel.empty() && r.channel != channel) || (!account.empty() && r.account_id != account)) continue;
    json entry = {{"requestId", r.code},
                  {"channel", r.channel},
                  {"channelLabel", label_of(r.channel)},
                  {"accountId", r.account_id.empty() ? "default" : r.account_id},
                  {"senderId", r.sender_id},
                  {"senderLabel", r.channel == "telegram" ? "Telegram user id" : "sender id"},
                  {"createdAt", iso_time(r.created_at_ms)},
                  {"lastSeenAt", iso_time(std::max(r.created_at_ms, r.notified_at_ms))},
                  {"expiresAt", iso_time(r.created_at_ms + channels::kPairingTtlMs)},
                  {"notifySupported", false}};
    if (!r.username.empty()) entry["metadata"] = {{"username", r.username}};
    requests.push_back(std::move(entry));
  }
  return json{{"accounts", std::move(accounts)},
              {"requests", std::move(requests)},
              {"commandOwnerConfigured", false},
              {"limits", {{"pendingPerAccount", channels::kPairingMaxPending}, {"ttlMs", channels::kPairingTtlMs}}}};
}

MethodResult resolve(MethodContext& ctx, const std::filesystem::path& state_dir, bool approve) {
  const char* method = approve ? "channels.pairing.approve" : "channels.pairing.dismiss";
  Params p(method, ctx.request.params);
  if (auto e = approve ? p.only({"channel", "accountId", "requestId", "notify", "bootstrapCommandOwner"})
                       : p.only({"channel", "accountId", "requestId"})) {
    return *e;
  }
  std::string channel, account, code;
  if (auto e = p.string("channel", channel, true, true)) return *e;
  if (auto e = p.string("accountId", account, true, true)) return *e;
  if (auto e = p.string("requestId", code, true, true)) return *e;
  const json& params = ctx.request.params;
  for (const char* key : {"notify", "bootstrapCommandOwner"}) {
    if (params.contains(key) && !params[key].is_boolean()) return gateway::invalid_params(method, std::string("/") + key + " must be boolean");
  }
  auto store = store_of(state_dir);
  const int64_t now = ctx.gateway.clock().wall_ms();
  const auto pending = store.pending(now);
  const bool found = std::any_of(pending.begin(), pending.end(), [&](const channels::PendingPairing& r) {
    return r.channel == channel && (r.account_id.empty() ? "default" : r.account_id) == account && same_code(r.code, code);
  });
  if (!found) return RpcError::invalid("pending DM access request no longer exists");
  auto done = approve ? store.approve(channel, code, now) : store.reject(channel, code, now);
  if (!done) {
    if (done.error().code == "NOT_FOUND") return RpcError::invalid("pending DM access request no longer exists");
    return RpcError::unavailable(done.error().message);
  }
  json out = {{"requestId", code}, {"senderId", done->sender_id}};
  if (approve) {
    out["notification"] = params.value("notify", false) ? "unsupported" : "not-requested";
    out["commandOwnerBootstrap"] = params.value("bootstrapCommandOwner", false) ? "unavailable" : "not-requested";
  }
  return out;
}

}  // namespace detail_channel_pairing

void register_channel_pairing_methods(gateway::Gateway& gw, const std::filesystem::path& state_dir) {
  using namespace detail_channel_pairing;
  auto& methods = gw.mutable_methods();
  methods.add({"channels.pairing.list", [state_dir](MethodContext& ctx) { return list(ctx, state_dir); }});
  methods.add({"channels.pairing.approve", [state_dir](MethodContext& ctx) { return resolve(ctx, state_dir, true); }});
  methods.add({"channels.pairing.dismiss", [state_dir](MethodContext& ctx) { return resolve(ctx, state_dir, false); }});
}

}  // namespace pincer::app
