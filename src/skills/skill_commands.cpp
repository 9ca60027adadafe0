#include "skills/skill_commands.h"

#include <cctype>
#include <string>
#include <vector>

namespace pincer::skills {
namespace {

constexpr std::size_t kSkillCommandMaxLength = 32;        // OpenClaw's SKILL_COMMAND_MAX_LENGTH
constexpr std::size_t kSkillCommandDescriptionMax = 100;  // Discord's command description limit

std::string skill_cmd_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool skill_cmd_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view skill_cmd_trim(std::string_view s) {
  while (!s.empty() && skill_cmd_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && skill_cmd_space(s.back())) s.remove_suffix(1);
  return s;
}

/// The command word of a skill name (the header's rule).
std::string skill_cmd_sanitize(std::string_view raw) {
  std::string out;
  bool gap = false;
  for (char c : skill_cmd_lower(raw)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!keep || c == '_') {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += '_';
    gap = false;
    out += c;
  }
  if (out.size() > kSkillCommandMaxLength) out.resize(kSkillCommandMaxLength);
  return out.empty() ? "skill" : out;
}

std::string skill_cmd_unique(const std::string& base, const std::set<std::string>& used) {
  if (!used.count(base)) return base;
  for (int i = 2; i < 1000; ++i) {
    const std::string suffix = "_" + std::to_string(i);
    const std::string candidate = base.substr(0, kSkillCommandMaxLength - suffix.size()) + suffix;
    if (!used.count(candidate)) return candidate;
  }
  return base.substr(0, kSkillCommandMaxLength - 2) + "_x";
}

/// At most `limit` code points of UTF-8 `s`; a cut one ends in "…" (within the limit).
std::string skill_cmd_cut(const std::string& s, std::size_t limit) {
  std::size_t points = 0, cut_at = std::string::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (points == limit - 1) cut_at = i;
    if (++points > limit) return s.substr(0, cut_at) + "\u2026";
  }
  return s;
}

/// "summarize", "Summarize", "daily notes", "daily_notes" and "daily-notes" alike.
std::string skill_cmd_lookup_key(std::string_view s) {
  std::string out;
  bool run = false;
  for (char c : skill_cmd_lower(skill_cmd_trim(s))) {
    const bool sep = c == '_' || skill_cmd_space(c);
    if (!sep) out += c;
    else if (!run) out += '-';
    run = sep;
  }
  return out;
}

}  // namespace

std::vector<SkillCommand> skill_commands(const SkillsReport& report, const std::set<std::string>& reserved) {
  std::set<std::string> used = reserved;
  std::vector<SkillCommand> out;
  for (const auto& e : report.skills) {
    if (!e.eligible || !e.manifest.user_invocable) continue;
    SkillCommand c;
    c.name = skill_cmd_unique(skill_cmd_sanitize(e.manifest.name), used);
    used.insert(c.name);
    c.skill_name = e.manifest.name;
    c.description = skill_cmd_cut(e.manifest.description.empty() ? e.manifest.name : e.manifest.description,
                                  kSkillCommandDescriptionMax);
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<SkillInvocation> parse_skill_command(std::string_view text, const std::vector<SkillCommand>& commands,
                                                   bool addressed_to_us) {
  std::string_view t = skill_cmd_trim(text);
  if (t.size() < 2 || t[0] != '/') return std::nullopt;
  t.remove_prefix(1);
  auto split = [](std::string_view s) {
    std::size_t end = 0;
    while (end < s.size() && !skill_cmd_space(s[end])) ++end;
    return std::make_pair(s.substr(0, end), skill_cmd_trim(s.substr(end)));
  };
  auto [word, rest] = split(t);
  if (auto at = word.find('@'); at != std::string_view::npos) {
    if (!addressed_to_us) return std::nullopt;
    word = word.substr(0, at);
  }
  const std::string name = skill_cmd_lower(word);
  if (name.empty()) return std::nullopt;
  if (name == "skill") {
    auto [skill_word, input] = split(rest);
    if (skill_word.empty()) return std::nullopt;
    // The exact word or name (any case) first: "dash-x" is never taken for "dash--x".
    const std::string exact = skill_cmd_lower(skill_word);
    for (const auto& c : commands) {
      if (c.name == exact || skill_cmd_lower(c.skill_name) == exact) return SkillInvocation{c, std::string(input)};
    }
    const std::string key = skill_cmd_lookup_key(skill_word);
    for (const auto& c : commands) {
      if (skill_cmd_lookup_key(c.name) == key || skill_cmd_lookup_key(c.skill_name) == key) {
        return SkillInvocation{c, std::string(input)};
      }
    }
    return std::nullopt;
  }
  for (const auto& c : commands) {
    if (c.name == name) return SkillInvocation{c, std::string(rest)};
  }
  return std::nullopt;
}

std::optional<std::string> skill_command_miss(std::string_view word, std::string_view rest, const SkillsReport& report,
                                              const std::vector<SkillCommand>& commands) {
  // The typed names to try, the longest first: the words of `rest` for "/skill", else the word.
  std::vector<std::string> words;
  const bool generic = skill_cmd_lower(word) == "skill";
  if (generic) {
    std::string_view r = skill_cmd_trim(rest);
    while (!r.empty()) {
      std::size_t end = 0;
      while (end < r.size() && !skill_cmd_space(r[end])) ++end;
      words.emplace_back(r.substr(0, end));
      r = skill_cmd_trim(r.substr(end));
    }
  } else {
    words.emplace_back(word);
  }
  for (std::size_t n = words.size(); n >= 1; --n) {
    std::string typed;
    for (std::size_t i = 0; i < n; ++i) typed += (i ? " " : "") + words[i];
    const std::string key = skill_cmd_lookup_key(typed);
    if (n >= 2) {  // one word would have matched already (parse_skill_command)
      for (const auto& c : commands) {
        if (skill_cmd_lookup_key(c.name) != key && skill_cmd_lookup_key(c.skill_name) != key) continue;
        return "\"" + typed + "\" is the skill \"" + c.skill_name + "\": type its command word, /" + c.name +
               " [input] (or /skill " + c.name + " [input]); a name with spaces is not read as one, since the input follows it.";
      }
    }
    for (const auto& e : report.skills) {
      const std::string& name = e.manifest.name;
      if (skill_cmd_lookup_key(name) != key && skill_cmd_lookup_key(skill_cmd_sanitize(name)) != key) continue;
      if (!e.eligible) {
        std::string why;
        for (const auto& r : e.reasons) why += (why.empty() ? "" : "; ") + r;
        std::string out = "The skill \"" + name + "\" is not available to this agent: " + (why.empty() ? "not eligible" : why) + ".";
        if (e.disabled) out += " To run it, set skills.entries." + e.manifest.skill_key + ".enabled to true in pincer.json.";
        return out + " (`pincer skills list` shows each skill and why.)";
      }
      if (!e.manifest.user_invocable) {
        return "The skill \"" + name + "\" cannot be run as a command: its SKILL.md (" + e.file.string() +
               ") sets user-invocable: false. The agent can still use it when a request calls for it.";
      }
    }
    if (!generic) break;
  }
  return std::nullopt;
}

std::string skill_command_prompt(const SkillInvocation& invocation) {
  std::string out = "Use the \"" + invocation.command.skill_name + "\" skill for this request.";
  if (!invocation.input.empty()) out += "\n\nUser input:\n" + invocation.input;
  return out;
}

}  // namespace pincer::skills
