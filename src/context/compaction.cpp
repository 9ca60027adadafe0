#include "context/compaction.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "agent/text_cut.h"
#include "core/json_dump.h"

namespace pincer::context {

namespace {

bool is_user(const llm::Message& m) { return std::holds_alternative<llm::UserMessage>(m); }

std::string blocks_text(const std::vector<llm::ContentBlock>& blocks) {
  std::string out;
  for (const auto& b : blocks) {
    if (const auto* t = std::get_if<llm::TextContent>(&b)) out += (out.empty() ? "" : "\n") + t->text;
    else if (std::holds_alternative<llm::ImageContent>(b)) out += (out.empty() ? "" : "\n") + std::string("[image]");
  }
  return out;
}

bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string_view trim_word(std::string_view w) {
  static constexpr std::string_view kLead = "([{<\"'`*";
  static constexpr std::string_view kTrail = ".,;:!?)]}>\"'`*";
  while (!w.empty() && kLead.find(w.front()) != std::string_view::npos) w.remove_prefix(1);
  while (!w.empty() && kTrail.find(w.back()) != std::string_view::npos) w.remove_suffix(1);
  return w;
}

bool is_date(std::string_view w) {
  return w.size() >= 10 && digit(w[0]) && digit(w[1]) && digit(w[2]) && digit(w[3]) && w[4] == '-' && digit(w[5]) &&
         digit(w[6]) && w[7] == '-' && digit(w[8]) && digit(w[9]);
}

bool is_amount(std::string_view w) {
  if (w.size() >= 2 && (w[0] == '$' || w.starts_with("€") || w.starts_with("£"))) {
    const std::size_t skip = w[0] == '$' ? 1 : std::string_view("€").size();
    return w.size() > skip && digit(w[skip]);
  }
  return w.size() >= 2 && w.back() == '%' && digit(w[w.size() - 2]);
}

bool is_file_name(std::string_view w) {
  const auto dot = w.rfind('.');
  if (dot == std::string_view::npos || dot < 2 || w.size() - dot - 1 < 1 || w.size() - dot - 1 > 5) return false;
  bool ext_alpha = false;
  for (std::size_t i = dot + 1; i < w.size(); ++i) {
    if (!std::islower(static_cast<unsigned char>(w[i])) && !digit(w[i])) return false;
    ext_alpha |= alpha(w[i]);
  }
  for (std::size_t i = 0; i < dot; ++i) {
    if (!word_char(w[i]) && w[i] != '-' && w[i] != '.') return false;
  }
  return ext_alpha && alpha(w[0]);
}

bool is_symbol(std::string_view w) {
  // name(…), a::b, snake_case, camelCase
  if (auto paren = w.find('('); paren != std::string_view::npos && paren > 0) {
    const std::string_view name = w.substr(0, paren);
    return std::all_of(name.begin(), name.end(), [](char c) { return word_char(c) || c == '.' || c == ':'; }) &&
           (alpha(name[0]) || name[0] == '_');
  }
  if (!(alpha(w[0]) || w[0] == '_')) return false;
  if (!std::all_of(w.begin(), w.end(), [](char c) { return word_char(c) || c == ':'; })) return false;
  if (w.find("::") != std::string_view::npos) return true;
  const auto underscore = w.find('_');
  if (underscore != std::string_view::npos && underscore > 0 && underscore + 1 < w.size()) return true;
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (std::isupper(static_cast<unsigned char>(w[i])) && std::islower(static_cast<unsigned char>(w[i - 1]))) return true;
  }
  return false;
}

bool is_id(std::string_view w) {
  if (w.size() >= 2 && w[0] == '#' && std::all_of(w.begin() + 1, w.end(), digit)) return true;
  if (w.size() < 6) return false;
  bool letters = false, digits = false;
  for (char c : w) {
    if (alpha(c)) letters = true;
    else if (digit(c)) digits = true;
    else if (c != '-' && c != '_') return false;
  }
  return letters && digits;
}

std::optional<std::string> classify(std::string_view raw) {
  std::string_view w = trim_word(raw);
  if (w.size() < 2) return std::nullopt;
  if (w.starts_with("http://") || w.starts_with("https://")) return std::string(w);
  if (is_date(w) || is_amount(w)) return std::string(w);
  if (w.find('/') != std::string_view::npos && w.size() >= 3 &&
      (w[0] == '/' || w.starts_with("~/") || w.starts_with("./") || w.starts_with("../") ||
       is_file_name(w.substr(w.rfind('/') + 1)))) {
    return std::string(w);
  }
  if (is_file_name(w) || is_id(w)) return std::string(w);
  if (is_symbol(w)) {
    if (auto paren = w.find('('); paren != std::string_view::npos) return std::string(w.substr(0, paren));
    return std::string(w);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> find_cut(const std::vector<llm::Message>& messages, const std::vector<int64_t>& tokens,
                                    int64_t keep_recent) {
  if (messages.empty() || tokens.size() != messages.size()) return std::nullopt;
  std::optional<std::size_t> last_user;
  for (std::size_t i = messages.size(); i-- > 0;) {
    if (is_user(messages[i])) {
      last_user = i;
      break;
    }
  }
  if (!last_user || *last_user == 0) return std::nullopt;  // a single turn: nothing before it
  // Walk back until keep_recent is reached: `j` is the oldest message that must stay.
  std::size_t j = messages.size() - 1;
  int64_t sum = tokens[j];
  while (j > 0 && sum < keep_recent) sum += tokens[--j];
  // Back to the start of that turn …
  for (std::size_t b = std::min(j, *last_user); b > 0; --b) {
    if (is_user(messages[b])) return b;
  }
  // … or, when that keeps everything, forward to the next turn start (at most the latest one).
  for (std::size_t b = j + 1; b <= *last_user; ++b) {
    if (is_user(messages[b])) return b;
  }
  return std::nullopt;
}

std::string serialize_for_summary(const llm::Message& message) {
  if (const auto* u = std::get_if<llm::UserMessage>(&message)) return "[User]: " + blocks_text(u->content);
  if (const auto* a = std::get_if<llm::AssistantMessage>(&message)) {
    std::string out;
    const std::string text = blocks_text(a->content);
    if (!text.empty()) out = "[Assistant]: " + text;
    for (const auto* call : a->tool_calls()) {
      out += (out.empty() ? "" : "\n") + std::string("[Assistant tool call]: ") + call->name + "(" +
             json_dump::compact(call->arguments) + ")";
    }
    return out;
  }
  const auto& r = std::get<llm::ToolResultMessage>(message);
  std::string text = blocks_text(r.content);
  if (text.size() > kSummaryToolResultChars) {
    text = std::string(agent::text::head(text, kSummaryToolResultChars)) + " […" +
           std::to_string(text.size() - kSummaryToolResultChars) + " more chars]";
  }
  return "[Tool result " + r.tool_name + (r.is_error ? " (error)" : "") + "]: " + text;
}

std::vector<std::string> extract_identifiers(const std::string& text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t i = 0;
  while (i < text.size() && out.size() < kMaxIdentifiers) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end > i && end - i <= 300) {
      if (auto id = classify(std::string_view(text).substr(i, end - i)); id && seen.insert(*id).second) {
        out.push_back(std::move(*id));
      }
    }
    i = end;
  }
  return out;
}

std::string ensure_identifiers(std::string summary, const std::vector<std::string>& identifiers,
                               std::size_t max_added_chars, std::size_t* missing) {
  static constexpr std::string_view kHeading = "\n\n## Identifiers kept verbatim\n";
  std::string added;
  std::size_t count = 0;
  for (const auto& id : identifiers) {
    if (summary.find(id) != std::string::npos) continue;
    if (kHeading.size() + added.size() + id.size() + 3 > max_added_chars) break;
    added += "- " + id + "\n";
    ++count;
  }
  if (count > 0) {
    while (!summary.empty() && std::isspace(static_cast<unsigned char>(summary.back()))) summary.pop_back();
    summary += std::string(kHeading) + added;
  }
  if (missing) *missing = count;
  return summary;
}

std::string summary_system_prompt() {
  return "You write the working memory of an AI assistant whose conversation has grown too long. The "
         "messages you are given will be removed from its context and replaced by your summary, so the "
         "summary is all it will remember of them. Answer with the summary only, no preamble.";
}

std::string summary_request(const std::string& conversation, const std::string& previous_summary,
                            const std::string& instructions) {
  std::string out;
  if (!previous_summary.empty()) {
    out += "The summary of the conversation so far:\n<previous-summary>\n" + previous_summary +
           "\n</previous-summary>\n\nUpdate it with the messages that followed:\n";
  } else {
    out += "Summarise these messages:\n";
  }
  out += "<conversation>\n" + conversation + "\n</conversation>\n\n";
  out +=
      "Write these sections in Markdown:\n"
      "## Goal — what the user wants overall.\n"
      "## Constraints and preferences — what the user asked for or ruled out.\n"
      "## Progress — done, in progress, blocked.\n"
      "## Key decisions — with the reason for each.\n"
      "## Next steps — what remains, in order.\n"
      "## Critical context — facts needed to continue.\n"
      "Copy every identifier exactly as written: ids, file paths, function and variable names, amounts, "
      "dates, URLs, commands. Never paraphrase or shorten them. Be brief everywhere else.";
  if (!instructions.empty()) out += "\n\nThe user's instructions for this summary: " + instructions;
  return out;
}

std::vector<std::string> split_for_summary(const std::vector<std::string>& serialized, std::size_t max_chars) {
  max_chars = std::max<std::size_t>(1, max_chars);
  std::vector<std::string> pieces;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) pieces.push_back(std::move(current));
    current.clear();
  };
  for (const auto& block : serialized) {
    if (block.empty()) continue;
    if (!current.empty() && current.size() + 2 + block.size() > max_chars) flush();
    if (block.size() <= max_chars) {
      current += (current.empty() ? "" : "\n\n") + block;
      continue;
    }
    flush();
    std::string_view rest = block;
    while (!rest.empty()) {
      std::string_view part = agent::text::head(rest, max_chars);
      if (part.empty()) part = rest.substr(0, agent::text::ceil_boundary(rest, 1));  // one character
      pieces.emplace_back(part);
      rest.remove_prefix(part.size());
    }
  }
  flush();
  return pieces;
}

}  // namespace pincer::context
