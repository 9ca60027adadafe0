#include "tools/approvals/approvals_file.h"

#include <openssl/sha.h>

#include <cstdio>

#include "core/ids.h"
#include "store/atomic_file.h"

namespace pincer::tools::approvals {

using nlohmann::json;

namespace {

std::string one_of_problem(const json& v, const std::string& where, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get<std::string>() == a) return "";
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return where + " must be one of " + list;
}

std::string policy_problem(const json& p, const std::string& where) {
  if (!p.is_object()) return where + " must be an object";
  for (const auto& [key, v] : p.items()) {
    std::string bad;
    if (key == "security" || key == "askFallback") bad = one_of_problem(v, where + "." + key, {"deny", "allowlist", "full"});
    else if (key == "ask") bad = one_of_problem(v, where + "." + key, {"off", "on-miss", "always"});
    if (!bad.empty()) return bad;
  }
  return "";
}

}  // namespace

std::string ApprovalsFile::problem(const json& doc) {
  if (!doc.is_object()) return "the document must be a JSON object";
  if (doc.contains("version") && !(doc["version"].is_number_integer() && doc["version"] == 1)) return "version must be 1";
  if (doc.contains("defaults")) {
    if (auto p = policy_problem(doc["defaults"], "defaults"); !p.empty()) return p;
  }
  if (!doc.contains("agents")) return "";
  if (!doc["agents"].is_object()) return "agents must be an object";
  for (const auto& [id, agent] : doc["agents"].items()) {
    const std::string where = "agents." + id;
    if (auto p = policy_problem(agent, where); !p.empty()) return p;
    if (!agent.contains("allowlist")) continue;
    if (!agent["allowlist"].is_array()) return where + ".allowlist must be an array";
    std::size_t i = 0;
    for (const auto& e : agent["allowlist"]) {
      const std::string at = where + ".allowlist[" + std::to_string(i++) + "]";
      if (!e.is_object()) return at + " must be an object {pattern}";
      if (!e.contains("pattern") || !e["pattern"].is_string() || e["pattern"].get<std::string>().empty()) {
        return at + ".pattern must be a non-empty string";
      }
    }
  }
  return "";
}

Status ApprovalsFile::load() {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) {
    doc_ = json{{"version", 1}};
    return Ok{};
  }
  auto bytes = store::read_file(path_, 8u << 20);
  if (!bytes) return Error{"APPROVALS_INVALID", path_.string() + ": " + bytes.error().message};
  json doc = json::parse(*bytes, nullptr, false);
  if (doc.is_discarded()) return Error{"APPROVALS_INVALID", path_.string() + ": not valid JSON"};
  if (auto p = problem(doc); !p.empty()) return Error{"APPROVALS_INVALID", path_.string() + ": " + p};
  doc_ = std::move(doc);
  return Ok{};
}

Status ApprovalsFile::save() const { return store::write_file_atomic(path_, doc_.dump(2) + "\n", 0600); }

Status ApprovalsFile::replace(json doc) {
  if (auto p = problem(doc); !p.empty()) return Error{"APPROVALS_INVALID", "exec-approvals.json: " + p};
  if (!doc.contains("version")) doc["version"] = 1;
  doc_ = std::move(doc);
  return Ok{};
}

std::string ApprovalsFile::hash() const {
  const std::string text = doc_.dump();
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), md);
  std::string hex;
  char buf[3];
  for (unsigned char b : md) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex;
}

std::optional<std::string> ApprovalsFile::setting(const std::string& agent_id, const std::string& key) const {
  const json& agents = doc_.contains("agents") ? doc_["agents"] : json::object();
  for (const std::string& id : {agent_id, std::string("*")}) {
    if (agents.contains(id) && agents[id].contains(key) && agents[id][key].is_string()) return agents[id][key].get<std::string>();
  }
  if (doc_.contains("defaults") && doc_["defaults"].contains(key) && doc_["defaults"][key].is_string()) {
    return doc_["defaults"][key].get<std::string>();
  }
  return std::nullopt;
}

std::vector<std::string> ApprovalsFile::patterns(const std::string& agent_id) const {
  std::vector<std::string> out;
  if (!doc_.contains("agents")) return out;
  for (const std::string& id : {agent_id, std::string("*")}) {
    if (!doc_["agents"].contains(id) || !doc_["agents"][id].contains("allowlist")) continue;
    for (const auto& e : doc_["agents"][id]["allowlist"]) out.push_back(e.value("pattern", ""));
  }
  return out;
}

std::string ApprovalsFile::add_pattern(const std::string& agent_id, const std::string& pattern, int64_t now_ms) {
  json& list = doc_["agents"][agent_id]["allowlist"];
  if (!list.is_array()) list = json::array();
  for (const auto& e : list) {
    if (e.value("pattern", "") == pattern) return e.value("id", "");
  }
  const std::string id = ids::uuid_v4();
  list.push_back({{"id", id}, {"pattern", pattern}, {"lastUsedAt", now_ms}});
  return id;
}

void ApprovalsFile::touch(const std::string& agent_id, const std::string& pattern, const std::string& command,
                          int64_t now_ms) {
  if (!doc_.contains("agents")) return;
  for (const std::string& id : {agent_id, std::string("*")}) {
    if (!doc_["agents"].contains(id) || !doc_["agents"][id].contains("allowlist")) continue;
    for (auto& e : doc_["agents"][id]["allowlist"]) {
      if (e.value("pattern", "") == pattern) {
        e["lastUsedAt"] = now_ms;
        e["lastUsedCommand"] = command;
        return;
      }
    }
  }
}

}  // namespace pincer::tools::approvals
