// The tools of `pincer mcp serve` (docs/interop.md "MCP server"): their names, descriptions and
// input schemas in the shape OpenClaw's `openclaw mcp serve` lists them, the check of a call's
// arguments against those schemas, and the conversation shape. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pincer::interop::mcp {

/// The `tools` array of a tools/list answer: {name, description, inputSchema} each, inputSchema a
/// JSON Schema object (type, properties, required, additionalProperties: false).
const nlohmann::json& server_tool_definitions();

/// The inputSchema of tool `name`; nullptr when there is no such tool.
const nlohmann::json* server_tool_schema(const std::string& name);

/// Checks `args` (null counts as {}) against `schema` (the subset used above: object, integer,
/// number, string, boolean; minimum, maximum, minLength, enum, required, additionalProperties).
/// nullopt when valid; else one line naming the field, e.g. "limit: must be <= 500 (got 900)".
std::optional<std::string> check_tool_arguments(const nlohmann::json& schema, const nlohmann::json& args);

/// A sessions.list row → OpenClaw's conversation descriptor: {sessionKey, channel?, to?,
/// accountId?, threadId?, label?, displayName?, derivedTitle?, lastMessagePreview?, updatedAt}
/// from the row's route (deliveryContext, last*, origin), the channel else from a chat session
/// key (agent:<id>:<channel>:direct|group|channel:…). Unlike OpenClaw, a session without a route
/// (the web chat's, an ACP session's) is a conversation too: messages_send reaches its agent.
nlohmann::json conversation_from_session_row(const nlohmann::json& row);

}  // namespace pincer::interop::mcp
