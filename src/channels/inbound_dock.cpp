// Channel docking in the inbound pipeline (SPEC RT-5; channels/session_docks.h): the /dock
// command and the dock a reply follows. Kept out of inbound_pipeline.cpp, which routes and queues.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "channels/channel_accounts.h"
#include "channels/inbound_pipeline.h"

namespace pincer::channels {

using nlohmann::json;

void InboundPipeline::dock(Channel& channel, const InboundMessage& m, const std::string& session_key,
                           const std::string& agent_id, const std::string& target) {
  const std::string reply_id = "dock-" + m.channel + "-" + m.chat_id + "-" + m.message_id;
  if (!docks_) return reply(channel, m, reply_id, "Docking is not available here.");
  std::vector<DockAccount> accounts;
  for (const auto& spec : list_channel_accounts(config_.value("channels", json::object()))) {
    const Channel* c = delivery_.find(spec.channel, spec.account_id);
    accounts.push_back({spec.channel, spec.account_id, c != nullptr && c->status().value("running", false)});
  }
  const DockRequest request{target, m.channel, m.sender_id, m.is_group, docks_->get(session_key)};
  auto plan = plan_dock(request, routing_.identity_links, accounts,
                        [this](const DockAccount& a, const std::string& peer) {
                          const Channel* c = delivery_.find(a.channel, a.account_id);
                          return c ? c->direct_chat_id(peer) : std::string();
                        },
                        clock_.wall_ms());
  if (!plan) {
    spdlog::info("{}[{}]: /dock_{} from {} refused: {}", m.channel, m.account_id, target, m.sender_id, plan.error().message);
    return reply(channel, m, reply_id, plan.error().message);
  }
  if (auto st = docks_->set(session_key, plan->dock); !st) {
    spdlog::error("{}: cannot save the dock: {}", session_key, st.error().message);
    return reply(channel, m, reply_id, "⚠️ Cannot dock: my storage fails (the owner finds why in the gateway log).");
  }
  // The session's delivery address in sessions.json (SS-1), as OpenClaw's /dock writes it.
  const std::string to_channel = plan->dock ? plan->dock->channel : m.channel;
  const std::string to_chat = plan->dock ? plan->dock->to : m.chat_id;
  const std::string to_account = plan->dock ? plan->dock->account_id : m.account_id;
  if (auto st = agents_.set_session_delivery(session_key, to_channel, to_chat, to_account); !st) {
    spdlog::warn("{}: the delivery address is not in sessions.json: {}", session_key, st.error().message);
  }
  // Cron and heartbeat deliveries to "last" follow the replies.
  if (last_routes_) {
    last_routes_->record(agent_id, {to_channel, to_account, to_chat, plan->dock ? "" : m.thread_id});
  }
  if (plan->dock) {
    spdlog::info("{}: docked to {}[{}] {} (by {} on {})", session_key, plan->dock->channel, plan->dock->account_id,
                 plan->dock->to, m.sender_id, m.channel);
  } else {
    spdlog::info("{}: undocked (by {} on {})", session_key, m.sender_id, m.channel);
  }
  reply(channel, m, reply_id, plan->reply);
}

std::optional<SessionDock> InboundPipeline::dock_for(const std::string& session_key, const InboundMessage& m) const {
  if (!docks_) return std::nullopt;
  auto dock = docks_->get(session_key);
  if (!dock || !dock_applies(*dock, routing_.identity_links, m.channel, m.sender_id, m.is_group)) return std::nullopt;
  return dock;
}

std::string InboundPipeline::dock_help() const {
  std::vector<std::string> channels;
  for (const auto& spec : list_channel_accounts(config_.value("channels", json::object()))) {
    if (std::find(channels.begin(), channels.end(), spec.channel) == channels.end()) channels.push_back(spec.channel);
  }
  std::string out;
  for (const auto& c : channels) {
    const std::string usage = "/dock_" + c;
    out += "\n  " + usage + std::string(usage.size() < 18 ? 18 - usage.size() : 1, ' ') + "send this chat's replies to your " + c +
           " account (session.identityLinks)";
  }
  return out;
}

}  // namespace pincer::channels
