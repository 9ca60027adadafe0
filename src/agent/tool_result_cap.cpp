// Tool-result cap (CX-8). See tool_result_cap.h for the formula and the cutting rules.
#include "agent/tool_result_cap.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "agent/text_cut.h"

namespace pincer::agent {
namespace {

// How much of the end of a text has_important_tail() looks at.
constexpr std::size_t kTailScanChars = 2'000;
// Largest tail kept next to the head.
constexpr std::size_t kMaxTailChars = 4'000;

std::string closing_note(std::size_t kept, std::size_t total) {
  return "\n\n[Output truncated: kept " + std::to_string(kept) + " of " + std::to_string(total) +
         " chars. Re-run with a narrower command or read the rest in smaller parts if you need "
         "more.]";
}

std::string omission_marker(std::size_t omitted) {
  return "\n\n[... " + std::to_string(omitted) + " chars omitted; showing the start and the end ...]\n\n";
}

// The end of a head of `limit` chars: the last newline when it lies in the last 20 % of the head.
std::size_t head_cut(std::string_view s, std::size_t limit) {
  limit = text::floor_boundary(s, limit);
  if (limit == 0) return 0;
  std::size_t nl = s.rfind('\n', limit - 1);
  if (nl != std::string_view::npos && static_cast<double>(nl) > static_cast<double>(limit) * 0.8) return nl;
  return limit;
}

// The start of a tail of `limit` chars: just after the next newline when it lies in the first
// 20 % of the tail.
std::size_t tail_start(std::string_view s, std::size_t limit) {
  std::size_t start = text::ceil_boundary(s, s.size() - std::min(limit, s.size()));
  std::size_t nl = s.find('\n', start);
  if (nl != std::string_view::npos && static_cast<double>(nl) < static_cast<double>(start) + limit * 0.2) {
    return nl + 1;
  }
  return start;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whole-word (or whole-phrase) occurrence of `word` in the lowercase `hay`.
bool contains_word(std::string_view hay, std::string_view word) {
  for (std::size_t pos = hay.find(word); pos != std::string_view::npos; pos = hay.find(word, pos + 1)) {
    bool left = pos == 0 || !is_word_char(hay[pos - 1]);
    std::size_t end = pos + word.size();
    bool right = end == hay.size() || !is_word_char(hay[end]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace

std::size_t tool_result_cap_chars(std::int64_t context_tokens) {
  if (context_tokens <= 0) return kToolResultMaxChars;
  const auto share = static_cast<std::int64_t>(std::floor(static_cast<double>(context_tokens) * kToolResultContextShare));
  const std::int64_t chars = share * kCharsPerToken;
  const auto capped = static_cast<std::size_t>(std::min<std::int64_t>(chars, kToolResultMaxChars));
  return std::max(capped, kToolResultMinKeepChars);
}

bool has_important_tail(std::string_view text) {
  std::string end(text::tail(text, kTailScanChars));
  for (char& c : end) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::string_view, 15> kWords = {
      "error", "exception", "failed", "fatal", "traceback", "panic", "stack trace", "errno",
      "exit code", "total", "summary", "result", "complete", "finished", "done"};
  for (std::string_view w : kWords) {
    if (contains_word(end, w)) return true;
  }
  std::string_view trimmed = text::trim_end(end);
  return !trimmed.empty() && trimmed.back() == '}';
}

CappedText cap_text(std::string_view text, std::size_t max_chars) {
  const std::size_t total = text.size();
  max_chars = std::max(max_chars, kToolResultMinKeepChars);
  if (total <= max_chars) return CappedText{std::string(text), false, total};

  // Reserve room for the notes with counts as long as they can get (never longer than `total`).
  const std::size_t note_room = closing_note(total, total).size();
  const std::size_t budget =
      std::max(kToolResultMinKeepChars, max_chars > note_room ? max_chars - note_room : 0);

  std::string out;
  std::size_t kept = 0;
  if (has_important_tail(text) && budget > 2 * kToolResultMinKeepChars) {
    const std::size_t tail_budget = std::min(budget * 3 / 10, kMaxTailChars);
    const std::size_t marker_room = omission_marker(total).size();
    const std::size_t head_budget = budget - tail_budget - std::min(marker_room, budget - tail_budget);
    if (head_budget > kToolResultMinKeepChars) {
      const std::size_t head_end = head_cut(text, head_budget);
      const std::size_t tail_begin = std::max(tail_start(text, tail_budget), head_end);
      out.reserve(max_chars);
      out.append(text.substr(0, head_end));
      out += omission_marker(tail_begin - head_end);
      out.append(text.substr(tail_begin));
      kept = head_end + (total - tail_begin);
      out += closing_note(kept, total);
      return CappedText{std::move(out), true, total};
    }
  }
  const std::size_t head_end = head_cut(text, budget);
  out.reserve(head_end + note_room);
  out.append(text.substr(0, head_end));
  kept = head_end;
  out += closing_note(kept, total);
  return CappedText{std::move(out), true, total};
}

CappedText cap_tool_result(std::string_view text, std::int64_t context_tokens) {
  return cap_text(text, tool_result_cap_chars(context_tokens));
}

}  // namespace pincer::agent
