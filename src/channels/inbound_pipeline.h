// The inbound pipeline (docs/architecture.md "the path of a message"; SPEC CH-2, CH-3, QL-4,
// RT-1..RT-4, UI-4): a normalised message from any channel → dedupe → access control (dmPolicy,
// groupPolicy, allowFrom, mention gating, pairing) → route (bindings → agent, session key) →
// slash commands (agent/chat_commands.h, the table of every chat surface) or a run on the
// session's lane → the reply delivered through ReplyDelivery. Channel-agnostic: it asks
// capabilities, never types.
//
// Lines one sender types in a burst to an idle session may first wait for each other
// (`messages.inbound`, inbound_debounce.h): they become one message and one run.
//
// Messages for a busy session follow `messages.queue` (QL-3): collect (default) gathers them into
// one run after a quiet `debounceMs`; followup runs them one by one; interrupt aborts the busy run
// (its reply is dropped) and answers the newest; steer hands the message to the running run, which
// injects it at its next tool-call boundary (AG-4) — when the run ends before one (or cannot take
// it), the message runs after it as a followup, so it is answered exactly once; steer-backlog
// steers and also keeps the message for a followup turn. At most `cap` wait per session (and at
// most `cap` are steered into one run); `drop` says which go.
// Loop affinity: event-loop thread only.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "agent/run_journal.h"
#include "channels/channel.h"
#include "channels/channel_access.h"  // access_config_from_json
#include "channels/chat_approvals.h"
#include "channels/inbound_debounce.h"
#include "channels/last_route.h"
#include "channels/pairing_store.h"
#include "channels/session_docks.h"
#include "channels/reply_delivery.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "routing/access_policy.h"
#include "routing/bindings.h"
#include "routing/dedupe.h"

namespace pincer::channels {


/// The conversation of `m` as routing sees it: the sender (direct), "<chat>:topic:<id>" (a forum
/// topic, kind group), or the chat (kind channel when m.channel_peer, else group).
routing::Peer inbound_peer(const InboundMessage& m);

class InboundPipeline {
 public:
  InboundPipeline(EventLoop& loop, const Clock& clock, agent::AgentService& agents, ReplyDelivery& delivery,
                  PairingStore& pairing, nlohmann::json effective_config);

  /// Handles one message from `channel` (which must outlive the reply's delivery).
  InboundOutcome handle(Channel& channel, InboundMessage message);

  /// Applies a new validated config (hot reload): bindings, session scopes, access policies and
  /// `messages.queue` apply from the next message; runs and queued messages are kept.
  void reconfigure(nlohmann::json effective_config);

  /// Answers the channel messages the run journal held unfinished at start-up
  /// (AgentService::take_unfinished) (agent/run_journal.h,
  /// SS-6), once each, in the chat they came from: each joins its session's queue as if it had
  /// just arrived (a turn cut off mid-way continues). A message whose run had already answered —
  /// `reply_pending(run id)`: its reply is in the outbox — is only marked answered; one resumed
  /// before is given up with a notice in its chat; one whose account is gone is dropped (logged).
  /// Call after the accounts are built (inbound_journal.cpp).
  void resume(const std::function<bool(const std::string& run_id)>& reply_pending);

  /// Where each agent's last chat is recorded (cron delivery "last"); null = not recorded.
  void set_last_routes(LastRoutes* routes) { last_routes_ = routes; }
  /// Where docked sessions' replies go (RT-5, session_docks.h); null = docking is refused.
  void set_session_docks(SessionDocks* docks) { docks_ = docks; }
  /// How an owner's chat command writes the config (agent::CommandContext::patch_config).
  void set_config_patcher(std::function<Status(const nlohmann::json&)> patcher) { config_patcher_ = std::move(patcher); }

  /// Counters for channels.status.
  nlohmann::json stats() const;
  /// Messages not answered yet: running, steered in, or waiting (a restart waits for them).
  std::size_t pending() const;

 private:
  /// Per session: the run in flight and the messages waiting for it (QL-3).
  struct SessionQueue {
    std::string active_run;  ///< "" when idle
    std::deque<InboundMessage> waiting;
    /// Handed to the active run (steer), not injected yet, oldest first; nullopt = a steer-backlog
    /// message, whose followup copy is in `waiting`.
    std::deque<std::optional<InboundMessage>> steered;
    int dropped = 0;         ///< dropped by `cap` since the last run (drop: summarize)
    std::optional<EventLoop::TimerId> debounce;
    Channel* channel = nullptr;
    std::string agent_id;
  };
  struct QueueSettings {
    std::string mode = "collect";
    int64_t debounce_ms = 1000;
    std::size_t cap = 20;
    std::string drop = "summarize";
  };

  void reply(Channel& channel, const InboundMessage& m, const std::string& id, const std::string& text);
  /// An unknown sender under dmPolicy "pairing": its request, the code when due, a logged refusal.
  void pair(Channel& channel, const InboundMessage& m);
  bool command(Channel& channel, const InboundMessage& m, const std::string& session_key, const std::string& agent_id);
  /// `/dock_<target>` (RT-5, inbound_dock.cpp): moves or brings back the session's replies; answers in the chat.
  void dock(Channel& channel, const InboundMessage& m, const std::string& session_key, const std::string& agent_id,
            const std::string& target);
  /// The dock that applies to a reply to `m` in `session_key` (its sender is the docking person), or nullopt.
  std::optional<SessionDock> dock_for(const std::string& session_key, const InboundMessage& m) const;
  /// The /help lines of the dock commands of the configured channels ("" when none).
  std::string dock_help() const;
  /// A journaled message: held by the inbound debounce, or on to enqueue() (its key's held lines first).
  void admit(Channel& channel, InboundMessage m, const std::string& session_key, const std::string& agent_id);
  /// A batch the debounce let go: one merged message for enqueue().
  void flushed(InboundDebounce::Batch batch);
  void enqueue(Channel& channel, InboundMessage m, const std::string& session_key, const std::string& agent_id);
  void start_run(const std::string& session_key, std::vector<InboundMessage> messages);
  void run_ended(const std::string& session_key, const std::string& run_id);
  /// Marks a message's journal entries (merged lines too) answered with `outcome` (dropped by the queue, /stop …).
  void forget(const InboundMessage& m, const char* outcome);

  const Clock& clock_;
  agent::AgentService& agents_;
  ReplyDelivery& delivery_;
  PairingStore& pairing_;
  nlohmann::json config_;
  routing::RoutingConfig routing_;
  routing::InboundDedupe dedupe_;
  EventLoop& loop_;
  QueueSettings queue_;
  std::map<std::string, SessionQueue> sessions_;
  std::set<std::string> superseded_;  ///< runs aborted by `interrupt`: their replies are dropped
  struct RefusalLog {
    int64_t last_ms = 0;  ///< steady ms of the last warning
    int64_t count = 0;    ///< refusals since
  };
  std::map<std::string, RefusalLog> pairing_refused_;  ///< by "<channel>:<account>" (bounded by the config)
  ChatApprovals chat_approvals_;  ///< exec approvals asked and answered in chats (TL-3)
  LastRoutes* last_routes_ = nullptr;  ///< the chat each agent last heard from (AT-2)
  SessionDocks* docks_ = nullptr;      ///< docked sessions (RT-5)
  std::function<Status(const nlohmann::json&)> config_patcher_;  ///< unset: commands cannot write the config
  std::map<std::string, std::string> resume_previews_;  ///< journal id → preview a cut-off run left
  std::map<std::string, std::vector<std::string>> steered_ids_;  ///< run id → journal ids steered into it
  int64_t received_ = 0, duplicates_ = 0, dropped_ = 0, runs_ = 0, queued_ = 0, interrupted_ = 0;
  /// Expires with the pipeline: a command's follow-up (agent/chat_commands.h) may come later.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  InboundDebounceSettings debounce_settings_;  ///< messages.inbound
  /// Lines waiting for their burst to end; declared last: its timers go first.
  InboundDebounce debounce_;
};

}  // namespace pincer::channels
