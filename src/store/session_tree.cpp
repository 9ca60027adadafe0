#include "store/session_tree.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "core/utf8.h"

namespace pincer::store {
namespace {

bool is_message(const TranscriptEntry& e) { return e.type == "message"; }

const Json* message_of(const TranscriptEntry& e) {
  if (!is_message(e) || !e.raw.is_object()) return nullptr;
  auto it = e.raw.find("message");
  return it != e.raw.end() && it->is_object() ? &*it : nullptr;
}

bool is_user_message(const TranscriptEntry& e) {
  const Json* m = message_of(e);
  return m && m->value("role", "") == "user";
}

/// The text blocks of a user message, joined by spaces, whitespace folded to single spaces.
std::string user_text(const TranscriptEntry& e) {
  const Json* m = message_of(e);
  if (!m) return "";
  std::string joined;
  const auto content = m->find("content");
  if (content == m->end()) return "";
  if (content->is_string()) {
    joined = content->get<std::string>();
  } else if (content->is_array()) {
    for (const auto& block : *content) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
        if (!joined.empty()) joined += ' ';
        joined += block["text"].get<std::string>();
      }
    }
  }
  std::string folded;
  bool space = false;
  for (char c : joined) {
    const bool ws = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (ws) {
      space = !folded.empty();
      continue;
    }
    if (space) folded += ' ';
    space = false;
    folded += c;
  }
  return folded;
}

/// At most `chars` characters of `s`, with "…" when cut.
std::string preview(const std::string& s, std::size_t chars) {
  std::size_t pos = 0, count = 0;
  while (pos < s.size() && count < chars) {
    pos += std::max<std::size_t>(1, utf8::sequence_length(s, pos));
    ++count;
  }
  if (pos >= s.size()) return s;
  return s.substr(0, pos) + "…";
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

/// The path root → `index` (cycles in corrupt files are cut, as active_branch does).
std::vector<const TranscriptEntry*> path_to(const std::vector<TranscriptEntry>& entries, std::size_t index) {
  std::unordered_map<std::string_view, std::size_t> by_id;
  for (std::size_t i = 0; i < entries.size(); ++i) by_id[entries[i].id] = i;
  std::vector<const TranscriptEntry*> path;
  std::unordered_set<std::string_view> seen;
  const TranscriptEntry* e = &entries[index];
  while (e && seen.insert(e->id).second) {
    path.push_back(e);
    if (!e->parent_id) break;
    auto it = by_id.find(*e->parent_id);
    e = it == by_id.end() ? nullptr : &entries[it->second];
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

TreeView tree_view(const std::vector<TranscriptEntry>& entries, std::size_t preview_chars) {
  TreeView view;
  if (entries.empty()) return view;
  const auto active = active_branch(entries);
  if (!active.empty()) view.leaf_id = active.back()->id;
  std::unordered_set<std::string_view> on_active;
  for (const auto* e : active) {
    on_active.insert(e->id);
    if (is_user_message(*e)) view.turns.push_back({e->id, preview(user_text(*e), preview_chars)});
  }
  // Leaves: entries no other entry names as its parent.
  std::unordered_set<std::string_view> parents;
  for (const auto& e : entries) {
    if (e.parent_id) parents.insert(*e.parent_id);
  }
  for (std::size_t i = entries.size(); i-- > 0;) {
    const TranscriptEntry& leaf = entries[i];
    if (parents.contains(leaf.id) || on_active.contains(leaf.id)) continue;
    TreeBranch branch;
    branch.leaf_id = leaf.id;
    branch.timestamp = leaf.timestamp;
    for (const auto* e : path_to(entries, i)) {
      if (on_active.contains(e->id)) {
        branch.fork_id = e->id;
        continue;
      }
      if (!is_message(*e)) continue;
      ++branch.messages;
      if (branch.text.empty() && is_user_message(*e)) branch.text = preview(user_text(*e), preview_chars);
    }
    // A marker left by an earlier switch with nothing after it is not a branch worth showing.
    if (branch.messages == 0) continue;
    view.branches.push_back(std::move(branch));
  }
  return view;
}

Result<std::size_t> resolve_entry(const std::vector<TranscriptEntry>& entries, std::string_view id) {
  // Echoed at most this long: the id comes from a chat message and may be anything.
  constexpr std::size_t kShownChars = 40;
  const std::string shown = std::string(id.substr(0, kShownChars)) + (id.size() > kShownChars ? "…" : "");
  if (id.size() < 4 || id.size() > 64 || !is_hex(id)) {
    return Error{"INVALID_REQUEST", "\"" + shown + "\" is not an entry id (4 to 64 hex characters, as /tree lists them)"};
  }
  // Hex digits are case-insensitive: "AB12" finds the entry listed as "ab12…".
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string wanted = lower(id);
  std::optional<std::size_t> found;
  std::size_t matches = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string have = lower(entries[i].id);
    if (have == wanted) return i;  // an exact id wins over longer ids it prefixes
    if (have.rfind(wanted, 0) == 0) {
      ++matches;
      found = i;
    }
  }
  if (matches == 0) return Error{"ENTRY_NOT_FOUND", "no entry " + shown + " in this session (/tree lists them)"};
  if (matches > 1) {
    return Error{"AMBIGUOUS", std::to_string(matches) + " entries start with " + shown + "; give more of the id"};
  }
  return *found;
}

Result<BranchSwitch> plan_branch_switch(const std::vector<TranscriptEntry>& entries, std::string_view id) {
  auto index = resolve_entry(entries, id);
  if (!index) return index.error();
  const TranscriptEntry& target = entries[*index];
  BranchSwitch plan;
  const auto active = active_branch(entries);
  plan.old_leaf = active.empty() ? "" : active.back()->id;
  std::vector<const TranscriptEntry*> new_path = path_to(entries, *index);
  if (is_user_message(target)) {
    plan.retry_text = user_text(target);
    new_path.pop_back();
  }
  plan.new_parent = new_path.empty() ? "" : new_path.back()->id;
  if (plan.new_parent == plan.old_leaf) {
    return Error{"NOTHING_TO_DO", "the conversation already goes on from there"};
  }
  std::unordered_set<std::string_view> kept;
  for (const auto* e : new_path) kept.insert(e->id);
  for (const auto* e : active) {
    if (!kept.contains(e->id)) plan.abandoned.push_back(e);
  }
  return plan;
}

}  // namespace pincer::store
