#include "channels/irc/irc_protocol.h"

#include <algorithm>

namespace pincer::channels::irc {
namespace {

bool is_space(char c) { return c == ' '; }

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/// Bytes of the UTF-8 character at s[i]: 2..4 for a valid sequence (no overlongs, surrogates or
/// values above U+10FFFF), else 1 (an invalid byte is a character of its own).
std::size_t char_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t len = 1;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) len = 3;
  else if (c >= 0xF0 && c <= 0xF4) len = 4;
  if (len == 1 || i + len > s.size()) return 1;
  for (std::size_t k = 1; k < len; ++k) {
    if (!is_continuation(b(k))) return 1;
  }
  if (c == 0xE0 && b(1) < 0xA0) return 1;  // overlong
  if (c == 0xED && b(1) > 0x9F) return 1;  // surrogate
  if (c == 0xF0 && b(1) < 0x90) return 1;  // overlong
  if (c == 0xF4 && b(1) > 0x8F) return 1;  // above U+10FFFF
  return len;
}

/// The longest prefix of `s` of at most `budget` bytes that ends on a character boundary.
std::size_t boundary_at_most(std::string_view s, std::size_t budget) {
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = char_length(s, i);
    if (i + len > budget) break;
    i += len;
  }
  return i;
}

std::string unescape_tag_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '\\') {
      out += v[i];
      continue;
    }
    if (++i == v.size()) break;  // a lone trailing backslash is dropped
    switch (v[i]) {
      case ':': out += ';'; break;
      case 's': out += ' '; break;
      case 'r': out += '\r'; break;
      case 'n': out += '\n'; break;
      default: out += v[i]; break;  // "\\" → "\", unknown "\x" → "x"
    }
  }
  return out;
}

void parse_tags(std::string_view raw, std::vector<std::pair<std::string, std::string>>& out) {
  while (!raw.empty()) {
    const std::size_t semi = raw.find(';');
    const std::string_view tag = raw.substr(0, semi);
    raw = semi == std::string_view::npos ? std::string_view() : raw.substr(semi + 1);
    if (tag.empty()) continue;
    const std::size_t eq = tag.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back(std::string(tag), "");
    } else {
      out.emplace_back(std::string(tag.substr(0, eq)), unescape_tag_value(tag.substr(eq + 1)));
    }
  }
}

bool valid_command(std::string_view c) {
  if (c.empty()) return false;
  if (std::all_of(c.begin(), c.end(), [](char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'); })) return true;
  return c.size() == 3 && std::all_of(c.begin(), c.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool has_line_break_or_nul(std::string_view s) { return s.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos; }

char fold(char c, CaseMapping m) {
  if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  if (m == CaseMapping::Ascii) return c;
  switch (c) {
    case '[': return '{';
    case ']': return '}';
    case '\\': return '|';
    case '~': return m == CaseMapping::Rfc1459 ? '^' : c;
    default: return c;
  }
}

/// Length of the address at the start of lowered `text` ("nick:" "nick," "@nick"), 0 if none.
/// Counts the name and its '@' only, not the punctuation or spaces after it.
std::size_t address_length(std::string_view lt, std::string_view ln) {
  if (lt.starts_with('@') && lt.substr(1).starts_with(ln)) {
    const std::size_t end = 1 + ln.size();
    if (end == lt.size() || !is_nick_char(lt[end])) return end;
    return 0;
  }
  if (lt.starts_with(ln) && lt.size() > ln.size() && (lt[ln.size()] == ':' || lt[ln.size()] == ',')) {
    const std::size_t after = ln.size() + 1;
    if (after == lt.size() || lt[after] == ' ' || lt[after] == '\t') return ln.size();
  }
  return 0;
}

}  // namespace

std::size_t privmsg_text_budget(std::string_view target) {
  if (target.empty() || target.size() > kMaxTargetBytes) return 0;
  return kMaxLineBytes - kRelayOverheadBytes - target.size();
}

Prefix parse_prefix(std::string_view prefix) {
  Prefix p;
  const std::size_t bang = prefix.find('!');
  const std::size_t at = prefix.find('@', bang == std::string_view::npos ? 0 : bang);
  const std::size_t nick_end = std::min(bang, at);
  p.nick = std::string(prefix.substr(0, nick_end));
  if (bang != std::string_view::npos) {
    p.user = std::string(prefix.substr(bang + 1, at == std::string_view::npos ? std::string_view::npos : at - bang - 1));
  }
  if (at != std::string_view::npos) p.host = std::string(prefix.substr(at + 1));
  return p;
}

std::optional<std::string> Message::tag(std::string_view key) const {
  for (const auto& [k, v] : tags) {
    if (k == key) return v;
  }
  return std::nullopt;
}

const std::string& Message::param(std::size_t i) const {
  static const std::string empty;
  return i < params.size() ? params[i] : empty;
}

std::optional<Message> parse_line(std::string_view s) {
  if (s.ends_with('\n')) s.remove_suffix(1);
  if (s.ends_with('\r')) s.remove_suffix(1);
  if (s.size() > kMaxInboundLineBytes || has_line_break_or_nul(s)) return std::nullopt;
  Message m;
  std::size_t pos = 0;
  const auto skip_spaces = [&] {
    while (pos < s.size() && is_space(s[pos])) ++pos;
  };
  const auto word = [&] {
    const std::size_t end = std::min(s.find(' ', pos), s.size());
    const std::string_view w = s.substr(pos, end - pos);
    pos = end;
    return w;
  };
  skip_spaces();
  if (pos < s.size() && s[pos] == '@') {
    ++pos;
    const std::string_view tags = word();
    if (pos >= s.size()) return std::nullopt;  // tags and nothing else
    parse_tags(tags, m.tags);
    skip_spaces();
  }
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    m.prefix = std::string(word());
    if (m.prefix.empty()) return std::nullopt;
    skip_spaces();
  }
  const std::string_view command = word();
  if (command.empty()) return std::nullopt;
  m.command.reserve(command.size());
  for (char c : command) m.command += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  for (;;) {
    skip_spaces();
    if (pos >= s.size()) break;
    if (s[pos] == ':') {
      m.params.emplace_back(s.substr(pos + 1));
      m.has_trailing = true;
      break;
    }
    m.params.emplace_back(word());
  }
  return m;
}

std::optional<std::string> build_line(std::string_view command, const std::vector<std::string>& params) {
  if (!valid_command(command)) return std::nullopt;
  std::string line(command);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string& p = params[i];
    if (has_line_break_or_nul(p)) return std::nullopt;
    const bool needs_trailing = p.empty() || p.find(' ') != std::string::npos || p.front() == ':';
    line += ' ';
    if (needs_trailing) {
      if (i + 1 != params.size()) return std::nullopt;
      line += ':';
    }
    line += p;
  }
  line += "\r\n";
  if (line.size() > kMaxLineBytes) return std::nullopt;
  return line;
}

CtcpText parse_ctcp(std::string_view body) {
  if (body.empty() || body.front() != '\x01') return {CtcpText::Kind::None, std::string(body)};
  body.remove_prefix(1);
  if (body.ends_with('\x01')) body.remove_suffix(1);
  if (body == "ACTION") return {CtcpText::Kind::Action, ""};
  if (body.starts_with("ACTION ")) return {CtcpText::Kind::Action, std::string(body.substr(7))};
  return {CtcpText::Kind::Other, std::string(body)};
}

std::string sanitize_outbound(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;  // CR LF → the LF below
      out += '\n';
    } else if (c == '\n') {
      out += '\n';
    } else if (c == '\t') {
      out += ' ';
    } else if (c >= 0x20 && c != 0x7F) {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::vector<std::string> split_privmsg(std::string_view text, std::string_view target) {
  std::vector<std::string> out;
  const std::size_t budget = privmsg_text_budget(target);
  if (budget == 0) return out;
  const std::string clean = sanitize_outbound(text);
  const auto emit = [&](std::string_view piece) {
    piece = trim_spaces(piece);
    if (!piece.empty()) out.emplace_back(piece);
  };
  std::string_view rest_of_text = clean;
  while (!rest_of_text.empty()) {
    const std::size_t nl = rest_of_text.find('\n');
    std::string_view line = rest_of_text.substr(0, nl);
    rest_of_text = nl == std::string_view::npos ? std::string_view() : rest_of_text.substr(nl + 1);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    while (line.size() > budget) {
      std::size_t cut = line.rfind(' ', budget);  // the piece before it is at most `budget` bytes
      if (cut == std::string_view::npos || cut < budget / 2) cut = boundary_at_most(line, budget);
      emit(line.substr(0, cut));
      line.remove_prefix(cut);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    }
    emit(line);
  }
  return out;
}

std::optional<CaseMapping> parse_casemapping(std::string_view name) {
  if (name == "rfc1459") return CaseMapping::Rfc1459;
  if (name == "strict-rfc1459") return CaseMapping::StrictRfc1459;
  if (name == "ascii") return CaseMapping::Ascii;
  return std::nullopt;
}

std::string irc_lower(std::string_view s, CaseMapping mapping) {
  std::string out(s);
  for (char& c : out) c = fold(c, mapping);
  return out;
}

bool irc_equal(std::string_view a, std::string_view b, CaseMapping mapping) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (fold(a[i], mapping) != fold(b[i], mapping)) return false;
  }
  return true;
}

bool is_nick_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-[]\\`_^{|}").find(c) != std::string_view::npos;
}

bool mentions_nick(std::string_view text, std::string_view nick, CaseMapping mapping) {
  if (nick.empty()) return false;
  const std::string lt = irc_lower(text, mapping);
  const std::string ln = irc_lower(nick, mapping);
  for (std::size_t pos = lt.find(ln); pos != std::string::npos; pos = lt.find(ln, pos + 1)) {
    if (pos > 0 && lt[pos - 1] == '@') {  // "@nick", but not "user@nick"
      const bool word_start = pos == 1 || !is_nick_char(lt[pos - 2]);
      if (word_start && address_length(std::string_view(lt).substr(pos - 1), ln) != 0) return true;
      continue;
    }
    if (pos > 0 && is_nick_char(lt[pos - 1])) continue;
    if (address_length(std::string_view(lt).substr(pos), ln) != 0) return true;
  }
  return false;
}

std::string strip_address(std::string_view text, std::string_view nick, CaseMapping mapping) {
  if (nick.empty()) return std::string(text);
  const std::size_t len = address_length(irc_lower(text, mapping), irc_lower(nick, mapping));
  if (len == 0) return std::string(text);
  std::string_view rest = text.substr(len);
  if (!rest.empty() && (rest.front() == ':' || rest.front() == ',')) rest.remove_prefix(1);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  return std::string(rest);
}

bool is_channel_name(std::string_view target, std::string_view chantypes) {
  return !target.empty() && chantypes.find(target.front()) != std::string_view::npos;
}

}  // namespace pincer::channels::irc
