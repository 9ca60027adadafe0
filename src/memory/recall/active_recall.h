// Active recall (SPEC DR-6): before a reply, one bounded look into the agent's memory whose
// result — a short note about the user, or nothing — is put before the user's message in the
// model request only (agent/active_recall_hook.h does that; the transcript never holds it).
//
// One recall = a memory search (the memory_search backend, on a worker thread) with the query
// and limits of recall_prompt.h's SearchPlan, then — only when it found something — one model
// call (the run's model, or `config.model`) that turns the hits and the conversation into a note
// of at most maxSummaryChars or NONE. Everything is bounded by `timeoutMs` (default 15 s): when it
// passes, the recall ends with status "timeout" and no note, and the model call is cancelled. A
// result (note, NONE, no hits) is cached for `cacheTtlMs` (default 15 s) by agent, session and
// query; failures and timeouts are not.
//
// OpenClaw lets its recall sub-agent call memory_search itself (a tool round trip); here the
// search runs first in-process and the model only judges and condenses what it found: one model
// call instead of two, none at all when memory has no match.
//
// A recall whose turn ended first (the user aborted it) is stopped with the function recall()
// returns: its model call is cancelled at once (the connection closed), a search still running
// on its worker is ignored when it ends, and `done` is never called.
//
// Loop affinity: recall() and its stop function on the event-loop thread; `done` is called there
// exactly once (unless the recall is stopped or the ActiveRecall is destroyed first). Owned by
// the agent service; never throws.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/event_loop.h"
#include "core/http_client.h"
#include "llm/messages.h"
#include "memory/recall/active_recall_settings.h"
#include "memory/recall/recall_prompt.h"
#include "tools/memory_tools.h"

namespace pincer::memory::recall {

struct RecallRequest {
  ActiveRecallSettings settings;
  std::string agent_id;
  std::string session_key;
  std::filesystem::path workspace;
  llm::ModelSpec model;            ///< the recall model call's model
  std::string latest;              ///< the user's new message
  std::vector<RecentTurn> turns;   ///< the session's earlier messages, oldest first
};

struct RecallOutcome {
  /// "ok" (summary set), "none" (the model found nothing useful), "empty" (no memory hit),
  /// "timeout", "failed" (search or model call failed; `error` says why).
  std::string status;
  std::string summary;
  std::string error;
  bool cached = false;
};

class ActiveRecall {
 public:
  ActiveRecall(EventLoop& loop, net::HttpClient& http, tools::MemoryBackend& memory);
  ~ActiveRecall();
  ActiveRecall(const ActiveRecall&) = delete;
  ActiveRecall& operator=(const ActiveRecall&) = delete;

  /// Starts one recall; `done` gets its outcome (maybe at once: a cached result or no query).
  /// Returns its stop function: ends the recall now (its model call cancelled; logged as
  /// status=stopped, nothing cached) and `done` is never called; does nothing once `done` was
  /// called or when this ActiveRecall is gone.
  std::function<void()> recall(RecallRequest request, std::function<void(RecallOutcome)> done);

  /// Cached results still valid (for tests and status).
  std::size_t cached() const;

 private:
  struct Job;
  void search_done(const std::shared_ptr<Job>& job, const nlohmann::json& result);
  void call_model(const std::shared_ptr<Job>& job, const std::string& hits);
  void finish(const std::shared_ptr<Job>& job, RecallOutcome outcome);
  /// Ends the job: its timer and model call cancelled. False when it had ended already.
  bool end_job(const std::shared_ptr<Job>& job);

  EventLoop& loop_;
  net::HttpClient& http_;
  tools::MemoryBackend& memory_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  struct Cached {
    std::chrono::steady_clock::time_point expires;
    RecallOutcome outcome;
  };
  std::map<std::string, Cached> cache_;
};

}  // namespace pincer::memory::recall
