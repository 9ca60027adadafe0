// The private state of AgentService (agent_service.h), shared by its translation units:
// agent_service.cpp (runs, sessions) and agent_lanes.cpp (abort, steer, waiting for runs).
// Loop affinity: as AgentService, everything here is touched on the event-loop thread only.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "core/config.h"
#include "agent/approval_triage.h"
#include "agent/session_memory_archive.h"
#include "memory/memory_service.h"
#include "memory/recall/active_recall.h"
#include "tools/approvals/approval_manager.h"
#include "tools/process_table.h"
#include "tools/registry.h"
#include "store/transcript.h"
#include "agent/request_frame_cache.h"
#include "agent/tool_decision_cache.h"
#include "agent/transcript_cache.h"

#include "agent/oauth_refresher.h"
#include "llm/auth/auth_profile_file.h"

namespace pincer::agent {

using nlohmann::json;

/// The sessions.json fields of a delivery address, as OpenClaw writes them: lastChannel, lastTo,
/// lastAccountId, lastThreadId (when `thread_id` is set) and deliveryContext {channel, to,
/// accountId, threadId?} (agent_service_sessions.cpp).
store::OrderedJson delivery_patch(const std::string& channel, const std::string& to, const std::string& account_id,
                                  const std::string& thread_id);

struct AgentService::Impl {
  Impl(EventLoop& l, const Clock& c, json cfg, std::filesystem::path state)
      : loop(l), clock(c), http(l), state_dir(std::move(state)), memory(cfg, state_dir, memory::memory_env_from_process(), true),
        approvals(l, c, state_dir / "exec-approvals.json"), journal(state_dir / "runs" / "journal.jsonl") {
    configure(std::move(cfg));
    open_journal();
    approvals.set_triage(make_triage_hook(loop, http, models, &triage_model, &triage_timeout_ms));
  }

  void configure(json cfg) {
    config = std::move(cfg);
    shared_config = std::make_shared<const json>(config);
    // The config was validated at load; resolution only fails on cross-field rules, which then
    // leave the defaults (one "main" agent) and are reported by every send().
    agents = AgentsConfig{};
    agents_error.reset();
    if (auto resolved = resolve_agents(config, state_dir, config::process_env())) {
      agents = std::move(*resolved);
    } else {
      agents_error = resolved.error();
      AgentSettings main;
      main.id = "main";
      main.is_default = true;
      main.workspace = state_dir / "workspace";
      main.agent_dir = state_dir / "agents" / "main";
      agents.agents.push_back(std::move(main));
    }
    models = ModelRegistry::from_config(config);
    memory.reconfigure(config);
    approvals.configure(tools::approvals::ApprovalSettings::from_config(config));
    const json approvals_cfg = config.value("approvals", json::object());
    triage_model = approvals_cfg.value("triageModel", "");
    if (triage_model.empty()) triage_model = agents.default_agent().model.primary;  // the agent's own model
    triage_timeout_ms = approvals_cfg.value("triageTimeoutSec", int64_t{20}) * 1000;
    limits[static_cast<std::size_t>(RunLane::Main)] = static_cast<int>(std::max<int64_t>(1, agents.max_concurrent));
    limits[static_cast<std::size_t>(RunLane::Subagent)] = static_cast<int>(std::max<int64_t>(1, agents.subagents_max_concurrent));
    const json cron_cfg = config.value("cron", json::object());  // the cron lane: cron.maxConcurrentRuns (QL-2)
    limits[static_cast<std::size_t>(RunLane::Cron)] =
        static_cast<int>(std::max<int64_t>(1, cron_cfg.is_object() ? cron_cfg.value("maxConcurrentRuns", int64_t{1}) : 1));
  }

  EventLoop& loop;
  const Clock& clock;
  net::HttpClient http;
  json config;
  std::shared_ptr<const json> shared_config;  ///< the same, shared with runs (RunInputs::config) without a copy
  std::filesystem::path state_dir;
  AgentsConfig agents;
  std::optional<Error> agents_error;
  tools::ToolRegistry tools = tools::ToolRegistry::builtin();  // owns the Tool objects runs point to
  tools::ProcessTable processes;                               // background exec sessions
  ModelRegistry models;
  std::map<std::string, std::unique_ptr<store::SessionIndex>> indexes;  // by agent id
  // Declared before `lanes`: runs' transcript writers report their appends to it (adopt) until they die.
  TranscriptCache transcripts;  ///< parsed transcripts of recent sessions (a turn reads only what was appended)
  std::map<std::string, Lane> lanes;                                    // by session key
  std::deque<std::string> ready;  // session keys waiting for a global slot, in arrival order
  std::array<int, kRunLaneCount> running{};            // by RunLane
  std::array<int, kRunLaneCount> limits = {4, 8, 1, 1};  // by RunLane (QL-2)
  std::map<std::string, std::string> run_session;  // active or queued run id → session key
  std::map<std::string, std::vector<std::function<void(const RunEvent&)>>> waiters;
  std::map<std::string, RunEvent> recent;  // terminal events of finished runs (bounded)
  std::set<std::string> pending_saves;     // agents whose index has a save scheduled
  std::deque<std::string> recent_order;
  // CX-10: runs aborted while their memory flush ran (run id → reason): they start, record the
  // user's message and end aborted at once, so nothing the user sent is lost.
  std::map<std::string, std::string> aborted_in_flush;
  // CX-10: the flush turns' append-only `write` tools, by daily-note path (one per day flushed).
  std::map<std::string, std::unique_ptr<tools::Tool>> flush_write_tools;
  memory::MemoryService memory;  // per-agent memory indexes (MM-4..8); opened on first use
  memory::recall::ActiveRecall recall{loop, http, memory};  // DR-6 active recall and its cache
  tools::approvals::ApprovalManager approvals;  // exec approvals (TL-3)
  ToolDecisionCache tool_decisions;  ///< the tool policy's decision per origin, until a reload
  RequestFrameCache frames;     ///< each recent session's system prompt + tool definitions, while unchanged
  std::map<std::string, int64_t> workspace_stamps;  ///< by workspace dir: ensure_workspace's directory stamp
  std::string triage_model;                     // approvals.triageModel (smart mode, TL-4)
  int64_t triage_timeout_ms = 20'000;
  RunJournal journal;                     // every journaled run source (SS-6)
  bool draining = false;                  // drain(): no queued run starts any more (GW-10)
  bool pumping = false;                   // pump() is on the stack: a nested call returns at once
  std::vector<JournalEntry> unfinished;   // what open() found, until resumed
  std::map<std::string, std::deque<std::pair<int64_t, std::string>>> system_events;  // by session key (AT-2)
  tools::CronBackend* cron_backend = nullptr;  // the cron tool's jobs (AT-2)
  tools::SessionBackends session_backends;     // the session tools' backends (TL-1, MA-2, MA-3)
  tools::DynamicToolSource* dynamic_tools = nullptr;  // MCP servers' tools (IX-2), owned by the app
  // PV-2: each agent's auth-profiles.json, opened on its first run (re-read when it changes).
  std::map<std::string, std::shared_ptr<llm::auth::AuthProfileFile>> auth_files;
  std::map<std::string, json> last_failover;  // by session key: the last FailoverSwitch (/status)
  // PV-2: OAuth refresh of oauth profiles, shared by every run (single flight per profile).
  std::shared_ptr<OAuthRefresher> oauth = std::make_shared<OAuthRefresher>(loop, http, clock, state_dir / "locks" / "oauth");
  std::shared_ptr<llm::auth::AuthProfileFile> auth_profiles_for(const std::string& agent_id) {
    auto& file = auth_files[agent_id];
    if (!file) file = std::make_shared<llm::auth::AuthProfileFile>(llm::auth::auth_profiles_path(state_dir, agent_id));
    return file;
  }
  void open_journal();                    // agent_journal.cpp
  SessionArchiver archiver{http};  // the /new archive into memory (MM-9); last: cancelled first
};

/// When the active branch of `ctx` ends in an unanswered turn whose user message says `message`
/// (then only tool calls and results, no final reply: the gateway died mid-turn), that message's
/// timestamp (ms); nullopt otherwise. A journaled rerun then continues the turn (agent_journal.cpp).
std::optional<int64_t> unanswered_turn(const store::SessionContext& ctx, const std::string& message);
/// The tool calls (id, name) of the last assistant message of `ctx` that no tool result answers:
/// what a gateway killed while they ran left behind. Empty unless `ctx` ends in such a turn.
std::vector<std::pair<std::string, std::string>> unanswered_tool_calls(const store::SessionContext& ctx);

/// Removes the session `key` (index entry and transcript `file`) when it is still `session_id` and
/// its transcript holds no message: a new session whose first message was refused before it was
/// recorded (agent_service_sessions.cpp), with the media stored for that message
/// (release_session_media). Anything else is left as it is.
void discard_unused_session(store::SessionIndex& index, const std::string& key, const std::string& session_id,
                            const std::filesystem::path& file);

}  // namespace pincer::agent
