// Tools offered on demand (docs/tools.md "Tool search"): a run's catalogued tools — the rarely
// used built-ins (sessions, subagents, cron, web, skill_manage; `tools.toolSearch`) and the MCP
// tools above `mcp.eagerToolLimit` — are not sent with every model call. The model sees one
// `tool_search` tool whose description is the catalogue (one line per tool); a search answers with
// the found tools' descriptions and schemas and offers them from the run's next model call. A
// catalogued tool the model calls by name without searching first runs all the same: it passed the
// run's tool policy, the search only saves prompt.
//
// Why: every schema in every call was 14 k characters of the fixed prompt (LESSONS 1, CX-3);
// OpenClaw defers all but its file and shell tools the same way (its `tools.toolSearch`).
//
// Thread-safety: a SearchableToolSet is used from the loop (offered, catalogued) and from the
// tool_search call's worker thread (load); it locks its own state.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/dynamic_tools.h"
#include "tools/tool.h"

namespace pincer::tools {

/// Longest description part of a catalogue line, in bytes (the first line of the description,
/// cut with "…"): 80 keeps a tool at ~25 tokens in the catalogue.
inline constexpr std::size_t kCatalogueLineChars = 80;

/// Most tools one tool_search answer returns.
inline constexpr int kMaxSearchResults = 8;

/// The first non-empty line of `description`, trailing blanks removed, cut at `max_chars` bytes
/// (on a UTF-8 boundary) with "…" when longer.
std::string one_line(std::string_view description, std::size_t max_chars = 120);

/// "name: first sentence of the description's first line" (cut at kCatalogueLineChars); just the
/// name without a description.
std::string catalogue_line(const Tool& tool);

/// The ranking of tool_search: the indexes of `lines` ("name: description") matching `query`
/// best — exact names first (several may be given, separated by spaces or commas), then by the
/// number of query words found (case-insensitive) in the line; at most `limit`, ties in
/// catalogue order.
std::vector<std::size_t> search_catalogue(const std::vector<std::string>& names, const std::vector<std::string>& lines,
                                          const std::string& query, std::size_t limit);

/// `tools.toolSearch` of pincer.json (`config` is its root): true, false or {enabled}; true when
/// absent or not a boolean/object.
bool tool_search_enabled(const nlohmann::json& config);

/// Moves the built-ins that tool search offers out of `tools` (order kept) and returns them: all
/// but the file, shell, memory and messaging groups — the tools nearly every coding or chat turn
/// uses (OpenClaw keeps the same core visible).
std::vector<const Tool*> take_catalogued_builtins(std::vector<const Tool*>& tools);

/// A run's tools beyond its fixed ones: `inner`'s (MCP; may be null) plus tool search over the
/// catalogue = `deferred` built-ins (already allowed by the run's policy; they outlive the run)
/// followed by inner->catalogued(). `allowed` is the run's policy for tool_search itself: denied,
/// every catalogued tool is offered with its schema instead. Loop thread for everything but the
/// tool_search tool's own run.
std::shared_ptr<RunToolSet> make_searchable_tool_set(std::vector<const Tool*> deferred,
                                                     std::shared_ptr<RunToolSet> inner,
                                                     std::function<bool(const Tool&)> allowed);

}  // namespace pincer::tools
