// The agent runtime as the gateway and the CLI see it: sessions (index + transcripts), the
// session lane (one run per session at a time, QL-1/AG-8) with a global limit
// (agents.defaults.maxConcurrent), starting and aborting runs, history and session management.
//
// Loop affinity: every method runs on the event-loop thread. Session files are small and are read
// and appended on the loop (page cache; synced once at the end of each turn, before the run
// journal records it answered); see store/transcript.h and agent/run_journal.h.
#pragma once

#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_run.h"
#include "agent/attachments.h"
#include "agent/run_events.h"
#include "agent/run_journal.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/result.h"
#include "store/session_index.h"
#include "tools/approvals/approval_manager.h"

namespace pincer::agent {

class Subagents;  // agent/subagents.h

/// A request to run the agent on one message.
/// The global lanes (QL-2): runs of different kinds wait for their own slots, so background work
/// never holds up a conversation and never deadlocks it. Limits (as OpenClaw): `main`
/// agents.defaults.maxConcurrent (4), `subagent` agents.defaults.subagents.maxConcurrent (8),
/// `cron` 1, `nested` 1 (a run started by a tool of another run; it never takes the cron lane).
enum class RunLane { Main, Subagent, Cron, Nested };
inline constexpr std::size_t kRunLaneCount = 4;
const char* to_string(RunLane lane);

struct SendRequest {
  std::string session_key;   ///< as the client gave it: "main", "agent:main:main", "work" …
  std::string agent_id;      ///< "" = the agent named by the key, else the default agent
  std::string message;
  std::string run_id;        ///< the client's idempotencyKey
  std::string thinking;      ///< "" = the agent's default; else off|minimal|low|medium|high|xhigh
  RunLane lane = RunLane::Main;
  /// Not a turn: compact the session (/compact, sessions.compact) with `message` as the user's
  /// instructions for the summary (may be empty). Waits on the session's lane like a turn.
  bool compact = false;
  /// Not a turn either: `/tree ID` (SS-4) — switch the session's branch to entry `branch_to`
  /// (an id or a prefix of one). Waits on the lane like a turn.
  std::string branch_to = {};
  std::string channel = {};  ///< the chat platform the message came from ("" = a gateway client);
                             ///< selects session.resetByChannel (SS-5)
  /// The chat the message came from ("" channel = a gateway client) and whether its sender is the
  /// owner: the tool policy (TL-2 owner-only, group tools) and exec approvals (TL-3) use them.
  tools::approvals::ExecOrigin origin = {};
  bool sender_is_owner = true;
  /// The run journal (agent/run_journal.h): a non-empty `source` ("chat.send", "agent" …) makes
  /// send() record the request durably before it returns; "" = not journaled (compaction,
  /// internal runs) unless `journal_ids` names entries the caller recorded itself (the channel
  /// pipeline records each message on arrival). The run marks them started and, when it ends,
  /// answered — except when the gateway stops under it (stop reason "shutdown"): then they are
  /// resumed at the next start.
  std::string source = {};
  std::vector<std::string> journal_ids = {};
  /// A rerun after a restart: when the session's transcript ends in this very message, unanswered
  /// (the gateway died mid-turn), the run continues that turn instead of recording it again.
  bool resume = false;
  /// CX-10: the silent memory-flush turn before a user turn (memory_flush.h); set by the service.
  bool memory_flush = false;
  /// A cron job's own settings (AT-2 agentTurn): the model ("provider/id" or an alias; "" = the
  /// session's) and the whole run's time limit in ms (0 = the agent's timeoutSeconds).
  std::string model = {};
  int64_t timeout_ms = 0;
  /// Images and files of the message, checked (agent/attachments.h); "" message + attachments is a
  /// turn. Not journaled: a queued run resumed after a restart, before it started, has only its text.
  std::vector<Attachment> attachments = {};
};

/// A SendRequest as the journal keeps it, and back (agent_journal.cpp).
nlohmann::json send_request_json(const SendRequest& request);
SendRequest send_request_from_json(const nlohmann::json& j);

/// What send() accepted.
struct SendAccepted {
  std::string run_id;
  std::string session_key;  ///< canonical
  std::string agent_id;
  bool queued = false;      ///< waits behind another run of the same session
};

/// Delay before the sessions index is written after a turn (batches the writes of busy agents).
inline constexpr int64_t kIndexSaveDelayMs = 1000;
/// One system event as OpenClaw's prompt lines: "System: [YYYY-MM-DD HH:MM:SS UTC] <first line>",
/// then "System: <line>" for each further line, each ending in a newline.
std::string format_system_event(int64_t ms, const std::string& text);
/// System events kept per session until its next turn (OpenClaw keeps 20).
inline constexpr std::size_t kMaxSystemEvents = 20;

class AgentService {
 public:
  /// `config`: the effective configuration; `state_dir`: where agents/ lives.
  AgentService(EventLoop& loop, const Clock& clock, nlohmann::json config, std::filesystem::path state_dir);
  ~AgentService();

  /// Queues a run on the session's lane. Errors: "INVALID_REQUEST" (empty message, or an agent
  /// id — given or in the session key — that is not configured),
  /// "MODEL_NOT_FOUND"/"MODEL_NOT_CONFIGURED" (the agent's model cannot be resolved),
  /// "SESSION_UNAVAILABLE" (the session files cannot be read or created). `sink` gets every
  /// event of the run, on the loop, ending with End, Error or Aborted.
  Result<SendAccepted> send(const SendRequest& request, RunEventSink sink);

  /// Queues a compaction of the session (CX-9; /compact, sessions.compact) on its lane, with the
  /// user's `instructions` for the summary. `sink` (optional) gets the run's events; the End
  /// event's text says what was compacted, Error why nothing was. Errors as send(), and
  /// "NOTHING_TO_COMPACT" (nothing queued, nothing written) for an idle session with no messages,
  /// "SINGLE_TURN" (the same) for an idle one with a single user turn since its last compaction.
  Result<SendAccepted> compact_session(const std::string& session_key, const std::string& instructions,
                                       RunEventSink sink = nullptr);

  /// `/tree` (SS-4): the session's branches as {leafId, turns: [{entryId, text}], branches:
  /// [{leafId, forkId, messages, timestamp, text}]} (store/session_tree.h tree_view). Errors:
  /// "SESSION_NOT_FOUND" (no transcript yet), "IO_ERROR".
  Result<nlohmann::json> session_tree(const std::string& session_key);
  /// `/tree ID`: queues the switch on the session's lane; the End event's text says what
  /// happened, Error why not (an unknown or ambiguous id, nothing to switch). Errors as send().
  Result<SendAccepted> switch_branch(const std::string& session_key, const std::string& entry_id,
                                     RunEventSink sink = nullptr);

  /// Aborts the session's active run (and drops its queued ones). With `run_id`, only that run;
  /// a run of another session gives "RUN_SESSION_MISMATCH". Returns the aborted run ids.
  Result<std::vector<std::string>> abort(const std::string& session_key, const std::string& run_id,
                                         const std::string& reason = "rpc");

  /// Steers the session's running run (QL-3 `steer`, AG-4): `text` joins it as a user message at
  /// its next tool-call boundary (AgentRun::steer). With `run_id`, only that run. False when the
  /// session has no started run (idle, or its run still queued), the run differs from `run_id`,
  /// or it is finishing. True means queued, not injected: the run's sink gets a Steered event
  /// when it is; if the terminal event comes first it never is, and the caller should run `text`
  /// as a turn of its own. `attachments` (a channel message's media, agent/attachments.h) go with
  /// the text: images are stored beside the transcript first; false when they cannot be.
  bool steer(const std::string& session_key, const std::string& run_id, std::string text,
             const std::vector<Attachment>& attachments = {});

  /// The run journal's record of a message's attachments (store_attachment_refs): their bytes
  /// stored beside agent `agent_id`'s transcripts, described by reference. A run source that
  /// journals its own requests (the channel pipeline) puts this under "media" in its entry; the
  /// files that are not images are deleted once the turn's user message is recorded.
  Result<nlohmann::json> journal_media(const std::string& agent_id, const std::vector<Attachment>& attachments);
  /// The attachments of such a record, for a message of `session_key` resumed after a restart.
  std::vector<Attachment> load_journal_media(const std::string& session_key, const nlohmann::json& refs);

  /// Calls `done` with the terminal event of `run_id` (at once when it already ended and is still
  /// remembered); false when the run is unknown.
  bool when_finished(const std::string& run_id, std::function<void(const RunEvent&)> done);
  /// True while the run is queued or running.
  bool is_active(const std::string& run_id) const;
  /// The canonical key of the session whose run `run_id` is (queued or running); "" otherwise.
  std::string session_of_run(const std::string& run_id) const;
  /// Runs queued or running, across all sessions.
  std::size_t active_runs() const;
  /// Runs running now (not queued), across all sessions.
  std::size_t running_runs() const;
  /// GW-10, the gateway is stopping: running turns go on, no queued run starts any more (they
  /// stay in the run journal and start at the next start). Cannot be undone.
  void drain();

  /// One global lane (QL-2: main, subagent, cron, nested) as OpenClaw's `diagnostics.lanes`
  /// reports a CommandLaneSnapshot: runs waiting for one of its slots (their session has no
  /// active run: a run behind its own session's run is counted in `SessionLaneTotals`), runs
  /// holding one, its limit, and whether the gateway drains (GW-10).
  struct LaneSnapshot {
    std::string lane;
    std::size_t queued = 0;
    std::size_t active = 0;
    int max_concurrent = 0;
    bool draining = false;
  };
  /// The per-session lanes (QL-1) summed, as OpenClaw's `dynamic` summary: lanes that exist
  /// (a session with a run queued or running), their running runs, their queued runs, and how
  /// many of them have a queue.
  struct SessionLaneTotals {
    std::size_t lanes = 0;
    std::size_t active = 0;
    std::size_t queued = 0;
    std::size_t queued_lanes = 0;
  };
  /// The global lanes in name order, and the session lanes' totals. Loop thread.
  std::vector<LaneSnapshot> lane_snapshots() const;
  SessionLaneTotals session_lane_totals() const;

  /// `chat.history`: {sessionKey, sessionId, messages, thinkingLevel}; the last `limit` messages.
  /// `entry_ids`: each message carries OpenClaw's `__openclaw: {id, seq}` — the id of its
  /// transcript entry (what `chat.message.get` looks up) and its 1-based place on the branch.
  Result<nlohmann::json> history(const std::string& session_key, int limit, bool entry_ids = false);
  /// `sessions.list`: rows {key, sessionId, updatedAt, agentId, model?, …} across agents, newest first.
  nlohmann::json list_sessions(int limit);
  /// `sessions.reset`: archives the transcript and gives the key a new session id.
  Result<nlohmann::json> reset_session(const std::string& session_key);
  /// `sessions.delete`: archives the transcript (…deleted…) and removes the key.
  Result<nlohmann::json> delete_session(const std::string& session_key);
  /// What `/status` shows of a session: {sessionKey (canonical), agentId, sessionId? (absent before
  /// the first turn), model ("provider/id", or "" when none resolves), modelError? (why not),
  /// thinkingLevel (the session's, else the agent's default), messages (the user and assistant
  /// messages of the transcript: not the startup context or other custom entries, nor hidden flush turns),
  /// running (a run of the session is going on)}; model is the session's override when it has one.
  nlohmann::json session_status(const std::string& session_key);
  /// `/think LEVEL`: the thinking level of the session's next runs, kept in its sessions.json entry
  /// as "thinkingLevel" (OpenClaw's field); a run's own `thinking` still wins. The session is
  /// created when it has no entry yet. Errors: "INVALID_REQUEST" (not off|minimal|low|medium|high),
  /// index write errors ("IO_ERROR" …).
  Status set_session_thinking(const std::string& session_key, const std::string& level);
  /// Channel docking (RT-5, channels/session_docks.h): records where the session's replies go now
  /// in its sessions.json entry as OpenClaw keeps a delivery address — lastChannel, lastTo,
  /// lastAccountId and deliveryContext {channel, to, accountId} — so OpenClaw and the MCP bridge
  /// deliver there too. updatedAt is kept; the session is created when it has no entry. Errors:
  /// "INVALID_REQUEST" (an empty channel or to), index write errors ("IO_ERROR" …).
  Status set_session_delivery(const std::string& session_key, const std::string& channel, const std::string& to,
                              const std::string& account_id);
  /// `sessions.patch` (OpenClaw's shape): `params` {label?, thinkingLevel?, model?}, `null` clears
  /// a field (the agent's default applies again). `model` ("provider/id" or an alias) is kept as
  /// OpenClaw's providerOverride/modelOverride and, when the session's run is still clean, switches
  /// that run live (AG-6). Creates the session when it has no entry. Returns {ok, path, key,
  /// entry, resolved:{modelProvider, model}, liveSwitch}. Errors: "INVALID_REQUEST" (a field Pincer
  /// does not have, a wrong type, an unknown level, a model that does not resolve — the message
  /// names it), index write errors.
  Result<nlohmann::json> patch_session(const std::string& session_key, const nlohmann::json& params);
  /// `sessions.preview` (OpenClaw's shape): for each key {key, status "ok"|"empty"|"missing"|
  /// "error", items:[{role:"user"|"assistant", text}]} — the last `limit` user/assistant messages
  /// with text, each cut to `max_chars` (20..800, "..." appended). Returns {ts, previews}.
  nlohmann::json preview_sessions(const std::vector<std::string>& keys, int limit, int max_chars);
  /// `models.list` and `agents.list` payloads.
  nlohmann::json list_models() const;
  nlohmann::json list_agents() const;
  /// The model defaults of an agent's sessions (the default agent when `agent_id` is empty or
  /// unknown), as OpenClaw's `sessions.list` `defaults`: {agentId, modelProvider, model,
  /// contextTokens, contextWindow?, thinkingDefault, thinkingLevels[{id,label}], thinkingOptions};
  /// modelProvider/model/contextTokens are null when no model is configured.
  nlohmann::json session_defaults(const std::string& agent_id = "") const;

  /// The canonical store key for a client key ("main" → "agent:<default>:main").
  std::string canonical_key(const std::string& session_key, const std::string& agent_id = "") const;

  /// Applies a new validated config (hot reload): agents, models, tools and
  /// agents.defaults.maxConcurrent apply to runs started from now on; running and queued runs
  /// keep what they resolved. Session stores stay open.
  void reconfigure(nlohmann::json config);
  /// The effective config the service runs with (the last one reconfigure() applied). Loop thread.
  const nlohmann::json& effective_config() const { return config(); }
  /// The state directory the service was created with (agents/<id>/… lies beneath it).
  const std::filesystem::path& state_directory() const { return state_dir(); }

  /// The exec approvals of every run (TL-3): the gateway's exec.approval.* methods and the
  /// channels' approval replies act on it.
  tools::approvals::ApprovalManager& approvals();

  /// Aborts everything (shutdown).
  void abort_all(const std::string& reason);

  /// AT-2 systemEvent: queues `text` for the session's next turn (in memory, at most
  /// kMaxSystemEvents per session, the oldest dropped): that turn's message starts with
  /// "System: [<UTC time>] <text>" lines (OpenClaw's format), then the user's text
  /// (agent_lanes.cpp).
  void add_system_event(const std::string& session_key, const std::string& text);
  /// The `cron` tool's backend for every run from now on (owned by the caller; null = none).
  void set_cron_backend(tools::CronBackend* backend);
  /// The session tools' backends for every run from now on (each owned by whoever sets it; a
  /// null member = those tools answer that they are unavailable). Set and cleared on the loop.
  tools::SessionBackends& session_backends();
  /// The source of every later run's dynamic tools (the MCP client, tools/dynamic_tools.h; owned
  /// by the caller, which clears it before it goes; null = none). Loop thread.
  void set_dynamic_tools(tools::DynamicToolSource* source);
  /// That source (nullptr when none): tools.effective lists its known tools.
  tools::DynamicToolSource* dynamic_tools() const;

  /// The run journal (SS-6, GW-10), opened at construction (`<state>/runs/journal.jsonl`).
  RunJournal& journal();
  /// The entries of `source` the journal held unfinished at construction, taken out of the list
  /// (their source resumes them: the channel pipeline).
  std::vector<JournalEntry> take_unfinished(const std::string& source);
  /// Reruns every unfinished entry still in the list (gateway sources: chat.send, agent) once,
  /// each as a SendRequest with `resume` set and its events to `sink_for(request)`; an entry that
  /// was resumed before (kMaxResumes) or no longer runs (an agent removed) is given up, logged
  /// and marked answered. Call once, after take_unfinished() of the other sources.
  void resume_unfinished(const std::function<RunEventSink(const SendRequest&)>& sink_for);

  // ---- Subagents (MA-3; agent/subagents.h, agent_service_subagents.cpp) ----
  /// The children spawned by sessions_spawn, per parent session: the `subagents` tool,
  /// `/subagents` and the gateway's wiring (announce sink, resume) act on it. Created with the
  /// service; its backend is set on session_backends().subagents.
  Subagents& subagents();
  // ---- end subagents ----

 private:
  friend class Subagents;  // reads the sessions index, config and agents (agent/subagents.cpp)
  struct Pending {
    SendRequest request;
    std::string key, agent_id;
    RunEventSink sink;
  };
  struct Lane {  ///< a session's lane (QL-1): one run at a time
    std::shared_ptr<AgentRun> active;
    RunLane active_lane = RunLane::Main;  ///< the global lane the active run holds a slot of
    std::deque<Pending> queue;
  };
  struct Impl;

  void pump();
  /// Journals a terminal event for `request`'s entries (agent_journal.cpp): answered unless the
  /// gateway is shutting down under the run.
  void journal_finished(const SendRequest& request, const RunEvent& terminal);
  void schedule_index_save(const std::string& agent_id);
  void flush_indexes();
  void start(Pending pending);
  void finished(const std::string& key, const RunEvent& terminal);
  /// A run started from a channel (`origin`): the session's delivery address in sessions.json
  /// (lastChannel, lastTo, lastAccountId, lastThreadId, deliveryContext), as OpenClaw records it on
  /// every inbound message; written only when it changed. No-op for a session without an entry.
  void note_delivery(const std::string& key, const std::string& agent_id, const tools::approvals::ExecOrigin& origin);
  /// A compaction's end: the session's totalTokens becomes its tokensAfter estimate (on the loop).
  void note_compaction(const std::string& key, const RunEvent& compaction);
  store::SessionIndex& index_for(const std::string& agent_id);
  /// The transcript of the canonical `key` (agent_service_tree.cpp). Errors: "SESSION_NOT_FOUND"
  /// (no entry or no file yet), read_transcript's.
  Result<store::TranscriptContents> read_session(const std::string& key);

  // Session controls (agent_service_controls.cpp) and what they borrow from the service.
  const Clock& clock() const;
  const std::filesystem::path& state_dir() const;
  const nlohmann::json& config() const;
  Result<llm::ModelSpec> resolve_model(const std::string& ref) const;
  std::string agent_default_thinking(const std::string& agent_id) const;
  std::string agent_primary_model(const std::string& agent_id) const;
  AgentRun* active_run(const std::string& key) const;
  /// CX-10: when a memory flush is due before `p` (recall_hooks.h memory_flush_before), records
  /// it in the session's index entry, puts `p` back at the head of its lane and starts the
  /// silent flush turn instead; true then.
  bool flush_first(Pending& p, const RunInputs& in, const std::vector<store::TranscriptEntry>& entries);
  /// MM-9: the ended session (its archived `transcript`) summarised into the agent's memory
  /// (session_memory_archive.h); nothing when memory or memory.archive is off.
  void archive_to_memory(const std::string& key, const std::string& agent_id, const std::string& session_id,
                         const std::filesystem::path& transcript);
  /// SS-5: resets the session when its reset policy says it is stale (called by send()).
  void reset_if_stale(const std::string& key, const std::string& channel);
  /// SS-3 / AG-6 / AG-7 at the start of a run: the model and thinking level of the session
  /// (request > sessions.json override > the transcript's last model_change/thinking_level_change >
  /// agent default) into `in`. A model or level that differs from what the transcript last
  /// recorded is appended to it (marked `origin: "pincer-session"`: such entries never act as the
  /// fallback, so a cleared setting does not come back). An override naming a model that no
  /// longer resolves is logged and skipped. `ctx` is store::build_context(entries).
  void apply_session_state(const std::string& key, const std::string& request_thinking,
                           const std::vector<store::TranscriptEntry>& entries, const store::SessionContext& ctx,
                           store::TranscriptWriter& writer, RunInputs& in);
  /// CX-4: RunInputs::turn_context of a run — each user message's time in
  /// agents.defaults.userTimezone (offset taken at the run's start) or host time, and for the
  /// current message the bootstrap truncation warning when there is one to give.
  /// The queued system events of `key` as "System: …" lines and a blank line, taken (cleared);
  /// "" when none.
  std::string take_system_events(const std::string& key);
  std::function<std::string(int64_t, bool)> turn_context_for(const std::string& key,
                                                             const std::string& truncation_warning) const;

  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Subagents> subagents_;  // after impl_: destroyed first (MA-3)
};

}  // namespace pincer::agent
