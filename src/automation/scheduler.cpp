#include "automation/scheduler.h"

#include <sys/stat.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "core/ids.h"
#include "store/session_keys.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

constexpr std::size_t kSummaryChars = 2000;

std::string cut_summary(const std::string& text) {
  if (text.size() <= kSummaryChars) return text;
  std::size_t n = kSummaryChars;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // not inside a UTF-8 sequence
  return text.substr(0, n) + "…";
}

bool schedulable_job(const CronJob& job) { return job.enabled && job.invalid.empty(); }

json page_of(std::vector<json> items, int64_t limit, int64_t offset, const char* key) {
  const auto total = static_cast<int64_t>(items.size());
  json page = json::array();
  for (int64_t i = offset; i < total && i < offset + limit; ++i) page.push_back(std::move(items[static_cast<std::size_t>(i)]));
  const bool more = offset + limit < total;
  return json{{key, std::move(page)}, {"total", total},  {"offset", offset},
              {"limit", limit},       {"hasMore", more}, {"nextOffset", more ? json(offset + limit) : json(nullptr)}};
}

/// One list for a message: `"a", "b"` (or "none").
std::string cron_quoted_list(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "\"" : ", \"") + i + "\"";
  return out;
}

/// The agentId and delivery.channel of a new job or a patch, against the configured ones.
Status cron_check_references(const json& fields, const CronSettings& s) {
  if (!fields.is_object()) return Ok{};
  auto agent = fields.find("agentId");
  if (s.known_agents && agent != fields.end() && agent->is_string() && !agent->get<std::string>().empty()) {
    const std::string id = agent->get<std::string>();
    if (std::find(s.known_agents->begin(), s.known_agents->end(), id) == s.known_agents->end())
      return Error{"CRON_JOB_INVALID", "agentId: unknown agent \"" + id + "\" (configured: " +
                                           cron_quoted_list(*s.known_agents) + "; agents.list in pincer.json)"};
  }
  auto delivery = fields.find("delivery");
  if (s.known_channels && delivery != fields.end() && delivery->is_object()) {
    auto channel = delivery->find("channel");
    if (channel != delivery->end() && channel->is_string() && !channel->get<std::string>().empty() &&
        *channel != "last") {
      const std::string id = channel->get<std::string>();
      if (std::find(s.known_channels->begin(), s.known_channels->end(), id) == s.known_channels->end())
        return Error{"CRON_JOB_INVALID", "delivery.channel: \"" + id +
                                             "\" is not a configured channel (configured: " +
                                             cron_quoted_list(*s.known_channels) +
                                             "; or \"last\", the chat the agent last heard from)"};
    }
  }
  return Ok{};
}

}  // namespace

CronSettings cron_settings_from_config(const json& config) {
  CronSettings s;
  const json cron = config.is_object() ? config.value("cron", json::object()) : json::object();
  if (cron.is_object()) {
    s.enabled = cron.value("enabled", true);
    s.max_concurrent_runs = static_cast<int>(std::max<int64_t>(1, cron.value("maxConcurrentRuns", int64_t{1})));
    s.missed_runs = cron.value("missedRuns", std::string("run-once")) == "skip" ? MissedRuns::Skip : MissedRuns::RunOnce;
  }
  if (config.is_object() && config.contains("agents") && config["agents"].is_object()) {
    const json defaults = config["agents"].value("defaults", json::object());
    if (defaults.is_object()) s.default_zone = defaults.value("userTimezone", "");
  }
  // agent/agents_config.h's ids (automation does not depend on agent/): the listed ids, else "main".
  s.known_agents.emplace();
  if (config.is_object() && config.contains("agents") && config["agents"].is_object()) {
    const json list = config["agents"].value("list", json::array());
    if (list.is_array()) {
      for (const json& a : list) {
        if (a.is_object() && a.contains("id") && a["id"].is_string() && !a["id"].get<std::string>().empty())
          s.known_agents->push_back(a["id"].get<std::string>());
      }
    }
  }
  if (s.known_agents->empty()) s.known_agents->push_back("main");
  // The default agent as agent/agents_config.h resolves it: `default: true`, else the first entry.
  s.default_agent = s.known_agents->front();
  const json* list = nullptr;
  if (config.is_object() && config.contains("agents") && config["agents"].is_object() &&
      config["agents"].contains("list") && config["agents"]["list"].is_array())
    list = &config["agents"]["list"];
  if (list) {
    for (const json& a : *list) {
      if (a.is_object() && a.contains("default") && a["default"] == true && a.contains("id") && a["id"].is_string()) {
        s.default_agent = a["id"].get<std::string>();
        break;
      }
    }
  }
  s.default_agent = store::normalize_agent_id(s.default_agent);
  s.known_channels.emplace();
  if (config.is_object() && config.contains("channels") && config["channels"].is_object()) {
    for (const auto& [id, entry] : config["channels"].items())
      if (entry.is_object()) s.known_channels->push_back(id);
  }
  return s;
}

CronScheduler::CronScheduler(EventLoop& loop, std::function<int64_t()> now_ms, std::filesystem::path dir,
                             CronSettings settings)
    : loop_(loop), now_(std::move(now_ms)), store_(std::move(dir), settings.default_zone), settings_(std::move(settings)) {}

CronScheduler::~CronScheduler() {
  if (timer_) loop_.cancel(*timer_);
}

CronScheduler::FileStamp CronScheduler::stamp() const {
  struct stat st {};
  if (::stat(store_.jobs_path().c_str(), &st) != 0) return {};
  return FileStamp{true, static_cast<std::uintmax_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                   static_cast<uint64_t>(st.st_ino)};
}

Status CronScheduler::guard_writable() const {
  if (!file_error_.empty())
    return Error{"CRON_FILE_INVALID", file_error_ + " — no change is saved until the file is fixed"};
  return Ok{};
}

void CronScheduler::after_write() { seen_ = stamp(); }

void CronScheduler::fill_missing_next(int64_t now) {
  // A job added by hand has no state yet: its next run from now (an `at` that never ran: its time).
  for (CronJob& job : store_.mutable_jobs()) {
    if (!schedulable_job(job) || job.state.next_run_at_ms) continue;
    if (job.schedule.kind == Schedule::Kind::At) {
      if (!job.state.last_run_at_ms) job.state.next_run_at_ms = job.schedule.at_ms;
      continue;
    }
    job.state.next_run_at_ms = next_run_after(job.schedule, job.id, now, job.created_at_ms);
  }
}

Status CronScheduler::start(const std::vector<CronInterruptedRun>& interrupted) {
  started_ = true;
  const int64_t now = now_();
  seen_ = stamp();
  if (auto st = store_.load(); !st) {
    file_error_ = st.error().message;
    spdlog::error("cron: {} (no job runs until it is fixed)", file_error_);
    return st;
  }
  for (const auto& issue : store_.issues()) spdlog::warn("cron: {}: {}", store_.jobs_path().string(), issue);
  std::vector<std::string> missed = plan_startup(store_.mutable_jobs(), now, settings_.missed_runs);
  if (auto st = store_.save(); !st) spdlog::error("cron: {}", st.error().message);
  after_write();
  for (const auto& run : interrupted) {
    if (!store_.find(run.job_id)) continue;  // the app gives such entries up itself
    std::erase(missed, run.job_id);           // resumed, not run a second time
    queued_.emplace_back(run.job_id, CronRunRequest{run.run_id, false, run.journal_id});
  }
  if (settings_.enabled) {
    for (const auto& id : missed) {
      spdlog::info("cron: job {} missed its run while the gateway was down: running it once now", id);
      queued_.emplace_back(id, CronRunRequest{});
    }
  }
  pump();
  arm();
  return Ok{};
}

Status CronScheduler::open_offline() {
  started_ = true;
  stopped_ = true;  // nothing runs here, no timer
  seen_ = stamp();
  if (auto st = store_.load(); !st) {
    file_error_ = st.error().message;
    return st;
  }
  fill_missing_next(now_());
  return Ok{};
}

void CronScheduler::stop() {
  stopped_ = true;
  queued_.clear();
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  armed_at_.reset();
}

void CronScheduler::reconfigure(CronSettings settings) {
  const bool zone_changed = settings.default_zone != store_.default_zone();
  settings_ = std::move(settings);
  if (zone_changed) apply_default_zone();
  pump();
  arm();
}

void CronScheduler::apply_default_zone() {
  store_.set_default_zone(settings_.default_zone);
  if (!started_ || !file_error_.empty()) return;  // read with the new zone at the next (re)load
  // The jobs are read again (a schedule's zone is resolved as it is parsed); every change was
  // saved before it was answered, so the file holds what memory does.
  if (auto st = store_.load(); !st) {
    file_error_ = st.error().message;
    spdlog::error("cron: {} (the jobs loaded before are kept)", file_error_);
    return;
  }
  seen_ = stamp();
  for (CronJob& job : store_.mutable_jobs()) {
    if (schedulable_job(job) && job.schedule.tz.empty() && job.schedule.kind != Schedule::Kind::Every &&
        !running_.contains(job.id))
      job.state.next_run_at_ms.reset();
  }
  fill_missing_next(now_());
  if (!stopped_) {
    if (auto st = store_.save(); !st) spdlog::error("cron: {}", st.error().message);
    after_write();
  }
  spdlog::info("cron: the default time zone is now {}: next runs of jobs without their own tz follow it",
               settings_.default_zone.empty() ? "the host's" : settings_.default_zone);
}

Status CronScheduler::reload_if_changed() {
  if (!started_) return Ok{};
  const FileStamp now_stamp = stamp();
  if (now_stamp == seen_) return Ok{};
  seen_ = now_stamp;
  if (auto st = store_.load(); !st) {
    file_error_ = st.error().message;
    spdlog::error("cron: {} (the jobs loaded before are kept)", file_error_);
    return st;
  }
  file_error_.clear();
  for (const auto& issue : store_.issues()) spdlog::warn("cron: {}: {}", store_.jobs_path().string(), issue);
  fill_missing_next(now_());
  spdlog::info("cron: reloaded {} ({} jobs)", store_.jobs_path().string(), store_.jobs().size());
  arm();
  return Ok{};
}

void CronScheduler::tick() {
  timer_.reset();
  armed_at_.reset();
  (void)reload_if_changed();
  pump();
  arm();
}

void CronScheduler::pump() {
  if (stopped_) return;
  const auto limit = static_cast<std::size_t>(std::max(1, settings_.max_concurrent_runs));
  while (!queued_.empty() && running_.size() < limit) {
    auto [id, request] = std::move(queued_.front());
    queued_.pop_front();
    if (running_.contains(id) || !store_.find(id)) continue;
    start_run(id, std::move(request));
  }
  if (!settings_.enabled || running_.size() >= limit) return;
  std::vector<std::string> busy;
  for (const auto& [id, run] : running_) busy.push_back(id);
  for (const auto& [id, request] : queued_) busy.push_back(id);
  const int free = static_cast<int>(limit - running_.size());
  for (const auto& id : due_jobs(store_.jobs(), now_(), busy, static_cast<int>(busy.size()) + free))
    start_run(id, CronRunRequest{});
}

void CronScheduler::start_run(const std::string& id, CronRunRequest request) {
  const CronJob* found = store_.find(id);
  if (!found) return;
  CronJob job = *found;
  const int64_t started = now_();
  if (request.run_id.empty()) request.run_id = "cron:" + id + ":" + std::to_string(started) + ":" + std::to_string(++run_seq_);
  running_[id] = request.run_id;
  if (!request.manual) {
    // Its next time is fixed as it starts: the timer never starts the same occurrence twice.
    CronJobState state = job.state;
    state.next_run_at_ms = next_after_run(job, started);
    if (!file_error_.empty()) {
      // The file on disk is broken (a hand edit since it was loaded): never written over.
      for (CronJob& j : store_.mutable_jobs())
        if (j.id == id) j.state = state;
    } else {
      if (auto st = store_.set_state(id, state); !st) spdlog::error("cron: {}", st.error().message);
      after_write();
    }
  }
  spdlog::info("cron: job {} ({}) started: run {}{}", id, job.name, request.run_id, request.manual ? " (manual)" : "");
  emit(json{{"jobId", id}, {"action", "started"}, {"runAtMs", started}, {"runId", request.run_id}});
  if (!runner_) {
    CronRunResult skipped;
    skipped.status = "skipped";
    skipped.error = "no runner (the agent runtime is not running)";
    run_finished(id, request, started, skipped);
    return;
  }
  runner_(job, request, [this, id, request, started](CronRunResult result) {
    run_finished(id, request, started, std::move(result));
  });
}

void CronScheduler::run_finished(const std::string& id, const CronRunRequest& request, int64_t started,
                                 CronRunResult result) {
  running_.erase(id);
  const int64_t ended = now_();
  const int64_t duration = std::max<int64_t>(0, ended - started);
  (void)reload_if_changed();  // state is written onto the file as it is now
  const CronJob* job = store_.find(id);
  std::optional<int64_t> next;
  if (job) {
    CronJobState state = job->state;
    state.last_run_at_ms = started;
    state.last_status = result.status;
    state.last_error = result.status == "ok" ? "" : result.error;
    state.consecutive_errors = result.status == "error" ? state.consecutive_errors + 1 : 0;
    // A one-shot `at` job is done after its scheduled run (a forced early run leaves it waiting).
    const bool one_shot = job->schedule.kind == Schedule::Kind::At && !request.manual;
    if (one_shot) state.next_run_at_ms.reset();
    next = state.next_run_at_ms;
    if (file_error_.empty()) {
      json entry = {{"ts", ended},         {"jobId", id},           {"action", "finished"}, {"status", result.status},
                    {"runAtMs", started},  {"durationMs", duration}, {"runId", request.run_id}};
      if (!result.error.empty()) entry["error"] = result.error;
      if (!result.summary.empty()) entry["summary"] = cut_summary(result.summary);
      if (!result.session_key.empty()) entry["sessionKey"] = result.session_key;
      if (!result.delivery_status.empty()) entry["deliveryStatus"] = result.delivery_status;
      if (!result.delivery_error.empty()) entry["deliveryError"] = result.delivery_error;
      if (next) entry["nextRunAtMs"] = *next;
      if (auto st = store_.append_run(id, entry); !st) spdlog::error("cron: {}", st.error().message);
      if (one_shot && job->delete_after_run && result.status == "ok") {
        if (auto st = store_.remove(id); !st) spdlog::error("cron: {}", st.error().message);
        else emit(json{{"jobId", id}, {"action", "removed"}});
      } else {
        for (CronJob& j : store_.mutable_jobs()) {
          if (j.id != id) continue;
          j.state = state;
          if (one_shot) j.enabled = false;  // done: kept with its record, disabled (as OpenClaw)
        }
        if (auto st = store_.save(); !st) spdlog::error("cron: {}", st.error().message);
      }
      after_write();
    }
  }
  spdlog::info("cron: job {} finished: {} in {} ms{}", id, result.status, duration,
               result.error.empty() ? "" : ": " + result.error);
  json event = {{"jobId", id},          {"action", "finished"}, {"status", result.status}, {"runAtMs", started},
                {"durationMs", duration}, {"runId", request.run_id}};
  if (!result.error.empty()) event["error"] = result.error;
  if (!result.summary.empty()) event["summary"] = cut_summary(result.summary);
  if (!result.session_key.empty()) event["sessionKey"] = result.session_key;
  event["nextRunAtMs"] = next ? json(*next) : json(nullptr);
  emit(std::move(event));
  pump();
  arm();
}

void CronScheduler::arm() {
  if (timer_) loop_.cancel(*timer_);
  timer_.reset();
  armed_at_.reset();
  if (stopped_ || !started_ || !settings_.enabled) return;
  if (running_.size() >= static_cast<std::size_t>(std::max(1, settings_.max_concurrent_runs))) return;  // a finish re-arms
  std::vector<CronJob> waiting;
  for (const CronJob& job : store_.jobs())
    if (!running_.contains(job.id)) waiting.push_back(job);
  auto wake = next_wake_ms(waiting);
  if (!wake) return;  // nothing scheduled: no timer at all
  const int64_t now = now_();
  const int64_t delay = std::clamp<int64_t>(*wake - now, 0, kCronMaxSleepMs);
  armed_at_ = *wake;
  timer_ = loop_.after(delay, [this] { tick(); });
}

void CronScheduler::emit(json event) {
  if (events_) events_(event);
}

std::vector<std::string> CronScheduler::running() const {
  std::vector<std::string> out;
  for (const auto& [id, run] : running_) out.push_back(id);
  return out;
}

json CronScheduler::status() {
  (void)reload_if_changed();
  json issues = json::array();
  for (const auto& i : store_.issues()) issues.push_back(i);
  if (!file_error_.empty()) issues.push_back(file_error_);
  std::vector<CronJob> waiting;
  for (const CronJob& job : store_.jobs())
    if (!running_.contains(job.id)) waiting.push_back(job);
  auto wake = settings_.enabled ? next_wake_ms(waiting) : std::nullopt;
  return json{{"enabled", settings_.enabled},
              {"storePath", store_.jobs_path().string()},
              {"storage", "file"},
              {"jobs", store_.jobs().size()},
              {"nextWakeAtMs", wake ? json(*wake) : json(nullptr)},
              {"running", running()},
              {"maxConcurrentRuns", settings_.max_concurrent_runs},
              {"issues", std::move(issues)}};
}

json CronScheduler::list(bool include_disabled, int64_t limit, int64_t offset) {
  (void)reload_if_changed();
  std::vector<const CronJob*> jobs;
  for (const CronJob& job : store_.jobs())
    if (include_disabled || schedulable_job(job)) jobs.push_back(&job);
  std::stable_sort(jobs.begin(), jobs.end(), [](const CronJob* a, const CronJob* b) {
    const int64_t x = a->state.next_run_at_ms.value_or(INT64_MAX), y = b->state.next_run_at_ms.value_or(INT64_MAX);
    return x < y;
  });
  std::vector<json> items;
  std::string inventory;  // ids and change times: the revision a paging client checks each page against
  for (const CronJob* job : jobs) {
    json j = job_view(*job);
    inventory += job->id + ":" + std::to_string(j.value("updatedAtMs", int64_t{0})) + ";";
    if (!job->invalid.empty()) {
      j["enabled"] = false;
      j["invalid"] = job->invalid;
    }
    items.push_back(std::move(j));
  }
  json page = page_of(std::move(items), limit, offset, "jobs");
  // OpenClaw v4's inventory revision: `openclaw cron list` refuses pages without it and restarts
  // its paging when it changes.
  page["snapshotRevision"] = ids::sha256_hex(inventory).substr(0, 32);
  // Pincer's additions, only when there is something to say: the CLI prints them.
  json issues = json::array();
  for (const auto& i : store_.issues()) issues.push_back(i);
  if (!issues.empty()) page["issues"] = std::move(issues);
  if (!file_error_.empty()) page["fileError"] = file_error_ + " — no change is saved until it is fixed";
  return page;
}

Result<json> CronScheduler::get(const std::string& id) {
  (void)reload_if_changed();
  const CronJob* job = store_.find(id);
  if (!job) return Error{"NOT_FOUND", "unknown cron job id: " + id};
  return job_view(*job);
}

json CronScheduler::job_view(const CronJob& job) const {
  json j = cron_job_to_json(job);
  // OpenClaw's cron.list field (its CLI shows "unresolved" in the Agent ID column without it).
  j["effectiveAgentId"] = job.agent_id.empty() ? settings_.default_agent : store::normalize_agent_id(job.agent_id);
  return j;
}

Result<json> CronScheduler::add(const json& spec) {
  (void)reload_if_changed();
  if (auto st = guard_writable(); !st) return st.error();
  if (auto st = cron_check_references(spec, settings_); !st) return st.error();
  auto job = store_.add(spec, now_());
  after_write();
  if (!job) return job.error();
  spdlog::info("cron: job {} ({}) added, next run {}", job->id, job->name,
               job->state.next_run_at_ms ? format_instant(*job->state.next_run_at_ms, job->schedule.zone) : "none");
  json out = cron_job_to_json(*job);
  emit(json{{"jobId", job->id}, {"action", "added"}, {"nextRunAtMs", out["state"].value("nextRunAtMs", json(nullptr))}});
  arm();
  return out;
}

Result<json> CronScheduler::update(const std::string& id, const json& patch) {
  (void)reload_if_changed();
  if (auto st = guard_writable(); !st) return st.error();
  if (store_.find(id) != nullptr) {
    if (auto st = cron_check_references(patch, settings_); !st) return st.error();
  }
  auto job = store_.update(id, patch, now_());
  after_write();
  if (!job) return job.error();
  json out = cron_job_to_json(*job);
  emit(json{{"jobId", id}, {"action", "updated"}, {"nextRunAtMs", out["state"].value("nextRunAtMs", json(nullptr))}});
  arm();
  return out;
}

Result<json> CronScheduler::remove(const std::string& id) {
  (void)reload_if_changed();
  if (auto st = guard_writable(); !st) return st.error();
  auto st = store_.remove(id);
  after_write();
  if (!st) return st.error();
  std::erase_if(queued_, [&](const auto& q) { return q.first == id; });
  emit(json{{"jobId", id}, {"action", "removed"}});
  arm();
  return json{{"ok", true}, {"removed", true}};
}

Result<json> CronScheduler::run(const std::string& id, bool force) {
  (void)reload_if_changed();
  const CronJob* job = store_.find(id);
  if (!job) return Error{"NOT_FOUND", "unknown cron job id: " + id};
  if (!job->invalid.empty()) return Error{"CRON_JOB_INVALID", job->invalid};
  if (stopped_) return json{{"ok", true}, {"ran", false}, {"reason", "stopped"}};
  if (running_.contains(id) || std::any_of(queued_.begin(), queued_.end(), [&](const auto& q) { return q.first == id; }))
    return json{{"ok", true}, {"ran", false}, {"reason", "already-running"}};
  if (!force) {
    if (!job->enabled) return json{{"ok", true}, {"ran", false}, {"reason", "disabled"}};
    if (!job->state.next_run_at_ms || *job->state.next_run_at_ms > now_())
      return json{{"ok", true}, {"ran", false}, {"reason", "not-due"}};
  }
  CronRunRequest request;
  request.manual = force;  // a "due" run is the scheduled occurrence, started early by hand
  request.run_id = "manual:" + id + ":" + std::to_string(now_()) + ":" + std::to_string(++run_seq_);
  const std::string run_id = request.run_id;
  queued_.emplace_back(id, std::move(request));
  pump();
  arm();
  return json{{"ok", true}, {"enqueued", true}, {"runId", run_id}};
}

Result<json> CronScheduler::runs(const std::string& id, int64_t limit, int64_t offset) {
  (void)reload_if_changed();
  if (!store_.find(id)) return Error{"NOT_FOUND", "unknown cron job id: " + id};
  auto entries = store_.runs(id, kCronRunHistoryLines);
  std::reverse(entries.begin(), entries.end());  // newest first
  return page_of(std::move(entries), limit, offset, "entries");
}

json CronScheduler::runs_all(int64_t limit, int64_t offset) {
  (void)reload_if_changed();
  std::vector<json> entries;
  for (const auto& job : store_.jobs()) {
    for (auto& entry : store_.runs(job.id, kCronRunHistoryLines)) {
      if (!entry.contains("jobName") && !job.name.empty()) entry["jobName"] = job.name;
      entries.push_back(std::move(entry));
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const json& a, const json& b) { return a.value("ts", int64_t{0}) > b.value("ts", int64_t{0}); });
  return page_of(std::move(entries), limit, offset, "entries");
}

}  // namespace pincer::automation
