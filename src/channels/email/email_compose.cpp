#include "channels/email/email_compose.h"

#include <sodium.h>

#include <cctype>
#include <ctime>

#include "delivery/markdown_html.h"

namespace pincer::channels::email {

namespace {

constexpr std::size_t kComposeLineLimit = 78;

bool compose_is_printable_ascii(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return s.find("=?") == std::string_view::npos;  // would read as an encoded word
}

std::string compose_one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += (c == '\r' || c == '\n' || c == '\t') ? ' ' : c;
  return out;
}

std::string compose_trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string compose_base64(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

/// Folds printable ASCII at spaces so that no line exceeds kComposeLineLimit (a word longer than
/// a line stays whole: RFC 5322 allows up to 998).
std::string compose_fold_ascii(std::string_view text, std::size_t used) {
  std::string out;
  std::size_t line = used;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t sp = text.find(' ', i + 1);
    if (sp == std::string_view::npos) sp = text.size();
    std::string_view word = text.substr(i, sp - i);  // starts with the space before it (except the first)
    if (line + word.size() > kComposeLineLimit && !out.empty() && word.front() == ' ') {
      out += "\r\n";
      line = 0;
    }
    out += word;
    line += word.size();
    i = sp;
  }
  return out;
}

/// Length of the UTF-8 sequence starting with `lead` (1 for a stray continuation byte).
std::size_t compose_utf8_len(unsigned char lead) {
  if (lead >= 0xf0 && lead < 0xf8) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

}  // namespace

std::string reply_subject(std::string_view thread_subject) {
  std::string subject = compose_trim(compose_one_line(thread_subject));
  if (subject.empty()) return "Re: (no subject)";
  if (subject.size() >= 3 && subject[2] == ':') {
    std::string prefix{static_cast<char>(std::tolower(static_cast<unsigned char>(subject[0]))),
                       static_cast<char>(std::tolower(static_cast<unsigned char>(subject[1])))};
    if (prefix == "re" || prefix == "aw" || prefix == "sv") return subject;
  }
  return "Re: " + subject;
}

std::string encode_header_text(std::string_view text, std::size_t used) {
  const std::string line = compose_one_line(text);
  if (compose_is_printable_ascii(line)) return compose_fold_ascii(line, used);
  // Encoded words of at most 45 bytes each: "=?UTF-8?B?" + 60 base64 characters + "?=" = 72.
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t end = i;
    while (end < line.size()) {
      const std::size_t n = compose_utf8_len(static_cast<unsigned char>(line[end]));
      if (end + n - i > 45) break;
      end += std::min(n, line.size() - end);
    }
    if (end == i) end = std::min(line.size(), i + 1);
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + compose_base64(std::string_view(line).substr(i, end - i)) + "?=";
    i = end;
  }
  return out;
}

std::string format_mailbox(std::string_view name, std::string_view address) {
  const std::string clean = compose_trim(compose_one_line(name));
  const std::string addr = "<" + compose_one_line(address) + ">";
  if (clean.empty()) return addr;
  if (!compose_is_printable_ascii(clean)) return encode_header_text(clean, 6) + " " + addr;
  std::string quoted = "\"";
  for (char c : clean) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\" " + addr;
}

std::string quoted_printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t line = 0;
  auto put = [&](std::string_view piece) {
    if (line + piece.size() > 75) {  // leaves room for the soft break's "="
      out += "=\r\n";
      line = 0;
    }
    out += piece;
    line += piece.size();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;  // the LF writes the break
    if (c == '\n') {
      out += "\r\n";
      line = 0;
      continue;
    }
    const bool line_end = i + 1 == text.size() || text[i + 1] == '\n' ||
                          (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n');
    const bool literal = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !line_end);
    if (literal) {
      const char ch = static_cast<char>(c);
      put(std::string_view(&ch, 1));
    } else {
      const char enc[3] = {'=', kHex[c >> 4], kHex[c & 0xf]};
      put(std::string_view(enc, 3));
    }
  }
  return out;
}

std::string rfc5322_date(int64_t date_ms) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t secs = static_cast<std::time_t>(date_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday], tm.tm_mday,
                kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string address_domain(std::string_view address) {
  const std::size_t at = address.rfind('@');
  if (at == std::string_view::npos) return "";
  return std::string(address.substr(at + 1));
}

std::optional<std::string> address_problem(std::string_view address) {
  if (address.empty()) return "the address is empty";
  if (address.size() > 254) return "the address is longer than 254 characters";
  const std::size_t at = address.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == address.size()) {
    return "'" + std::string(address) + "' is not an address of the form name@domain";
  }
  for (unsigned char c : address) {
    if (c <= 0x20 || c == 0x7f || c == '<' || c == '>' || c == '"' || c == ',' || c == '(' || c == ')') {
      return "'" + compose_one_line(address) + "' holds a character an address may not have (space, <>, quotes, comma)";
    }
  }
  return std::nullopt;
}

std::string new_message_id(std::string_view domain) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  unsigned char bytes[26];
  randombytes_buf(bytes, sizeof bytes);
  std::string local;
  for (unsigned char b : bytes) local += kAlphabet[b & 31];
  bool usable = !domain.empty();
  for (unsigned char c : domain) {
    if (!(std::isalnum(c) || c == '.' || c == '-')) usable = false;
  }
  return "<" + local + "@" + (usable ? std::string(domain) : std::string("pincer.invalid")) + ">";
}

std::string compose_email(const OutgoingEmail& email, const std::string& message_id, int64_t date_ms) {
  const std::string boundary = "=_pincer_" + new_message_id("b").substr(1, 26);
  std::string m;
  m += "From: " + format_mailbox(email.from_name, email.from_address) + "\r\n";
  m += "To: " + format_mailbox("", email.to_address) + "\r\n";
  m += "Subject: " + encode_header_text(reply_subject(email.subject), 9) + "\r\n";
  m += "Date: " + rfc5322_date(date_ms) + "\r\n";
  m += "Message-ID: " + compose_one_line(message_id) + "\r\n";
  if (!email.in_reply_to.empty()) m += "In-Reply-To: " + compose_one_line(email.in_reply_to) + "\r\n";
  if (!email.references.empty()) {
    m += "References:";
    for (const auto& id : email.references) m += " " + compose_one_line(id) + "\r\n";  // one id per line
  }
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: multipart/alternative;\r\n boundary=\"" + boundary + "\"\r\n";
  m += "\r\n";
  // Each delimiter "\r\n--boundary" owns the CRLF before it (RFC 2046 §5.1.1): the parts' text
  // ends exactly where the Markdown ends.
  m += "This is a message in MIME format: a plain text part and an HTML part.";
  m += "\r\n--" + boundary + "\r\n";
  m += "Content-Type: text/plain; charset=utf-8\r\n";
  m += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  m += quoted_printable(email.markdown);
  m += "\r\n--" + boundary + "\r\n";
  m += "Content-Type: text/html; charset=utf-8\r\n";
  m += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  const std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n" +
                           delivery::markdown_to_matrix_html(email.markdown) + "\n</body></html>\n";
  m += quoted_printable(html);
  m += "\r\n--" + boundary + "--\r\n";
  return m;
}

}  // namespace pincer::channels::email
