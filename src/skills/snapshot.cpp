#include "skills/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <spdlog/spdlog.h>

#include "core/file_watch.h"
#include "skills/skill_usage.h"

namespace pincer::skills {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxListed = 200;
constexpr std::size_t kMaxDescription = 400;
constexpr std::size_t kMaxCachedSessions = 1024;

struct State {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const Snapshot>> by_session;
  std::set<fs::path> roots;
  std::set<std::string> logged_problems;  ///< skills not loaded, each said once in the log
};

State& state() {
  static State s;
  return s;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': case '\r': case '\t': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string cut(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t n = max - 3;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

std::vector<SnapshotSkill> statuses_for(const fs::path& state_dir) {
  std::vector<SnapshotSkill> out;
  if (state_dir.empty()) return out;
  auto usage = read_usage(state_dir);
  if (!usage) return out;
  for (const auto& u : *usage) {
    if (!u.status.empty()) out.push_back({u.name, u.file, u.status, {}, {}});
  }
  return out;
}

}  // namespace

std::string format_skills_prompt(const std::vector<SkillEntry>& skills, const std::vector<SnapshotSkill>& statuses) {
  std::string items;
  std::size_t listed = 0;
  for (const auto& e : skills) {
    if (!e.eligible || !e.manifest.model_invocable) continue;
    if (++listed > kMaxListed) break;
    items += "  <skill>\n    <name>" + xml_escape(e.manifest.name) + "</name>\n    <description>" +
             xml_escape(cut(e.manifest.description, kMaxDescription)) + "</description>\n    <location>" +
             xml_escape(e.file.string()) + "</location>\n";
    auto st = std::find_if(statuses.begin(), statuses.end(), [&](const SnapshotSkill& s) { return s.file == e.file; });
    if (st != statuses.end() && st->status == "candidate") {
      items += "    <status>candidate: written by an agent and not yet proven; check each step before relying on it</status>\n";
    }
    items += "  </skill>\n";
  }
  if (items.empty()) return {};
  return "## Skills\n"
         "Skills are instructions for particular kinds of tasks, in SKILL.md files; only their names and "
         "descriptions are listed here. When a task fits a skill, first `read` its SKILL.md (the location "
         "exactly as given) and follow it; read no skill the task does not need. Paths inside a skill are "
         "relative to its folder.\n"
         "<available_skills>\n" +
         items + "</available_skills>";
}

namespace {
// The fingerprint, and (when `watched` is given) every path it depends on: each location, each
// entry of a location (a skill's directory: its SKILL.md is an entry of it), the usage file.
std::string fingerprint(const LoadOptions& o, std::vector<fs::path>* watched) {
  std::string fp;
  for (const auto& loc : skill_locations(o)) {
    fp += std::string(to_string(loc.source)) + ":" + loc.dir.string() + "\n";
    if (watched) watched->push_back(loc.dir);
    std::error_code ec;
    std::vector<std::string> lines;
    for (fs::directory_iterator it(loc.dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (watched) watched->push_back(it->path());
      const auto file = it->path() / "SKILL.md";
      struct stat st {};
      if (::stat(file.c_str(), &st) != 0) continue;
      lines.push_back(file.string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                      std::to_string(st.st_mtim.tv_nsec));
    }
    std::sort(lines.begin(), lines.end());
    for (const auto& l : lines) fp += l + "\n";
  }
  const nlohmann::json& config = o.config_doc();
  if (auto s = config.find("skills"); s != config.end()) fp += "config:" + s->dump() + "\n";
  if (auto f = agent_skill_filter(config, o.agent_id)) fp += "agent:" + nlohmann::json(*f).dump() + "\n";
  if (!o.state_dir.empty()) {
    if (watched) watched->push_back(usage_file(o.state_dir));
    struct stat st {};
    if (::stat(usage_file(o.state_dir).c_str(), &st) == 0) {
      for (const auto& s : statuses_for(o.state_dir)) fp += "status:" + s.file.string() + "=" + s.status + "\n";
    }
  }
  return fp;
}

// The fingerprint as of the last turn while nothing it read changed (core/file_watch.h): one
// read(2) per turn instead of a listing and a stat per skill (issue 17's turn overhead).
std::string watched_fingerprint(const LoadOptions& o) {
  struct Memo {
    std::shared_ptr<const nlohmann::json> config;  // held: its address cannot be reused while here
    std::vector<fs::path> watched;
    uint64_t stamp = 0;
    std::string fp;
  };
  static std::mutex mutex;
  static std::map<std::string, Memo> memo;  // by workspace, state dir and agent
  const std::string key = o.workspace.string() + '\n' + o.state_dir.string() + '\n' + o.agent_id;
  {
    std::lock_guard lock(mutex);
    if (auto it = memo.find(key); it != memo.end() && it->second.config == o.config) {
      const uint64_t now = FileWatch::instance().stamp(it->second.watched);
      if (now != 0 && now == it->second.stamp) return it->second.fp;
    }
  }
  // Watch first, then read: a change after the stamp shows in the next one. A listing that changed
  // between the two passes is not kept (a new skill directory would be missing from `watched`).
  std::vector<fs::path> watched, again;
  std::string first = fingerprint(o, &watched);
  const uint64_t stamp = FileWatch::instance().stamp(watched);
  if (stamp == 0) return first;  // a symlinked skill or root: not cached, read every turn as before
  std::string fp = fingerprint(o, &again);
  if (again == watched) {
    std::lock_guard lock(mutex);
    if (memo.size() >= 64) memo.clear();
    memo[key] = Memo{o.config, std::move(watched), stamp, fp};
  }
  return fp;
}
}  // namespace

std::string skills_fingerprint(const LoadOptions& o) { return fingerprint(o, nullptr); }

std::shared_ptr<const Snapshot> session_snapshot(const SnapshotRequest& request) {
  const std::string fp = watched_fingerprint(request.load);
  {
    std::lock_guard lock(state().mutex);
    auto it = state().by_session.find(request.session_key);
    if (it != state().by_session.end() && it->second->fingerprint == fp) return it->second;
  }
  auto report = load_skills(request.load);
  auto snap = std::make_shared<Snapshot>();
  snap->fingerprint = watched_fingerprint(request.load);  // after materialising the bundled skills
  const auto statuses = statuses_for(request.load.state_dir);
  snap->prompt = format_skills_prompt(report.skills, statuses);
  for (const auto& e : report.skills) {
    if (!e.eligible || !e.manifest.model_invocable) continue;
    auto st = std::find_if(statuses.begin(), statuses.end(), [&](const SnapshotSkill& s) { return s.file == e.file; });
    snap->skills.push_back({e.manifest.name, e.file, st == statuses.end() ? std::string() : st->status,
                            e.manifest.skill_key.empty() ? e.manifest.name : e.manifest.skill_key, e.manifest.primary_env});
  }
  add_readable_skill_roots(report.locations);
  std::lock_guard lock(state().mutex);
  // A skill that is not loaded is said in the gateway's log (once per file and reason), not only
  // by `pincer skills check` and doctor.
  for (const auto& p : report.problems) {
    if (state().logged_problems.size() < 4096 && state().logged_problems.insert(p.describe()).second) {
      spdlog::warn("skills: not loaded: {}", p.describe());
    }
  }
  if (state().by_session.size() >= kMaxCachedSessions) state().by_session.clear();
  state().by_session[request.session_key] = snap;
  return snap;
}

void clear_snapshots() {
  std::lock_guard lock(state().mutex);
  state().by_session.clear();
}

std::vector<fs::path> readable_skill_roots() {
  std::lock_guard lock(state().mutex);
  return {state().roots.begin(), state().roots.end()};
}

void add_readable_skill_roots(const std::vector<SkillLocation>& locations) {
  std::lock_guard lock(state().mutex);
  for (const auto& loc : locations) {
    if (loc.source != SkillSource::Workspace) state().roots.insert(loc.dir);
  }
}

}  // namespace pincer::skills
