#include "automation/heartbeat_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "automation/scheduler.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

/// HEARTBEAT.md of the workspace; nullopt when there is none (or it cannot be read: the model
/// then decides, as with a missing file). Read at most 64 KiB: enough to see it is not empty.
std::optional<std::string> read_heartbeat_md(const std::filesystem::path& workspace) {
  if (workspace.empty()) return std::nullopt;
  // A workspace not created yet gets the empty template at its first run: nothing to do yet (a
  // fresh install must not call the model on its own).
  if (std::error_code ec; !std::filesystem::exists(workspace, ec)) return std::string();
  std::ifstream in(workspace / "HEARTBEAT.md", std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(64 * 1024, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

const char* indicator_of(const std::string& status) {
  if (status == "ok-empty" || status == "ok-token") return "ok";
  if (status == "sent") return "alert";
  if (status == "failed") return "error";
  return nullptr;
}

}  // namespace

HeartbeatScheduler::HeartbeatScheduler(EventLoop& loop, std::function<int64_t()> now_ms) : loop_(loop), now_(std::move(now_ms)) {}

HeartbeatScheduler::~HeartbeatScheduler() {
  if (timer_) loop_.cancel(*timer_);
}

void HeartbeatScheduler::configure(std::vector<HeartbeatSettings> agents) {
  const int64_t now = now_();
  std::map<std::string, AgentState> next;
  for (HeartbeatSettings& s : agents) {
    AgentState state;
    if (auto old = agents_.find(s.agent_id); old != agents_.end()) state = old->second;
    const bool same_interval = state.settings.enabled && state.settings.every_ms == s.every_ms;
    state.settings = std::move(s);
    if (!state.settings.enabled) state.next_due.reset();
    else if (!same_interval || !state.next_due) state.next_due = now + state.settings.every_ms;
    next[state.settings.agent_id] = std::move(state);
  }
  for (const auto& [id, state] : next) {
    const auto old = agents_.find(id);
    if (old == agents_.end() || old->second.settings.every != state.settings.every)
      spdlog::info("heartbeat: agent {}: {}", id,
                   state.settings.enabled ? "every " + state.settings.every + ", target " + state.settings.target : "off");
  }
  agents_ = std::move(next);
  arm();
}

void HeartbeatScheduler::stop() {
  stopped_ = true;
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  armed_at_.reset();
}

void HeartbeatScheduler::set_paused(bool paused) {
  if (paused == paused_) return;
  paused_ = paused;
  spdlog::info("heartbeat: {} (set-heartbeats)", paused ? "paused" : "resumed");
  if (!paused) {
    const int64_t now = now_();
    for (auto& [id, agent] : agents_) {
      if (agent.next_due && *agent.next_due <= now) agent.next_due = now + agent.settings.every_ms;
      agent.wake_at.reset();  // a wake refused while paused is not replayed
    }
  }
  arm();
}

void HeartbeatScheduler::tick() {
  timer_.reset();
  armed_at_.reset();
  if (stopped_ || paused_) return;
  const int64_t now = now_();
  std::vector<std::string> due;
  for (auto& [id, agent] : agents_) {
    const bool timed = agent.next_due && *agent.next_due <= now;
    const bool woken = agent.wake_at && *agent.wake_at <= now;
    if (agent.settings.enabled && !agent.running && (timed || woken)) due.push_back(id);
  }
  for (const auto& id : due)
    if (auto it = agents_.find(id); it != agents_.end()) beat(it->second, now);
  arm();
}

bool HeartbeatScheduler::wake(const std::string& agent_id, const std::string& reason) {
  auto it = agents_.find(agent_id);
  if (stopped_ || paused_ || it == agents_.end() || !it->second.settings.enabled) return false;
  AgentState& agent = it->second;
  const int64_t now = now_();
  if (!agent.wake_at || *agent.wake_at > now) agent.wake_at = now;
  agent.wake_reason = reason;
  spdlog::info("heartbeat: agent {}: wake ({})", agent_id, reason);
  if (!agent.running) arm();  // a running beat re-arms when it ends, then the wake is due
  return true;
}

void HeartbeatScheduler::beat(AgentState& agent, int64_t now) {
  const HeartbeatSettings settings = agent.settings;
  const bool woken = agent.wake_at && *agent.wake_at <= now;
  const bool timed = agent.next_due && *agent.next_due <= now;
  // Fixed as it starts: one beat per interval, never a pile. A wake leaves the timed beat alone.
  if (timed) agent.next_due = now + settings.every_ms;
  auto skip = [&](const char* reason) {
    HeartbeatOutcome o;
    o.status = "skipped";
    o.reason = reason;
    finished(settings.agent_id, now, o);
  };
  if (!within_active_hours(settings.active_hours, settings.user_zone, now)) {
    agent.wake_at.reset();  // the events wait for the session's next turn
    return skip("quiet-hours");
  }
  if (busy_ && busy_(settings.agent_id)) {
    if (woken) agent.wake_at = now + kHeartbeatWakeRetryMs;  // tried again, not dropped
    if (!timed) return;
    return skip("requests-in-flight");
  }
  if (!woken)
    if (auto md = read_heartbeat_md(settings.workspace); md && heartbeat_content_empty(*md)) return skip("empty-heartbeat-file");
  if (woken) spdlog::info("heartbeat: agent {}: beat for the wake ({})", settings.agent_id, agent.wake_reason);
  agent.wake_at.reset();
  if (!runner_) return skip("no-runner");
  agent.running = true;
  const std::string run_id = "heartbeat:" + settings.agent_id + ":" + std::to_string(now) + ":" + std::to_string(++seq_);
  spdlog::info("heartbeat: agent {}: beat {} started", settings.agent_id, run_id);
  runner_(settings, run_id, [this, id = settings.agent_id, now](HeartbeatOutcome outcome) {
    finished(id, now, outcome);
    arm();
  });
}

void HeartbeatScheduler::finished(const std::string& agent_id, int64_t started, const HeartbeatOutcome& outcome) {
  const int64_t ended = now_();
  if (auto it = agents_.find(agent_id); it != agents_.end()) {
    it->second.running = false;
    it->second.last_run_at = started;
    it->second.last_status = outcome.status;
    it->second.last_reason = outcome.reason;
  }
  json event = {{"ts", ended}, {"agentId", agent_id}, {"status", outcome.status}, {"durationMs", std::max<int64_t>(0, ended - started)}};
  if (!outcome.reason.empty()) event["reason"] = outcome.reason;
  if (!outcome.preview.empty()) event["preview"] = outcome.preview;
  if (!outcome.channel.empty()) event["channel"] = outcome.channel;
  if (!outcome.to.empty()) event["to"] = outcome.to;
  if (!outcome.account_id.empty()) event["accountId"] = outcome.account_id;
  if (const char* indicator = indicator_of(outcome.status)) event["indicatorType"] = indicator;
  spdlog::info("heartbeat: agent {}: {}{}", agent_id, outcome.status, outcome.reason.empty() ? "" : " (" + outcome.reason + ")");
  last_event_ = event;
  if (events_) events_(event);
}

void HeartbeatScheduler::arm() {
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  armed_at_.reset();
  if (stopped_ || paused_) return;
  std::optional<int64_t> wake;
  for (const auto& [id, agent] : agents_) {
    if (!agent.settings.enabled || agent.running) continue;
    if (agent.next_due) wake = std::min(wake.value_or(INT64_MAX), *agent.next_due);
    if (agent.wake_at) wake = std::min(wake.value_or(INT64_MAX), *agent.wake_at);
  }
  if (!wake) return;  // no agent beats: no timer at all
  const int64_t delay = std::clamp<int64_t>(*wake - now_(), 0, kCronMaxSleepMs);
  armed_at_ = *wake;
  timer_ = loop_.after(delay, [this] { tick(); });
}

json HeartbeatScheduler::summary(const std::string& agent_id) const {
  const auto it = agents_.find(agent_id);
  if (it == agents_.end()) return nullptr;
  const AgentState& a = it->second;
  const HeartbeatSettings& s = a.settings;
  json out = {{"enabled", s.enabled},
              {"every", s.every},
              {"everyMs", s.enabled ? json(s.every_ms) : json(nullptr)},
              {"prompt", s.prompt},
              {"target", s.target},
              {"ackMaxChars", s.ack_max_chars},
              // Paused by set-heartbeats: no beat is due until resumed (the settings stay as configured).
              {"paused", paused_},
              {"nextDueAtMs", a.next_due && !paused_ ? json(*a.next_due) : json(nullptr)},
              {"lastRunAtMs", a.last_run_at ? json(*a.last_run_at) : json(nullptr)},
              {"lastStatus", a.last_status.empty() ? json(nullptr) : json(a.last_status)},
              {"lastReason", a.last_reason.empty() ? json(nullptr) : json(a.last_reason)},
              {"running", a.running}};
  if (!s.model.empty()) out["model"] = s.model;
  if (!s.to.empty()) out["to"] = s.to;
  if (s.active_hours) {
    auto hhmm = [](int m) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%02d:%02d", (m / 60) % 100, m % 60);
      return std::string(buf);
    };
    out["activeHours"] = {{"start", hhmm(s.active_hours->start_min)}, {"end", hhmm(s.active_hours->end_min)},
                          {"timezone", s.active_hours->timezone.empty() ? "user" : s.active_hours->timezone}};
  }
  return out;
}

}  // namespace pincer::automation
