// The system prompt of an agent run (SPEC CX-4), and the small per-turn context block.
//
// Cache stability (LESSONS 1): build_system_prompt() is a pure function of its input and contains
// nothing that changes from turn to turn — no clock, no counters, no random ids, no truncation
// notices. The same workspace files, tools, agent and model give the same bytes, so provider
// prompt caches hit on every turn. Tools are listed sorted by name, so the order they are passed
// in does not matter. Anything volatile (current time, "files were cut" notices) goes into
// build_turn_context(), which the runner puts in front of the user's message.
//
// Sections, in order (each only when it has content):
//   intro     who the agent is ("You are <name>, a personal assistant running in Pincer …")
//   ## Tools            one line per tool: "- name: a few words" (another tool: the first
//                       sentence of its description)
//   ## Workspace        the working directory and how files there are used
//   ## Skills           the session's skills snapshot (SK-2, skills/snapshot.h): name, description,
//                       SKILL.md path of each eligible skill; read with `read` when a task matches
//   ## Memory Recall    when memory_search is offered: when to search (MM-6)
//   ## Safety           fixed rules
//   ## Project context  the bootstrap files (workspace.h), each under "### NAME"
//   ## Runtime          one line: "agent=<id> | os=<os> | model=<provider/model> | thinking=<level>"
// Sections CX-4 lists that Pincer does not have yet (memory recall, CLI reference,
// group-chat etiquette) will slot in between without changing the others.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "agent/workspace.h"
#include "tools/tool.h"

namespace pincer::agent {

/// A tool as the prompt mentions it.
struct PromptTool {
  std::string name;
  std::string description;  ///< full description; the prompt uses its first sentence
  bool operator==(const PromptTool&) const = default;
};

/// Name and description of each tool.
std::vector<PromptTool> prompt_tools(const std::vector<const tools::Tool*>& tools);

/// The tool list's line for `tool_search` (tools/tool_search.h): the groups of the tools it can
/// load, in order of first appearance.
PromptTool tool_search_prompt_line(const std::vector<const tools::Tool*>& catalogued);

/// Everything the system prompt depends on.
struct SystemPromptInput {
  std::string agent_id;                     ///< "main"
  std::string agent_name;                   ///< display name; "" = none
  std::vector<PromptTool> tools;            ///< any order
  std::filesystem::path workspace;
  std::vector<BootstrapFile> context_files; ///< BootstrapLoad::files, in injection order
  std::string os;                           ///< runtime_os()
  std::string model;                        ///< "provider/model"
  std::string thinking = "off";             ///< thinking level word
  std::string memory_citations = "auto";    ///< memory.citations: auto | on | off (MM-6)
  std::string skills;                       ///< "## Skills …" section of the session's snapshot (SK-2); "" = none
  bool operator==(const SystemPromptInput&) const = default;
};

/// The system prompt (see the header comment). Same input → same bytes: the last few inputs of the
/// calling thread and their prompts are kept, so a session's turns build it once (issue 17).
std::string build_system_prompt(const SystemPromptInput& input);

/// The first sentence (or line) of a tool description, at most 200 chars (cut at a character
/// boundary, "…" appended). The tool list's line for a tool without a built-in summary (the
/// built-in tools have a few words each, as OpenClaw's list: the schemas carry the rest).
std::string one_line_description(std::string_view description);

/// "Linux x86_64"-style description of this machine (uname sysname + machine). Stable for the
/// life of the process.
std::string runtime_os();

/// What changes from turn to turn.
struct TurnContext {
  std::int64_t now_ms = 0;            ///< wall clock, ms since the epoch; 0 = do not mention the time
  int utc_offset_minutes = 0;         ///< the user's offset from UTC at `now_ms`
  std::string time_zone;              ///< IANA name for display, e.g. "Europe/Berlin"; "" = "UTC±hh:mm"
  std::string bootstrap_warning;      ///< TruncationWarnings::warning_for(); "" = none
};

/// A short block for the start of the user's message, or "" when there is nothing to say:
///   "[Turn context]\nCurrent time: Thursday 2026-03-05 14:03 (Europe/Berlin, UTC+01:00)\n<warning>\n\n"
std::string build_turn_context(const TurnContext& context);

}  // namespace pincer::agent
