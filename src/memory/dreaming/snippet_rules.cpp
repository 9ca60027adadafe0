#include "memory/dreaming/snippet_rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "memory/capture.h"
#include "memory/search.h"

namespace pincer::memory::dreaming {

namespace detail_dreaming_snippet {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const std::set<std::string>& stop_words() {
  static const std::set<std::string> words = {
      "about", "after", "again", "also", "always", "been", "before", "being", "both", "could", "does",
      "doing", "done", "each", "from", "have", "having", "here", "into", "just", "like", "more", "most",
      "much", "must", "never", "only", "other", "over", "same", "should", "some", "such", "than", "that",
      "their", "them", "then", "there", "these", "they", "this", "those", "through", "under", "until",
      "very", "want", "wants", "were", "what", "when", "where", "which", "while", "will", "with", "would",
      "your", "yours", "user", "today", "note", "notes", "remember", "prefer", "prefers"};
  return words;
}

}  // namespace detail_dreaming_snippet

std::string normalize_snippet(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

bool is_short_term_path(std::string_view rel_path) {
  const std::string p(rel_path);
  if (p.rfind("memory/", 0) != 0) return false;
  if (p.rfind("memory/dreaming/", 0) == 0 || p.rfind("memory/.dreams/", 0) == 0) return false;
  return note_day(p).has_value();
}

bool is_untrusted_snippet(std::string_view text) {
  const std::string l = detail_dreaming_snippet::lower_ascii(text);
  for (const char* marker : {"[untrusted", "begin_quoted_notes", "<untrusted", "<!-- untrusted", "<!--untrusted"}) {
    if (l.find(marker) != std::string::npos) return true;
  }
  return looks_like_injection(text);
}

bool is_unpromotable_snippet(std::string_view text) {
  const std::string n = normalize_snippet(text);
  if (n.empty()) return true;
  const std::string l = detail_dreaming_snippet::lower_ascii(n);
  for (const char* marker : {"<!-- trigger:", "<!-- importance:", "<!-- pincer-dreaming"}) {
    if (l.find(marker) != std::string::npos) return true;
  }
  if (is_untrusted_snippet(text)) return true;
  // Markdown skeleton: every line is a heading, a list marker or punctuation only. A snippet
  // already on one line (normalised) is a skeleton when it is a heading with no list item after it.
  const std::string s(text);
  if (s.find('\n') == std::string::npos) {
    if (n.front() == '#' && n.find(" - ") == std::string::npos && n.find(" * ") == std::string::npos) return true;
  }
  bool has_content = false;
  std::size_t pos = 0;
  while (pos <= s.size() && !has_content) {
    const std::size_t nl = s.find('\n', pos);
    std::string line = normalize_snippet(s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    pos = nl == std::string::npos ? s.size() + 1 : nl + 1;
    std::size_t i = 0;
    while (i < line.size() && (line[i] == '-' || line[i] == '*' || line[i] == '+' || line[i] == '>' || line[i] == ' ')) ++i;
    if (i < line.size() && line[i] == '#' && s.find('\n') != std::string::npos) continue;  // a heading line
    for (; i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (std::isalnum(c) || c >= 0x80) {
        has_content = true;
        break;
      }
    }
  }
  return !has_content;
}

std::vector<std::string> concept_tags(std::string_view snippet) {
  std::map<std::string, std::pair<int, std::size_t>> seen;  // word → (count, first position)
  std::string cur;
  std::size_t order = 0;
  auto flush = [&] {
    if (cur.size() >= 4 && !detail_dreaming_snippet::stop_words().count(cur) &&
        std::any_of(cur.begin(), cur.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); })) {
      auto [it, fresh] = seen.try_emplace(cur, 0, order++);
      ++it->second.first;
    }
    cur.clear();
  };
  for (char ch : snippet) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      cur += static_cast<char>(std::tolower(c));
    } else {
      flush();
    }
  }
  flush();
  std::vector<std::pair<std::string, std::pair<int, std::size_t>>> v(seen.begin(), seen.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second.first != b.second.first) return a.second.first > b.second.first;
    return a.second.second < b.second.second;
  });
  std::vector<std::string> out;
  for (auto& [w, _] : v) {
    if (out.size() >= kMaxConceptTags) break;
    out.push_back(w);
  }
  return out;
}

bool is_ingested_session(std::string_view session_key, std::string_view lane) {
  if (lane != "main") return false;  // subagent, cron (heartbeats run there too), nested runs
  const std::string k = detail_dreaming_snippet::lower_ascii(session_key);
  if (k.empty()) return false;
  if (k.rfind("cron:", 0) == 0 || k.find(":cron:") != std::string::npos) return false;
  if (k.find(":subagent:") != std::string::npos || k.rfind("subagent:", 0) == 0) return false;
  if (k.find("heartbeat") != std::string::npos) return false;
  return true;
}

}  // namespace pincer::memory::dreaming
