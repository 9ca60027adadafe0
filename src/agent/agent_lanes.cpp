// AgentService's lane methods: aborting, steering and waiting for runs (agent_service.h); the
// system events (AT-2 cron `systemEvent`) queued per session for its next turn, as OpenClaw's
// "System: [time] text" lines before the user's text.
#include "agent/agent_service_impl.h"

#include <algorithm>
#include <array>
#include <ctime>

#include <spdlog/spdlog.h>

#include "agent/attachments.h"
#include "core/ids.h"
#include "store/session_index.h"

namespace pincer::agent {

Result<SendAccepted> AgentService::compact_session(const std::string& session_key, const std::string& instructions,
                                                   RunEventSink sink) {
  // An idle session without a conversation has nothing to compact: answered at once, nothing
  // written (a run queued before this one may still add messages: then it waits on the lane).
  if (const auto lane = impl_->lanes.find(canonical_key(session_key));
      lane == impl_->lanes.end() || (!lane->second.active && lane->second.queue.empty())) {
    auto contents = read_session(canonical_key(session_key));
    const bool conversation = contents && std::any_of(contents->entries.begin(), contents->entries.end(), [](const auto& e) {
      return e.type == "message";
    });
    if (!conversation && (contents || contents.error().code == "SESSION_NOT_FOUND")) {
      return Error{"NOTHING_TO_COMPACT", "nothing to compact: this session has no messages yet"};
    }
    // One turn since the last summary: the latest turn is always kept whole, so there is nothing
    // older to summarise (the context engine would refuse the same; said once, here, at once).
    if (contents) {
      std::size_t user_turns = 0;
      for (const auto& e : contents->entries) {
        if (e.type == "compaction") user_turns = 0;
        const bool user = e.type == "message" && e.raw.contains("message") && e.raw["message"].is_object() &&
                          e.raw["message"].value("role", "") == "user";
        if (user) ++user_turns;
      }
      if (conversation && user_turns <= 1) {
        return Error{"SINGLE_TURN", "nothing to compact yet: the session has one turn since its last summary, and the "
                                    "latest turn is always kept as it is"};
      }
    }
  }
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

bool AgentService::steer(const std::string& session_key, const std::string& run_id, std::string text,
                         const std::vector<Attachment>& attachments) {
  auto lane = impl_->lanes.find(canonical_key(session_key));
  if (lane == impl_->lanes.end() || !lane->second.active) return false;
  AgentRun& run = *lane->second.active;
  if (run.inputs().silent) return false;  // a memory flush: the text waits for the user's own turn
  if (!run_id.empty() && run.inputs().run_id != run_id) return false;
  std::vector<llm::ContentBlock> media;
  if (!attachments.empty()) {  // stored beside the transcript, as a turn's own (attachments.h)
    auto blocks = attachment_blocks(attachments, store::sessions_dir(impl_->state_dir, run.inputs().agent_id) / "media",
                                    run.inputs().session_id);
    if (!blocks) {
      spdlog::warn("run {}: a steered message's attachments not stored ({}); it runs as a turn of its own",
                   run.inputs().run_id, blocks.error().message);
      return false;
    }
    media = std::move(*blocks);
  }
  return run.steer(std::move(text), std::move(media));
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

std::string AgentService::session_of_run(const std::string& run_id) const {
  auto it = impl_->run_session.find(run_id);
  return it == impl_->run_session.end() ? std::string() : it->second;
}

// ---- system events (AT-2) ----
namespace {

std::string system_event_utc_time(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace

std::string format_system_event(int64_t ms, const std::string& text) {
  std::string out;
  bool first = true;
  std::size_t start = 0;
  while (start <= text.size()) {  // each line of the event is a "System:" line; the first is stamped
    const std::size_t end = std::min(text.find('\n', start), text.size());
    out += "System: " + (first ? "[" + system_event_utc_time(ms) + "] " : std::string()) + text.substr(start, end - start) + "\n";
    first = false;
    start = end + 1;
  }
  return out;
}

void AgentService::add_system_event(const std::string& session_key, const std::string& text) {
  auto& queue = impl_->system_events[canonical_key(session_key)];
  queue.emplace_back(impl_->clock.wall_ms(), text);
  while (queue.size() > kMaxSystemEvents) queue.pop_front();
}

std::string AgentService::take_system_events(const std::string& key) {
  auto it = impl_->system_events.find(key);
  if (it == impl_->system_events.end()) return "";
  std::string out;
  for (const auto& [ts, text] : it->second) out += format_system_event(ts, text);
  impl_->system_events.erase(it);
  return out + "\n";
}

void AgentService::set_cron_backend(tools::CronBackend* backend) { impl_->cron_backend = backend; }
tools::SessionBackends& AgentService::session_backends() { return impl_->session_backends; }

std::vector<AgentService::LaneSnapshot> AgentService::lane_snapshots() const {
  const Impl& s = *impl_;
  std::array<std::size_t, kRunLaneCount> waiting{};  // queued runs whose session is idle: they wait for a slot
  for (const auto& [key, lane] : s.lanes) {
    if (!lane.active && !lane.queue.empty()) ++waiting[static_cast<std::size_t>(lane.queue.front().request.lane)];
  }
  std::vector<LaneSnapshot> out;
  for (RunLane lane : {RunLane::Cron, RunLane::Main, RunLane::Nested, RunLane::Subagent}) {  // by name
    const auto i = static_cast<std::size_t>(lane);
    out.push_back(LaneSnapshot{to_string(lane), waiting[i], static_cast<std::size_t>(std::max(0, s.running[i])), s.limits[i],
                               s.draining});
  }
  return out;
}

AgentService::SessionLaneTotals AgentService::session_lane_totals() const {
  SessionLaneTotals t;
  for (const auto& [key, lane] : impl_->lanes) {
    if (!lane.active && lane.queue.empty()) continue;  // (finished() removes those; a lane being set up)
    ++t.lanes;
    if (lane.active) ++t.active;
    t.queued += lane.queue.size();
    if (!lane.queue.empty()) ++t.queued_lanes;
  }
  return t;
}

}  // namespace pincer::agent
