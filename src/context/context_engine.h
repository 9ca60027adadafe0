// The context engine (SPEC CX-1): what a session's model calls see of its history. The runner
// (agent/agent_run) tells the engine every message it records (ingest) and asks it, before each
// model call, for the messages to send within a token budget (assemble); the engine decides how
// the history fits — the default engine keeps it linear and compacts it (CX-9), other engines
// (retrieval-based ones, say) may replace it per agent (`agents.defaults.contextEngine`,
// `agents.list[].contextEngine`).
//
// Loop affinity: an engine belongs to one run of one session and is used on the event-loop
// thread only; its callbacks arrive there. It does no file I/O itself: the runner gives it a
// host that records compaction entries in the session's transcript.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "context/budget.h"
#include "context/compaction.h"
#include "core/http_client.h"
#include "core/result.h"
#include "llm/messages.h"

namespace pincer::context {

/// The engine of agents that choose none; "legacy" (OpenClaw's name for its own) is an alias.
inline constexpr std::string_view kDefaultEngineId = "default";

/// A message of the session with the transcript entry it came from ("" when it has none yet).
/// The message is immutable and shared: the transcript cache, a run's engine and the next run's
/// share one copy (a run copied the whole history in and freed it again on every turn). Never null.
struct EngineMessage {
  std::shared_ptr<const llm::Message> message;
  std::string entry_id;

  EngineMessage() : message(std::make_shared<const llm::Message>()) {}
  EngineMessage(llm::Message m, std::string id)
      : message(std::make_shared<const llm::Message>(std::move(m))), entry_id(std::move(id)) {}
  EngineMessage(std::shared_ptr<const llm::Message> m, std::string id) : message(std::move(m)), entry_id(std::move(id)) {}
};

/// The session as loaded from its transcript (store::build_context), for bootstrap().
struct SessionHistory {
  std::string summary;                  ///< the latest compaction's summary ("" = none)
  int64_t summary_tokens_before = 0;    ///< its tokensBefore
  std::vector<EngineMessage> messages;  ///< what follows the summary, oldest first
  std::size_t live_from = 0;            ///< index of the first message recorded after the compaction
};

/// CX-8: pruning of old tool results before compaction is considered.
struct PruneSettings {
  bool enabled = true;
  int keep_turns = 3;                ///< results of the last N turns are never pruned
  std::size_t soft_max_chars = 4000;  ///< older results longer than this keep head + tail …
  std::size_t soft_head_chars = 1500, soft_tail_chars = 1500;
  /// … and, when the history still does not fit, are replaced by this placeholder (hard prune).
  std::string hard_placeholder = "[Old tool result content cleared]";
};

/// CX-9 settings (`agents.defaults.compaction`).
struct CompactionSettings {
  bool enabled = true;
  int64_t reserve_tokens = kDefaultReserveTokens;
  int64_t keep_recent_tokens = kDefaultKeepRecentTokens;
};

/// What an engine is built with, per run.
struct EngineConfig {
  llm::ModelSpec model;       ///< the run's model, also the summariser
  int64_t window_tokens = 0;  ///< the effective window (budget.h effective_window)
  CompactionSettings compaction;
  PruneSettings prune;
};

/// Why a compaction runs (CX-9 levels; Manual = /compact or sessions.compact).
enum class CompactReason { Threshold, Timeout, Overflow, Manual };
std::string_view to_string(CompactReason reason);

/// One `compaction` stream event (start, then end).
struct CompactionEvent {
  bool end = false;
  CompactReason reason = CompactReason::Threshold;
  int64_t tokens_before = 0;
  int64_t tokens_after = 0;  ///< end: the estimate after (= before when nothing changed)
  bool compacted = false;    ///< end: a compaction entry was recorded
  std::string error;         ///< end: why not, when not
};

/// What the engine may do outside itself, lent by the runner.
struct EngineHost {
  net::HttpClient* http = nullptr;  ///< for the summariser's calls
  /// Records {summary, firstKeptEntryId, tokensBefore, details} in the transcript; the entry id.
  std::function<Result<std::string>(const std::string& summary, const std::string& first_kept_entry_id,
                                    int64_t tokens_before, const nlohmann::json& details)>
      append_compaction;
  std::function<void(const CompactionEvent&)> on_compaction;  ///< may be empty
};

/// The fixed part of every request: it counts against the budget too.
struct RequestFrame {
  std::string system_prompt;
  std::vector<llm::ToolDefinition> tools;
  /// fixed_chars(system_prompt, tools) once computed: an engine needs it several times per model
  /// call and the tool schemas are walked to count it. A frame is built, then only read; whoever
  /// changes the two fields after handing the frame out must reset this.
  mutable std::optional<std::size_t> fixed_chars_memo{};
};

/// The messages for one model call.
struct Assembled {
  llm::MessageList messages;  ///< the history's own messages where kept as they are (shared)
  int64_t estimated_tokens = 0;  ///< the whole request (frame included), corrected by usage
  int64_t budget = 0;            ///< the prompt budget it was assembled for
  OverflowRoute route = OverflowRoute::Fits;  ///< what was found before anything was done (CX-7)
};

struct CompactRequest {
  CompactReason reason = CompactReason::Manual;
  std::string instructions;  ///< the user's, for the summary (/compact …)
  RequestFrame frame;
};

struct CompactResult {
  bool compacted = false;
  int64_t tokens_before = 0, tokens_after = 0;
  std::string entry_id;  ///< the compaction entry
  std::string error;     ///< why nothing was recorded ("" when compacted)
  /// Nothing recorded because compacting would not help (one turn, a summary no smaller, one
  /// already running) — an answer, not a failure; false when the summary call or the save failed.
  bool refused = false;
};

/// A child about to start (prepare_subagent_spawn).
struct SubagentSpawn {
  std::string parent_session_key, child_session_key;
  std::string context_mode = "isolated";  ///< the child starts with no inherited history
  int64_t ttl_ms = 0;                      ///< the child's run timeout (0 = the agent's)
};

/// A child that ended (on_subagent_ended).
struct SubagentEnded {
  std::string child_session_key;
  std::string reason;  ///< "ok" | "error" | "timeout" | "aborted" | "deleted"
};

class ContextEngine {
 public:
  virtual ~ContextEngine() = default;
  virtual std::string_view id() const = 0;

  /// What the engine may use outside itself (the runner's HTTP client and transcript), given by
  /// the runner before the first call.
  virtual void attach(EngineHost host) = 0;
  /// The session's history as loaded, before the run's first call.
  virtual void bootstrap(SessionHistory history) = 0;
  /// A message the runner has recorded in the transcript as entry `entry_id`.
  virtual void ingest(const llm::Message& message, const std::string& entry_id) = 0;
  /// Several at once, in order.
  virtual void ingest_batch(const std::vector<EngineMessage>& messages) {
    for (const auto& m : messages) ingest(*m.message, m.entry_id);
  }
  /// The messages for the next call within `budget` tokens (the prompt budget, CX-6), compacting
  /// first when they do not fit (L1). Never fails: at worst the history goes as it is and the
  /// provider's overflow error brings the runner back through compact().
  virtual void assemble(const RequestFrame& frame, int64_t budget, std::function<void(Assembled)> done) = 0;
  /// Summarises the older part of the history (CX-9); loss-safe: on any failure nothing changes.
  virtual void compact(const CompactRequest& request, std::function<void(CompactResult)> done) = 0;
  /// The estimate of the next request (for the L2 check, /status).
  virtual int64_t estimate(const RequestFrame& frame) const = 0;
  /// From now on, every tool result goes cut to its head and tail (the step after the last
  /// overflow compaction of a run, CX-7/AG-5).
  virtual void truncate_tool_results() = 0;
  /// The estimate (CX-5, uncorrected) of what comes before the latest user message: the summary
  /// and the earlier messages — what a session reset would take away. The runner compares it with
  /// that message when the provider still refuses the request after compaction (AG-5 L3,
  /// message_fit.h): a reset is for a history larger than the message. nullopt when the engine
  /// cannot tell (the default): the runner then resets the session.
  virtual std::optional<int64_t> earlier_tokens() const { return std::nullopt; }
  /// After the run's last model call.
  virtual void after_turn() = 0;
  /// Housekeeping between turns (nothing for the default engine).
  virtual void maintain() {}
  /// Stops a summary call in flight; its `done` is not called and nothing is recorded.
  virtual void cancel() = 0;

  // ---- Sub-agent lifecycle (MA-3; agent/subagents.cpp calls them on an engine of the parent
  // agent's kind, made for the call, as OpenClaw resolves an engine per call) ----
  /// Before a child session's run starts: set up what the engine shares with it (a context slice,
  /// an index). An error refuses the spawn (its message is the tool's error). Default: nothing.
  virtual Status prepare_subagent_spawn(const SubagentSpawn& spawn) {
    (void)spawn;
    return Ok{};
  }
  /// After a child's run ended (its result is being announced to the parent) or its session
  /// was deleted: release what prepare_subagent_spawn set up. Default: nothing.
  virtual void on_subagent_ended(const SubagentEnded& ended) { (void)ended; }
};

/// True for the engine ids this build has ("default", "legacy").
bool is_known_engine(std::string_view id);
/// The engine `id` (is_known_engine must hold; anything else gives the default engine).
std::unique_ptr<ContextEngine> make_engine(std::string_view id, EngineConfig config);

}  // namespace pincer::context
