// chat.send's turn, shared by the methods that start one the same way (methods/chat.cpp):
// chat.send itself, sessions.send and sessions.create with a first message
// (methods/session_lifecycle.cpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gateway/methods/registry.h"

namespace pincer::gateway {

/// Validates `params` as chat.send's ({sessionKey, agentId?, sessionId?, message, thinking?,
/// deliver?, attachments?, timeoutMs?, idempotencyKey}; errors name `method`) and starts the turn:
/// `{runId, status:"started"}` (or "in_flight"), the reply streaming as `chat`/`agent` events; a
/// stop word aborts the session's run instead, a slash command is answered as a chat event.
MethodResult send_chat_turn(MethodContext& ctx, const std::string& method, const nlohmann::json& params);

}  // namespace pincer::gateway
