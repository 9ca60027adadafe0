// AgentService's lane methods: aborting, steering and waiting for runs (agent_service.h).
#include "agent/agent_service_impl.h"

#include "core/ids.h"

namespace pincer::agent {

Result<SendAccepted> AgentService::compact_session(const std::string& session_key, const std::string& instructions,
                                                   RunEventSink sink) {
  SendRequest request;
  request.session_key = session_key;
  request.message = instructions;
  request.run_id = "compact-" + ids::uuid_v4();
  request.compact = true;
  return send(request, sink ? std::move(sink) : [](const RunEvent&) {});
}

Result<std::vector<std::string>> AgentService::abort(const std::string& session_key, const std::string& run_id,
                                                     const std::string& reason) {
  Impl& s = *impl_;
  const std::string key = canonical_key(session_key);
  if (!run_id.empty()) {
    auto owner = s.run_session.find(run_id);
    if (owner != s.run_session.end() && owner->second != key) {
      return Error{"RUN_SESSION_MISMATCH", "runId does not match sessionKey"};
    }
  }
  std::vector<std::string> aborted;
  auto lane = s.lanes.find(key);
  if (lane == s.lanes.end()) return aborted;
  // The run a memory flush is running for (it waits at the head of the lane) is part of the
  // user's turn already: the flush stops, and the run records its message and ends aborted.
  auto& active = lane->second.active;
  const bool flushing = active && active->inputs().silent && !lane->second.queue.empty();
  bool stop_flush = false;
  // Queued runs are dropped with an Aborted event.
  for (auto it = lane->second.queue.begin(); it != lane->second.queue.end();) {
    if (!run_id.empty() && it->request.run_id != run_id) {
      ++it;
      continue;
    }
    if (flushing && it == lane->second.queue.begin()) {
      s.aborted_in_flush.emplace(it->request.run_id, reason);
      aborted.push_back(it->request.run_id);
      stop_flush = true;
      ++it;
      continue;
    }
    RunEvent e;
    e.kind = RunEvent::Kind::Aborted;
    e.run_id = it->request.run_id;
    e.session_key = key;
    e.agent_id = it->agent_id;
    e.stop_reason = reason;
    e.ts = s.clock.wall_ms();
    aborted.push_back(e.run_id);
    auto sink = std::move(it->sink);
    const SendRequest request = std::move(it->request);
    it = lane->second.queue.erase(it);
    sink(e);
    journal_finished(request, e);
    s.loop.post([this, key, e] { finished(key, e); });
  }
  if (active && active->inputs().silent && (stop_flush || run_id.empty())) {
    active->abort(reason);  // the flush's own id is no client's business
  } else if (active && (run_id.empty() || active->inputs().run_id == run_id)) {
    aborted.push_back(active->inputs().run_id);
    active->abort(reason);
  }
  return aborted;
}

bool AgentService::steer(const std::string& session_key, const std::string& run_id, std::string text) {
  auto lane = impl_->lanes.find(canonical_key(session_key));
  if (lane == impl_->lanes.end() || !lane->second.active) return false;
  AgentRun& run = *lane->second.active;
  if (run.inputs().silent) return false;  // a memory flush: the text waits for the user's own turn
  if (!run_id.empty() && run.inputs().run_id != run_id) return false;
  return run.steer(std::move(text));
}

void AgentService::abort_all(const std::string& reason) {
  std::vector<std::string> keys;
  for (const auto& [key, lane] : impl_->lanes) keys.push_back(key);
  for (const auto& key : keys) {
    auto lane = impl_->lanes.find(key);
    if (lane != impl_->lanes.end() && lane->second.active) lane->second.active->abort(reason);
  }
}

bool AgentService::when_finished(const std::string& run_id, std::function<void(const RunEvent&)> done) {
  if (auto it = impl_->recent.find(run_id); it != impl_->recent.end()) {
    done(it->second);
    return true;
  }
  if (!impl_->run_session.contains(run_id)) return false;
  impl_->waiters[run_id].push_back(std::move(done));
  return true;
}

std::size_t AgentService::active_runs() const {
  std::size_t n = 0;
  for (const auto& [key, lane] : impl_->lanes) n += (lane.active ? 1 : 0) + lane.queue.size();
  return n;
}

bool AgentService::is_active(const std::string& run_id) const { return impl_->run_session.contains(run_id); }

}  // namespace pincer::agent
