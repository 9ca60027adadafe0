// libFuzzer target for the IRC wire format (src/channels/irc/irc_protocol.h): what a hostile
// server can send, and what a reply can contain.
//
// Input: byte 0 → the target's length for the splitter (0..255; over 200 is refused), byte 1 →
// where the nick for mention checks ends (0..31 bytes of the rest); the rest is the line / text.
//
// Checked on every input:
// - parse_line never crashes; a parsed line has a command, no NUL/CR/LF anywhere, no space in a
//   middle parameter; building it again (when build_line accepts it) parses back to the same
//   command and parameters;
// - parse_prefix / parse_ctcp / mentions_nick / strip_address never crash; strip_address returns
//   a suffix of its input;
// - split_privmsg: no line for a refused target; otherwise every line is non-empty, within
//   privmsg_text_budget(target) (so the relayed line fits 512 bytes), free of NUL, CR, LF and
//   \x01, without spaces at either end, valid UTF-8 whenever the text is, and the lines hold
//   exactly the sanitized text's non-space bytes, in order.
//
// The fuzz targets link pincer_gateway only (fuzz/CMakeLists.txt), not pincer_channels, so the
// pure IRC sources are compiled into this target directly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../src/channels/irc/irc_protocol.cpp"  // NOLINT(bugprone-suspicious-include)

namespace {

using namespace pincer::channels::irc;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool has_break(std::string_view s) { return s.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos; }

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = char_length(s, i);  // from irc_protocol.cpp
    if (len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) return false;
    i += len;
  }
  return true;
}

std::string without(std::string_view s, std::string_view drop) {
  std::string out;
  for (char c : s) {
    if (drop.find(c) == std::string_view::npos) out += c;
  }
  return out;
}

void check_parser(std::string_view line) {
  auto m = parse_line(line);
  if (!m) return;
  check(!m->command.empty());
  check(!has_break(m->prefix) && !has_break(m->command));
  for (std::size_t i = 0; i < m->params.size(); ++i) {
    check(!has_break(m->params[i]));
    const bool last = i + 1 == m->params.size();
    if (!(last && m->has_trailing)) check(m->params[i].find(' ') == std::string::npos && !m->params[i].empty());
  }
  const Prefix p = parse_prefix(m->prefix);
  check(p.nick.size() + p.user.size() + p.host.size() <= m->prefix.size());
  if (auto rebuilt = build_line(m->command, m->params)) {
    auto again = parse_line(*rebuilt);
    check(again.has_value());
    check(again->command == m->command);
    check(again->params == m->params);
  }
  if (!m->params.empty()) (void)parse_ctcp(m->params.back());
}

void check_splitter(std::string_view text, std::size_t target_len) {
  const std::string target(target_len, '#');
  const auto lines = split_privmsg(text, target);
  const std::size_t budget = privmsg_text_budget(target);
  if (budget == 0) {
    check(lines.empty());
    return;
  }
  const bool utf8 = valid_utf8(text);
  std::string joined;
  for (const std::string& l : lines) {
    check(!l.empty() && l.size() <= budget);
    check(kRelayOverheadBytes + target.size() + l.size() <= kMaxLineBytes);
    check(l.find_first_of(std::string_view("\0\r\n\x01", 4)) == std::string::npos);
    check(l.front() != ' ' && l.back() != ' ');
    if (utf8) check(valid_utf8(l));
    joined += l;
  }
  check(without(joined, " ") == without(sanitize_outbound(text), " \n"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::size_t target_len = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  check_parser(rest);
  check_splitter(rest, target_len);
  const std::string_view nick = rest.substr(0, std::min<std::size_t>(data[1] % 32, rest.size()));
  const std::string_view text = rest.substr(nick.size());
  (void)mentions_nick(text, nick);
  const std::string stripped = strip_address(text, nick);
  check(stripped.size() <= text.size() && text.ends_with(stripped));
  return 0;
}
