#include "skills/skill_usage.h"

#include <algorithm>
#include <mutex>

#include "store/atomic_file.h"

namespace pincer::skills {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::mutex& usage_mutex() {
  static std::mutex m;
  return m;
}

Result<json> load_doc(const fs::path& file) {
  auto text = store::read_file(file, 16u << 20);
  if (!text) {
    if (text.error().code == "NOT_FOUND") return json{{"version", 1}, {"skills", json::object()}};
    return text.error();
  }
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("skills") || !doc["skills"].is_object()) {
    return Error{"USAGE_CORRUPT", file.string() + ": not a skills usage file (move it away to start afresh)"};
  }
  return doc;
}

Status save_doc(const fs::path& file, const json& doc) { return store::write_file_atomic(file, doc.dump(2) + "\n"); }

std::int64_t num(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

}  // namespace

fs::path usage_file(const fs::path& state_dir) { return state_dir / "skills-usage.json"; }

int trust_threshold(const json& config) {
  auto s = config.find("skills");
  if (s == config.end() || !s->is_object()) return 3;
  auto t = s->find("trust");
  if (t == s->end() || !t->is_object()) return 3;
  auto n = t->find("successfulUses");
  if (n == t->end() || !n->is_number_integer()) return 3;
  return static_cast<int>(std::clamp<std::int64_t>(n->get<std::int64_t>(), 1, 1000));
}

Result<std::vector<SkillUsage>> read_usage(const fs::path& state_dir) {
  std::lock_guard lock(usage_mutex());
  auto doc = load_doc(usage_file(state_dir));
  if (!doc) return doc.error();
  std::vector<SkillUsage> out;
  for (const auto& [file, r] : (*doc)["skills"].items()) {
    if (!r.is_object()) continue;
    SkillUsage u;
    u.file = file;
    u.name = r.value("name", std::string());
    u.origin = r.value("origin", std::string());
    u.status = r.value("status", std::string());
    u.uses = num(r, "uses");
    u.successes = num(r, "successes");
    u.failures = num(r, "failures");
    u.since_change = num(r, "sinceChange");
    u.created_at = num(r, "createdAt");
    u.changed_at = num(r, "changedAt");
    u.last_used_at = num(r, "lastUsedAt");
    out.push_back(std::move(u));
  }
  std::sort(out.begin(), out.end(), [](const SkillUsage& a, const SkillUsage& b) {
    return a.name != b.name ? a.name < b.name : a.file < b.file;
  });
  return out;
}

Status record_agent_write(const fs::path& state_dir, const std::string& name, const fs::path& file, bool patched,
                          std::int64_t now_ms) {
  std::lock_guard lock(usage_mutex());
  const auto path = usage_file(state_dir);
  auto doc = load_doc(path);
  if (!doc) return doc.error();
  json& r = (*doc)["skills"][file.string()];
  if (!r.is_object()) r = json::object();
  r["name"] = name;
  r["origin"] = "agent";
  r["status"] = "candidate";
  r["sinceChange"] = 0;
  if (!patched || !r.contains("createdAt")) r["createdAt"] = now_ms;
  r["changedAt"] = now_ms;
  for (const char* k : {"uses", "successes", "failures"}) {
    if (!r.contains(k)) r[k] = 0;
  }
  return save_doc(path, *doc);
}

Status record_outcome(const fs::path& state_dir, const std::vector<UsedSkill>& used, bool success, int trust_after,
                      std::int64_t now_ms) {
  if (used.empty()) return Ok{};
  std::lock_guard lock(usage_mutex());
  const auto path = usage_file(state_dir);
  auto doc = load_doc(path);
  if (!doc) return doc.error();
  for (const auto& u : used) {
    json& r = (*doc)["skills"][u.file.string()];
    if (!r.is_object()) r = {{"name", u.name}, {"origin", ""}, {"status", ""}};
    r["name"] = u.name;
    r["uses"] = num(r, "uses") + 1;
    r[success ? "successes" : "failures"] = num(r, success ? "successes" : "failures") + 1;
    r["lastUsedAt"] = now_ms;
    if (success) r["sinceChange"] = num(r, "sinceChange") + 1;
    if (r.value("status", std::string()) == "candidate" && num(r, "sinceChange") >= trust_after) r["status"] = "trusted";
  }
  return save_doc(path, *doc);
}

}  // namespace pincer::skills
