#include "automation/cron_store.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/ids.h"
#include "store/atomic_file.h"
#include "store/file_util.h"
#include "core/json_dump.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace pincer::automation {
namespace {

std::string jobs_where(std::size_t i) { return "jobs[" + std::to_string(i) + "]"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(std::move(line));
  return out;
}

void schedule_next(CronJob& job, int64_t now_ms) {
  if (!job.enabled || !job.invalid.empty()) {
    job.state.next_run_at_ms.reset();
    return;
  }
  if (job.schedule.kind == Schedule::Kind::At) {
    // OpenClaw's one-shot rule: its time — also one that has passed, which is due at once (not
    // left waiting for a restart to count it "missed") — unless it already ran fine at or after it.
    const bool done = job.state.last_status == "ok" && job.state.last_run_at_ms &&
                      *job.state.last_run_at_ms >= job.schedule.at_ms;
    job.state.next_run_at_ms = done ? std::nullopt : std::optional<int64_t>(job.schedule.at_ms);
    return;
  }
  job.state.next_run_at_ms = next_run_after(job.schedule, job.id, now_ms, job.created_at_ms);
}

/// "line 3, column 7" of byte offset `at` (0-based) in `text`.
std::string cron_file_position(const std::string& text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // characters, not UTF-8 continuation bytes
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// The line of the `nth` (0-based) `"id": "<id>"` in `text`, or 0 when not found (written otherwise).
std::size_t cron_id_line(const std::string& text, const std::string& id, int nth) {
  const std::string value = nlohmann::json(id).dump();
  std::size_t pos = 0;
  int seen = 0;
  while ((pos = text.find("\"id\"", pos)) != std::string::npos) {
    std::size_t v = text.find_first_not_of(" \t\r\n", pos + 4);
    if (v != std::string::npos && text[v] == ':') v = text.find_first_not_of(" \t\r\n", v + 1);
    if (v != std::string::npos && text.compare(v, value.size(), value) == 0 && seen++ == nth)
      return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n')) + 1;
    pos += 4;
  }
  return 0;
}

}  // namespace

CronStore::CronStore(std::filesystem::path dir, std::string default_zone)
    : dir_(std::move(dir)), jobs_path_(dir_ / "jobs.json"), default_zone_(std::move(default_zone)) {}

Status CronStore::load() {
  auto text = store::read_file(jobs_path_);
  if (!text) {
    if (text.error().code == "NOT_FOUND") {
      jobs_.clear();
      extra_ = nlohmann::json::object();
      return Ok{};
    }
    return text.error();
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser gave up.
    const std::size_t at = e.byte > 0 ? static_cast<std::size_t>(e.byte - 1) : 0;
    return Error{"CRON_FILE_INVALID", jobs_path_.string() + ": " + cron_file_position(*text, at) +
                                          ": not valid JSON (fix or remove the file; it is kept as it is)"};
  }
  const nlohmann::json* list = nullptr;
  if (doc.is_array()) list = &doc;  // a bare array of jobs, as some hand-written files are
  else if (doc.is_object() && doc.contains("jobs") && doc["jobs"].is_array()) list = &doc["jobs"];
  if (list == nullptr)
    return Error{"CRON_FILE_INVALID", jobs_path_.string() + ": expected {\"version\": 1, \"jobs\": [ … ]}"};
  // Two jobs with one id: every change by id (and the run history file) would hit the wrong
  // one, so the file is refused as a whole and left untouched until the user picks.
  std::map<std::string, std::size_t> first_of_id;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& raw = (*list)[i];
    if (!raw.is_object() || !raw.contains("id") || !raw["id"].is_string()) continue;
    const std::string id = raw["id"].get<std::string>();
    auto [first, inserted] = first_of_id.emplace(id, i);
    if (inserted) continue;
    const std::size_t line = cron_id_line(*text, id, 1);
    return Error{"CRON_FILE_INVALID", jobs_path_.string() + ": " +
                                          (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) +
                                          "the job id '" + id + "' is used twice (" + jobs_where(first->second) +
                                          " and " + jobs_where(i) +
                                          "): give each job its own id (the file is kept as it is)"};
  }
  std::vector<CronJob> jobs;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& raw = (*list)[i];
    auto job = parse_cron_job(raw, jobs_where(i), default_zone_);
    if (job) {
      jobs.push_back(std::move(*job));
      continue;
    }
    CronJob kept;  // kept as written, disabled, reported
    kept.raw = raw;
    kept.enabled = false;
    kept.invalid = job.error().message;
    if (raw.is_object() && raw.contains("id") && raw["id"].is_string()) kept.id = raw["id"].get<std::string>();
    if (raw.is_object() && raw.contains("name") && raw["name"].is_string()) kept.name = raw["name"].get<std::string>();
    jobs.push_back(std::move(kept));
  }
  jobs_ = std::move(jobs);
  extra_ = doc.is_object() ? doc : nlohmann::json::object();
  extra_.erase("jobs");
  extra_.erase("version");
  return Ok{};
}

Status CronStore::save() const {
  nlohmann::json doc = extra_;
  doc["version"] = 1;
  doc["jobs"] = nlohmann::json::array();
  for (const CronJob& job : jobs_) doc["jobs"].push_back(cron_job_to_json(job));
  return store::write_file_atomic(jobs_path_, doc.dump(2) + "\n");
}

std::vector<std::string> CronStore::issues() const {
  std::vector<std::string> out;
  for (const CronJob& job : jobs_)
    if (!job.invalid.empty()) out.push_back(job.invalid + " (kept, disabled)");
  return out;
}

const CronJob* CronStore::find(std::string_view id) const {
  for (const CronJob& job : jobs_)
    if (job.id == id) return &job;
  return nullptr;
}

Result<CronJob> CronStore::add(nlohmann::json spec, int64_t now_ms) {
  if (!spec.is_object()) return Error{"CRON_JOB_INVALID", "job: expected an object"};
  const bool id_generated = !spec.contains("id");
  if (id_generated) spec["id"] = ids::uuid_v4();
  if (spec["id"].is_string() && find(spec["id"].get<std::string>()) != nullptr)
    return Error{"CRON_JOB_EXISTS", "job '" + spec["id"].get<std::string>() + "' already exists"};
  spec["createdAtMs"] = now_ms;
  spec["updatedAtMs"] = now_ms;
  spec.erase("state");
  auto job = parse_cron_job(spec, "new job", default_zone_, id_generated);
  if (!job) return job.error();
  if (auto st = check_cron_job_fires(*job, "new job", id_generated, now_ms); !st) return st.error();
  schedule_next(*job, now_ms);
  jobs_.push_back(*job);
  if (auto st = save(); !st) {
    jobs_.pop_back();
    return st.error();
  }
  return job;
}

Result<CronJob> CronStore::update(std::string_view id, const nlohmann::json& patch, int64_t now_ms) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const CronJob& j) { return j.id == id; });
  if (it == jobs_.end()) return Error{"NOT_FOUND", "unknown cron job id: " + std::string(id)};
  if (!patch.is_object()) return Error{"CRON_JOB_INVALID", "job '" + std::string(id) + "': the patch must be an object"};
  nlohmann::json merged = it->raw;
  merged.merge_patch(patch);
  merged["id"] = it->id;  // the id is not editable
  merged["updatedAtMs"] = now_ms;
  const std::size_t index = static_cast<std::size_t>(it - jobs_.begin());
  auto job = parse_cron_job(merged, jobs_where(index), default_zone_);
  if (!job) return job.error();
  if (auto s = patch.find("schedule"); job->schedule.kind == Schedule::Kind::Every && s != patch.end() &&
                                        s->is_object() && s->contains("tz") && !(*s)["tz"].is_null())
    return Error{"CRON_JOB_INVALID", "job '" + job->id + "': schedule.tz: an every schedule has no time zone "
                                                        "(tz goes with at and cron schedules)"};
  // A new schedule must be able to fire; an edit of anything else leaves a spent one-shot alone.
  if (patch.contains("schedule")) {
    if (auto st = check_cron_job_fires(*job, jobs_where(index), false, now_ms); !st) return st.error();
  }
  // A changed schedule or re-enable starts from now; the run record stays (the raw JSON holds
  // the state as last loaded, not the runs since: the record in memory is the current one).
  job->state = it->state;
  job->state.next_run_at_ms.reset();
  schedule_next(*job, now_ms);
  CronJob previous = std::move(*it);
  *it = *job;
  if (auto st = save(); !st) {
    *it = std::move(previous);
    return st.error();
  }
  return job;
}

Status CronStore::remove(std::string_view id) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const CronJob& j) { return j.id == id; });
  if (it == jobs_.end()) return Error{"NOT_FOUND", "unknown cron job id: " + std::string(id)};
  CronJob previous = std::move(*it);
  const auto index = it - jobs_.begin();
  jobs_.erase(it);
  if (auto st = save(); !st) {
    jobs_.insert(jobs_.begin() + index, std::move(previous));
    return st;
  }
  std::error_code ec;
  if (!previous.id.empty() && previous.invalid.empty()) std::filesystem::remove(dir_ / "runs" / (previous.id + ".jsonl"), ec);
  return Ok{};
}

Status CronStore::set_state(std::string_view id, const CronJobState& state) {
  for (CronJob& job : jobs_) {
    if (job.id != id) continue;
    job.state = state;
    return save();
  }
  return Error{"NOT_FOUND", "unknown cron job id: " + std::string(id)};
}

Status CronStore::append_run(std::string_view id, const nlohmann::json& entry) {
  const CronJob* job = find(id);
  if (job == nullptr || !job->invalid.empty()) return Error{"NOT_FOUND", "unknown cron job id: " + std::string(id)};
  const auto path = dir_ / "runs" / (std::string(id) + ".jsonl");
  const std::string line = json_dump::compact(entry) + "\n";
  std::vector<std::string> lines;
  if (auto old = store::read_file(path); old) lines = lines_of(*old);
  if (lines.size() + 1 <= 2 * kCronRunHistoryLines) {
    // Appended in place; the file is trimmed to the newest lines once it holds twice as many.
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return store::io_error(path, "open");
    const bool ok = store::write_all(fd, line);
    const int err = errno;
    ::close(fd);
    if (!ok) return store::io_error(path, "write", err);
    return Ok{};
  }
  lines.push_back(line.substr(0, line.size() - 1));
  std::string text;
  for (std::size_t i = lines.size() - kCronRunHistoryLines; i < lines.size(); ++i) text += lines[i] + "\n";
  return store::write_file_atomic(path, text);
}

std::vector<nlohmann::json> CronStore::runs(std::string_view id, std::size_t limit) const {
  std::vector<nlohmann::json> out;
  const CronJob* job = find(id);
  if (job == nullptr || !job->invalid.empty()) return out;  // only validated ids name files
  auto text = store::read_file(dir_ / "runs" / (std::string(id) + ".jsonl"));
  if (!text) return out;
  for (const std::string& line : lines_of(*text)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  limit = std::min(limit, kCronRunHistoryLines);
  if (out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  return out;
}

}  // namespace pincer::automation
