// The registry of subagents (SPEC MA-3, QL-2; docs/subagents.md): children spawned by a session
// with `sessions_spawn`, each a background run on the `subagent` lane in its own session
// `agent:<agentId>:subagent:<uuid>` (no inherited history: the task is its first message; its
// sessions.json entry records `spawnedBy` and `spawnDepth`, so the envelope of
// subagent_rules.h applies to every run of it, also after a restart). When a child's run ends,
// its result is announced into the parent session exactly once: a message queued on the
// parent's session lane (AgentService::send; behind the parent's running turn when it is busy),
// with the outcome (completed / timed out / failed / aborted), journaled as source
// "subagent.announce" so that a restart resumes it rather than lose it. The child run itself is
// journaled as source "subagent" (its spawn details in the entry's notes): resume_unfinished()
// reruns a child a restart cut off, and its result is then announced as usual.
//
// Owned by AgentService (AgentService::subagents()); the tools reach it through backend(), which
// posts each call to the loop and waits for the answer.
//
// Loop affinity: every method except backend().call runs on the event-loop thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/run_events.h"
#include "agent/subagent_rules.h"
#include "core/result.h"
#include "tools/approvals/approval_manager.h"
#include "tools/sessions/subagents_backend.h"

namespace pincer::agent {

class AgentService;
struct SendRequest;

/// The requesting run of a tool call (from its ToolContext).
struct SubagentCaller {
  std::string session_key;  ///< canonical
  std::string agent_id;
  std::string run_id;
  std::string lane;
};

/// Ended children kept for `list` (the most recent ones).
inline constexpr std::size_t kSubagentRecentKept = 200;
/// How long the tools' backend waits for the loop's answer.
inline constexpr int64_t kSubagentCallTimeoutMs = 30'000;

class Subagents {
 public:
  explicit Subagents(AgentService& agents);
  ~Subagents();
  Subagents(const Subagents&) = delete;
  Subagents& operator=(const Subagents&) = delete;

  /// The tools' side (set on AgentService::session_backends().subagents by the service).
  tools::SubagentsBackend& backend();

  /// Where the events of child runs and announce turns go besides the transcripts (the gateway:
  /// its chat/agent events); unset = nowhere else.
  void set_sink_factory(std::function<RunEventSink(const SendRequest&)> factory);

  /// sessions_spawn {task, label?, agentId?, model?, thinking?, runTimeoutSeconds?, cleanup?}
  /// for `caller`: answers {status:"accepted", runId, childSessionKey, mode:"run", cleanup,
  /// depth, role, note} at once; the child runs in the background. Errors: "FORBIDDEN" (depth,
  /// leaf role, children per session, allowAgents: subagent_rules.h check_spawn),
  /// "INVALID_REQUEST" (empty task, unknown agent/model/thinking level, bad cleanup or timeout),
  /// the session store's and journal's errors.
  Result<nlohmann::json> spawn(const nlohmann::json& args, const SubagentCaller& caller);
  /// The children of `parent_key`: {requesterSessionKey, active:[row], recent:[row], total};
  /// row {index (1-based, spawn order), runId, sessionKey, agentId, label, task, status
  /// (running|ok|error|timeout|aborted|interrupted), depth, startedAt, endedAt?, runtimeMs}.
  nlohmann::json list(const std::string& parent_key) const;
  /// Aborts running children of `parent_key` named by `target` (see resolve()), and their running
  /// children in turn (cascade): {status:"ok", killed:[runId]}. The end of each child named is
  /// announced as "aborted (killed)"; the descendants stopped with it are not announced (their
  /// parent is gone). Errors: "NOT_FOUND" (no running child matches).
  Result<nlohmann::json> kill(const std::string& parent_key, const std::string& target);
  /// Steers one running child (AgentService::steer): {status:"ok", runId, sessionKey}. Errors:
  /// "NOT_FOUND", "INVALID_REQUEST" (empty message; target "all"), "NOT_RUNNING".
  Result<nlohmann::json> steer(const std::string& parent_key, const std::string& target, const std::string& message);
  /// The `subagents` tool {action: list|kill|steer, target?, message?}.
  Result<nlohmann::json> tool_call(const nlohmann::json& args, const SubagentCaller& caller);
  /// `/subagents [list | kill ID|all | steer ID TEXT]` in session `parent_key`: the reply text
  /// and whether it succeeded.
  std::pair<std::string, bool> chat_command(const std::string& parent_key, const std::string& arg);

  /// At gateway start, before AgentService::resume_unfinished: reruns the children a restart cut
  /// off (journal source "subagent"); one cut off again is given up and announced as failed.
  void resume_unfinished();

  /// Called by AgentService::start for every run: the chat a run answers and whether its sender
  /// is the owner, remembered while the run lasts (only when not the defaults: a gateway client,
  /// the owner). A child spawned by the run inherits them (the tool policy's owner-only layer,
  /// exec approvals), and the announce into the parent runs with them too.
  void note_run(const std::string& run_id, const tools::approvals::ExecOrigin& origin, bool sender_is_owner);

 private:
  struct Child {
    std::string run_id, child_key, parent_key, agent_id, parent_agent_id, label, task;
    int depth = 1;
    bool cleanup_delete = false;
    int64_t timeout_seconds = 0;
    int64_t started_ms = 0, ended_ms = 0;
    std::string status = "running";  ///< running|ok|error|timeout|aborted|interrupted
    bool announced = false;
    bool continuation = false;  ///< a later turn of a subagent session (an announce it processed)
    tools::approvals::ExecOrigin origin;  ///< the parent run's chat and sender (note_run)
    bool sender_is_owner = true;
  };
  struct RunOrigin {
    tools::approvals::ExecOrigin origin;
    bool sender_is_owner = true;
  };
  class Backend;

  /// Children of `parent_key` named by `target`: "all", "last", a 1-based index of list(), a
  /// run id (or a prefix of 6+ characters), a child session key, or a label.
  std::vector<Child*> resolve(const std::string& parent_key, const std::string& target, bool running_only);
  int active_children(const std::string& parent_key) const;
  Child& add(Child child);
  void watch(const std::string& run_id);
  void on_end(const std::string& run_id, const RunEvent& terminal);
  void announce(Child& child, const ChildOutcome& outcome, const RunEvent& terminal);
  void context_hook_ended(const Child& child, const std::string& reason);
  RunEventSink sink_for(const SendRequest& request) const;
  nlohmann::json row(const Child& child, std::size_t index) const;

  AgentService& agents_;
  std::shared_ptr<bool> alive_;
  std::unique_ptr<Backend> backend_;
  std::function<RunEventSink(const SendRequest&)> sink_factory_;
  std::map<std::string, Child> children_;  // by run id
  std::deque<std::string> order_;          // run ids in spawn order
  std::map<std::string, RunOrigin> run_origins_;  // running runs with a chat origin or a non-owner sender
};

}  // namespace pincer::agent
