// Auto-capture triggers, filter and categories (SPEC MM-3); see capture.h.
#include "memory/capture.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include "core/redact.h"
#include "core/utf8.h"

namespace pincer::memory {

namespace {

using std::regex;
constexpr auto kFlags = std::regex::ECMAScript | std::regex::icase;

bool has_any(std::string_view text, std::initializer_list<std::string_view> words) {
  for (auto w : words) {
    if (text.find(w) != std::string_view::npos) return true;
  }
  return false;
}

bool search(std::string_view text, const regex& re) { return std::regex_search(text.begin(), text.end(), re); }

const regex& trigger_re() {
  // "like"/"love" only as a verb of the speaker ("I like …"): "what is the weather like" is not one.
  static const regex re(R"(\b(remember|prefer|prefers|preferred|hate|hates|decided|always|never|important)\b)"
                        R"(|\b(i|we)\s+(really\s+|do\s+|don't\s+|do\s+not\s+)?(like|love|enjoy)\b)"
                        R"(|\bmy\s+\w+(\s+\w+)?\s+(is|are)\b|\bis\s+my\b)",
                        kFlags);
  return re;
}
/// Whether `text` contains (ASCII case-insensitively) a word every alternative of trigger_re()
/// needs: a necessary condition, checked before that regex (slow in libstdc++: ~0.1 M
/// instructions for a short message) runs on every user message.
bool could_trigger(std::string_view text) {
  static constexpr std::string_view kWords[] = {"remember", "prefer", "hate", "decided", "always", "never",
                                                "important", "like",   "love", "enjoy",   "my"};
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : kWords) {
    if (lower.find(w) != std::string::npos) return true;
  }
  return false;
}

const regex& phone_re() {
  static const regex re(R"((\+?\d[\d\s().-]{8,}\d))", kFlags);
  return re;
}
const regex& email_re() {
  static const regex re(R"([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})", kFlags);
  return re;
}

// Ten or more digits in one phone-like run (spaces, dots, dashes and brackets between them).
bool has_phone(std::string_view text) {
  for (auto it = std::cregex_iterator(text.begin(), text.end(), phone_re()); it != std::cregex_iterator(); ++it) {
    std::size_t digits = 0;
    for (char c : it->str()) digits += c >= '0' && c <= '9';
    if (digits >= 10) return true;
  }
  return false;
}

std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::size_t emoji_count(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto cp = utf8::decode_at(text, i);
    if ((cp.cp >= 0x1F300 && cp.cp <= 0x1FAFF) || (cp.cp >= 0x2600 && cp.cp <= 0x27BF)) ++n;
    i += cp.len > 0 ? cp.len : 1;
  }
  return n;
}

// Text an agent wrote rather than a person: Markdown structure or many emoji.
bool looks_generated(std::string_view text) {
  if (text.find("```") != std::string_view::npos) return true;
  if (text.find("**") != std::string_view::npos && text.find("\n-") != std::string_view::npos) return true;
  static const regex heading(R"((^|\n)#{1,6}\s)", kFlags);
  if (search(text, heading)) return true;
  return emoji_count(text) > 3;
}

// A question asks for a fact rather than stating one ("what is my name?", "Do I like tea"): it
// ends with a question mark, or its first word is an interrogative or an auxiliary that opens a
// question. A request to remember put politely ("could you remember that …?") is not one.
bool looks_like_question(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  static const regex request(R"(^(please\s+)?(can|could|would|will)\s+you\s+(please\s+)?(remember|note|keep\s+in\s+mind)\b)",
                             kFlags);
  if (search(t, request)) return false;
  if (!t.empty() && t.back() == '?') return true;
  for (std::string_view mark : {"？", "吗", "呢"}) {
    if (t.size() >= mark.size() && t.substr(t.size() - mark.size()) == mark) return true;
  }
  static const regex opener(R"(^(what|who|whom|whose|where|when|why|how|which|is|are|am|was|were|do|does|did|can|could|)"
                            R"(would|should|will|shall|may|have|has|had)\b)",
                            kFlags);
  return search(t, opener);
}

}  // namespace

CaptureSettings capture_settings(const nlohmann::json& config) {
  CaptureSettings out;
  if (!config.is_object() || !config.contains("memory") || !config["memory"].is_object()) return out;
  const auto& m = config["memory"];
  if (!m.contains("capture") || !m["capture"].is_object()) return out;
  const auto& c = m["capture"];
  if (c.contains("enabled") && c["enabled"].is_boolean()) out.enabled = c["enabled"].get<bool>();
  if (c.contains("maxChars") && c["maxChars"].is_number_integer() && c["maxChars"].get<int64_t>() > 10) {
    out.max_chars = static_cast<std::size_t>(c["maxChars"].get<int64_t>());
  }
  return out;
}

bool looks_like_injection(std::string_view text) {
  static const regex patterns[] = {
      regex(R"(\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|your)\s+)"
            R"((instructions|rules|prompts?|messages?)\b)", kFlags),
      regex(R"(\bdo\s+not\s+follow\s+(the\s+)?(system|developer)\b)", kFlags),
      regex(R"(\b(system|developer)\s+(prompt|message)\b)", kFlags),
      regex(R"(<\s*/?\s*(system|assistant|developer|tool|function|relevant-memories)\b)", kFlags),
      regex(R"(\b(run|execute|call|invoke)\b.{0,40}\b(tool|command)\b)", kFlags),
  };
  for (const auto& re : patterns) {
    if (search(text, re)) return true;
  }
  return has_any(text, {"忽略之前的指令", "忽略以上", "系统提示"});
}

std::optional<std::string> capture_category(std::string_view text, std::size_t max_chars) {
  const std::size_t len = code_points(text);
  if (len <= 10 || len >= max_chars) return std::nullopt;
  if (!utf8::is_valid(text)) return std::nullopt;
  // The trigger first: most messages have none, and the checks below are several regex passes
  // (this runs on every user message). The regexes only run where they can match.
  const bool phone = std::count_if(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) >= 10 &&
                     has_phone(text);
  const bool email = text.find('@') != std::string_view::npos && search(text, email_re());
  const bool cjk = has_any(text, {"记住", "记下", "我喜欢", "我偏好", "决定", "重要"});
  if (!phone && !email && !cjk && !(could_trigger(text) && search(text, trigger_re()))) return std::nullopt;
  if (looks_like_question(text)) return std::nullopt;  // a question states nothing to remember
  if (looks_like_injection(text) || looks_generated(text)) return std::nullopt;
  // A credential (API key, token, password field) is never written to a note: notes are quoted
  // into every new session's prompt (CX-2) and indexed for search.
  if (redact::apply(text) != text) return std::nullopt;

  static const regex preference(
      R"(\b(prefer|prefers|preferred|hate|hates|favou?rite)\b|\b(i|we)\s+(really\s+|do\s+|don't\s+|do\s+not\s+)?)"
      R"((like|love|enjoy|want)\b)",
      kFlags);
  static const regex decision(R"(\b(decided|decide|we will use|we'll use|going with)\b)", kFlags);
  static const regex entity(R"(\bis\s+called\b|\bmy\s+\w+(\s+\w+)?\s+(is|are)\b|\bis\s+my\b)", kFlags);
  static const regex fact(R"(\b(is|are|has|have|was|were)\b)", kFlags);
  if (has_any(text, {"我喜欢", "我偏好", "喜欢", "讨厌"}) || search(text, preference)) return "preference";
  if (has_any(text, {"决定"}) || search(text, decision)) return "decision";
  if (phone || email || search(text, entity)) return "entity";
  if (search(text, fact) || has_any(text, {"是", "有"})) return "fact";
  return "other";
}

std::string strip_terminal_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const std::size_t n = text.size();
  const auto byte = [&](std::size_t i) -> unsigned { return i < n ? static_cast<unsigned char>(text[i]) : 0u; };
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = byte(i);
    unsigned kind = 0;  // the byte after ESC; a C1 control 0xC2 0x80..0x9F stands for ESC (byte − 0x40)
    if (c == 0x1b) {
      kind = byte(i + 1);
      i += kind >= 0x20 && kind < 0x7f ? 2 : 1;  // ESC before a control or a non-ASCII byte: ESC alone
    } else if (c == 0xc2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9f) {
      kind = byte(i + 1) - 0x40;
      i += 2;
    } else {
      if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t' || c == '\r') out += static_cast<char>(c);
      ++i;  // BEL, backspace, NUL, DEL … are dropped
      continue;
    }
    if (kind == '[') {  // CSI: parameter and intermediate bytes 0x20..0x3F, then a final byte 0x40..0x7E
      while (i < n && byte(i) >= 0x20 && byte(i) <= 0x3f) ++i;
      if (i < n && byte(i) >= 0x40 && byte(i) <= 0x7e) ++i;
    } else if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {  // OSC, DCS …: to BEL or ST
      while (i < n && byte(i) != 0x07 && byte(i) != 0x1b && !(byte(i) == 0xc2 && byte(i + 1) == 0x9c)) ++i;
      if (byte(i) == 0x07) ++i;
      else if (byte(i) == 0x1b && byte(i + 1) == '\\') i += 2;
      else if (byte(i) == 0xc2) i += 2;
    }
    // Any other kind (ESC 7, ESC c …, a lone C1 control) is gone already.
  }
  return out;
}

std::string capture_line(std::string_view raw, std::string_view category, std::string_view hhmm) {
  const std::string text = strip_terminal_controls(raw);
  std::string one_line;
  one_line.reserve(text.size());
  bool space = false;
  for (char c : text) {
    const bool ws = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (ws) {
      space = !one_line.empty();
      continue;
    }
    if (space) one_line += ' ';
    space = false;
    one_line += c;
  }
  return "- " + std::string(hhmm) + " [" + std::string(category) + "] " + one_line;
}

}  // namespace pincer::memory
