// Exec approvals (SPEC TL-3, TL-4; OpenClaw's exec.approval.* shapes): decides, for each `exec`
// call, whether it runs, is refused, or waits for a person — and keeps the requests that wait.
//
// The effective policy of a call is the stricter of `tools.exec.{security,ask}` and the
// approvals file's (agent entry, `*` entry, defaults); a run whose sender is not the owner is
// tightened further to `tools.exec.nonOwner` (default allowlist + on-miss). Then:
//   security deny       → refused.
//   security allowlist  → runs when every part of the command is covered by an allowlist pattern
//                         (approvals_file.h) or by a live grant; else ask (ask off: refused).
//   security full       → runs; with ask on-miss a risky command (command_analysis.h, including
//                         the script preflight) is asked.
//   ask always          → every command is asked.
// Risky (obfuscated) commands are never covered by a pattern. A call that must be asked:
//   * from a lane that never waits (cron, heartbeat, hook): refused at once, and the run is told;
//   * approvals.mode "off": decided by askFallback (deny | allowlist | full);
//   * approvals.mode "smart": the triage hook (a small model) answers safe → runs, dangerous →
//     refused, ask-human → asked; a triage failure asks;
//   * otherwise a pending request: an `exec.approval.requested` event for the gateway's approval
//     clients and the chat the run came from; decided by resolve() — allow-once, allow-always
//     (adds the command's parts as patterns, or a grant scoped to the session/agent and bounded
//     in time), deny — or by the timeout (approvals.timeoutSec), which refuses.
// A grant covers exactly the command, working directory and environment changes approved; a
// command that differs is asked again.
//
// Loop affinity: every method on the event-loop thread; callbacks are called there.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/event_loop.h"
#include "core/result.h"
#include "tools/approvals/approvals_file.h"
#include "tools/approvals/command_analysis.h"

namespace pincer::tools::approvals {

/// Where a run came from: the chat to ask in.
struct ExecOrigin {
  std::string channel;     ///< "" = a gateway client (terminal, web chat, CLI)
  std::string account_id;
  std::string chat_id;
  std::string thread_id;
  std::string sender_id;
  bool is_group = false;
  /// The inbound message the run answers, in `chat_id` ("" when the reply goes elsewhere, e.g. a
  /// docked session): the `message` tool reacts to it by default (CH-8).
  std::string message_id;
  /// The channel can react to messages (ChannelCapabilities::reactions): the run's `message` tool
  /// offers its react action (CH-8).
  bool reactions = false;
};

/// One `exec` call to decide.
struct ExecCall {
  std::string run_id, agent_id, session_key, tool_call_id;
  std::string command;
  std::filesystem::path cwd;                  ///< the directory it will run in
  std::map<std::string, std::string> env;     ///< the model's env overrides
  std::string lane = "main";                  ///< main|subagent|nested|cron|heartbeat|hook
  bool sender_is_owner = true;
  ExecOrigin origin;
};

/// The settings of the config (tools.exec.*, approvals.*), resolved.
struct ApprovalSettings {
  std::string security = "full", ask = "off";                       ///< tools.exec.*
  std::string non_owner_security = "allowlist", non_owner_ask = "on-miss";  ///< tools.exec.nonOwner
  std::string mode = "manual";                                      ///< approvals.mode
  std::string ask_fallback = "deny";                                ///< approvals.askFallback
  int64_t timeout_ms = 120'000;                                     ///< approvals.timeoutSec
  static ApprovalSettings from_config(const nlohmann::json& effective_config);
};

/// The triage verdict of smart mode.
struct Triage {
  std::string verdict;  ///< "safe" | "dangerous" | "ask-human"; "" = the triage failed
  std::string reason;
};
using TriageHook = std::function<void(const ExecCall&, const CommandAnalysis&, std::function<void(Triage)>)>;

/// What the gate answers the run: nullopt = run it; a text = refused, the model gets it.
using GateDone = std::function<void(std::optional<std::string>)>;

class ApprovalManager {
 public:
  ApprovalManager(EventLoop& loop, const Clock& clock, std::filesystem::path approvals_file);
  ~ApprovalManager();

  void configure(ApprovalSettings settings) { settings_ = std::move(settings); }
  const ApprovalSettings& settings() const { return settings_; }
  void set_triage(TriageHook hook) { triage_ = std::move(hook); }

  /// Listeners of "exec.approval.requested" / "exec.approval.resolved" (name, payload).
  using Listener = std::function<void(const std::string& event, const nlohmann::json& payload)>;
  /// Returns an id for remove_listener (a listener that dies before the manager must remove itself).
  int add_listener(Listener listener) {
    listeners_[++next_listener_] = std::move(listener);
    return next_listener_;
  }
  void remove_listener(int id) { listeners_.erase(id); }

  /// Decides `call`; `done` is called once (maybe at once, maybe after a person answered).
  void gate(ExecCall call, GateDone done);

  /// An external request (exec.approval.request): waits like a gated call. `done` gets the
  /// decision ("allow-once" | "allow-always" | "deny" | "" on timeout). Returns the request id.
  std::string request(ExecCall call, int64_t timeout_ms, std::function<void(const std::string& decision)> done);

  /// Resolves a pending request by id or by its short code. `decision`: allow-once |
  /// allow-always | deny. `scope` ("agent" default | "session") and `ttl_ms` (0 = none) shape an
  /// allow-always: a session scope or a ttl makes it a grant kept in memory, else the command's
  /// parts become allowlist patterns of the agent (saved). Errors: "INVALID_REQUEST" (unknown
  /// decision/scope), "APPROVAL_NOT_FOUND" (no such pending request; it may have expired).
  /// The one decision path of every surface (exec.approval.resolve, approval.resolve, chat
  /// replies). `resolver_kind` (OpenClaw's "device" | "runtime" | "channel") and `reason` ("user",
  /// or "malformed-verdict" for a deny forced by an unusable answer) are kept with the outcome.
  Status resolve(const std::string& id_or_code, const std::string& decision, const std::string& scope = "agent",
                 int64_t ttl_ms = 0, const std::string& resolved_by = "", const std::string& resolver_kind = "runtime",
                 const std::string& reason = "user");

  /// Pending requests (exec.approval.list), oldest first: [{id, code, request, createdAtMs, expiresAtMs}].
  nlohmann::json list() const;
  /// One pending request by id, or null.
  nlohmann::json get(const std::string& id) const;
  /// One request by its exact id, pending or ended (the last kMaxEnded ended ones are kept, in
  /// memory): get()'s row plus `status` — "pending", "allowed", "denied", "expired" (timed out) or
  /// "cancelled" (its run ended) — and, once ended, `reason` ("user" | "malformed-verdict" |
  /// "timeout" | "run-aborted" | "shutdown"), `decision` (null unless allowed/denied), `resolvedAtMs`,
  /// `resolvedBy` and `resolverKind` ("" when nobody answered). Null when unknown.
  nlohmann::json record(const std::string& id) const;
  static constexpr std::size_t kMaxEnded = 256;
  /// The ids of the ended requests still kept (record() answers them), the last one ended first.
  std::vector<std::string> ended_ids() const { return {ended_order_.rbegin(), ended_order_.rend()}; }
  /// Drops the pending requests of a run that ended (their callbacks are not called), and its
  /// smart triages still in flight: their verdict, when it comes, is ignored (no person is asked
  /// about a command of a run that is over).
  void cancel_run(const std::string& run_id);

  /// The gateway is shutting down (GW-10): nobody can answer any more, so every pending request
  /// ends now as denied (status "denied", reason "shutdown", resolverKind "runtime") and its run is
  /// told "the gateway is shutting down"; an `exec` asked after this is refused at once, and an
  /// external request (exec.approval.request) ends denied on the next turn of the loop. The drain
  /// then waits only for runs that still work, not for answers. Cannot be undone.
  void deny_all_for_shutdown();
  bool shutting_down() const { return shutting_down_; }

  /// Lets a test or a caller wait for the decision of request `id` (exec.approval.waitDecision):
  /// `done` gets the decision ("" = timeout); false when `id` is unknown.
  bool wait_decision(const std::string& id, std::function<void(const std::string&)> done);

  /// The live grants (exec.approval.grants.list), oldest first, at most `limit`: [{grantId,
  /// mintedByApprovalId, agentId, scope "agent"|"session", sessionKey (null for agent scope),
  /// command, cwd, env, createdAtMs, expiresAtMs (null = until restart), revokedAtMs, revokedBy
  /// (null: the list holds live grants only), lastUsedAtMs (null = never), useCount}]. Expired
  /// grants are dropped first.
  nlohmann::json grants(std::size_t limit = 500);
  /// Revokes grant `grant_id` now (exec.approval.grants.revoke): "revoked", "already-revoked"
  /// (revoked before, or expired) or "not-found".
  std::string revoke_grant(const std::string& grant_id, const std::string& revoked_by);

  ApprovalsFile& file() { return file_; }
  /// Reloads the approvals file (errors logged and returned; the old content stays).
  Status reload_file();

  /// The effective {security, ask} of a call (see the file comment).
  std::pair<std::string, std::string> effective_policy(const ExecCall& call) const;

 private:
  struct Pending;
  /// A request that ended: its row (get()'s shape) and how it ended.
  struct Ended {
    nlohmann::json row;
    std::string status, reason, decision, resolved_by, resolver_kind;
    int64_t resolved_ms = 0;
  };
  struct Grant {
    std::string id, minted_by;          ///< grant id; the approval that made it
    std::string agent_id, session_key;  ///< session_key "" = agent scope
    std::string fingerprint;
    std::string command, cwd;
    std::map<std::string, std::string> env;
    int64_t expires_steady_ms = 0;      ///< 0 = until restart
    int64_t created_wall_ms = 0, expires_wall_ms = 0, last_used_wall_ms = 0;
    int64_t use_count = 0;
  };
  void drop_expired_grants();
  void ask(ExecCall call, const CommandAnalysis& analysis, GateDone done);
  void finish(const std::string& id, const std::string& decision, const std::string& resolved_by,
              const std::string& resolver_kind = "", const std::string& reason = "");
  void remember(const Pending& p, Ended ended);
  bool granted(const ExecCall& call);  ///< counts the use of the grant that covers `call`
  void emit(const std::string& event, const nlohmann::json& payload);

  EventLoop& loop_;
  const Clock& clock_;
  ApprovalsFile file_;
  ApprovalSettings settings_;
  TriageHook triage_;
  /// Run id → flag set by cancel_run, one per smart triage waiting for its verdict.
  std::multimap<std::string, std::shared_ptr<bool>> triaging_;
  std::map<int, Listener> listeners_;
  int next_listener_ = 0;
  bool shutting_down_ = false;  ///< deny_all_for_shutdown() was called
  std::map<std::string, std::unique_ptr<Pending>> pending_;  ///< by id
  std::map<std::string, Ended> ended_;  ///< id → how it ended (the last kMaxEnded)
  std::vector<std::string> ended_order_;
  std::vector<Grant> grants_;
  std::map<std::string, int64_t> ended_grants_;  ///< id → wall ms of revoked/expired grants (bounded)
};

/// The fingerprint a grant binds to: command, cwd and env overrides, exactly.
std::string call_fingerprint(const ExecCall& call);

/// "allow-once" etc. from a chat reply word: once|o|allow-once, always|a|allow-always, deny|d|no.
std::optional<std::string> decision_word(const std::string& word);

/// Parses "30m", "1h", "2d", "90s" into milliseconds; nullopt when not such a duration.
std::optional<int64_t> parse_duration_ms(const std::string& text);

}  // namespace pincer::tools::approvals
