// The tool registry and the tool-selection part of the policy pipeline (SPEC TL-1, TL-2).
//
// Policy, with OpenClaw's meanings (docs/gateway/config-tools/tool-policy.md of the reference):
//   profile   "" (unset) or "full": no filtering. "minimal": session_status, gateway.
//             "coding": group:fs, group:runtime, group:web, group:sessions, group:memory, cron,
//             gateway and the goal/ask/media tools. "messaging": group:messaging plus the session
//             tools, session_status, gateway, ask_user. Names of tools Pincer does not have yet
//             are listed so that they fall into place when they are added; with today's built-in
//             tools "minimal" and "messaging" select nothing.
//   alsoAllow adds tools to the profile's selection.
//   allow     when non-empty, narrows the selection to matching tools (never widens it);
//             as in OpenClaw, allowing "write" also allows "apply_patch".
//   deny      removes matching tools; deny always beats allow.
// Entries are case-insensitive tool names with `*` wildcards ("sessions_*", "*"), or groups
// "group:fs", "group:runtime", ... (static OpenClaw membership, plus any tool whose group() is that
// name). "bash" is an alias of "exec".
//
// Threading: a registry is built once at start-up and then only read; reads are thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "tools/tool.h"

namespace pincer::tools {

struct ToolPolicy {
  std::string profile;                  ///< "", "minimal", "coding", "messaging", "full"
  std::vector<std::string> allow;       ///< empty: no narrowing
  std::vector<std::string> also_allow;  ///< widens the profile
  std::vector<std::string> deny;
};

/// Whether a policy entry ("read", "sessions_*", "group:fs", "bash") selects `tool`.
bool policy_entry_matches(std::string_view entry, const Tool& tool);

/// Whether `tool` belongs to `profile` ("", "full": everything). nullopt for an unknown profile.
std::optional<bool> profile_includes(std::string_view profile, const Tool& tool);

/// The first entry of `entries` that selects `tool` (with the allow rule that "write" also
/// selects apply_patch when `as_allow`), or nullopt.
std::optional<std::string> first_match(const std::vector<std::string>& entries, const Tool& tool, bool as_allow = false);

/// Tool names of an OpenClaw group ("fs", "runtime", ...; no "group:" prefix); empty if unknown.
const std::vector<std::string>& group_members(std::string_view group);

class ToolRegistry {
 public:
  /// read, write, edit, apply_patch, exec, process, web_fetch, web_search.
  static ToolRegistry builtin();

  /// Adds a tool; a tool with the same name replaces the earlier one.
  void add(std::unique_ptr<Tool> tool);
  /// nullptr when unknown.
  const Tool* find(std::string_view name) const;
  /// Every tool, in the order added.
  std::vector<const Tool*> all() const;

  /// The tools a run may offer to the model under `policy`, in registry order.
  /// Error "TOOLS_PROFILE_UNKNOWN": `unknown tools.profile "x" (expected minimal, coding, messaging or full)`.
  Result<std::vector<const Tool*>> effective_tools(const ToolPolicy& policy) const;
  Result<std::vector<const Tool*>> effective_tools(std::string_view profile, const std::vector<std::string>& allow,
                                                   const std::vector<std::string>& deny) const;

  /// [{"name", "description", "parameters"}, ...] for the model; providers wrap these in
  /// their own envelope.
  static nlohmann::json definitions(const std::vector<const Tool*>& tools);

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

}  // namespace pincer::tools
