#include "tools/registry.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <unordered_map>

#include "tools/cron_tool.h"
#include "tools/exec_tool.h"
#include "tools/fs_tools.h"
#include "tools/memory_tools.h"
#include "tools/skill_manage_tool.h"
#include "tools/sessions/session_tools.h"  // session tools (TL-1, MA-2)
#include "tools/sessions/subagent_tools.h"
#include "tools/web/web_tools.h"

namespace pincer::tools {
namespace {

using Names = std::vector<std::string>;

/// OpenClaw's tool groups (tool-policy.md, "Tool groups").
const std::map<std::string, Names, std::less<>>& groups() {
  static const std::map<std::string, Names, std::less<>> table = {
      {"runtime", {"exec", "process", "code_execution"}},
      {"fs", {"read", "write", "edit", "apply_patch"}},
      {"sessions",
       {"sessions", "sessions_list", "sessions_history", "sessions_search", "conversations_list", "conversations_send",
        "conversations_turn", "sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status",
        "suggest_task", "dismiss_task"}},
      {"memory", {"memory_search", "memory_get"}},
      {"web", {"web_search", "x_search", "web_fetch"}},
      {"ui", {"browser", "screen", "theme", "dashboard", "terminal", "portal", "canvas", "show_widget"}},
      {"automation", {"heartbeat_respond", "automations", "cron", "gateway", "plugins", "openclaw"}},
      {"messaging", {"message"}},
      {"nodes", {"nodes", "computer"}},
      {"agents",
       {"agents_list", "get_goal", "create_goal", "update_goal", "progress_card", "ask_user", "skill_workshop"}},
      {"media", {"view_image", "image_generate", "music_generate", "video_generate", "tts", "pdf"}},
  };
  return table;
}

/// OpenClaw's profiles (tool-policy.md, "Tool profiles"); "full" and unset do not filter.
const std::map<std::string, Names, std::less<>>& profiles() {
  static const std::map<std::string, Names, std::less<>> table = {
      {"minimal", {"session_status", "gateway"}},
      {"coding",
       {"group:fs", "group:runtime", "group:web", "group:sessions", "group:memory", "cron", "gateway", "get_goal",
        "create_goal", "update_goal", "progress_card", "ask_user", "skill_workshop", "skill_manage", "view_image",
        "image_generate",
        "music_generate", "video_generate"}},
      {"messaging",
       {"group:messaging", "sessions", "sessions_list", "sessions_history", "sessions_search", "conversations_list",
        "conversations_send", "conversations_turn", "sessions_send", "sessions_spawn", "sessions_yield", "subagents",
        "session_status", "gateway", "ask_user"}},
  };
  return table;
}

std::string normalize(std::string_view entry) {
  const auto b = entry.find_first_not_of(" \t");
  const auto e = entry.find_last_not_of(" \t");
  std::string out = b == std::string_view::npos ? std::string() : std::string(entry.substr(b, e - b + 1));
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out == "bash" ? "exec" : out;
}

/// normalize(s) without a copy when `s` already is normalized (`storage` holds it otherwise).
std::string_view normalized_view(std::string_view s, std::string& storage) {
  const bool plain = !s.empty() && s.front() != ' ' && s.front() != '\t' && s.back() != ' ' && s.back() != '\t' &&
                     s != "bash" &&
                     std::none_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (plain) return s;
  storage = normalize(s);
  return storage;
}

/// `*` matches any run of characters; everything else literally. Both sides already lowercase.
bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool any_matches(const Names& entries, const Tool& tool) {
  return std::any_of(entries.begin(), entries.end(),
                     [&](const std::string& e) { return policy_entry_matches(e, tool); });
}

/// OpenClaw: `allow: ["write"]` also enables apply_patch.
bool allowed_by(const Names& allow, const Tool& tool) {
  if (any_matches(allow, tool)) return true;
  if (tool.name() != "apply_patch") return false;
  return std::any_of(allow.begin(), allow.end(), [](const std::string& e) { return normalize(e) == "write"; });
}

}  // namespace

const std::vector<std::string>& group_members(std::string_view group) {
  static const Names empty;
  auto it = groups().find(group);
  return it == groups().end() ? empty : it->second;
}

bool policy_entry_matches(std::string_view raw_entry, const Tool& tool) {
  // Entries and names are nearly always normalized already: no copies then (this runs for every
  // tool and entry of every run's policy).
  std::string entry_copy, name_copy;
  const std::string_view entry = normalized_view(raw_entry, entry_copy);
  const std::string_view name = normalized_view(tool.name(), name_copy);
  if (entry.rfind("group:", 0) == 0) {
    const std::string_view group = std::string_view(entry).substr(6);
    const auto& members = group_members(group);
    return tool.group() == group || std::find(members.begin(), members.end(), name) != members.end();
  }
  return glob_match(entry, name);
}

std::optional<bool> profile_includes(std::string_view raw_profile, const Tool& tool) {
  const std::string profile = normalize(raw_profile);
  if (profile.empty() || profile == "full") return true;
  auto it = profiles().find(profile);
  if (it == profiles().end()) return std::nullopt;
  // The tables are constant and a match depends only on the tool's name and group: remembered
  // (per thread; bounded) instead of matched against every entry for every tool of every run.
  thread_local std::unordered_map<std::string, bool> memo;
  std::string key = it->first;
  key.append(1, '\0').append(tool.name()).append(1, '\0').append(tool.group());
  if (auto m = memo.find(key); m != memo.end()) return m->second;
  const bool in = any_matches(it->second, tool);
  if (memo.size() < 4096) memo.emplace(std::move(key), in);
  return in;
}

std::optional<std::string> first_match(const Names& entries, const Tool& tool, bool as_allow) {
  for (const auto& e : entries) {
    if (policy_entry_matches(e, tool)) return e;
  }
  if (as_allow && allowed_by(entries, tool)) return std::string("write");
  return std::nullopt;
}

ToolRegistry ToolRegistry::builtin() {
  ToolRegistry r;
  for (auto& t : make_fs_tools()) r.add(std::move(t));
  for (auto& t : make_runtime_tools()) r.add(std::move(t));
  for (auto& t : make_memory_tools()) r.add(std::move(t));
  for (auto& t : make_web_tools()) r.add(std::move(t));
  r.add(make_cron_tool());
  r.add(make_skill_manage_tool());  // SK-4
  // Session and messaging tools (TL-1, MA-2): sessions_list/history/send, session_status, message.
  for (auto& t : make_session_tools()) r.add(std::move(t));
  r.add(make_message_tool());
  for (auto& t : make_subagent_tools()) r.add(std::move(t));  // sessions_spawn, subagents (MA-3)
  return r;
}

void ToolRegistry::add(std::unique_ptr<Tool> tool) {
  auto same = [&](const std::unique_ptr<Tool>& t) { return t->name() == tool->name(); };
  if (auto it = std::find_if(tools_.begin(), tools_.end(), same); it != tools_.end()) {
    *it = std::move(tool);
  } else {
    tools_.push_back(std::move(tool));
  }
}

const Tool* ToolRegistry::find(std::string_view name) const {
  for (const auto& t : tools_) {
    if (t->name() == name) return t.get();
  }
  return nullptr;
}

std::vector<const Tool*> ToolRegistry::all() const {
  std::vector<const Tool*> out;
  for (const auto& t : tools_) out.push_back(t.get());
  return out;
}

Result<std::vector<const Tool*>> ToolRegistry::effective_tools(const ToolPolicy& policy) const {
  const std::string profile = normalize(policy.profile);
  const Names* profile_entries = nullptr;
  if (!profile.empty() && profile != "full") {
    auto it = profiles().find(profile);
    if (it == profiles().end()) {
      return Error{"TOOLS_PROFILE_UNKNOWN",
                   "unknown tools.profile \"" + policy.profile + "\" (expected minimal, coding, messaging or full)"};
    }
    profile_entries = &it->second;
  }
  std::vector<const Tool*> out;
  for (const auto& t : tools_) {
    const bool in_profile =
        profile_entries == nullptr || any_matches(*profile_entries, *t) || allowed_by(policy.also_allow, *t);
    if (!in_profile) continue;
    if (!policy.allow.empty() && !allowed_by(policy.allow, *t)) continue;
    if (any_matches(policy.deny, *t)) continue;
    out.push_back(t.get());
  }
  return out;
}

Result<std::vector<const Tool*>> ToolRegistry::effective_tools(std::string_view profile, const Names& allow,
                                                               const Names& deny) const {
  return effective_tools(ToolPolicy{std::string(profile), allow, {}, deny});
}

nlohmann::json ToolRegistry::definitions(const std::vector<const Tool*>& tools) {
  auto out = nlohmann::json::array();
  for (const Tool* t : tools) {
    out.push_back({{"name", t->name()}, {"description", t->description()}, {"parameters", t->parameters()}});
  }
  return out;
}

}  // namespace pincer::tools
