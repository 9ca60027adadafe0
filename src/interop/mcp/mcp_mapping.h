// Pure mappings between MCP and Pincer's tool contract (docs/interop.md "MCP client"):
//   - names: an MCP server's tool becomes the agent tool `<server>__<tool>`, in the charset every
//     provider accepts for function names ([A-Za-z0-9_-], at most 64 characters);
//   - results: a `tools/call` CallToolResult ({content: [text | image | audio | resource |
//     resource_link], structuredContent?, isError?}) becomes a tools::ToolOutput.
// Thread-safe (no state).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/tool.h"
#include "tools/tool_search.h"

namespace pincer::interop::mcp {

/// Longest function name the providers accept (OpenAI, Anthropic, Gemini: 64).
inline constexpr std::size_t kMaxToolNameChars = 64;

/// `<server>__<tool>` with every character outside [A-Za-z0-9_-] replaced by `_`. When longer
/// than kMaxToolNameChars it is cut and ends in `_` + 8 hex digits of a hash of the full
/// (server, tool) pair, so different long names stay different.
std::string agent_tool_name(std::string_view server, std::string_view tool);

/// One server tool → agent tool name, for a whole list: like agent_tool_name, and when two pairs
/// still map to the same name (e.g. `a.b` and `a_b`) the later one gets the hash suffix too.
/// `pairs` are (server, tool); the result is in the same order.
std::vector<std::string> assign_tool_names(const std::vector<std::pair<std::string, std::string>>& pairs);

/// The first line of `description`, cut to `max_chars` bytes (UTF-8 safe) with "…" when cut.
using tools::one_line;

/// A CallToolResult → the model's text and the details. Text blocks are joined by blank lines;
/// an image or audio block becomes "[image image/png, 12345 bytes]" (the model gets only text
/// results today); an embedded resource its URI line and its text (a binary one its size); a
/// resource link its name and URI; no content but structuredContent: that JSON. `isError`: an
/// error output. The text is cut at `max_chars` bytes with a note. details: {server, tool,
/// isError, blocks: [{type, mimeType?, bytes?, uri?}]}. A result that is not an object is an
/// error output naming that.
tools::ToolOutput map_call_result(const nlohmann::json& result, std::string_view server, std::string_view tool,
                                  std::size_t max_chars);

}  // namespace pincer::interop::mcp
