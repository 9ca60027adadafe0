// The decoders of email_parse.h: charsets, RFC 2047 words, quoted-printable, base64, dates and
// addresses.
#include <iconv.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "channels/email/email_parse.h"
#include "core/civil_date.h"

namespace pincer::channels::email {

namespace detail_email_mime {

std::string mime_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void mime_append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// Valid UTF-8 of `s`: each byte of an invalid sequence becomes U+FFFD.
std::string mime_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (ok && ((len == 2 && cp < 0x80) || (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
               (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))) {
      ok = false;
    }
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

// windows-1252's 0x80..0x9F (0 = undefined).
constexpr uint16_t kMimeCp1252High[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                          0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                          0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                          0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

uint32_t mime_latin9(unsigned char c) {
  switch (c) {
    case 0xA4: return 0x20AC;
    case 0xA6: return 0x0160;
    case 0xA8: return 0x0161;
    case 0xB4: return 0x017D;
    case 0xB8: return 0x017E;
    case 0xBC: return 0x0152;
    case 0xBD: return 0x0153;
    case 0xBE: return 0x0178;
    default: return c;
  }
}

std::string mime_iconv(std::string_view bytes, const std::string& charset) {
  iconv_t cd = iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return mime_valid_utf8(bytes);
  std::string out;
  std::string in(bytes);
  char* inp = in.data();
  std::size_t inleft = in.size();
  char buf[4096];
  while (inleft > 0) {
    char* outp = buf;
    std::size_t outleft = sizeof buf;
    const std::size_t r = iconv(cd, &inp, &inleft, &outp, &outleft);
    out.append(buf, static_cast<std::size_t>(outp - buf));
    if (r == static_cast<std::size_t>(-1)) {
      if (errno == E2BIG) continue;
      out += "\xEF\xBF\xBD";  // an invalid or incomplete sequence: skip one byte
      ++inp;
      --inleft;
    }
  }
  iconv_close(cd);
  return mime_valid_utf8(out);
}

int mime_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/// One encoded word's text ("Q" form: "_" is a space).
std::string mime_decode_q_word(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      out.push_back(' ');
    } else if (s[i] == '=' && i + 2 < s.size() && mime_hex(s[i + 1]) >= 0 && mime_hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(mime_hex(s[i + 1]) * 16 + mime_hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace detail_email_mime

using namespace detail_email_mime;

std::string email_to_utf8(std::string_view bytes, std::string_view charset_in) {
  std::string cs = mime_lower(charset_in);
  if (const auto star = cs.find('*'); star != std::string::npos) cs.resize(star);  // RFC 2231 language
  if (cs.empty() || cs == "utf-8" || cs == "utf8" || cs == "us-ascii" || cs == "ascii" || cs == "unknown-8bit") {
    return mime_valid_utf8(bytes);
  }
  const bool latin1 = cs == "iso-8859-1" || cs == "latin1" || cs == "iso_8859-1" || cs == "l1";
  const bool cp1252 = cs == "windows-1252" || cs == "cp1252";
  const bool latin9 = cs == "iso-8859-15" || cs == "latin-9" || cs == "latin9";
  if (latin1 || cp1252 || latin9) {
    std::string out;
    out.reserve(bytes.size() + bytes.size() / 4);
    for (char ch : bytes) {
      const auto c = static_cast<unsigned char>(ch);
      uint32_t cp = c;
      // Mail labelled ISO-8859-1 is windows-1252 in practice (the WHATWG rule).
      if ((cp1252 || latin1) && c >= 0x80 && c < 0xA0) cp = kMimeCp1252High[c - 0x80] ? kMimeCp1252High[c - 0x80] : 0xFFFD;
      if (latin9) cp = mime_latin9(c);
      mime_append_utf8(out, cp);
    }
    return out;
  }
  return mime_iconv(bytes, cs);
}

std::string decode_rfc2047(std::string_view value) {
  std::string out;
  std::size_t i = 0;
  bool last_was_word = false;
  std::string pending_space;
  while (i < value.size()) {
    if (value.compare(i, 2, "=?") == 0) {
      // =?charset?enc?text?=
      const std::size_t q1 = value.find('?', i + 2);
      const std::size_t q2 = q1 == std::string_view::npos ? q1 : value.find('?', q1 + 1);
      const std::size_t end = q2 == std::string_view::npos ? q2 : value.find("?=", q2 + 1);
      if (end != std::string_view::npos && q2 == q1 + 2 && end - i < 1024) {
        const std::string_view charset = value.substr(i + 2, q1 - i - 2);
        const char enc = static_cast<char>(std::toupper(static_cast<unsigned char>(value[q1 + 1])));
        const std::string_view text = value.substr(q2 + 1, end - q2 - 1);
        if (enc == 'B' || enc == 'Q') {
          const std::string bytes = enc == 'B' ? decode_base64(text) : mime_decode_q_word(text);
          if (!last_was_word) out += pending_space;  // space between two words is dropped
          pending_space.clear();
          out += email_to_utf8(bytes, charset);
          last_was_word = true;
          i = end + 2;
          continue;
        }
      }
    }
    const char c = value[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      pending_space.push_back(c == '\t' || c == ' ' ? c : ' ');
      ++i;
      continue;
    }
    out += pending_space;
    pending_space.clear();
    last_was_word = false;
    out.push_back(c);
    ++i;
  }
  out += pending_space;
  return mime_valid_utf8(out);
}

std::string decode_quoted_printable(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '=') {
      out.push_back(c);
      continue;
    }
    if (i + 2 < body.size() && mime_hex(body[i + 1]) >= 0 && mime_hex(body[i + 2]) >= 0) {
      out.push_back(static_cast<char>(mime_hex(body[i + 1]) * 16 + mime_hex(body[i + 2])));
      i += 2;
      continue;
    }
    // A soft line break: "=" then optional spaces then (CR) LF.
    std::size_t j = i + 1;
    while (j < body.size() && (body[j] == ' ' || body[j] == '\t')) ++j;
    if (j < body.size() && body[j] == '\r') ++j;
    if (j < body.size() && body[j] == '\n') {
      i = j;
      continue;
    }
    if (j >= body.size()) break;
    out.push_back(c);  // a stray "=": kept
  }
  return out;
}

std::string decode_base64(std::string_view body) {
  std::string out;
  out.reserve(body.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : body) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+' || c == '-') v = 62;
    else if (c == '/' || c == '_') v = 63;
    else if (c == '=') break;
    else continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

int64_t parse_email_date(std::string_view value) {
  // [day ","] D Mon YYYY HH:MM[:SS] zone — tolerant of extra spaces and comments.
  std::vector<std::string> w;
  std::string cur;
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n') {
      if (!cur.empty()) w.push_back(std::move(cur));
      cur.clear();
      if (w.size() > 8) break;
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) w.push_back(cur);
  static const char* const kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  std::size_t k = 0;
  if (!w.empty() && !w[0].empty() && std::isalpha(static_cast<unsigned char>(w[0][0]))) k = 1;  // day name
  if (w.size() < k + 4) return 0;
  auto num = [](const std::string& s, int64_t& out) {
    if (s.empty() || s.size() > 4 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    out = std::stoll(s);
    return true;
  };
  int64_t day = 0, year = 0;
  if (!num(w[k], day) || day < 1 || day > 31) return 0;
  const std::string mon = mime_lower(w[k + 1].substr(0, 3));
  int month = 0;
  for (int m = 0; m < 12; ++m) {
    if (mon == kMonths[m]) month = m + 1;
  }
  if (month == 0 || !num(w[k + 2], year)) return 0;
  if (year < 50) year += 2000;
  else if (year < 1000) year += 1900;
  int64_t hh = 0, mm = 0, ss = 0;
  const std::string& t = w[k + 3];
  const std::size_t c1 = t.find(':');
  if (c1 == std::string::npos || !num(t.substr(0, c1), hh)) return 0;
  const std::size_t c2 = t.find(':', c1 + 1);
  if (!num(t.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1), mm)) return 0;
  if (c2 != std::string::npos && !num(t.substr(c2 + 1), ss)) return 0;
  if (hh > 23 || mm > 59 || ss > 60) return 0;
  int64_t offset_min = 0;
  if (w.size() > k + 4) {
    const std::string& z = w[k + 4];
    if ((z[0] == '+' || z[0] == '-') && z.size() == 5) {
      int64_t hhmm = 0;
      if (num(z.substr(1), hhmm)) offset_min = (hhmm / 100) * 60 + hhmm % 100;
      if (z[0] == '-') offset_min = -offset_min;
    } else {
      const std::string zl = mime_lower(z);
      if (zl == "est") offset_min = -300;
      else if (zl == "edt") offset_min = -240;
      else if (zl == "cst") offset_min = -360;
      else if (zl == "cdt") offset_min = -300;
      else if (zl == "mst") offset_min = -420;
      else if (zl == "mdt") offset_min = -360;
      else if (zl == "pst") offset_min = -480;
      else if (zl == "pdt") offset_min = -420;
    }
  }
  const int64_t days = civil::days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 86400) + hh * 3600 + mm * 60 + ss - offset_min * 60) * 1000;
}

std::pair<std::string, std::string> parse_email_address(std::string_view value) {
  std::string address, name;
  const std::size_t lt = value.rfind('<');
  const std::size_t gt = lt == std::string_view::npos ? lt : value.find('>', lt);
  if (lt != std::string_view::npos && gt != std::string_view::npos) {
    address = std::string(value.substr(lt + 1, gt - lt - 1));
    name = decode_rfc2047(value.substr(0, lt));
  } else {
    // "jane@example.org (Jane Doe)" or a bare address.
    std::string_view v = value;
    const std::size_t paren = v.find('(');
    if (paren != std::string_view::npos) {
      const std::size_t close = v.find(')', paren);
      name = decode_rfc2047(v.substr(paren + 1, close == std::string_view::npos ? std::string_view::npos : close - paren - 1));
      v = v.substr(0, paren);
    }
    address = std::string(v);
  }
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r\n\"");
    if (b == std::string::npos) return std::string();
    const auto e = s.find_last_not_of(" \t\r\n\"");
    return s.substr(b, e - b + 1);
  };
  address = mime_lower(trim(address));
  if (address.find('@') == std::string::npos || address.find_first_of(" ,;<>()") != std::string::npos) address.clear();
  std::string unescaped;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\\' && i + 1 < name.size()) ++i;
    unescaped.push_back(name[i]);
  }
  return {address, trim(unescaped)};
}

}  // namespace pincer::channels::email
