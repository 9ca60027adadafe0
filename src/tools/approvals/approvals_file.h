// exec-approvals.json (SPEC TL-3), in OpenClaw's shape, at `<state>/exec-approvals.json`:
//   {version: 1,
//    defaults?: {security?: deny|allowlist|full, ask?: off|on-miss|always, askFallback?: deny|allowlist|full},
//    agents?: {<agentId>: {security?, ask?, askFallback?,
//                          allowlist?: [{id, pattern, lastUsedAt?, lastUsedCommand?}]}}}
// The agent "*" applies to every agent. Unknown keys are kept as they are (OpenClaw writes more,
// e.g. `socket`). Written atomically (temp + rename) with mode 0600.
//
// Not synchronised: the ApprovalManager owns one on the event-loop thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::tools::approvals {

class ApprovalsFile {
 public:
  explicit ApprovalsFile(std::filesystem::path path) : path_(std::move(path)) {}

  /// Reads the file; a missing file is an empty one. Errors "APPROVALS_INVALID" name the file and
  /// what is wrong (`exec-approvals.json: agents.main.allowlist[2].pattern must be a string`);
  /// the previous content is kept then.
  Status load();
  /// Writes atomically, mode 0600.
  Status save() const;

  /// Replaces the whole document after checking it (exec.approvals.set). Same errors as load().
  Status replace(nlohmann::json doc);

  const nlohmann::json& doc() const { return doc_; }
  const std::filesystem::path& path() const { return path_; }
  /// SHA-256 hex of the serialised document (exec.approvals.get `hash`, set's `baseHash`).
  std::string hash() const;

  /// `agents.<id>.<key>`, else `agents.*.<key>`, else `defaults.<key>` (a string), or nullopt.
  std::optional<std::string> setting(const std::string& agent_id, const std::string& key) const;
  /// The allowlist patterns of `agent_id` plus those of "*".
  std::vector<std::string> patterns(const std::string& agent_id) const;
  /// Adds `pattern` to the agent's allowlist (no duplicate); returns the entry id.
  std::string add_pattern(const std::string& agent_id, const std::string& pattern, int64_t now_ms);
  /// Records a use of the entry whose pattern matched (lastUsedAt, lastUsedCommand).
  void touch(const std::string& agent_id, const std::string& pattern, const std::string& command, int64_t now_ms);

  /// Checks a document's shape; "" when valid, else the problem with its path.
  static std::string problem(const nlohmann::json& doc);

 private:
  std::filesystem::path path_;
  nlohmann::json doc_ = nlohmann::json{{"version", 1}};
};

}  // namespace pincer::tools::approvals
