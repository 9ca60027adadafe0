// The inbound pipeline (docs/architecture.md "the path of a message"; SPEC CH-2, CH-3, QL-4,
// RT-1..RT-4, UI-4): a normalised message from any channel → dedupe → access control (dmPolicy,
// groupPolicy, allowFrom, mention gating, pairing) → route (bindings → agent, session key) →
// slash commands (/new, /reset, /status, /stop, /help) or a run on the session's lane → the
// reply delivered through ReplyDelivery. Channel-agnostic: it asks capabilities, never types.
//
// Not yet: queue modes other than the session lane's FIFO (QL-3 collect/steer/interrupt).
// Loop affinity: event-loop thread only.
#pragma once

#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel.h"
#include "channels/pairing_store.h"
#include "channels/reply_delivery.h"
#include "core/clock.h"
#include "routing/access_policy.h"
#include "routing/bindings.h"
#include "routing/dedupe.h"

namespace pincer::channels {

/// The access settings of `channels.<channel>` (a validated config subtree; missing = defaults).
routing::ChannelAccessConfig access_config_from_json(const nlohmann::json& channel_config, const std::string& channel);

class InboundPipeline {
 public:
  InboundPipeline(const Clock& clock, agent::AgentService& agents, ReplyDelivery& delivery, PairingStore& pairing,
                  nlohmann::json effective_config);

  /// Handles one message from `channel` (which must outlive the reply's delivery).
  void handle(Channel& channel, InboundMessage message);

  /// Counters for channels.status.
  nlohmann::json stats() const;

 private:
  void reply(Channel& channel, const InboundMessage& m, const std::string& id, const std::string& text);
  bool command(Channel& channel, const InboundMessage& m, const std::string& session_key, const std::string& agent_id);

  const Clock& clock_;
  agent::AgentService& agents_;
  ReplyDelivery& delivery_;
  PairingStore& pairing_;
  nlohmann::json config_;
  routing::RoutingConfig routing_;
  routing::InboundDedupe dedupe_;
  int64_t received_ = 0, duplicates_ = 0, dropped_ = 0, runs_ = 0;
};

}  // namespace pincer::channels
