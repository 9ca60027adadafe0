// Planning, staging and verifying the SQLite part of `pincer import openclaw`
// (cli/openclaw_import_sqlite.h).
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "automation/cron_store.h"
#include "core/json5.h"
#include "llm/ndjson_parser.h"
#include "cli/openclaw_import_sqlite.h"
#include "llm/auth/auth_profiles.h"
#include "store/atomic_file.h"
#include "store/session_index.h"
#include "store/session_keys.h"
#include "store/transcript.h"
#include "core/clock.h"

namespace pincer::cli::openclaw::sqlite_state {
namespace detail_oc_sqlite_plan {

namespace fs = std::filesystem;
using nlohmann::json;

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }
std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string shown(const fs::path& p, const fs::path& src) {
  return is_below(p, src) ? p.lexically_relative(src).generic_string() : p.string();
}

Status make_dirs_0700(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return Ok{};
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto st = make_dirs_0700(dir.parent_path()); !st) return st;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && !fs::is_directory(dir, ec)) {
    return Error{"IO_ERROR", "cannot create directory " + dir.string() + ": " + std::strerror(errno)};
  }
  return Ok{};
}

Error mismatch(const std::string& what, std::uint64_t read, std::uint64_t written) {
  return Error{"IMPORT_MISMATCH", what + ": " + std::to_string(read) + " read from OpenClaw's state, " +
                                      std::to_string(written) + " in the written files; nothing was imported"};
}

}  // namespace detail_oc_sqlite_plan

using namespace detail_oc_sqlite_plan;

Result<Plan> plan(ImportReport& report, const std::set<std::string>& configured) {
  Plan out;
  const fs::path& src = report.source;
  std::error_code ec;
  auto& counts = report.counts;
  for (const char* k : {"sessions", "transcripts", "messages", "cron jobs", "auth profiles"}) counts.try_emplace(k, 0);

  // 2026.9 keeps the credentials of every agent in one shared store (config_machine_state).
  const fs::path state_db = src / "state" / "openclaw.sqlite";
  std::optional<json> shared_auth;
  if (fs::is_regular_file(state_db, ec)) {
    auto shared = read_shared_auth(state_db);
    if (!shared) return shared.error();
    shared_auth = std::move(*shared);
  }
  const fs::path agents = src / "agents";
  if (fs::is_directory(agents, ec)) {
    std::vector<fs::path> dirs;
    for (fs::directory_iterator it(agents, ec), end; !ec && it != end; it.increment(ec)) dirs.push_back(it->path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& dir : dirs) {
      const std::string id = dir.filename().string();
      const fs::path db = dir / "agent" / "openclaw-agent.sqlite";
      if (store::normalize_agent_id(id) != id || !fs::is_regular_file(db, ec)) continue;
      auto state = read_agent_db(db);
      if (!state) return state.error();
      out.agents.insert(id);
      Plan::Expected exp;
      exp.agent_id = id;
      exp.sessions = state->sessions.size();
      const fs::path sessions = fs::path("agents") / id / "sessions";
      CopiedItem item{"sessions", id, db, report.target / sessions, 0, 0, exp.sessions, ""};
      std::uint64_t messages = 0, compressed = 0;
      if (!state->sessions.empty() || !state->transcripts.empty()) {
        out.files.push_back({sessions / "sessions.json", dump(state->sessions)});
        item.files += 1;
        item.bytes += out.files.back().data.size();
        for (auto& t : state->transcripts) {
          exp.transcripts.push_back({t.session_id, t.events, t.messages, 0});
          messages += t.messages;
          compressed += t.compressed;
          item.files += 1;
          item.bytes += t.jsonl.size();
          out.files.push_back({sessions / (t.session_id + ".jsonl"), std::move(t.jsonl)});
        }
        item.note = "from SQLite: " + std::to_string(state->transcripts.size()) + " transcript(s), " +
                    std::to_string(messages) + " message(s)" +
                    (compressed ? ", " + std::to_string(compressed) + " zstd row(s) decoded" : "") +
                    (state->cold_transcripts ? ", " + std::to_string(state->cold_transcripts) +
                                                   " from OpenClaw's cold archive" : "");
        out.installs.push_back(sessions);
        report.copied.push_back(std::move(item));
        if (!configured.contains(id)) {
          report.warnings.push_back("the sessions of agent \"" + id + "\" are imported, but pincer.json has no agent \"" +
                                    id + "\"; Pincer lists them once the agent is configured");
        }
      }
      counts["sessions"] += exp.sessions;
      counts["transcripts"] += state->transcripts.size();
      counts["messages"] += messages;
      if (state->archived_transcripts > 0) {
        report.skipped.push_back({shown(db, src) + " session_transcript_archives",
                                  std::to_string(state->archived_transcripts) +
                                      " archived transcript(s) of reset or deleted sessions are not imported"});
      }
      if (fs::exists(dir / "sessions", ec)) {
        report.skipped.push_back({shown(dir / "sessions", src), "superseded by " + shown(db, src) +
                                                                     " (OpenClaw migrated it into the database; its cold/ archives are read through it)"});
      }
      const fs::path auth = fs::path("agents") / id / "agent" / "auth-profiles.json";
      std::optional<json> auth_doc = std::move(state->auth_profiles);
      fs::path auth_from = db;
      if (!auth_doc && shared_auth) {  // the shared store of state/openclaw.sqlite serves every agent
        auth_doc = *shared_auth;
        auth_from = state_db;
      }
      if (!auth_doc && fs::is_regular_file(dir / "agent" / "auth-profiles.json", ec)) {
        auth_from = dir / "agent" / "auth-profiles.json";
        auto text = store::read_file(auth_from);
        if (!text) return Error{"IO_ERROR", text.error().message};
        if (llm::json_nesting_exceeds(*text, json5::kMaxDepth)) {
          return Error{"SQLITE_INVALID", auth_from.string() + ": nesting too deep (more than " +
                                             std::to_string(json5::kMaxDepth) + " levels)"};
        }
        json parsed = json::parse(*text, nullptr, false);
        if (parsed.is_discarded() || !parsed.is_object()) {
          return Error{"SQLITE_INVALID", auth_from.string() + ": not a JSON object"};
        }
        auth_doc = std::move(parsed);
      }
      if (auth_doc) {
        auto profiles = llm::auth::AuthProfiles::from_json(*auth_doc);
        if (!profiles) return Error{"SQLITE_INVALID", auth_from.string() + ": auth profiles: " + profiles.error().message};
        const std::uint64_t n = profiles->credentials().size();  // the ones Pincer can use
        exp.auth_profiles = n;
        counts["auth profiles"] += n;
        out.files.push_back({auth, dump(*auth_doc)});
        out.installs.push_back(auth);
        report.copied.push_back({"auth-profiles", id, auth_from, report.target / auth, 1, out.files.back().data.size(), n,
                                 "credentials and their cooldowns; the file stays private (0600)"});
      }
      out.expected.push_back(std::move(exp));
    }
  }

  if (fs::is_regular_file(state_db, ec)) {
    auto jobs = read_cron_jobs(state_db);
    if (!jobs) return jobs.error();
    if (*jobs) {
      out.cron = true;
      drop_managed_cron_jobs(**jobs, "state/openclaw.sqlite cron_jobs", report);
      const std::uint64_t n = (*jobs)->size();
      out.cron_jobs = n;
      counts["cron jobs"] += n;
      if (fs::exists(src / "cron" / "jobs.json", ec)) {
        report.skipped.push_back({"cron/jobs.json", "superseded by state/openclaw.sqlite (OpenClaw migrated it into the database)"});
      }
      if (n > 0) {
        json doc = {{"version", 1}, {"jobs", std::move(**jobs)}};
        out.files.push_back({"cron/jobs.json", dump(doc)});
        out.installs.emplace_back("cron/jobs.json");
        report.copied.push_back({"cron", "", state_db, report.target / "cron" / "jobs.json", 1,
                                 out.files.back().data.size(), n,
                                 "from SQLite, same ids and schedules; the gateway schedules them at its next start"});
      }
    }
  }
  return out;
}

void count_memory_files(ImportReport& report) {
  std::uint64_t n = 0;
  for (const auto& item : report.copied) {
    if (item.kind != "workspace") continue;
    std::error_code ec;
    for (const char* top : {"MEMORY.md", "memory.md"}) {
      if (fs::is_regular_file(fs::symlink_status(item.from / top, ec))) ++n;
    }
    const fs::path dir = item.from / "memory";
    if (!fs::is_directory(fs::symlink_status(dir, ec))) continue;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".md" && fs::is_regular_file(it->symlink_status(ec))) ++n;
    }
  }
  report.counts["memory files"] = n;
}

Status stage(const Plan& plan, const std::filesystem::path& staging) {
  for (const auto& f : plan.files) {
    const fs::path dst = staging / f.dest;
    if (auto st = make_dirs_0700(dst.parent_path()); !st) return st;
    if (auto st = store::write_file_atomic(dst, f.data, 0600); !st) return st;
  }
  return Ok{};
}

Status verify(const Plan& plan, const std::filesystem::path& staging) {
  std::error_code ec;
  for (const auto& exp : plan.expected) {
    const fs::path dir = staging / "agents" / exp.agent_id / "sessions";
    const std::string agent = "agent \"" + exp.agent_id + "\"";
    std::uint64_t sessions = 0;
    if (fs::exists(dir / "sessions.json", ec)) {
      store::SessionIndex index(dir / "sessions.json", SystemClock::instance());
      if (auto st = index.load(); !st) return Error{"IMPORT_MISMATCH", st.error().message + "; nothing was imported"};
      sessions = index.size();
    }
    if (sessions != exp.sessions) return mismatch(agent + " sessions", exp.sessions, sessions);
    for (const auto& want : exp.transcripts) {
      const fs::path file = dir / (want.name + ".jsonl");
      auto contents = store::read_transcript(file);
      if (!contents) return Error{"IMPORT_MISMATCH", contents.error().message + "; nothing was imported"};
      if (contents->warnings.size() != want.warnings) {
        const auto& w = contents->warnings.empty() ? store::TranscriptWarning{} : contents->warnings[0];
        return Error{"IMPORT_MISMATCH", file.string() + ":" + std::to_string(w.line) + ": " +
                                            (contents->warnings.empty() ? "fewer unreadable lines than the source"
                                                                        : w.message) +
                                            "; nothing was imported"};
      }
      std::uint64_t messages = 0;
      for (const auto& e : contents->entries) messages += e.type == "message" ? 1 : 0;
      const std::uint64_t events = contents->entries.size() + (contents->header.is_null() ? 0 : 1);
      if (events != want.events) return mismatch(agent + " transcript " + want.name + " events", want.events, events);
      if (messages != want.messages) {
        return mismatch(agent + " transcript " + want.name + " messages", want.messages, messages);
      }
    }
    if (exp.auth_profiles) {
      const fs::path file = staging / "agents" / exp.agent_id / "agent" / "auth-profiles.json";
      auto text = store::read_file(file);
      if (!text) return Error{"IMPORT_MISMATCH", text.error().message + "; nothing was imported"};
      json doc = json::parse(*text, nullptr, false);
      std::uint64_t n = 0;
      if (!doc.is_discarded()) {
        if (auto profiles = llm::auth::AuthProfiles::from_json(doc)) n = profiles->credentials().size();
      }
      if (n != *exp.auth_profiles) return mismatch(agent + " auth profiles", *exp.auth_profiles, n);
    }
  }
  if (plan.cron_jobs && *plan.cron_jobs > 0) {
    automation::CronStore store(staging / "cron", "");
    if (auto st = store.load(); !st) return Error{"IMPORT_MISMATCH", st.error().message + "; nothing was imported"};
    if (store.jobs().size() != *plan.cron_jobs) return mismatch("cron jobs", *plan.cron_jobs, store.jobs().size());
  }
  return Ok{};
}

Status verify_in_temp(const Plan& plan) {
  if (plan.files.empty()) return Ok{};
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "pincer-openclaw-dry-run-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Error{"IO_ERROR", "cannot create a temporary directory in " + fs::temp_directory_path(ec).string() + ": " +
                                 std::strerror(errno)};
  }
  Status st = stage(plan, tmpl);
  if (st) st = verify(plan, tmpl);
  fs::remove_all(tmpl, ec);
  return st;
}

}  // namespace pincer::cli::openclaw::sqlite_state

namespace pincer::cli::openclaw {

std::size_t drop_managed_cron_jobs(nlohmann::json& jobs, const std::string& where, ImportReport& report) {
  if (!jobs.is_array()) return 0;
  nlohmann::json mine = nlohmann::json::array();
  std::size_t dropped = 0;
  for (auto& job : jobs) {
    if (job.is_object() && job.contains("declarationKey")) {
      report.skipped.push_back({where + " job_id=" + job.value("id", std::string()),
                                "\"" + job.value("name", std::string()) + "\" is managed by OpenClaw (declarationKey " +
                                    job["declarationKey"].dump() + "), not a user's job"});
      ++dropped;
    } else {
      mine.push_back(std::move(job));
    }
  }
  jobs = std::move(mine);
  return dropped;
}

}  // namespace pincer::cli::openclaw
