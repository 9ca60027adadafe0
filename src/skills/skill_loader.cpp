#include "skills/skill_loader.h"

#include <sys/utsname.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/utf8.h"
#include "skills/bundled_skills.h"
#include "store/atomic_file.h"

namespace pincer::skills {

const nlohmann::json& LoadOptions::config_doc() const {
  static const nlohmann::json empty = nlohmann::json::object();
  return config ? *config : empty;
}
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxSkillFileBytes = 256 * 1024;
constexpr std::size_t kMaxSkillsPerLocation = 500;

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

bool truthy(const json* v) {
  if (v == nullptr || v->is_null()) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number()) return v->get<double>() != 0;
  if (v->is_string()) return v->get<std::string>().find_first_not_of(" \t\r\n") != std::string::npos;
  return true;
}

const json* config_path(const json& config, const std::string& dotted) {
  const json* cur = &config;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    auto dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!part.empty()) {
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(part);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

bool on_path(const std::string& bin, const std::string& path_env) {
  if (bin.empty() || bin.find('/') != std::string::npos) return false;
  std::size_t start = 0;
  while (start <= path_env.size()) {
    auto colon = path_env.find(':', start);
    const std::string dir = path_env.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + bin;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
        return true;
      }
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

fs::path expand_home(const std::string& p, const config::EnvLookup& env) {
  if ((p == "~" || p.rfind("~/", 0) == 0) && env) {
    if (auto home = env("HOME"); home && !home->empty()) return fs::path(*home) / p.substr(p.size() > 1 ? 2 : 1);
  }
  return fs::path(p);
}

/// Why a SKILL.md's `name` keeps it from loading, or "". OpenClaw loads any non-empty name (its
/// local loader checks no name rule): "My Skill" and "dash--x" load (the command word is sanitized
/// separately, skill_commands.h). Refused only what cannot be a name here: a control character
/// (the name is written into the prompt's skill list) and a path ('/', '\\', "." or ".."): the name
/// also names the skill's folder to skill_manage and in messages ("skills/<name>/SKILL.md").
std::string loadable_name_problem(const std::string& name) {
  for (const unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      return std::string("the skill name contains a control character (") + code + ")";
    }
  }
  if (name.find_first_of("/\\") != std::string::npos || name == "." || name == "..") {
    return "skill name \"" + utf8::replace_invalid(name) + "\" is a path: a name has no '/' or '\\' (it names the skill's folder)";
  }
  return {};
}

void load_location(const SkillLocation& loc, std::vector<SkillEntry>& out, std::vector<LoadProblem>& problems) {
  std::error_code ec;
  if (!fs::is_directory(loc.dir, ec)) return;
  std::vector<fs::path> dirs;
  for (fs::directory_iterator it(loc.dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    if (!it->is_directory(e2)) continue;
    if (!fs::exists(it->path() / "SKILL.md", e2)) continue;
    dirs.push_back(it->path());
    if (dirs.size() >= kMaxSkillsPerLocation) break;
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    const fs::path file = dir / "SKILL.md";
    auto text = store::read_file(file, kMaxSkillFileBytes);
    if (!text) {
      problems.push_back({file, 0, text.error().code == "TOO_LARGE" ? "larger than 256 KiB" : text.error().message, loc.source});
      continue;
    }
    auto parsed = parse_skill_md(*text);
    if (!parsed.manifest) {
      problems.push_back({file, parsed.problem->line, parsed.problem->message, loc.source});
      continue;
    }
    // Loaded as OpenClaw loads it ("My Skill" too), unless the name is a path or holds a control
    // character: that skill is reported (skills list/check, doctor, the gateway's log), not loaded.
    if (auto bad = loadable_name_problem(parsed.manifest->name); !bad.empty()) {
      problems.push_back({file, 1, bad, loc.source});
      continue;
    }
    SkillEntry e;
    e.manifest = std::move(*parsed.manifest);
    e.dir = dir;
    e.file = file;
    e.source = loc.source;
    out.push_back(std::move(e));
  }
}

}  // namespace

const char* to_string(SkillSource source) {
  switch (source) {
    case SkillSource::Workspace: return "workspace";
    case SkillSource::User: return "user";
    case SkillSource::Bundled: return "bundled";
    case SkillSource::Extra: return "extra";
  }
  return "workspace";
}

const char* openclaw_source(SkillSource source) {
  switch (source) {
    case SkillSource::Workspace: return "openclaw-workspace";
    case SkillSource::User: return "openclaw-managed";
    case SkillSource::Bundled: return "openclaw-bundled";
    case SkillSource::Extra: return "openclaw-extra";
  }
  return "openclaw-workspace";
}

std::string LoadProblem::describe() const {
  return file.string() + ":" + std::to_string(line) + ": " + message;
}

std::string this_platform() {
  struct utsname u {};
  if (::uname(&u) != 0) return "linux";
  std::string sys = u.sysname;
  if (sys == "Darwin") return "darwin";
  if (sys == "FreeBSD") return "freebsd";
  return "linux";
}

json skill_entry_config(const json& config, const std::string& key) {
  const json* e = config_path(config, "skills.entries");
  if (e == nullptr || !e->is_object()) return json::object();
  auto it = e->find(key);
  return it != e->end() && it->is_object() ? *it : json::object();
}

std::optional<std::vector<std::string>> agent_skill_filter(const json& config, const std::string& agent_id) {
  const json* list = config_path(config, "agents.list");
  if (agent_id.empty() || list == nullptr || !list->is_array()) return std::nullopt;
  for (const auto& a : *list) {
    if (!a.is_object() || a.value("id", std::string()) != agent_id) continue;
    auto s = a.find("skills");
    if (s == a.end() || !s->is_array()) return std::nullopt;
    std::vector<std::string> names;
    for (const auto& n : *s) {
      if (n.is_string()) names.push_back(n.get<std::string>());
    }
    return names;
  }
  return std::nullopt;
}

Missing check_requirements(const SkillManifest& m, const std::string& platform, const config::EnvLookup& env,
                           const json& entry, const json& config) {
  Missing missing;
  const auto& req = m.requirements;
  if (!req.os.empty() && std::find(req.os.begin(), req.os.end(), platform) == req.os.end()) missing.os = req.os;
  if (req.always) return missing;
  const std::string path_env = env ? env("PATH").value_or("") : std::string();
  for (const auto& bin : req.bins) {
    if (!on_path(bin, path_env)) missing.bins.push_back(bin);
  }
  if (!req.any_bins.empty() &&
      std::none_of(req.any_bins.begin(), req.any_bins.end(), [&](const std::string& b) { return on_path(b, path_env); })) {
    missing.any_bins = req.any_bins;
  }
  for (const auto& name : req.env) {
    bool ok = false;
    if (env) {
      auto v = env(name);
      ok = v && !v->empty();
    }
    if (!ok) {
      auto e = entry.find("env");
      ok = e != entry.end() && e->is_object() && truthy(e->contains(name) ? &(*e)[name] : nullptr);
    }
    if (!ok && !m.primary_env.empty() && m.primary_env == name) {
      auto k = entry.find("apiKey");
      ok = k != entry.end() && truthy(&*k);
    }
    if (!ok) missing.env.push_back(name);
  }
  for (const auto& path : req.config) {
    if (!truthy(config_path(config, path))) missing.config.push_back(path);
  }
  return missing;
}

std::vector<SkillLocation> skill_locations(const LoadOptions& o) {
  std::vector<SkillLocation> locs;
  if (!o.workspace.empty()) locs.push_back({SkillSource::Workspace, o.workspace / "skills"});
  if (!o.state_dir.empty()) {
    locs.push_back({SkillSource::User, o.state_dir / "skills"});
    locs.push_back({SkillSource::Bundled, bundled_skills_dir(o.state_dir)});
  }
  if (const json* extra = config_path(o.config_doc(), "skills.load.extraDirs"); extra != nullptr && extra->is_array()) {
    for (const auto& d : *extra) {
      if (!d.is_string() || d.get<std::string>().empty()) continue;
      fs::path p = expand_home(d.get<std::string>(), o.env);
      if (p.is_relative() && !o.workspace.empty()) p = o.workspace / p;
      locs.push_back({SkillSource::Extra, p});
    }
  }
  return locs;
}

SkillsReport load_skills(const LoadOptions& o) {
  SkillsReport report;
  if (o.materialize_bundled && !o.state_dir.empty()) {
    if (auto st = materialize_bundled_skills(o.state_dir); !st) {
      report.problems.push_back({bundled_skills_dir(o.state_dir), 0, st.error().message, SkillSource::Bundled});
    }
  }
  report.locations = skill_locations(o);
  std::vector<SkillEntry> all;  // in precedence order
  for (const auto& loc : report.locations) load_location(loc, all, report.problems);

  std::vector<SkillEntry> winners;
  std::map<std::string, std::size_t> by_name;
  for (auto& e : all) {
    auto it = by_name.find(e.manifest.name);
    if (it != by_name.end()) {
      winners[it->second].shadowed.push_back(e.file);
      continue;
    }
    by_name.emplace(e.manifest.name, winners.size());
    winners.push_back(std::move(e));
  }

  const std::string platform = o.platform.empty() ? this_platform() : o.platform;
  report.agent_filter = agent_skill_filter(o.config_doc(), o.agent_id);
  std::vector<std::string> allow_bundled;
  if (const json* ab = config_path(o.config_doc(), "skills.allowBundled"); ab != nullptr && ab->is_array()) {
    for (const auto& n : *ab) {
      if (n.is_string()) allow_bundled.push_back(n.get<std::string>());
    }
  }
  for (auto& e : winners) {
    const json entry = skill_entry_config(o.config_doc(), e.manifest.skill_key);
    e.disabled = entry.contains("enabled") && entry["enabled"].is_boolean() && !entry["enabled"].get<bool>();
    e.blocked_by_allowlist = e.source == SkillSource::Bundled && !allow_bundled.empty() &&
                             std::find(allow_bundled.begin(), allow_bundled.end(), e.manifest.name) == allow_bundled.end();
    e.blocked_by_agent_filter =
        report.agent_filter && std::find(report.agent_filter->begin(), report.agent_filter->end(), e.manifest.name) ==
                                   report.agent_filter->end();
    e.missing = check_requirements(e.manifest, platform, o.env, entry, o.config_doc());
    e.findings = scan_skill_dir(e.dir);
    e.blocked = !e.findings.empty();
    if (e.disabled) e.reasons.push_back("disabled in skills.entries." + e.manifest.skill_key + ".enabled");
    if (e.blocked_by_allowlist) e.reasons.push_back("not in skills.allowBundled");
    if (e.blocked_by_agent_filter) e.reasons.push_back("not in agents.list[].skills of agent " + o.agent_id);
    if (!e.missing.os.empty()) e.reasons.push_back("needs OS " + join(e.missing.os, " or ") + " (this is " + platform + ")");
    for (const auto& b : e.missing.bins) e.reasons.push_back("missing binary: " + b);
    if (!e.missing.any_bins.empty()) e.reasons.push_back("missing one of: " + join(e.missing.any_bins));
    for (const auto& v : e.missing.env) e.reasons.push_back("missing env: " + v);
    for (const auto& c : e.missing.config) e.reasons.push_back("config not set: " + c);
    for (const auto& f : e.findings) e.reasons.push_back("blocked by the safety scan: " + f.describe());
    e.eligible = e.reasons.empty();
  }
  std::sort(winners.begin(), winners.end(),
            [](const SkillEntry& a, const SkillEntry& b) { return a.manifest.name < b.manifest.name; });
  report.skills = std::move(winners);
  return report;
}

json entry_json(const SkillEntry& e) {
  auto list = [](const std::vector<std::string>& v) { return json(v); };
  json findings = json::array();
  for (const auto& f : e.findings) findings.push_back({{"file", f.file}, {"line", f.line}, {"rule", f.rule}, {"excerpt", f.excerpt}});
  json shadowed = json::array();
  for (const auto& s : e.shadowed) shadowed.push_back(s.string());
  const auto& r = e.manifest.requirements;
  json j = {
      {"name", e.manifest.name},
      {"description", e.manifest.description},
      {"source", openclaw_source(e.source)},
      {"location", to_string(e.source)},
      {"bundled", e.source == SkillSource::Bundled},
      {"filePath", e.file.string()},
      {"baseDir", e.dir.string()},
      {"skillKey", e.manifest.skill_key},
      {"always", r.always},
      {"disabled", e.disabled},
      {"blockedByAllowlist", e.blocked_by_allowlist},
      {"blockedByAgentFilter", e.blocked_by_agent_filter},
      {"eligible", e.eligible},
      {"platformIncompatible", !e.missing.os.empty()},
      {"modelVisible", e.eligible && e.manifest.model_invocable},
      {"requirements", {{"bins", list(r.bins)}, {"anyBins", list(r.any_bins)}, {"env", list(r.env)},
                        {"config", list(r.config)}, {"os", list(r.os)}}},
      {"missing", {{"bins", list(e.missing.bins)}, {"anyBins", list(e.missing.any_bins)}, {"env", list(e.missing.env)},
                   {"config", list(e.missing.config)}, {"os", list(e.missing.os)}}},
      {"blocked", e.blocked},
      {"findings", std::move(findings)},
      {"reasons", list(e.reasons)},
      {"shadowed", std::move(shadowed)},
      {"install", json::array()},
  };
  if (!e.manifest.primary_env.empty()) j["primaryEnv"] = e.manifest.primary_env;
  if (!e.manifest.emoji.empty()) j["emoji"] = e.manifest.emoji;
  if (!e.manifest.homepage.empty()) j["homepage"] = e.manifest.homepage;
  return j;
}

}  // namespace pincer::skills
