// The `message` tool's backend (SPEC TL-1) and the chat of a session (for the agent-to-agent
// announce step, MA-2), over the channels' reply delivery.
//
// `message {message, channel?, target?|to?, accountId?, threadId?}`: the text goes to one chat of
// a configured, enabled channel account — by default the chat the run answers
// (ToolContext::origin); a channel or account that is not configured is refused naming
// `channels.<id>`. Delivery is ChannelManager::announce: rendered, chunked and recorded in the
// outbox before the first chunk is sent, so a restart finishes it without sending a chunk twice.
// Exactly once per call: the message id is derived from the run, its session and the
// arguments, and every id sent is recorded (fsynced) in `<state>/channels/message-tool.jsonl`
// before delivery; a resumed turn that repeats the same call (same run, same text, same chat) —
// or the same call made twice in one run — is answered {ok, duplicate:true} without a second
// message. The record keeps the last 2 000 ids.
//
// Loop affinity: construct and destroy on the loop; call() on worker threads (it hands the work
// to the loop and waits up to 30 s).
#pragma once

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "agent/session_tools_backend.h"
#include "channels/channel_manager.h"
#include "core/event_loop.h"
#include "tools/sessions/message_backend.h"

namespace pincer::app {

class MessageRuntime : public tools::MessageBackend {
 public:
  /// `config`: the effective configuration (channels.*; replaced by reconfigure()).
  MessageRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
                 const nlohmann::json& config, const std::filesystem::path& state_dir);
  ~MessageRuntime() override;

  /// A hot config reload (channels.*). Loop.
  void reconfigure(const nlohmann::json& config);

  /// Worker threads. Errors: "TOOL_ARGS_INVALID", "NOT_FOUND" (no chat to send to, or a channel or
  /// account that is not configured/running — the message says which), "DELIVERY_FAILED",
  /// "UNAVAILABLE" (the gateway is stopping).
  Result<nlohmann::json> call(std::string_view tool, const nlohmann::json& args, const tools::ToolContext& ctx) override;

  /// The announce step of sessions_send: `text` to the chat of `session_key` (session_chat), once
  /// per `id`. Loop.
  agent::SessionAnnouncer session_announcer();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace pincer::app
