// Runs the configured channel accounts (SPEC CH-6, CH-7): builds each from `channels.<id>`,
// starts it, restarts a failed one with exponential backoff (1 s … 5 min), and reports
// `channels.status`. Owns the outbox, the pairing store, reply delivery and the inbound pipeline.
// Channels: telegram (long polling), irc, webhook (HTTP on the gateway port).
//
// Loop affinity: event-loop thread only (construct and start on it, or before the loop runs).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel.h"
#include "channels/inbound_pipeline.h"
#include "channels/outbox.h"
#include "channels/pairing_store.h"
#include "channels/reply_delivery.h"
#include "core/event_loop.h"
#include "core/http_route.h"

namespace pincer::channels {

class ChannelManager {
 public:
  /// `effective`: the validated config; `state_dir`: where channels/ lives.
  ChannelManager(EventLoop& loop, const Clock& clock, agent::AgentService& agents, const nlohmann::json& effective,
                 const std::filesystem::path& state_dir);
  ~ChannelManager();

  /// Starts every enabled account and resumes unfinished replies. Errors: "CONFIG_INVALID" for a
  /// channel that cannot be built (e.g. telegram without botToken: names the config path).
  Status start();
  /// Stops every account.
  void stop();

  /// `channels.status` payload: {channels:[{channel, accountId, running, …}], pipeline:{…}}.
  nlohmann::json status() const;

  /// HTTP endpoints the channels serve on the gateway's port (the webhook), after start().
  const std::vector<net::HttpRoute>& http_routes() const { return http_routes_; }

 private:
  struct Account;
  void start_account(Account& a);
  Channel* find(const std::string& channel, const std::string& account_id);

  EventLoop& loop_;
  const Clock& clock_;
  nlohmann::json config_;
  std::filesystem::path state_dir_;
  Outbox outbox_;
  PairingStore pairing_;
  ReplyDelivery delivery_;
  InboundPipeline pipeline_;
  std::vector<std::unique_ptr<Account>> accounts_;
  std::vector<net::HttpRoute> http_routes_;
};

}  // namespace pincer::channels
