#include "app/heartbeat_runtime.h"

#include <spdlog/spdlog.h>

#include "agent/agents_config.h"
#include "agent/memory_flush.h"
#include "agent/run_journal.h"
#include "core/clock.h"
#include "core/config.h"

namespace pincer::app {
namespace {

using nlohmann::json;

/// The start of a delivered alert in the `heartbeat` event (OpenClaw's preview), in characters.
constexpr std::size_t kPreviewChars = 200;

std::string preview_of(const std::string& text) {
  std::size_t n = 0, chars = 0;
  while (n < text.size() && chars < kPreviewChars) {
    ++n;
    while (n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) ++n;
    ++chars;
  }
  return n < text.size() ? text.substr(0, n) + "…" : text;
}

}  // namespace

HeartbeatRuntime::HeartbeatRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
                                   gateway::Gateway& gateway, const json& config, std::filesystem::path state_dir)
    : loop_(loop), agents_(agents), channels_(channels), gateway_(gateway), state_dir_(std::move(state_dir)), config_(config) {
  scheduler_ = std::make_unique<automation::HeartbeatScheduler>(loop, [] { return SystemClock::instance().wall_ms(); });
  // Requests in flight anywhere (runs going on or queued, in any session, as OpenClaw's main
  // queue check): the beat is skipped rather than queued behind them.
  scheduler_->set_busy([this](const std::string&) { return agents_.active_runs() > 0; });
  scheduler_->set_runner([this](const automation::HeartbeatSettings& s, const std::string& run_id,
                                std::function<void(automation::HeartbeatOutcome)> done) { run_beat(s, run_id, std::move(done)); });
  scheduler_->set_event_sink([this](const json& event) {
    gateway_.broadcast_scoped_event("heartbeat", event, "operator.read");
    gateway_.refresh_health(/*broadcast_event=*/false);  // health shows this beat from now on
  });
  gateway_.set_heartbeat_summary([this](const std::string& agent_id) { return scheduler_->summary(agent_id); });
  gateway_.set_heartbeat(scheduler_.get());  // wake, set-heartbeats (methods/heartbeat.cpp)
}

HeartbeatRuntime::~HeartbeatRuntime() {
  *alive_ = false;
  gateway_.set_heartbeat_summary(nullptr);
  gateway_.set_heartbeat(nullptr);
}

std::vector<automation::HeartbeatSettings> HeartbeatRuntime::settings_of(const json& config) const {
  std::vector<automation::HeartbeatAgent> list;
  if (auto resolved = agent::resolve_agents(config, state_dir_, config::process_env())) {
    for (const auto& a : resolved->agents) list.push_back({a.id, a.workspace, a.id == resolved->default_id});
  } else {
    spdlog::warn("heartbeat: {} (no heartbeat until it is fixed)", resolved.error().message);
  }
  return automation::heartbeat_settings_from_config(config, list);
}

void HeartbeatRuntime::start() {
  agent::RunJournal& journal = agents_.journal();
  for (const agent::JournalEntry& e : agents_.take_unfinished("heartbeat")) {
    spdlog::info("heartbeat: beat {} was cut off by a restart; not run again (the next beat checks the same)", e.run_id);
    if (auto st = journal.answered(e.id, "abandoned"); !st) spdlog::error("run journal: {}", st.error().message);
  }
  scheduler_->configure(settings_of(config_));
  gateway_.refresh_health(/*broadcast_event=*/false);  // the snapshot built before knew no heartbeat
}

void HeartbeatRuntime::reconfigure(const json& config) {
  config_ = config;
  scheduler_->configure(settings_of(config_));
  gateway_.refresh_health(/*broadcast_event=*/false);
}

void HeartbeatRuntime::stop() { scheduler_->stop(); }

void HeartbeatRuntime::run_beat(const automation::HeartbeatSettings& settings, const std::string& run_id,
                                std::function<void(automation::HeartbeatOutcome)> done) {
  using automation::HeartbeatOutcome;
  auto fail = [&done](const std::string& why) {
    HeartbeatOutcome o;
    o.status = "failed";
    o.reason = why;
    done(o);
  };
  agent::SendRequest send;
  send.agent_id = settings.agent_id;
  send.session_key = agents_.canonical_key("main", settings.agent_id);
  send.message = settings.prompt;
  send.run_id = run_id;
  send.lane = agent::RunLane::Cron;  // never waits for a person, as cron runs
  send.model = settings.model;
  if (settings.timeout_seconds > 0) send.timeout_ms = settings.timeout_seconds * 1000;
  agent::RunJournal& journal = agents_.journal();
  json record = agent::send_request_json(send);
  record["heartbeat"] = true;
  auto journal_id = journal.accept("heartbeat", record);
  if (!journal_id) return fail("cannot record the beat in the run journal: " + journal_id.error().message);
  send.journal_ids = {*journal_id};

  auto ended = std::make_shared<bool>(false);
  auto sink = [this, alive = alive_, done, ended, settings, run_id](const agent::RunEvent& e) {
    using K = agent::RunEvent::Kind;
    if (*ended || (e.kind != K::End && e.kind != K::Error && e.kind != K::Aborted)) return;
    *ended = true;
    HeartbeatOutcome o;
    if (e.kind == K::Error) {
      o.status = "failed";
      o.reason = e.error;
    } else if (e.kind == K::Aborted) {
      o.status = "failed";
      o.reason = "aborted (" + e.stop_reason + ")";
    } else if (agent::is_silent_reply(e.text)) {
      o.status = "ok-token";  // NO_REPLY: OpenClaw's newer acknowledgement
    } else if (auto reply = automation::classify_heartbeat_reply(e.text, settings.ack_max_chars); !reply.deliver) {
      o.status = reply.token ? "ok-token" : "ok-empty";
    } else if (settings.target == "none") {
      o.status = "skipped";
      o.reason = "target-none";
    } else {
      // Into the outbox before the journal marks the beat answered (this sink runs first).
      const std::string channel = settings.target == "last" ? "last" : settings.target;
      auto st = channels_.announce(e.agent_id, channel, settings.account_id, settings.to, "", reply.text, "heartbeat-" + run_id);
      if (st) {
        o.status = "sent";
        o.preview = preview_of(reply.text);
        o.channel = channel;
        o.to = settings.to;
        o.account_id = settings.account_id;
      } else if (st.error().code == "NOT_FOUND") {
        o.status = "skipped";
        o.reason = "no-route";
        spdlog::warn("heartbeat: agent {}: the alert was not delivered: {} (set the heartbeat's target and to, "
                     "e.g. agents.defaults.heartbeat.target)",
                     settings.agent_id, st.error().message);
      } else {
        o.status = "failed";
        o.reason = "delivery failed: " + st.error().message;
      }
    }
    loop_.post([alive, done, o] {  // the run is still on the stack
      if (*alive) done(o);
    });
  };
  auto accepted = agents_.send(send, sink);
  if (!accepted) {
    if (auto st = journal.answered(*journal_id, "error"); !st) spdlog::error("run journal: {}", st.error().message);
    return fail(accepted.error().message);
  }
}

}  // namespace pincer::app
