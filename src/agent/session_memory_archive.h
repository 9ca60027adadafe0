// The `/new` archive's runtime (SPEC MM-9): reads the transcript a reset has just archived,
// writes the extractive memory file at once and replaces it with the LLM summary when that
// arrives (memory/session_archive.h has the text and file rules).
//
// Loop affinity: archive() and the summary callbacks run on the event-loop thread (the
// transcript read and the small file writes are blocking, as the other session-file work on the
// loop). Destroying the archiver cancels summaries still in flight: their extractive files stay.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "core/http_client.h"
#include "llm/provider.h"

namespace pincer::context {
class Summarizer;
}

namespace pincer::agent {

/// One ended session to archive.
struct ArchiveJob {
  std::filesystem::path transcript;  ///< the archived transcript file (…jsonl.reset.<ts>)
  std::filesystem::path workspace;   ///< the agent's workspace (memory/ is beneath it)
  std::string session_key, session_id;
  std::string reason = "reset";      ///< the header's Source line
  std::optional<llm::ModelSpec> model;  ///< the summariser (the agent's model); none = extractive only
  int64_t window_tokens = 0;         ///< its effective window
  int64_t now_ms = 0;
  int utc_offset_minutes = 0;        ///< the user's day and time (agents.defaults.userTimezone)
  std::string zone;                  ///< shown in the header ("" = UTC offset)
};

/// The job for a session of `agent` that ended now: its workspace, its primary model as the
/// summariser (none when it does not resolve: the archive is extractive), the user's time zone
/// from `config`. `transcript`, `session_*` and `reason` are the caller's.
ArchiveJob archive_job_for(const AgentSettings& agent, const ModelRegistry& models, const nlohmann::json& config,
                           int64_t now_ms);

/// memory.archive.enabled (default true) and the agent's memory is on: the caller checks both.
bool archive_enabled(const nlohmann::json& config);

class SessionArchiver {
 public:
  explicit SessionArchiver(net::HttpClient& http);
  ~SessionArchiver();
  SessionArchiver(const SessionArchiver&) = delete;
  SessionArchiver& operator=(const SessionArchiver&) = delete;

  /// Archives `job`: nothing when the session has no user or assistant text. Failures are logged
  /// (the transcript archive stays in any case). Returns the memory file written, if any.
  std::optional<std::filesystem::path> archive(const ArchiveJob& job);

  /// LLM summaries still in flight (for tests and shutdown logs).
  std::size_t pending() const { return active_.size(); }

 private:
  net::HttpClient& http_;
  std::map<int, std::shared_ptr<context::Summarizer>> active_;
  int next_ = 0;
};

}  // namespace pincer::agent
