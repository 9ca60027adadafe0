// run_import() of cli/openclaw_import.h: check the source, map the config, plan every copy (the
// dry run stops there), then stage into <target>/.openclaw-import-<random>/ and rename the items
// into place, undoing the renames already made when one fails.
#include "cli/openclaw_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "automation/cron_store.h"
#include "cli/openclaw_import_sqlite.h"
#include "cli/openclaw_import_staging.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json5.h"
#include "store/atomic_file.h"
#include "store/instance_lock.h"
#include "llm/auth/auth_profiles.h"
#include "store/session_index.h"
#include "store/session_keys.h"
#include "store/transcript.h"

namespace pincer::cli::openclaw {

bool is_below(const std::filesystem::path& p, const std::filesystem::path& dir) {
  std::filesystem::path rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace staging;


// Reads the source and fills the plan and the report. Never writes.
class Planner {
 public:
  Planner(ImportReport& report, Plan& plan, const sqlite_state::Plan& sqlite)
      : report_(report), plan_(plan), src_(report.source), target_(report.target), sqlite_(sqlite) {
    auto& counts = report_.counts;
    for (const char* k : {"sessions", "transcripts", "messages", "cron jobs", "auth profiles"}) counts.try_emplace(k, 0);
  }

  /// What the JSON-layout files must hold once staged (only `expected` and `cron_jobs` are used):
  /// the read-back check of the SQLite part serves them too (N read = N written).
  sqlite_state::Plan checks;

  // Adds the agents' workspaces (copies only; used-in-place ones need nothing).
  Status workspaces(const std::vector<WorkspacePlan>& plans) {
    for (const auto& wp : plans) {
      handled_.insert(wp.source);
      if (!wp.copy) {
        std::error_code ec;
        if (wp.dest.empty() && !fs::is_directory(wp.source, ec)) {
          report_.warnings.push_back("the workspace of agent \"" + wp.agent_id + "\" (" + wp.source.string() +
                                     ") does not exist; Pincer creates it on first use");
        }
        continue;
      }
      std::error_code ec;
      auto st = fs::status(wp.source, ec);
      if (st.type() == fs::file_type::not_found) {
        report_.skipped.push_back({shown(wp.source), "the workspace of agent \"" + wp.agent_id +
                                                         "\" does not exist; Pincer creates a fresh one"});
        continue;
      }
      if (ec) return io_error("cannot read", wp.source, ec);
      if (!fs::is_directory(st)) {
        report_.skipped.push_back({shown(wp.source), "the workspace of agent \"" + wp.agent_id + "\" is not a directory"});
        continue;
      }
      CopiedItem item{"workspace", wp.agent_id, wp.source, target_ / wp.dest, 0, 0, 0, ""};
      if (auto s = add_tree(wp.source, wp.dest, item); !s) return s;
      plan_.installs.push_back(wp.dest);
      report_.copied.push_back(std::move(item));
    }
    return Ok{};
  }

  // agents/<id>/sessions: sessions.json and the primary transcripts of every agent on disk.
  Status sessions(const std::set<std::string>& configured) {
    const fs::path agents = src_ / "agents";
    std::error_code ec;
    if (!fs::is_directory(agents, ec)) return Ok{};
    auto dirs = list_dir(agents);
    if (!dirs) return dirs.error();
    for (const auto& d : *dirs) {
      const std::string name = d.filename().string();
      if (!fs::is_directory(d, ec)) continue;
      if (store::normalize_agent_id(name) != name) {
        report_.skipped.push_back({shown(d), "not an agent directory (not a valid agent id)"});
        continue;
      }
      if (sqlite_.agents.contains(name)) continue;  // its openclaw-agent.sqlite covers it
      if (auto s = agent_dir(d, name, configured); !s) return s;
    }
    return Ok{};
  }

  // devices/paired.json (pending.json is reported, not copied).
  Status devices() {
    const fs::path dir = src_ / "devices";
    std::error_code ec;
    if (fs::exists(dir / "pending.json", ec)) {
      report_.skipped.push_back({"devices/pending.json", "pending pairing requests are not imported (they expire "
                                                         "after 5 minutes); pair those devices again"});
    }
    auto doc = read_json(dir / "paired.json");
    if (!doc) return doc.error();
    if (!doc->has_value()) return Ok{};
    if (!(*doc)->is_object()) {
      return skip_invalid("devices/paired.json", "expected a JSON object of paired devices");
    }
    CopiedItem item{"devices", "", dir / "paired.json", target_ / "devices" / "paired.json", 0, 0, (*doc)->size(), ""};
    add_file(dir / "paired.json", "devices/paired.json", item);
    plan_.installs.emplace_back("devices/paired.json");
    report_.copied.push_back(std::move(item));
    return Ok{};
  }

  // cron/jobs.json, copied: the gateway schedules its jobs at its next start.
  Status cron() {
    const fs::path dir = src_ / "cron";
    std::error_code ec;
    if (fs::is_directory(dir / "runs", ec)) report_.skipped.push_back({"cron/runs", "cron run logs are not imported"});
    if (sqlite_.cron) return Ok{};  // state/openclaw.sqlite's cron_jobs table covers it
    auto doc = read_json(dir / "jobs.json");
    if (!doc) return doc.error();
    if (!doc->has_value()) return Ok{};
    if (!(*doc)->is_object()) return skip_invalid("cron/jobs.json", "expected a JSON object {version, jobs}");
    automation::CronStore readable(dir, "");  // the gateway's own reader must accept the file
    if (auto st = readable.load(); !st) return skip_invalid("cron/jobs.json", st.error().message);
    json& jobs = (**doc)["jobs"];
    const std::size_t managed = drop_managed_cron_jobs(jobs, "cron/jobs.json", report_);
    checks.cron_jobs = jobs.is_array() ? jobs.size() : 0;
    report_.counts["cron jobs"] += *checks.cron_jobs;
    CopiedItem item{"cron", "", dir / "jobs.json", target_ / "cron" / "jobs.json", 0, 0,
                    jobs.is_array() ? jobs.size() : 0, "the gateway schedules them at its next start"};
    if (managed == 0) {
      add_file(dir / "jobs.json", "cron/jobs.json", item);
    } else {  // the user's jobs only, as the file's other keys
      std::string text = (*doc)->dump(2) + "\n";
      item.files += 1;
      item.bytes += text.size();
      plan_.generated.emplace_back("cron/jobs.json", std::move(text));
    }
    plan_.installs.emplace_back("cron/jobs.json");
    report_.copied.push_back(std::move(item));
    return Ok{};
  }

  // Reports the source's other top-level directories (and .env), which are not imported.
  Status others() {
    auto entries = list_dir(src_);
    if (!entries) return entries.error();
    static const std::set<std::string> handled = {"agents", "devices", "cron"};
    for (const auto& p : *entries) {
      const std::string name = p.filename().string();
      std::error_code ec;
      if (name == ".env") {
        report_.skipped.push_back({".env", "Pincer does not read .env files; export these variables in the "
                                           "gateway's environment"});
        continue;
      }
      const bool workspace = std::any_of(handled_.begin(), handled_.end(),
                                         [&](const fs::path& w) { return w == p || is_below(w, p); });
      if (handled.contains(name) || workspace || !fs::is_directory(fs::symlink_status(p, ec))) continue;
      if (name.starts_with(kStagingPrefix)) continue;
      report_.skipped.push_back({name + "/", reason_for_dir(name)});
    }
    return Ok{};
  }

 private:
  static std::string reason_for_dir(const std::string& name) {
    if (name.starts_with("workspace")) return "no agent in openclaw.json uses this workspace";
    if (name == "credentials") return "channel logins and OAuth credentials are not imported";
    if (name == "identity") return "OpenClaw's own device identity stays with OpenClaw";
    if (name == "logs") return "logs are not imported";
    if (name == "memory") return "memory search indexes are not imported";
    if (name == "sessions") return "a legacy session layout: Pincer reads agents/<id>/sessions only";
    if (name == "state") return "only the cron jobs of state/openclaw.sqlite are imported";
    return "no Pincer equivalent yet";
  }

  // `p` relative to the source dir when it is inside it.
  std::string shown(const fs::path& p) const {
    return is_below(p, src_) ? p.lexically_relative(src_).generic_string() : p.string();
  }

  Result<std::vector<fs::path>> list_dir(const fs::path& dir) const {
    std::vector<fs::path> out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec) return io_error("cannot read directory", dir, ec);
    for (; it != end; it.increment(ec)) {
      if (ec) return io_error("cannot read directory", dir, ec);
      out.push_back(it->path());
    }
    if (ec) return io_error("cannot read directory", dir, ec);
    std::sort(out.begin(), out.end());
    return out;
  }

  // The JSON document in `file`; an empty optional when the file does not exist. A file that is
  // not JSON is reported as skipped (with file:line:col) and gives an empty optional too.
  Result<std::optional<json>> read_json(const fs::path& file) {
    auto text = store::read_file(file);
    if (!text && text.error().code == "NOT_FOUND") return std::optional<json>();
    if (!text) return Error{"IO_ERROR", text.error().message};
    auto parsed = json5::parse(*text, file.string());
    if (!parsed) {
      (void)skip_invalid(shown(file), parsed.error().message);
      return std::optional<json>();
    }
    return std::optional<json>(std::move(*parsed));
  }

  Status skip_invalid(const std::string& what, const std::string& why) {
    report_.skipped.push_back({what, "invalid, not imported: " + why});
    report_.warnings.push_back(what + " was not imported: " + why);
    return Ok{};
  }

  void add_file(const fs::path& source, const fs::path& dest, CopiedItem& item) {
    std::error_code ec;
    auto size = fs::file_size(source, ec);
    plan_.entries.push_back({Entry::Type::File, source, dest, {}});
    item.files += 1;
    item.bytes += ec ? 0 : size;
  }

  // The whole tree `src` (not following symlinks) to `dest`. Symlinks that stay inside the tree
  // are recreated; others, and special files, are reported and left out.
  Status add_tree(const fs::path& src, const fs::path& dest, CopiedItem& item) {
    plan_.entries.push_back({Entry::Type::Dir, src, dest, {}});
    std::error_code ec;
    fs::recursive_directory_iterator it(src, fs::directory_options::none, ec), end;
    if (ec) return io_error("cannot read directory", src, ec);
    for (; it != end; it.increment(ec)) {
      if (ec) return io_error("cannot read directory below", src, ec);
      const fs::path p = it->path();
      const fs::path rel = p.lexically_relative(src);
      auto st = it->symlink_status(ec);
      if (ec) return io_error("cannot stat", p, ec);
      if (fs::is_directory(st)) {
        plan_.entries.push_back({Entry::Type::Dir, p, dest / rel, {}});
      } else if (fs::is_regular_file(st)) {
        add_file(p, dest / rel, item);
      } else if (fs::is_symlink(st)) {
        fs::path target = fs::read_symlink(p, ec);
        if (ec) return io_error("cannot read link", p, ec);
        fs::path resolved = (p.parent_path() / target).lexically_normal();
        if (target.is_absolute() || !is_below(resolved, src)) {
          report_.skipped.push_back({shown(p), "symbolic link to " + target.string() + " points outside the workspace"});
        } else {
          plan_.entries.push_back({Entry::Type::Symlink, p, dest / rel, target});
        }
      } else {
        report_.skipped.push_back({shown(p), "not a regular file, directory or link"});
      }
    }
    if (ec) return io_error("cannot read directory below", src, ec);
    return Ok{};
  }

  // agents/<id>/agent/auth-profiles.json (PV-2: the same file shape, cooldowns included); the
  // agent's other files there (models.json …) are reported.
  Status auth_profiles(const fs::path& dir, const std::string& id) {
    auto entries = list_dir(dir);
    if (!entries) return entries.error();
    for (const auto& p : *entries) {
      if (p.filename() != "auth-profiles.json") report_.skipped.push_back({shown(p), "no Pincer equivalent yet"});
    }
    const fs::path file = dir / "auth-profiles.json";
    auto doc = read_json(file);
    if (!doc) return doc.error();
    if (!doc->has_value()) return Ok{};
    auto profiles = llm::auth::AuthProfiles::from_json(**doc);
    if (!profiles) return skip_invalid(shown(file), profiles.error().message);
    for (const auto& w : profiles->warnings()) report_.warnings.push_back(shown(file) + ": " + w + " (copied; Pincer skips it)");
    const fs::path dest = fs::path("agents") / id / "agent" / "auth-profiles.json";
    const std::uint64_t n = profiles->credentials().size();  // the ones Pincer can use
    expected_for(id).auth_profiles = n;
    report_.counts["auth profiles"] += n;
    CopiedItem item{"auth-profiles", id, file, target_ / dest, 0, 0, profiles->credentials().size(),
                    "credentials and their cooldowns; the file stays private (0600)"};
    add_file(file, dest, item);
    plan_.installs.push_back(dest);
    report_.copied.push_back(std::move(item));
    return Ok{};
  }

  Status agent_dir(const fs::path& dir, const std::string& id, const std::set<std::string>& configured) {
    auto entries = list_dir(dir);
    if (!entries) return entries.error();
    std::error_code ec;
    for (const auto& p : *entries) {
      const std::string name = p.filename().string();
      if (name == "sessions") continue;
      if (name == "agent" && fs::is_directory(fs::symlink_status(p, ec))) {
        if (auto st = auth_profiles(p, id); !st) return st;
        continue;
      }
      report_.skipped.push_back({shown(p), "no Pincer equivalent yet"});
    }
    const fs::path sessions = dir / "sessions";
    if (!fs::is_directory(sessions, ec)) return Ok{};
    const fs::path index_file = sessions / "sessions.json";
    const bool has_index = fs::exists(index_file, ec);
    CopiedItem item{"sessions", id, sessions, target_ / "agents" / id / "sessions", 0, 0, 0, ""};
    if (has_index) {
      store::SessionIndex index(index_file, SystemClock::instance());
      if (auto st = index.load(); !st) {
        return skip_invalid(shown(sessions), st.error().message);
      }
      item.count = index.size();
      expected_for(id).sessions = index.size();
      report_.counts["sessions"] += index.size();
    }
    const fs::path dest = fs::path("agents") / id / "sessions";
    plan_.entries.push_back({Entry::Type::Dir, sessions, dest, {}});
    if (has_index) add_file(index_file, dest / "sessions.json", item);
    auto files = list_dir(sessions);
    if (!files) return files.error();
    std::size_t archived = 0, other = 0, transcripts = 0;
    for (const auto& f : *files) {
      const std::string name = f.filename().string();
      if (name == "sessions.json") continue;
      const bool regular = fs::is_regular_file(fs::symlink_status(f, ec));
      if (regular && name.ends_with(".jsonl") && !store::parse_archive_name(name)) {
        add_file(f, dest / name, item);
        ++transcripts;
        if (auto s = count_transcript(f, id); !s) return s;
      } else if (store::parse_archive_name(name) || name.starts_with("sessions.json.bak")) {
        ++archived;
      } else {
        ++other;
      }
    }
    if (archived > 0) {
      report_.skipped.push_back({shown(sessions), std::to_string(archived) + " archived transcript(s) or index backup(s) "
                                                  "(*.reset.*, *.deleted.*, *.bak.*) are not imported"});
    }
    if (other > 0) {
      report_.skipped.push_back({shown(sessions), std::to_string(other) + " other file(s) (locks, temporary files, "
                                                  "directories) are not imported"});
    }
    if (!has_index && transcripts > 0) item.note = "no sessions.json: the transcripts are copied, but no session lists them";
    if (!configured.contains(id)) {
      report_.warnings.push_back("the sessions of agent \"" + id + "\" are copied, but pincer.json has no agent \"" + id +
                                 "\"; Pincer lists them once the agent is configured");
    }
    plan_.installs.push_back(dest);
    report_.copied.push_back(std::move(item));
    return Ok{};
  }

  sqlite_state::Plan::Expected& expected_for(const std::string& agent_id) {
    for (auto& e : checks.expected) {
      if (e.agent_id == agent_id) return e;
    }
    checks.expected.push_back({});
    checks.expected.back().agent_id = agent_id;
    return checks.expected.back();
  }

  // Reads a transcript that is copied as it is: its events and messages are counted for the
  // report and checked again in the staged copy; lines Pincer's reader skips are named.
  Status count_transcript(const fs::path& file, const std::string& agent_id) {
    auto contents = store::read_transcript(file);
    if (!contents) return Error{"IO_ERROR", contents.error().message};
    sqlite_state::Plan::TranscriptCount count{file.stem().string(), contents->entries.size(), 0,
                                              contents->warnings.size()};
    if (!contents->header.is_null()) ++count.events;
    for (const auto& e : contents->entries) count.messages += e.type == "message" ? 1 : 0;
    for (const auto& w : contents->warnings) {
      report_.warnings.push_back(shown(file) + ":" + std::to_string(w.line) + ": " + w.message +
                                 " (copied as it is; Pincer skips that line)");
    }
    report_.counts["transcripts"] += 1;
    report_.counts["messages"] += count.messages;
    expected_for(agent_id).transcripts.push_back(std::move(count));
    return Ok{};
  }

  ImportReport& report_;
  Plan& plan_;
  fs::path src_, target_;
  std::set<fs::path> handled_;  // top-level source paths already covered (workspaces)
  const sqlite_state::Plan& sqlite_;
};

// ---- pincer.json --------------------------------------------------------------------------------

std::string config_text(const json& cfg, const fs::path& source, std::int64_t now_ms) {
  nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
  for (const char* k : {"gateway", "models", "agents", "tools", "logging"}) {
    if (cfg.contains(k)) ordered[k] = cfg[k];
  }
  for (const auto& [k, v] : cfg.items()) {
    if (!ordered.contains(k)) ordered[k] = v;
  }
  std::string from = source.string();
  std::replace(from.begin(), from.end(), '\n', '?');
  return "// Imported from OpenClaw (" + from + ") by `pincer import openclaw` on " + store::iso_timestamp(now_ms) +
         ".\n// What was not imported is in the import's report; `pincer import openclaw --dry-run --force`\n"
         "// prints it again.\n" +
         ordered.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status check_source(const fs::path& src, const fs::path& target) {
  std::error_code ec;
  auto st = fs::status(src, ec);
  if (st.type() == fs::file_type::not_found) {
    return Error{"SOURCE_INVALID", src.string() + ": no such directory (name the OpenClaw state dir with --from)"};
  }
  if (ec) return Error{"SOURCE_INVALID", src.string() + ": " + ec.message()};
  if (!fs::is_directory(st)) return Error{"SOURCE_INVALID", src.string() + ": not a directory"};
  if (!fs::exists(src / "openclaw.json", ec) && !fs::is_directory(src / "agents", ec) &&
      !fs::is_directory(src / "workspace", ec)) {
    return Error{"SOURCE_INVALID", src.string() + ": not an OpenClaw state dir (no openclaw.json, agents/ or workspace/)"};
  }
  const fs::path a = fs::weakly_canonical(src, ec), b = fs::weakly_canonical(target, ec);
  if (a == b || is_below(a, b) || is_below(b, a)) {
    return Error{"SOURCE_INVALID", "the Pincer state dir " + target.string() + " and the OpenClaw state dir " +
                                       src.string() + " overlap; point PINCER_HOME somewhere else"};
  }
  return Ok{};
}

}  // namespace

ImportOutcome run_import(const ImportOptions& options) {
  ImportOutcome out;
  ImportReport& r = out.report;
  auto fail = [&](int code, Error error) {
    out.exit_code = code;
    out.error = std::move(error);
    return out;
  };
  const auto env = [&](const std::string& name) -> std::string {
    if (!options.env) return "";
    return options.env(name).value_or("");
  };
  std::error_code ec;
  // Absolute, normal, and without a trailing "/" (so that path comparisons work).
  auto clean = [&](const fs::path& p) {
    fs::path n = fs::absolute(p, ec).lexically_normal();
    return !n.has_filename() && n.has_relative_path() ? n.parent_path() : n;
  };
  r.source = clean(options.source);
  r.target = clean(options.target);
  r.config_source = r.source / "openclaw.json";
  r.config_target = r.target / "pincer.json";
  r.dry_run = options.dry_run;
  r.force = options.force;

  if (auto st = check_source(r.source, r.target); !st) return fail(kExitBadSource, st.error());

  // The config: resolved without Pincer's schema, env references kept as written.
  json doc = json::object();
  r.config_source_exists = fs::exists(r.config_source, ec);
  if (r.config_source_exists) {
    auto resolved = config::resolve_file(r.config_source, options.env, config::EnvRefs::kKeep);
    if (!resolved) return fail(kExitBadSource, resolved.error());
    if (!resolved->is_object()) {
      return fail(kExitBadSource, Error{"CONFIG_INVALID", r.config_source.string() + ": expected an object at the top level"});
    }
    doc = std::move(*resolved);
  } else {
    r.warnings.push_back("no openclaw.json in " + r.source.string() + ": only state files are imported, and no pincer.json is written");
  }
  ConfigMapping mapping = map_config(doc, MapContext{r.source, env("HOME")});
  r.mapped = mapping.mapped;
  r.config_skipped = mapping.skipped;
  r.warnings.insert(r.warnings.end(), mapping.warnings.begin(), mapping.warnings.end());
  const bool openclaw_env = doc.contains("env") || fs::exists(r.source / ".env", ec);
  for (const auto& ref : config::env_references(mapping.config)) {
    if (!env(ref.name).empty()) continue;
    r.warnings.push_back(ref.path + " uses ${" + ref.name + "}, which is not set in this shell: set it where the " +
                         "gateway runs, or the gateway will not start" +
                         (openclaw_env ? " (OpenClaw may have read it from its .env or the env block of openclaw.json)" : ""));
  }

  Plan plan;
  if (r.config_source_exists) {
    plan.config_text = config_text(mapping.config, r.config_source, options.now_ms);
    auto reparsed = json5::parse(plan.config_text);
    if (!reparsed || !config::validate(*reparsed)) {
      return fail(kExitFailed, Error{"IO_ERROR", "internal error: the mapped pincer.json does not validate; nothing was written"});
    }
  }
  std::set<std::string> configured;
  for (const auto& w : mapping.workspaces) configured.insert(w.agent_id);
  auto sqlite = sqlite_state::plan(r, configured);  // OpenClaw 2026.9's SQLite state
  if (!sqlite) return fail(kExitBadSource, sqlite.error());
  plan.installs = sqlite->installs;
  Planner planner(r, plan, *sqlite);
  if (auto st = planner.workspaces(mapping.workspaces); !st) return fail(kExitFailed, st.error());
  if (auto st = planner.sessions(configured); !st) return fail(kExitFailed, st.error());
  if (auto st = planner.devices(); !st) return fail(kExitFailed, st.error());
  if (auto st = planner.cron(); !st) return fail(kExitFailed, st.error());
  if (auto st = planner.others(); !st) return fail(kExitFailed, st.error());
  if (!plan.config_text.empty()) plan.installs.emplace_back("pincer.json");  // last: the gateway's entry point
  sqlite_state::count_memory_files(r);

  for (const auto& rel : plan.installs) {
    const fs::path dst = r.target / rel;
    if (fs::exists(fs::symlink_status(dst, ec)) && !is_empty_dir(dst)) r.conflicts.push_back(dst);
  }
  if (!r.conflicts.empty() && !options.force) {
    std::string list;
    for (const auto& c : r.conflicts) list += (list.empty() ? "" : ", ") + c.string();
    return fail(kExitFailed, Error{"TARGET_EXISTS", "already in the Pincer state dir: " + list +
                                                        "; nothing was imported (--force moves them aside to "
                                                        "*.pre-import-<time> and imports)"});
  }
  if (options.dry_run) {  // the SQLite part is still staged (in a temporary dir) and read back
    if (auto st = sqlite_state::verify_in_temp(*sqlite); !st) return fail(kExitFailed, st.error());
    return out;
  }

  if (auto st = make_dirs(r.target); !st) return fail(kExitFailed, st.error());
  auto lock = store::InstanceLock::acquire(r.target / "gateway.lock");
  if (!lock) return fail(kExitFailed, lock.error());
  // Imports take the lock above, so a staging dir found now is what a killed import left behind.
  for (fs::directory_iterator it(r.target, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->path().filename().string().starts_with(kStagingPrefix)) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    r.warnings.push_back("removed " + it->path().string() + ", left behind by an interrupted import");
  }
  const fs::path staging = r.target / (kStagingPrefix + ids::random_token(6));
  if (::mkdir(staging.c_str(), 0700) != 0) return fail(kExitFailed, io_error("cannot create directory", staging, errno));
  Status done = stage(plan, staging);
  if (done) done = sqlite_state::stage(*sqlite, staging);
  if (done) done = sqlite_state::verify(*sqlite, staging);  // N read = N written, or nothing is installed
  if (done) done = sqlite_state::verify(planner.checks, staging);  // the same for the copied JSON-layout files
  if (done) done = commit(plan, staging, options, r);
  fs::remove_all(staging, ec);
  if (!done) return fail(kExitFailed, done.error());
  r.written = true;
  return out;
}

}  // namespace pincer::cli::openclaw
