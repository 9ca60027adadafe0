// What a run reports while it works (GW-5 "streaming of a run"): the gateway turns these into
// `agent` and `chat` events; other front ends (CLI, channels) consume them directly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "llm/messages.h"

namespace pincer::agent {

struct RunEvent {
  enum class Kind {
    Start,           ///< the run began (after the user message was recorded)
    AssistantDelta,  ///< `text` = the assistant text so far in this model step, `delta` = new suffix
    ToolStart,       ///< tool_name, tool_call_id, tool_args
    ToolResult,      ///< tool_name, tool_call_id, tool_result (capped text), tool_error
    Steered,         ///< a message given to AgentRun::steer() entered the loop (AG-4): `text` = it;
                     ///< one event per steer() call, in call order, before the next model call
    Compaction,      ///< the context engine compacted (CX-9): `data` = {phase: start|end, reason,
                     ///< tokensBefore, tokensAfter?, compacted?, error?, willRetry?}
    Failover,        ///< the run moved to another model or auth profile (PV-5): `data` =
                     ///< FailoverSwitch::to_json(); provider/model are the new ones
    End,             ///< finished: `text` = final reply, stop_reason
    Error,           ///< failed: `error` = one clear line
    Aborted,         ///< stopped by a client or the timeout: `text` = partial reply, stop_reason
  };
  Kind kind;
  std::string run_id, session_key, agent_id, session_id;
  std::string text;
  std::string delta;
  std::string tool_name, tool_call_id;
  nlohmann::json tool_args;
  std::string tool_result;
  bool tool_error = false;
  std::string error;         ///< Error: one clear line for operators (secrets masked)
  std::string error_reason;  ///< Error from the model provider: its failover reason ("auth",
                             ///< "rate_limit", … llm::to_string); "" for the gateway's own errors.
                             ///< Chat platforms show a generic line by it (channel_error_text).
  std::string stop_reason;  ///< "stop", "length", "toolUse", "error", "aborted", or the abort reason
  std::string provider, model;
  llm::Usage usage;  ///< summed over the run's model calls (End)
  nlohmann::json data;  ///< Compaction: its payload (see Kind)
  /// Error: the session's context could not be made to fit (CX-9: after the overflow
  /// compactions and the tool-result cut); the service resets the session, `error` says so.
  bool reset_session = false;
  /// Terminal events: the thinking level the run ended with, and whether the provider rejected the
  /// requested one so that it was stepped down (AG-7; the session keeps the lower level).
  std::string thinking;
  bool thinking_stepped_down = false;
  int64_t ts = 0;    ///< wall ms
};

/// Receives events on the event-loop thread, in order.
using RunEventSink = std::function<void(const RunEvent&)>;

}  // namespace pincer::agent
