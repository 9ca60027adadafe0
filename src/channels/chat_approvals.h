// Exec approvals in the chat a run came from (SPEC TL-3): when a run started from a channel
// needs an approval, the request is posted to that chat with a short code; the owner (a sender in
// `commands.ownerAllowFrom`) answers there with
//   /approve <code> once | always [1h|30m|session] | deny
// and the outcome is posted back. Other senders' answers are refused. The request also reaches
// the gateway's approval clients (terminal, web chat), whichever answers first decides.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel.h"
#include "channels/reply_delivery.h"

namespace pincer::channels {

/// Whether `m`'s sender is listed in `commands.ownerAllowFrom` of `config` ("<id>", "@username",
/// "<channel>:<id>", "*").
bool sender_is_owner(const nlohmann::json& config, const InboundMessage& m);

class ChatApprovals {
 public:
  ChatApprovals(agent::AgentService& agents, ReplyDelivery& delivery);
  ~ChatApprovals();
  ChatApprovals(const ChatApprovals&) = delete;
  ChatApprovals& operator=(const ChatApprovals&) = delete;

  void reconfigure(const nlohmann::json& config) { config_ = config; }

  /// True when `m` is an `/approve` answer (handled: resolved or refused, with a reply).
  bool handle(Channel& channel, const InboundMessage& m);

 private:
  void on_event(const std::string& event, const nlohmann::json& payload);
  void post(const nlohmann::json& request, const std::string& text, const std::string& id);

  agent::AgentService& agents_;
  ReplyDelivery& delivery_;
  nlohmann::json config_;
  int listener_ = 0;
};

}  // namespace pincer::channels
