#include "automation/cron_job.h"

namespace pincer::automation {
namespace {

struct JobReader {
  const nlohmann::json& j;
  std::string who;  // "job 'water' (jobs[2])"

  Error error(std::string_view field, std::string_view what) const {
    return Error{"CRON_JOB_INVALID", who + ": " + std::string(field) + ": " + std::string(what)};
  }
  const nlohmann::json* field(const nlohmann::json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
};

bool valid_id(const std::string& id) {
  if (id.empty() || id.size() > 128 || id == "." || id == "..") return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

}  // namespace

Result<CronJob> parse_cron_job(const nlohmann::json& j, std::string_view where, std::string_view default_zone,
                               bool id_generated) {
  if (!j.is_object()) return Error{"CRON_JOB_INVALID", std::string(where) + ": expected a job object"};
  CronJob job;
  job.raw = j;
  auto id = j.find("id");
  if (id == j.end() || !id->is_string() || !valid_id(id->get<std::string>()))
    return Error{"CRON_JOB_INVALID", std::string(where) +
                                         ": id: required, 1-128 letters, digits, '-', '_' or '.'"};
  job.id = id->get<std::string>();
  JobReader r{j, id_generated ? std::string(where) : "job '" + job.id + "' (" + std::string(where) + ")"};
  auto string_at = [&](const nlohmann::json& obj, const char* key, const std::string& path,
                       std::string& out) -> Status {
    const nlohmann::json* v = r.field(obj, key);
    if (v == nullptr) return Ok{};
    if (!v->is_string()) return r.error(path, "expected a string");
    out = v->get<std::string>();
    return Ok{};
  };
  auto bool_at = [&](const nlohmann::json& obj, const char* key, const std::string& path, bool& out) -> Status {
    const nlohmann::json* v = r.field(obj, key);
    if (v == nullptr) return Ok{};
    if (!v->is_boolean()) return r.error(path, "expected true or false");
    out = v->get<bool>();
    return Ok{};
  };
  auto ms_at = [&](const nlohmann::json& obj, const char* key, const std::string& path, int64_t& out) -> Status {
    const nlohmann::json* v = r.field(obj, key);
    if (v == nullptr) return Ok{};
    if (!v->is_number_integer() || v->get<int64_t>() < 0) return r.error(path, "expected Unix milliseconds");
    out = v->get<int64_t>();
    return Ok{};
  };
#define PINCER_TRY(expr) \
  if (auto st_ = (expr); !st_) return st_.error()
  job.name = job.id;
  PINCER_TRY(string_at(j, "name", "name", job.name));
  PINCER_TRY(bool_at(j, "enabled", "enabled", job.enabled));
  PINCER_TRY(string_at(j, "agentId", "agentId", job.agent_id));
  PINCER_TRY(bool_at(j, "deleteAfterRun", "deleteAfterRun", job.delete_after_run));
  PINCER_TRY(ms_at(j, "createdAtMs", "createdAtMs", job.created_at_ms));
  PINCER_TRY(ms_at(j, "updatedAtMs", "updatedAtMs", job.updated_at_ms));

  const nlohmann::json* schedule = r.field(j, "schedule");
  if (schedule == nullptr) return r.error("schedule", "required ({kind: \"at\"|\"every\"|\"cron\", …})");
  auto s = parse_schedule(*schedule, default_zone);
  if (!s) return Error{"CRON_JOB_INVALID", r.who + ": " + s.error().message};
  job.schedule = std::move(*s);
  if (job.schedule.kind == Schedule::Kind::Every && job.schedule.every_ms < kCronMinEveryMs)
    return r.error("schedule.everyMs", "at least " + std::to_string(kCronMinEveryMs) + " (1 s), got " +
                                           std::to_string(job.schedule.every_ms) + " ms");

  const nlohmann::json* payload = r.field(j, "payload");
  if (payload == nullptr || !payload->is_object())
    return r.error("payload", "required: {kind: \"systemEvent\", text} or {kind: \"agentTurn\", message}");
  std::string kind;
  PINCER_TRY(string_at(*payload, "kind", "payload.kind", kind));
  if (kind == "systemEvent") {
    job.payload.kind = CronPayload::Kind::SystemEvent;
    PINCER_TRY(string_at(*payload, "text", "payload.text", job.payload.text));
    if (job.payload.text.empty()) return r.error("payload.text", "required (the event text)");
  } else if (kind == "agentTurn") {
    job.payload.kind = CronPayload::Kind::AgentTurn;
    PINCER_TRY(string_at(*payload, "message", "payload.message", job.payload.text));
    if (job.payload.text.empty()) return r.error("payload.message", "required (the message of the turn)");
    PINCER_TRY(string_at(*payload, "model", "payload.model", job.payload.model));
    PINCER_TRY(string_at(*payload, "thinking", "payload.thinking", job.payload.thinking));
    if (const nlohmann::json* t = r.field(*payload, "timeoutSeconds"); t != nullptr) {
      if (!t->is_number() || t->get<double>() <= 0) return r.error("payload.timeoutSeconds", "expected a positive number");
      job.payload.timeout_seconds = t->get<double>();
    }
  } else {
    return r.error("payload.kind", "expected \"systemEvent\" or \"agentTurn\"" +
                                       (kind.empty() ? std::string() : ", not '" + kind + "'"));
  }

  // OpenClaw's pairing: the main session takes system events, isolated sessions agent turns.
  std::string target = job.payload.kind == CronPayload::Kind::SystemEvent ? "main" : "isolated";
  PINCER_TRY(string_at(j, "sessionTarget", "sessionTarget", target));
  if (target != "main" && target != "isolated") return r.error("sessionTarget", "expected \"main\" or \"isolated\"");
  job.isolated = target == "isolated";
  if (!job.isolated && job.payload.kind != CronPayload::Kind::SystemEvent)
    return r.error("sessionTarget", "\"main\" takes a systemEvent payload (use \"isolated\" for agentTurn)");
  if (job.isolated && job.payload.kind != CronPayload::Kind::AgentTurn)
    return r.error("sessionTarget", "\"isolated\" takes an agentTurn payload (use \"main\" for systemEvent)");
  std::string wake = "now";
  PINCER_TRY(string_at(j, "wakeMode", "wakeMode", wake));
  if (wake != "now" && wake != "next-heartbeat") return r.error("wakeMode", "expected \"now\" or \"next-heartbeat\"");
  job.wake_now = wake == "now";

  if (const nlohmann::json* d = r.field(j, "delivery"); d != nullptr) {
    if (!d->is_object()) return r.error("delivery", "expected an object {mode, channel?, to?}");
    std::string mode = "none";
    PINCER_TRY(string_at(*d, "mode", "delivery.mode", mode));
    if (mode == "announce") job.delivery.mode = CronDelivery::Mode::Announce;
    else if (mode == "webhook") job.delivery.mode = CronDelivery::Mode::Webhook;
    else if (mode == "none") job.delivery.mode = CronDelivery::Mode::None;
    else return r.error("delivery.mode", "expected \"announce\", \"webhook\" or \"none\"");
    PINCER_TRY(string_at(*d, "channel", "delivery.channel", job.delivery.channel));
    PINCER_TRY(string_at(*d, "to", "delivery.to", job.delivery.to));
    PINCER_TRY(string_at(*d, "accountId", "delivery.accountId", job.delivery.account_id));
    PINCER_TRY(bool_at(*d, "bestEffort", "delivery.bestEffort", job.delivery.best_effort));
    if (job.delivery.mode == CronDelivery::Mode::Webhook && job.delivery.to.rfind("http://", 0) != 0 &&
        job.delivery.to.rfind("https://", 0) != 0)
      return r.error("delivery.to", "a webhook delivery needs an http(s) URL");
  }

  // State is the gateway's own record: read leniently, never a reason to refuse the job.
  if (const nlohmann::json* st = r.field(j, "state"); st != nullptr && st->is_object()) {
    if (auto v = st->find("nextRunAtMs"); v != st->end() && v->is_number_integer()) job.state.next_run_at_ms = v->get<int64_t>();
    if (auto v = st->find("lastRunAtMs"); v != st->end() && v->is_number_integer()) job.state.last_run_at_ms = v->get<int64_t>();
    if (auto v = st->find("lastStatus"); v != st->end() && v->is_string()) job.state.last_status = v->get<std::string>();
    if (auto v = st->find("lastError"); v != st->end() && v->is_string()) job.state.last_error = v->get<std::string>();
    if (auto v = st->find("consecutiveErrors"); v != st->end() && v->is_number_integer())
      job.state.consecutive_errors = v->get<int>();
  }
#undef PINCER_TRY
  return job;
}

Status check_cron_job_fires(const CronJob& job, std::string_view where, bool id_generated, int64_t now_ms) {
  const auto problem = schedule_never_fires(job.schedule, now_ms, job.schedule.zone);
  if (!problem) return Ok{};
  const std::string who = id_generated ? std::string(where) : "job '" + job.id + "' (" + std::string(where) + ")";
  const std::string value = job.schedule.kind == Schedule::Kind::Cron    ? job.schedule.expr
                            : job.schedule.kind == Schedule::Kind::Every ? std::to_string(job.schedule.every_ms)
                                                                         : job.schedule.at;
  return Error{"CRON_JOB_INVALID", who + ": " + problem->field + ": '" + value + "' " + problem->why};
}

nlohmann::json cron_job_to_json(const CronJob& job) {
  nlohmann::json out = job.raw.is_object() ? job.raw : nlohmann::json::object();
  if (!job.invalid.empty()) return out;  // kept exactly as written until someone fixes it
  out["id"] = job.id;
  out["name"] = job.name;
  out["enabled"] = job.enabled;
  out["createdAtMs"] = job.created_at_ms;
  out["updatedAtMs"] = job.updated_at_ms;
  nlohmann::json state = out.contains("state") && out["state"].is_object() ? out["state"] : nlohmann::json::object();
  auto put = [&](const char* key, const std::optional<int64_t>& v) {
    if (v) state[key] = *v;
    else state.erase(key);
  };
  put("nextRunAtMs", job.state.next_run_at_ms);
  put("lastRunAtMs", job.state.last_run_at_ms);
  if (!job.state.last_status.empty()) state["lastStatus"] = job.state.last_status;
  if (!job.state.last_error.empty()) state["lastError"] = job.state.last_error;
  else state.erase("lastError");
  state["consecutiveErrors"] = job.state.consecutive_errors;
  out["state"] = std::move(state);
  return out;
}

std::string cron_session_key(const CronJob& job) { return "cron:" + job.id; }

}  // namespace pincer::automation
