// One agent run: the reason–act loop (AG-1) for one user message in one session. It streams the
// model through the provider's wire format (llm/), runs the tools the model asks for on worker
// threads, appends every message to the session transcript as it happens, retries transient
// provider failures with backoff (PV-4), and can be aborted at any point keeping the partial
// reply, marked aborted (AG-9).
//
// Steering (AG-4, QL-3 `steer`): a message given to steer() while the run works enters the loop at
// the next tool-call boundary — after the running tool completes, the reply's remaining tool calls
// are not run (each gets the error result kSteeringSkippedResult, as providers want a result for
// every call), the steering text is recorded as a user message and the model is called again. A
// run that ends before such a boundary (the model answers without tool calls, an error, an abort)
// never injects it: the caller then runs it as a turn of its own.
//
// Loop affinity: created, started and aborted on the event-loop thread; callbacks arrive there.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/branch_switch.h"
#include "agent/model_failover.h"
#include "agent/oauth_refresher.h"
#include "agent/run_events.h"
#include "context/context_engine.h"
#include "context/message_fit.h"
#include "context/summarizer.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "llm/failover.h"
#include "llm/provider.h"
#include "store/transcript.h"
#include "tools/dynamic_tools.h"
#include "tools/tool.h"

namespace pincer::agent {

class CliModelCall;
struct CliOutcome;

/// The result given to a tool call that was not run because a steering message arrived.
inline constexpr const char* kSteeringSkippedResult = "Skipped: the user sent a new message.";
/// The result of a tool call cut off by a gateway restart (AgentRun::resume).
inline constexpr const char* kRestartLostResult =
    "Interrupted: the gateway restarted while this tool ran; its result was lost (it may or may not have taken effect).";

/// Extension points of the loop (AG-3), all called on the event-loop thread; each may be empty.
struct RunHooks {
  /// Before a tool runs. A returned message denies the call: the model receives it as an error
  /// result instead (the approval gate plugs in here).
  std::function<std::optional<std::string>(const llm::ToolCall&)> before_tool_call;
  /// After before_tool_call allowed the call: an asynchronous gate (exec approvals, TL-3). `done`
  /// is called once on the loop, maybe much later: nullopt runs the call, a message denies it.
  /// The run waits meanwhile; an abort ends it at once and a later `done` is ignored.
  std::function<void(const llm::ToolCall&, std::function<void(std::optional<std::string>)> done)> gate_tool_call;
  /// After a tool ran, before the CX-8 cap: may rewrite the output.
  std::function<void(const llm::ToolCall&, tools::ToolOutput&)> after_tool_call;
  /// Before every model call: may rewrite the context (compaction plugs in here).
  std::function<void(llm::Context&)> transform_context;
  /// Just before a request is sent (after transform_context): the model, the context the request
  /// was built from and the request itself (diagnostics.cacheTrace plugs in here, CX-11). Must not keep references.
  std::function<void(const llm::ModelSpec&, const llm::Context&, const llm::HttpRequest&)> before_request;
  /// Once, before the first model call of start() (active recall, agent/active_recall_hook.h): the
  /// run waits until `go` is called (on the loop; the hook bounds the wait), and a non-empty
  /// `prefix` goes before the run's own user message in every request of the run, never recorded.
  /// Returns a stop function: a run that ends while it waits (abort(), AG-9) calls it at once, so
  /// that the hook's own work (the recall's model call) ends with the turn; `go` is not expected then.
  std::function<std::function<void()>(std::function<void(std::string prefix)> go)> before_first_call;
};

/// Everything a run needs, resolved by the caller (AgentService) before it starts.
struct RunInputs {
  std::string run_id;        ///< = the client's idempotencyKey
  /// Blocks appended to the turn's user message by start(): images (with their media `ref`) and
  /// files, from agent/attachments.h.
  std::vector<llm::ContentBlock> attachments = {};
  bool silent = false;       ///< a memory-flush turn (CX-10): its events reach no one; never steered
  std::string session_key;   ///< canonical, e.g. "agent:main:main"
  std::string agent_id;
  std::string session_id;
  llm::ModelSpec model;
  std::string system_prompt;
  std::vector<const tools::Tool*> tools;
  /// Tools beyond `tools` that may change between model calls (MCP servers' tools, already
  /// filtered by the run's policy; tools/dynamic_tools.h): awaited once before the first model
  /// call, asked again at every call. Null = none.
  std::shared_ptr<tools::RunToolSet> dynamic_tools;
  /// `system_prompt` and `tools` as a request frame, when the caller built it already
  /// (make_request_frame: the memory-flush check and the run share one per turn). Null = the run
  /// builds its own. Whoever changes `system_prompt` or `tools` afterwards must reset it.
  std::shared_ptr<const context::RequestFrame> frame;
  std::filesystem::path workspace;
  llm::ThinkingLevel thinking = llm::ThinkingLevel::Off;
  int64_t timeout_ms = 600'000;      ///< whole run (agents.defaults.timeoutSeconds)
  int max_model_calls = 32;          ///< bound on reason–act iterations
  int max_attempts = 3;              ///< per model call and candidate, for retryable failures (PV-4)
  /// The (model, credential) chain of PV-5 (model_failover.h): the run starts on its current()
  /// candidate (overriding `model`) and asks it after every failed clean attempt. Null = only
  /// `model`, retried with backoff.
  std::shared_ptr<ModelFailover> failover;
  /// OAuth refresh of `oauth` profiles (PV-2, agent_run_oauth.cpp): before a model call with a
  /// profile due for refresh, and once per profile after a 401. Shared by the service's runs
  /// (single flight per profile). Null = expiring tokens are sent as they are.
  std::shared_ptr<OAuthRefresher> oauth;
  int64_t exec_timeout_ms = 1'800'000;
  /// Base environment for exec (scrubbed by the tool) and CLI backends: the gateway's own, read once
  /// and shared by every run (null: empty).
  std::shared_ptr<const std::map<std::string, std::string>> tool_env;
  /// The listed skills' configured variables (skills.entries.<key>.env / .apiKey, agent_skills.h):
  /// given to exec as set, not scrubbed — the owner put them there for those skills.
  std::map<std::string, std::string> skill_env;
  tools::ProcessTable* processes = nullptr;     ///< background exec sessions (owned by the service)
  tools::MemoryBackend* memory = nullptr;       ///< memory_search/memory_get (owned by the service; MM-6)
  tools::CronBackend* cron = nullptr;           ///< the `cron` tool's jobs (owned by the app; null = none)
  tools::ToolOrigin origin;                     ///< the chat the run answers (the cron tool's delivery default)
  tools::SessionBackends session_backends;      ///< the session tools' backends (owned by the app; null = none)
  std::string lane = "main";                    ///< the run's global lane (to_string(RunLane)), for the session tools
  /// The volatile facts of a turn (time and time zone, the bootstrap truncation warning: CX-3/CX-4,
  /// build_turn_context), after the stable prefix: called with each user message's timestamp, it
  /// gives the text block sent before that message's text — `current` for the run's own message
  /// (which alone may carry the warning). Never recorded in the transcript, yet the same message
  /// gets the same block in every later request (it depends only on the message's own time), so
  /// each request repeats the previous one byte for byte up to the new message and provider prompt
  /// caches hit. Empty = none.
  std::function<std::string(int64_t message_ms, bool current)> turn_context;
  std::size_t exec_max_output_chars = 0;        ///< tools.exec.maxOutputChars (0 = the tools' default)
  std::shared_ptr<const tools::sandbox::Settings> sandbox;  ///< set when this session is sandboxed (TL-5)
  std::shared_ptr<const nlohmann::json> config;  ///< the config the run started with (web tools)
  RunHooks hooks;
  /// The session's context engine (CX-1), bootstrapped with its history; null = a default engine
  /// over `history` (without transcript ids it cannot compact).
  std::shared_ptr<context::ContextEngine> engine;
  /// CLI backends (cli_model_call.h): the CLI session id of each backend for this session
  /// (sessions.json "cliSessionIds"), and where a new one is reported (backend id, session id; "" =
  /// the CLI forgot the stored one).
  std::map<std::string, std::string> cli_sessions;
  std::function<void(const std::string& backend, const std::string& session_id)> on_cli_session;
  int64_t context_window = 0;  ///< the effective window (0 = model.context_window)
  int64_t reserve_tokens = context::kDefaultReserveTokens;  ///< CX-6 reserve
};

/// AG-5: overflow compactions a run may make before it cuts tool results, then resets.
inline constexpr int kMaxOverflowCompactions = 3;
/// AG-5 L2: a timed-out call is retried after a compaction when the context was this full.
inline constexpr double kTimeoutCompactionShare = 0.65;

class AgentRun : public std::enable_shared_from_this<AgentRun> {
 public:
  /// `history`: the session's messages so far (already converted from the transcript).
  /// `on_finished` runs once, after the terminal event.
  AgentRun(EventLoop& loop, net::HttpClient& http, const Clock& clock, RunInputs inputs,
           std::vector<llm::Message> history, store::TranscriptWriter transcript, RunEventSink sink,
           std::function<void()> on_finished);

  /// Records `user_message` and starts the first model call — unless the message alone cannot fit
  /// the model's window (context/message_fit.h): then the run ends at once with an Error whose
  /// error_reason is "message_too_large", nothing recorded and nothing sent (agent_run_fit.cpp).
  void start(const std::string& user_message);
  /// Continues a turn a restart cut off (the run journal, SS-6): the history already ends in its
  /// user message (recorded at `user_message_ms`) and maybe tool calls and results. The calls in
  /// `lost_calls` (id, name: cut off while they ran) get an error result saying so before the
  /// model is called again — they are not run again (a call may have had its effect), and without
  /// a result the model would be asked about a call it already made.
  void resume(int64_t user_message_ms, const std::vector<std::pair<std::string, std::string>>& lost_calls = {});
  /// Instead of a turn: compacts the session now (/compact, sessions.compact) with the user's
  /// `instructions` for the summary; ends with End (`text` says what happened) or Error.
  void start_compaction(const std::string& instructions);
  /// Instead of a turn: `/tree ID` (SS-4) — moves the leaf to `plan.new_parent` behind a branch
  /// summary of what is left (agent_run_branch.cpp); ends with End (`text` says what happened)
  /// or Error (the transcript could not be written).
  void start_branch_switch(BranchPlan plan);
  /// Stops the run (`reason`: "rpc", "stop", "timeout" …); the partial reply is kept as aborted.
  void abort(const std::string& reason);
  /// Queues `text` (a user message) for the next tool-call boundary (see the file comment). True
  /// when queued; false when the run has finished or is being aborted. A queued text is either
  /// injected — reported by a Steered event (`text` = it) before the next model call — or, when
  /// the run ends first, never: the terminal event is the last word. Several texts queued before
  /// one boundary enter as one user message (joined by blank lines), one Steered event each.
  /// `media`: the message's images and files as content blocks (attachment_blocks, already stored
  /// beside the transcript); they follow the texts in that user message.
  bool steer(std::string text, std::vector<llm::ContentBlock> media = {});
  /// `/model` while the run works (AG-6): when the run is still clean — its first model call has
  /// shown nothing, no tool ran, no reply was recorded — the call is cancelled and made again with
  /// `model` (true). Otherwise nothing changes (false): the caller applies it from the next turn.
  bool switch_model(llm::ModelSpec model);

  const RunInputs& inputs() const { return in_; }
  bool finished() const { return finished_; }

 private:
  void call_model();
  /// The first model call of start() and resume(), with the run's deadline.
  void begin();
  /// Gives the engine its host (or makes a default one over the history); in agent_run_context.cpp.
  void attach_engine();
  /// Builds and sends the request of the current model call from the engine's messages.
  void send_model_request(context::Assembled assembled);
  /// The system prompt and tool definitions of every call of this run: built once and kept (its
  /// schemas are deep JSON copies, and the engine's size estimate of it is memoized inside), rebuilt
  /// only when the dynamic (MCP) tool set offers different tools. Valid until the next call.
  const context::RequestFrame& frame() const;
  /// Recovers from an overflow (L3) or a timeout with a full context (L2); false = not applicable.
  bool recover_context(const llm::ProviderFailure& failure);
  /// AG-5 (agent_run_fit.cpp): when `user` alone cannot fit the window (message_fit.h), ends the
  /// run with a message_too_large Error before anything is recorded or sent, and returns true.
  bool refuse_oversized(const llm::Message& user);
  /// AG-5 L3 (agent_run_fit.cpp), after the overflow compactions and the tool-result cut: when the
  /// history before the run's message (engine earlier_tokens) is smaller than the message, a reset
  /// would not make the request fit — ends the run with a message_too_large Error, the session
  /// kept, and returns true. False (nothing done) otherwise, and when the run did not start from a
  /// message of its own (resume) or the engine cannot tell: the caller resets the session.
  bool fail_turn_too_large();
  void on_compaction_event(const context::CompactionEvent& e, bool will_retry);
  void on_model_done(const std::optional<net::TransportError>& error);
  /// CLI backends (agent_run_cli.cpp): the model is a CLI (api kCliBackendApi) run instead of an
  /// HTTP request; its Pincer tools are not offered (the CLI runs its own).
  bool cli_model() const;
  void send_cli_request(const llm::Context& context);
  void on_cli_done(CliOutcome outcome);
  /// Stops a CLI call in flight (abort): its streamed text is kept as the aborted reply.
  bool abort_cli();
  void handle_failure(const llm::ProviderFailure& failure);
  /// PV-2 (agent_run_oauth.cpp): whether the current candidate is an oauth profile due for a
  /// refresh before it is sent.
  bool oauth_refresh_due() const;
  /// Whether a 401 (or an `auth` failure) of the current candidate is answered by one forced refresh and a new call
  /// (an oauth profile not forced yet in this run); marks it forced.
  bool take_oauth_retry(const llm::ProviderFailure& failure);
  /// Refreshes the current candidate's oauth profile, then runs `then` with the new token in
  /// in_.model; a failed refresh goes through handle_failure as an auth (transient) or
  /// auth_permanent (invalid_grant) failure of that profile, so the chain rotates.
  void refresh_oauth(bool force, std::function<void()> then);
  /// PV-5 (agent_run_failover.cpp): asks the failover chain what to do after a failed clean
  /// attempt; true when it retries (after `wait_ms`) or switched candidates and called again.
  bool fail_over(const llm::ProviderFailure& failure, int64_t wait_ms);
  /// Uses in_.failover->current() from now on and reports the last switch (a Failover event).
  void use_candidate(bool announce);
  /// The retry of the current call after `wait_ms` (the same request).
  void schedule_retry(int64_t wait_ms);
  /// " (failed over: a → b: reason; …)" for the final error when the chain switched, else "".
  std::string failover_summary() const;
  void handle_reply(llm::AssistantMessage reply);
  void run_next_tool();
  /// Runs (or, with `denied`, refuses) one tool call on a worker, then continues the loop.
  void execute_tool(const llm::ToolCall& call, const tools::Tool* tool, std::optional<std::string> denied);
  void inject_steering();
  void finish_ok(const llm::AssistantMessage& reply);
  void finish_error(const std::string& message, std::string_view reason = {});
  void finish_aborted();
  void finish(RunEvent event);
  /// Appends to the transcript; false (and save_error_ set) when the append failed.
  bool record(const llm::Message& message);
  /// Records an empty assistant message (`reason`, `error_message`) when the last recorded message
  /// is not an assistant one, so that the transcript never ends a turn on a user message.
  void close_turn(llm::StopReason reason, const std::string& error_message);
  /// Keeps the streamed text so far and arms the timer that saves it to partial_reply_path
  /// (kPartialFirstMs after the first delta, then at most once a second).
  void checkpoint_partial(const std::string& text);
  /// Writes partial_text_ to partial_reply_path (temp + rename).
  void write_partial();
  /// Cancels that timer and removes the file (the reply is in the transcript now).
  void drop_partial();
  RunEvent event(RunEvent::Kind kind) const;

  EventLoop& loop_;
  net::HttpClient& http_;
  const Clock& clock_;
  RunInputs in_;
  std::vector<llm::Message> messages_;
  store::TranscriptWriter transcript_;
  RunEventSink sink_;
  std::function<void()> on_finished_;
  const llm::ProviderApi* api_ = nullptr;

  // The model call in flight.
  std::optional<net::HttpClient::RequestId> request_;
  std::unique_ptr<llm::StreamDecoder> decoder_;
  int status_ = 0;
  std::string error_body_;
  std::string body_head_;  ///< the first kBodyHeadBytes of a 2xx body (an error object instead of a stream)
  static constexpr std::size_t kBodyHeadBytes = 4096;
  std::string retry_after_;
  std::optional<Error> stream_error_;
  bool streamed_ = false;  ///< deltas were already shown: no silent retry
  bool reply_recorded_ = false;  ///< the current model call's reply is in the transcript
  bool last_recorded_assistant_ = false;  ///< the transcript's last message of this run is the assistant's
  std::string save_error_;  ///< why a transcript append failed ("" = none): the run ends with it
  bool partial_written_ = false;      ///< partial_reply_path exists for this run
  int64_t partial_written_at_ = 0;    ///< steady ms of its last write
  std::string partial_text_;          ///< the streamed text the next checkpoint writes
  std::optional<EventLoop::TimerId> partial_timer_;  ///< the next checkpoint
  /// A reply still streaming this long after its first delta is checkpointed (ms).
  static constexpr int64_t kPartialFirstMs = 250;
  int attempt_ = 0;
  int model_calls_ = 0;
  std::optional<EventLoop::TimerId> retry_timer_, deadline_timer_;
  std::function<void()> retry_;  ///< starts another attempt of the current model call
  std::shared_ptr<CliModelCall> cli_call_;  ///< the CLI call in flight (CLI backends)
  std::string cli_text_;                    ///< its streamed text so far
  std::vector<std::string> oauth_forced_;   ///< profiles refreshed after a 401 in this run (once each)
  std::vector<std::string> oauth_refreshed_;  ///< profiles with a token refreshed (or re-read) in this run

  // Tools of the current reply.
  std::vector<llm::ToolCall> pending_tools_;
  size_t next_tool_ = 0;
  bool tool_running_ = false;
  std::function<void()> stop_first_call_hook_;  ///< set while the run waits for before_first_call's `go`
  std::shared_ptr<tools::CancelSignal> cancel_flag_ = std::make_shared<tools::CancelSignal>();  ///< the tools' stop signal
  std::vector<std::string> steering_;  ///< steer() texts waiting for the next boundary
  std::vector<llm::ContentBlock> steering_media_;  ///< their images and files, in order

  llm::Usage usage_;
  std::shared_ptr<context::ContextEngine> engine_;
  int overflow_compactions_ = 0;
  bool tool_results_cut_ = false;   ///< the step after the last overflow compaction was taken
  bool timeout_compacted_ = false;  ///< L2 happens once per run
  bool compaction_retry_ = false;   ///< the current compaction is followed by a retry (events)
  bool no_recovery_once_ = false;   ///< the next handle_failure skips recover_context
  std::shared_ptr<context::Summarizer> branch_summarizer_;  ///< /tree's summary call in flight
  std::string abort_reason_;
  bool aborted_ = false;
  mutable std::optional<context::RequestFrame> frame_;      ///< see frame()
  mutable std::vector<const tools::Tool*> frame_dynamic_;     ///< the dynamic tools frame_ was built with
  bool finished_ = false;
  bool thinking_stepped_down_ = false;  ///< a rejected level was stepped down (AG-7)
  std::optional<llm::ModelSpec> switch_to_;  ///< a live model switch waiting for the cancel
  int64_t turn_message_ms_ = -1;  ///< timestamp of the run's own user message (it alone may carry the warning)
  std::optional<context::MessageFit> turn_fit_;  ///< the run's own user message against the window (start)
  std::optional<std::string> turn_parent_;       ///< the transcript's leaf before that message (start)
};

/// The errorMessage of the assistant entry that closes a turn the gateway never finished (it was
/// killed or crashed mid-run): added when the session is next loaded (interrupted_turn_marker).
inline constexpr const char* kInterruptedTurnMessage = "interrupted (the gateway stopped before this reply was finished)";

/// The request frame of `system_prompt` and `tools` (their definitions copied once; see
/// RunInputs::frame).
std::shared_ptr<const context::RequestFrame> make_request_frame(const std::string& system_prompt,
                                                                const std::vector<const tools::Tool*>& tools);

/// Makes a history safe to send: drops tool calls that never got a result and results whose call
/// is missing (providers reject both), and turns failed/aborted assistant messages (which the
/// providers' rules would drop, leaving the request unanswered) into ordinary replies carrying
/// incomplete_reply_note, so the model sees that the turn was interrupted instead of answering its
/// request again. Assistant messages left empty are dropped.
llm::MessageList sanitize_history(llm::MessageList messages);

/// "[this reply is incomplete: <errorMessage, e.g. aborted (stop)>]" for an aborted reply, "[this
/// reply is incomplete: the model call failed]" for a failed one (the provider's error text is not
/// repeated to the model); preceded by a blank line when `m` has text.
std::string incomplete_reply_note(const llm::AssistantMessage& m);

/// When the active branch of `entries` ends its last turn without an assistant message (the last
/// message is a user message or a tool result: the process died mid-run), the pi assistant message
/// to append so the turn reads as interrupted: content = `partial_text` as one text block (none
/// when empty), stopReason "aborted", errorMessage kInterruptedTurnMessage, the branch's
/// provider/model, timestamp `now_ms`. nullopt otherwise.
std::optional<nlohmann::json> interrupted_turn_marker(const std::vector<store::TranscriptEntry>& entries,
                                                      int64_t now_ms, const std::string& partial_text = "");
/// The same, on the context already rebuilt from the transcript (store::build_context).
std::optional<nlohmann::json> interrupted_turn_marker(const store::SessionContext& context, int64_t now_ms,
                                                      const std::string& partial_text = "");

/// `<transcript>.partial`: {runId, text}, the text a run has streamed so far in its current model
/// step, rewritten at most once a second while it streams and removed once the reply is in the
/// transcript; what is left of it after a crash goes into the interrupted marker.
std::filesystem::path partial_reply_path(const std::filesystem::path& transcript);
/// The text of partial_reply_path(transcript), "" when there is none (or it does not parse).
std::string read_partial_reply(const std::filesystem::path& transcript);

}  // namespace pincer::agent
