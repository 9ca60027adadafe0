#include "channels/email/email_parse.h"

#include <algorithm>
#include <cctype>

#include "agent/attachments.h"
#include "tools/web/web_fetch_core.h"

namespace pincer::channels::email {

namespace detail_email_parse {

constexpr std::size_t kEmailMaxBytes = 16u << 20;
constexpr int kEmailMaxDepth = 8;
constexpr int kEmailMaxParts = 200;
constexpr std::size_t kEmailMaxHeaders = 1000;

std::string eparse_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view eparse_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

/// One MIME entity: its headers (names lower-cased, values unfolded) and its raw body.
struct EmailEntity {
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;

  std::string header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return {};
  }
  bool has(std::string_view name) const {
    return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return h.first == name; });
  }
};

/// Splits headers from the body at the first empty line (LF or CR LF ends).
EmailEntity eparse_entity(std::string_view raw) {
  EmailEntity e;
  std::size_t pos = 0;
  std::string name, value;
  auto flush = [&] {
    if (!name.empty() && e.headers.size() < kEmailMaxHeaders) e.headers.emplace_back(eparse_lower(name), std::string(eparse_trim(value)));
    name.clear();
    value.clear();
  };
  while (pos < raw.size()) {
    std::size_t lf = raw.find('\n', pos);
    if (lf == std::string_view::npos) lf = raw.size();
    std::string_view line = raw.substr(pos, lf - pos);
    const std::size_t next = std::min(raw.size(), lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      pos = next;
      flush();
      e.body = raw.substr(pos);
      return e;
    }
    if ((line[0] == ' ' || line[0] == '\t') && !name.empty()) {
      value += ' ';
      value += eparse_trim(line);
    } else {
      flush();
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos && colon > 0) {
        name = std::string(eparse_trim(line.substr(0, colon)));
        value = std::string(line.substr(colon + 1));
      } else if (pos == 0 || name.empty()) {
        // Not a header (a body without headers, or an mbox "From " line): skipped.
      }
    }
    pos = next;
  }
  flush();
  e.body = raw.substr(raw.size());
  return e;
}

/// "text/plain; charset=UTF-8; format=flowed" → {"text/plain", {{"charset","UTF-8"}, …}}.
struct EmailContentType {
  std::string type = "text/plain";
  std::vector<std::pair<std::string, std::string>> params;
  std::string param(std::string_view key) const {
    for (const auto& [k, v] : params) {
      if (k == key) return v;
    }
    return {};
  }
};

EmailContentType eparse_content_type(std::string_view value) {
  EmailContentType ct;
  const std::size_t semi = value.find(';');
  const std::string type = eparse_lower(eparse_trim(value.substr(0, semi)));
  if (type.find('/') != std::string::npos) ct.type = type;
  std::size_t pos = semi;
  while (pos != std::string_view::npos && pos < value.size()) {
    ++pos;
    const std::size_t eq = value.find('=', pos);
    if (eq == std::string_view::npos) break;
    const std::string key = eparse_lower(eparse_trim(value.substr(pos, eq - pos)));
    std::size_t v = eq + 1;
    while (v < value.size() && value[v] == ' ') ++v;
    std::string val;
    if (v < value.size() && value[v] == '"') {
      ++v;
      while (v < value.size() && value[v] != '"') {
        if (value[v] == '\\' && v + 1 < value.size()) ++v;
        val.push_back(value[v++]);
      }
      pos = value.find(';', v);
    } else {
      pos = value.find(';', v);
      val = std::string(eparse_trim(value.substr(v, pos == std::string_view::npos ? std::string_view::npos : pos - v)));
    }
    ct.params.emplace_back(key, val);
  }
  return ct;
}

struct EmailBodies {
  std::vector<EmailAttachment> attachments;
  std::string plain;
  std::string html;
  bool has_plain = false;
  bool has_html = false;
  int parts = 0;
};

/// Whether `body` can be base64 at all: only its alphabet (or the URL-safe one), "=" and white
/// space. A part labelled base64 that is not (a broken sender) is read as it is, not decoded into
/// garbage.
bool eparse_is_base64(std::string_view body) {
  return std::all_of(body.begin(), body.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '-' ||
           c == '_' || c == '=' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
  });
}

/// A part's bytes after its Content-Transfer-Encoding.
std::string eparse_transfer_decoded(const EmailEntity& e) {
  const std::string cte = eparse_lower(eparse_trim(e.header("content-transfer-encoding")));
  if (cte == "quoted-printable") return decode_quoted_printable(e.body);
  if (cte == "base64" && eparse_is_base64(e.body)) return decode_base64(e.body);
  return std::string(e.body);
}

std::string eparse_decoded_body(const EmailEntity& e, const EmailContentType& ct) {
  return email_to_utf8(eparse_transfer_decoded(e), ct.param("charset"));
}

/// The file name of a part: Content-Disposition's filename=, else Content-Type's name=.
std::string eparse_filename(const EmailEntity& e, const EmailContentType& ct) {
  // Content-Disposition has Content-Type's parameter syntax: read it with the same parser.
  const EmailContentType disposition = eparse_content_type("x/" + e.header("content-disposition"));
  std::string name = disposition.param("filename");
  if (name.empty()) name = ct.param("name");
  return decode_rfc2047(name);
}

void eparse_add_attachment(const EmailEntity& e, const EmailContentType& ct, EmailBodies& out) {
  if (out.attachments.size() >= 50) return;
  // A signed mail's signature (multipart/signed) is not something the person sent to be read.
  if (ct.type == "application/pgp-signature" || ct.type == "application/pkcs7-signature" ||
      ct.type == "application/x-pkcs7-signature") {
    return;
  }
  EmailAttachment a;
  a.filename = eparse_filename(e, ct);
  // A MIME type is an ASCII token: anything else (hostile bytes) is not repeated to the model.
  const bool token = !ct.type.empty() && std::all_of(ct.type.begin(), ct.type.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '"' && c != '\\';
  });
  a.mime_type = token ? ct.type : "application/octet-stream";
  std::string decoded = eparse_transfer_decoded(e);
  a.bytes = decoded.size();
  if (a.bytes <= agent::kMaxAttachmentBytes) a.content = std::move(decoded);  // larger: only listed
  out.attachments.push_back(std::move(a));
}

void eparse_walk(const EmailEntity& e, int depth, EmailBodies& out) {
  if (++out.parts > kEmailMaxParts || depth > kEmailMaxDepth) return;
  const EmailContentType ct = eparse_content_type(e.header("content-type"));
  const std::string disposition = eparse_lower(e.header("content-disposition"));
  if (disposition.rfind("attachment", 0) == 0) return eparse_add_attachment(e, ct, out);
  if (ct.type.rfind("multipart/", 0) == 0) {
    const std::string boundary = ct.param("boundary");
    if (boundary.empty() || boundary.size() > 200) {
      // Not readable as parts (a broken sender): its body is the best guess at the text.
      if (!out.has_plain) {
        out.plain = email_to_utf8(std::string(e.body), ct.param("charset"));
        out.has_plain = true;
      }
      return;
    }
    const std::string delim = "--" + boundary;
    std::vector<std::string_view> parts;
    std::size_t pos = 0;
    std::size_t start = std::string_view::npos;
    const std::string_view body = e.body;
    while (pos <= body.size()) {
      std::size_t lf = body.find('\n', pos);
      if (lf == std::string_view::npos) lf = body.size();
      std::string_view line = body.substr(pos, lf - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.rfind(delim, 0) == 0) {
        const std::string_view after = eparse_trim(line.substr(delim.size()));
        if (start != std::string_view::npos) {
          // The part ends before the line break that precedes the delimiter.
          std::size_t end = pos;
          if (end > start && body[end - 1] == '\n') --end;
          if (end > start && body[end - 1] == '\r') --end;
          parts.push_back(body.substr(start, end - start));
        }
        if (after == "--") break;
        start = std::min(body.size(), lf + 1);
      }
      if (lf >= body.size()) {
        if (start != std::string_view::npos && start < body.size()) parts.push_back(body.substr(start));
        break;
      }
      pos = lf + 1;
    }
    const bool alternative = ct.type == "multipart/alternative";
    for (const auto& p : parts) {
      // mixed: the first text is the message; the later parts are read for their attachments only.
      const bool text_found = !alternative && out.has_plain;
      EmailBodies inner;
      inner.parts = out.parts;
      eparse_walk(eparse_entity(p), depth + 1, inner);
      out.parts = inner.parts;
      for (auto& a : inner.attachments) {
        if (out.attachments.size() < 50) out.attachments.push_back(std::move(a));
      }
      if (text_found) continue;
      if (inner.has_plain && !out.has_plain) {
        out.plain = std::move(inner.plain);
        out.has_plain = true;
      }
      if (inner.has_html && !out.has_html) {
        out.html = std::move(inner.html);
        out.has_html = true;
      }
    }
    return;
  }
  if (ct.type == "text/plain" && !out.has_plain) {
    out.plain = eparse_decoded_body(e, ct);
    out.has_plain = true;
  } else if (ct.type == "text/html" && !out.has_html) {
    out.html = eparse_decoded_body(e, ct);
    out.has_html = true;
  } else if (!ct.type.empty() && ct.type.rfind("text/", 0) != 0) {
    eparse_add_attachment(e, ct, out);  // an inline image, a file without a disposition …
  }
}

/// All "<…>" ids of a header value, in order.
std::vector<std::string> eparse_ids(std::string_view value) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (out.size() < 100) {
    const std::size_t lt = value.find('<', pos);
    if (lt == std::string_view::npos) break;
    const std::size_t gt = value.find('>', lt);
    if (gt == std::string_view::npos) break;
    std::string id(value.substr(lt, gt - lt + 1));
    id.erase(std::remove_if(id.begin(), id.end(), [](char c) { return c == ' ' || c == '\t'; }), id.end());
    if (id.size() > 2 && id.size() <= 998) out.push_back(std::move(id));
    pos = gt + 1;
  }
  return out;
}

std::string eparse_auto_generated(const EmailEntity& e, const ParsedEmail& m) {
  const std::string auto_submitted = eparse_lower(eparse_trim(e.header("auto-submitted")));
  if (!auto_submitted.empty() && auto_submitted != "no") return "Auto-Submitted: " + auto_submitted;
  const std::string precedence = eparse_lower(eparse_trim(e.header("precedence")));
  if (precedence == "bulk" || precedence == "list" || precedence == "junk" || precedence == "auto_reply") {
    return "Precedence: " + precedence;
  }
  if (e.has("list-id")) return "List-Id: " + e.header("list-id");
  if (e.has("x-autoreply") || e.has("x-autorespond")) return "an X-Autoreply header";
  const std::string local = m.from_address.substr(0, m.from_address.find('@'));
  if (local == "mailer-daemon" || local == "postmaster" || local.rfind("noreply", 0) == 0 || local.rfind("no-reply", 0) == 0) {
    return "sent by " + m.from_address;
  }
  if (eparse_content_type(e.header("content-type")).type == "multipart/report") return "a delivery report (multipart/report)";
  if (eparse_trim(e.header("return-path")) == "<>") return "an empty Return-Path (a bounce)";
  return {};
}

/// Lines of `text` (LF ends; CR dropped).
std::vector<std::string_view> eparse_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t lf = text.find('\n', pos);
    if (lf == std::string_view::npos) lf = text.size();
    std::string_view line = text.substr(pos, lf - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (lf == text.size()) break;
    pos = lf + 1;
  }
  return out;
}

bool eparse_starts_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && eparse_lower(s.substr(0, prefix.size())) == prefix;
}

/// An attribution line: ends with ":" and names the writing ("… wrote:", "… schrieb Bot <b@x>:"
/// and common translations).
bool eparse_is_attribution(std::string_view line) {
  const std::string l = eparse_lower(eparse_trim(line));
  if (l.empty() || l.back() != ':') return false;
  for (const char* w : {"wrote", "writes", "schrieb", "a écrit", "escribió", "scritto", "schreef", "skrev", "kirjoitti", "napisał"}) {
    if (l.find(w) != std::string::npos) return true;
  }
  return false;
}

/// Outlook's header block of a quoted message: "From: …" then, within 4 lines, "Sent:"/"Date:".
bool eparse_is_outlook_block(const std::vector<std::string_view>& lines, std::size_t i) {
  const std::string_view first = eparse_trim(lines[i]);
  if (!eparse_starts_ci(first, "from:") && !eparse_starts_ci(first, "von:") && !eparse_starts_ci(first, "de :") &&
      !eparse_starts_ci(first, "de:")) {
    return false;
  }
  for (std::size_t k = i + 1; k < lines.size() && k <= i + 4; ++k) {
    const std::string_view l = eparse_trim(lines[k]);
    if (eparse_starts_ci(l, "sent:") || eparse_starts_ci(l, "date:") || eparse_starts_ci(l, "gesendet:") ||
        eparse_starts_ci(l, "envoyé :") || eparse_starts_ci(l, "envoyé:")) {
      return true;
    }
  }
  return false;
}

}  // namespace detail_email_parse

using namespace detail_email_parse;

std::string ParsedEmail::thread_root() const {
  if (!references.empty()) return references.front();
  if (!in_reply_to.empty()) return in_reply_to;
  return message_id;
}

std::string strip_quoted(std::string_view text) {
  const std::vector<std::string_view> lines = eparse_lines(text);
  std::vector<std::string_view> kept;
  kept.reserve(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::string_view t = eparse_trim(line);
    if (line == "-- " || line == "--") break;  // signature
    if (t.size() >= 5 && t.find("original message") != std::string_view::npos && t.front() == '-') break;
    if (eparse_starts_ci(t, "-----original message-----") || eparse_starts_ci(t, "-----ursprüngliche nachricht-----")) break;
    if (t.size() >= 10 && t.find_first_not_of('_') == std::string_view::npos) {
      // Outlook's rule line before the quoted message's header block.
      std::size_t k = i + 1;
      while (k < lines.size() && eparse_trim(lines[k]).empty()) ++k;
      if (k < lines.size() && eparse_is_outlook_block(lines, k)) break;
    }
    if (eparse_is_outlook_block(lines, i) && (kept.empty() || eparse_trim(kept.back()).empty())) break;
    if (!t.empty() && t.front() == '>') {
      // A quote: drop it, and the attribution (one or two lines, blank lines between) before it.
      std::size_t back = kept.size();
      while (back > 0 && eparse_trim(kept[back - 1]).empty()) --back;
      if (back > 0 && eparse_is_attribution(kept[back - 1])) {
        --back;
        if (back > 0 && eparse_starts_ci(eparse_trim(kept[back - 1]), "on ") &&
            !eparse_starts_ci(eparse_trim(kept[back]), "on ")) {
          --back;  // "On Sun, Dec 6, 2026 at 1:43 AM Jane Doe <" / "jane@example.org> wrote:"
        }
        kept.resize(back);
      }
      continue;
    }
    kept.push_back(line);
  }
  // A trailing attribution whose quote was cut by a rule above.
  std::size_t end = kept.size();
  while (end > 0 && eparse_trim(kept[end - 1]).empty()) --end;
  if (end > 0 && eparse_is_attribution(kept[end - 1])) --end;
  std::size_t begin = 0;
  while (begin < end && eparse_trim(kept[begin]).empty()) ++begin;
  while (end > begin && eparse_trim(kept[end - 1]).empty()) --end;
  std::string out;
  int blanks = 0;
  for (std::size_t i = begin; i < end; ++i) {
    std::string_view l = kept[i];
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (l.empty()) {
      if (++blanks > 1) continue;
    } else {
      blanks = 0;
    }
    if (!out.empty()) out += '\n';
    out += l;
  }
  return out;
}

std::string email_html_to_text(std::string_view html) {
  const std::string lower = eparse_lower(html.substr(0, kEmailMaxBytes));
  std::size_t cut = lower.size();
  for (const char* marker : {"<div class=\"gmail_quote", "<blockquote", "<div id=\"appendonsend\"", "<div id=\"divrplyfwdmsg\"",
                             "<div class=\"moz-cite-prefix\"", "<hr id=\"stopspelling\"", "<div id=\"mail-editor-reference-message-container\""}) {
    cut = std::min(cut, lower.find(marker));
  }
  return tools::web::html_to_text(html.substr(0, cut)).text;
}

ParsedEmail parse_email(std::string_view raw) {
  raw = raw.substr(0, std::min(raw.size(), kEmailMaxBytes));
  const EmailEntity top = eparse_entity(raw);
  ParsedEmail m;
  const auto ids = eparse_ids(top.header("message-id"));
  if (!ids.empty()) m.message_id = ids.front();
  const auto reply_to = eparse_ids(top.header("in-reply-to"));
  if (!reply_to.empty()) m.in_reply_to = reply_to.front();
  m.references = eparse_ids(top.header("references"));
  std::tie(m.from_address, m.from_name) = parse_email_address(top.header("from"));
  std::string subject = decode_rfc2047(top.header("subject"));
  std::string collapsed;
  for (char c : subject) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (space && (collapsed.empty() || collapsed.back() == ' ')) continue;
    collapsed.push_back(space ? ' ' : c);
  }
  while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
  m.subject = std::move(collapsed);
  m.date_ms = parse_email_date(top.header("date"));
  EmailBodies bodies;
  eparse_walk(top, 0, bodies);
  if (bodies.has_plain && !eparse_trim(bodies.plain).empty()) {
    m.text = strip_quoted(bodies.plain);
  } else if (bodies.has_html) {
    m.text = strip_quoted(email_html_to_text(bodies.html));
    m.from_html = true;
  }
  m.attachments = std::move(bodies.attachments);
  m.auto_generated = eparse_auto_generated(top, m);
  return m;
}

}  // namespace pincer::channels::email
