// Runs the configured channel accounts (SPEC CH-6, CH-7): builds one Channel per account of
// `channels.<id>` (channel_accounts.h), starts it, restarts a failed one with exponential backoff
// (1 s … 5 min) — except after a permanent failure (Channel::failed_permanently: the platform
// refused the token), which keeps the account stopped until the next config reload; its replies
// wait in the outbox meanwhile (ReplyDelivery::channel_held) — applies a new config by restarting
// only the accounts whose settings changed
// (CH-7), and reports `channels.status`. Owns the outbox, the pairing store, reply delivery and
// the inbound pipeline. Channels: telegram (long polling or webhook), discord (Gateway WebSocket), irc, webhook (HTTP on the
// gateway port; its routes are added to and removed from the gateway's HttpRoutes).
//
// Loop affinity: event-loop thread only (construct and start on it, or before the loop runs).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel.h"
#include "channels/channel_accounts.h"
#include "channels/inbound_pipeline.h"
#include "channels/last_route.h"
#include "channels/outbox.h"
#include "channels/pairing_store.h"
#include "channels/reply_delivery.h"
#include "channels/session_docks.h"
#include "core/event_loop.h"
#include "core/http_route.h"

namespace pincer::channels {

/// The restart policy after an account's failure: `failures` earlier consecutive failures (0 for
/// the first) give the delay before the restart in ms — 1 s doubling up to 5 min — and a
/// `permanent` failure (Channel::failed_permanently) gives nullopt: no restart until the config
/// is reloaded. Pure.
std::optional<int64_t> restart_delay_after_failure(int failures, bool permanent);

class ChannelManager {
 public:
  /// `effective`: the validated config; `state_dir`: where channels/ lives; `routes`: the
  /// gateway's HTTP routes, which must outlive the manager.
  ChannelManager(EventLoop& loop, const Clock& clock, agent::AgentService& agents, const nlohmann::json& effective,
                 const std::filesystem::path& state_dir, net::HttpRoutes& routes);
  ~ChannelManager();

  /// Starts every enabled account and resumes unfinished replies. Errors: "CONFIG_INVALID" with
  /// one line per problem of validate(), each naming its config path (e.g.
  /// `channels.telegram.accounts.alerts.botToken: required …`); nothing is started then.
  Status start();
  /// Stops every account.
  void stop();

  /// Applies a new validated config (CH-7): accounts that were removed or whose merged settings
  /// changed are stopped; new and changed ones are built and started, and so is an unchanged one
  /// that a permanent failure stopped (a reload is the signal that its token may be fixed, also
  /// behind a ${NAME} reference); the others keep running untouched. Routing, access and queue
  /// settings take effect for the next message.
  /// Errors: "CONFIG_INVALID" when a new or changed account cannot be built — then nothing
  /// changes (the running accounts and settings are kept).
  Status reload(const nlohmann::json& effective);

  /// Whether `effective` could run: every account builds, and no two share an HTTP path or a bot
  /// token (channel_checks.h channel_problems, as `pincer config validate`). Errors as start(),
  /// one line per problem. State-free: nothing is built, started or changed.
  static Status validate(const nlohmann::json& effective);

  /// AT-2 cron delivery `announce`: sends `markdown` to chat `to` (thread `thread`) of `channel`
  /// through reply delivery — rendered, chunked and recorded in the outbox, so it survives a
  /// restart and `id` (the run id) is never sent twice. `channel` "last" or "" = the chat the
  /// agent last heard from (then `to`/`account` "" take that chat's); `account` "" = the
  /// channel's first running account. Errors: NOT_FOUND naming what has no target (no last
  /// chat, no running account of the channel, no recipient), UNSUPPORTED (a channel that only
  /// answers a waiting request: a webhook in sync mode, ChannelCapabilities::single_reply),
  /// DELIVERY_FAILED (the outbox).
  Status announce(const std::string& agent_id, std::string channel, std::string account, std::string to,
                  std::string thread, const std::string& markdown, const std::string& id);

  /// The account `account_id` of `channel` ("" = its first) when it is running now (its status()
  /// says so), else nullptr — not configured, or stopped / restarting after a failure. The
  /// message tool refuses a channel that is not running (CH-8, TL-1). Loop.
  Channel* running_account(const std::string& channel, const std::string& account_id);

  /// How chat commands from channels write the config (/dreaming on|off, for senders in
  /// commands.ownerAllowFrom): an RFC 7386 merge patch to pincer.json. Unset: they cannot.
  void set_config_patcher(std::function<Status(const nlohmann::json& merge_patch)> patcher) {
    pipeline_.set_config_patcher(std::move(patcher));
  }

  /// Work that a restart would cut off: messages not answered yet and replies not delivered yet.
  std::size_t pending() const;
  /// Replies not delivered yet (the outbox): what a stopping gateway waits for (GW-10).
  std::size_t deliveries_pending() const { return outbox_.pending().size(); }

  /// `channels.status` payload: {channels:[{channel, accountId, running, restarts, startedAt,
  /// lastFailure?, restartAt? (wall ms of a scheduled restart), permanentFailure? (true: stopped
  /// until the config is reloaded), …}], pipeline:{…}}; then each account `enabled: false` turns
  /// off as {channel, accountId, enabled:false, running:false, name?} (probe() skips those).
  nlohmann::json status() const;

  /// The same payload with a fresh `probe` result in each account ({ok, error?, …}, see
  /// Channel::probe), once every account answered or after `timeout_ms` (an account still
  /// silent gets {ok:false, error:"timed out"}). `done` runs on the loop, exactly once.
  void probe(int64_t timeout_ms, std::function<void(nlohmann::json)> done);

 private:
  struct Account;
  Result<std::unique_ptr<Account>> build(const ChannelAccount& spec);
  void start_account(Account& a);
  void stop_account(Account& a);
  Channel* find(const std::string& channel, const std::string& account_id);

  EventLoop& loop_;
  const Clock& clock_;
  nlohmann::json config_;
  std::filesystem::path state_dir_;
  net::HttpRoutes& routes_;
  Outbox outbox_;
  PairingStore pairing_;
  ReplyDelivery delivery_;
  InboundPipeline pipeline_;
  LastRoutes last_routes_;
  SessionDocks docks_;  ///< docked sessions (RT-5): `<state>/channels/docks.json`
  std::vector<std::unique_ptr<Account>> accounts_;
};

}  // namespace pincer::channels
