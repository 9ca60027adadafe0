// The e-mail channel's outgoing message (src/channels/email/email_compose.h): the headers and the
// multipart/alternative body, decoded back (quoted-printable, RFC 2047 words) by the small
// decoder below; the pieces' exact wire forms; the Re: rule and address checks. The end-to-end
// test (tests/email_servers/email.test.mjs) parses what `pincer` sends with npm mailparser.
#include <gtest/gtest.h>
#include <sodium.h>

#include <map>

#include "channels/email/email_compose.h"

using namespace pincer::channels::email;

namespace {

std::string compose_test_qp_decode(const std::string& qp) {
  std::string out;
  for (std::size_t i = 0; i < qp.size(); ++i) {
    if (qp[i] == '=' && i + 2 < qp.size() && qp[i + 1] == '\r' && qp[i + 2] == '\n') {
      i += 2;
    } else if (qp[i] == '=' && i + 2 < qp.size()) {
      out += static_cast<char>(std::stoi(qp.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += qp[i];
    }
  }
  return out;
}

std::string compose_test_b64_decode(const std::string& b64) {
  std::string out(b64.size(), '\0');
  size_t len = 0;
  EXPECT_EQ(sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), b64.data(), b64.size(), nullptr,
                              &len, nullptr, sodium_base64_VARIANT_ORIGINAL),
            0);
  out.resize(len);
  return out;
}

/// Unfolds a header value and decodes its =?UTF-8?B?…?= words.
std::string compose_test_header_decode(std::string v) {
  std::string unfolded;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\r' && i + 1 < v.size() && v[i + 1] == '\n') {
      ++i;
      continue;
    }
    unfolded += v[i];
  }
  std::string out;
  std::size_t i = 0;
  while (i < unfolded.size()) {
    const std::size_t w = unfolded.find("=?UTF-8?B?", i);
    if (w == std::string::npos) {
      out += unfolded.substr(i);
      break;
    }
    std::string between = unfolded.substr(i, w - i);
    if (between.find_first_not_of(' ') != std::string::npos || i == 0) out += between;  // space between words drops
    const std::size_t e = unfolded.find("?=", w + 10);
    out += compose_test_b64_decode(unfolded.substr(w + 10, e - w - 10));
    i = e + 2;
  }
  return out;
}

struct ComposeTestParsed {
  std::map<std::string, std::string> headers;  // raw values (folded)
  std::string plain, html;                     // decoded bodies
  std::string plain_type, html_type;
};

ComposeTestParsed compose_test_parse(const std::string& msg) {
  ComposeTestParsed p;
  const std::size_t end = msg.find("\r\n\r\n");
  std::string head = msg.substr(0, end + 2);
  std::string name;
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t nl = head.find("\r\n", pos);
    std::string line = head.substr(pos, nl - pos);
    pos = nl + 2;
    if (line[0] == ' ') {
      p.headers[name] += "\r\n" + line;
      continue;
    }
    const std::size_t colon = line.find(':');
    name = line.substr(0, colon);
    p.headers[name] = line.substr(colon + 2 <= line.size() ? colon + 2 : colon + 1);
  }
  const std::string ct = p.headers["Content-Type"];
  const std::size_t b = ct.find("boundary=\"");
  const std::string boundary = ct.substr(b + 10, ct.find('"', b + 10) - b - 10);
  std::size_t at = msg.find("\r\n--" + boundary + "\r\n", end);
  while (at != std::string::npos) {
    const std::size_t start = at + boundary.size() + 6;
    const std::size_t next = msg.find("\r\n--" + boundary, start);
    const std::string part = msg.substr(start, next - start);
    const std::size_t pe = part.find("\r\n\r\n");
    const std::string phead = part.substr(0, pe);
    const std::string body = compose_test_qp_decode(part.substr(pe + 4));
    EXPECT_NE(phead.find("Content-Transfer-Encoding: quoted-printable"), std::string::npos);
    if (phead.find("text/plain") != std::string::npos) {
      p.plain = body;
      p.plain_type = phead;
    } else {
      p.html = body;
      p.html_type = phead;
    }
    at = msg.compare(next, boundary.size() + 6, "\r\n--" + boundary + "--") == 0 ? std::string::npos : next;
  }
  return p;
}

OutgoingEmail compose_test_email() {
  OutgoingEmail e;
  e.from_address = "bot@example.org";
  e.from_name = "Pincer";
  e.to_address = "alice@example.net";
  e.subject = "Lunch plans";
  e.in_reply_to = "<m2@example.net>";
  e.references = {"<m1@example.net>", "<r1@example.org>", "<m2@example.net>"};
  e.markdown = "Sure, **noon** works.\n\n- soup\n- bread\n";
  return e;
}

}  // namespace

TEST(EmailCompose, ThreadsTheReplyAndCarriesPlainAndHtml) {
  const std::string msg = compose_email(compose_test_email(), "<abc@example.org>", 1'796'000'000'000);
  auto p = compose_test_parse(msg);
  EXPECT_EQ(p.headers["From"], "\"Pincer\" <bot@example.org>");
  EXPECT_EQ(p.headers["To"], "<alice@example.net>");
  EXPECT_EQ(p.headers["Subject"], "Re: Lunch plans");
  EXPECT_EQ(p.headers["Message-ID"], "<abc@example.org>");
  EXPECT_EQ(p.headers["In-Reply-To"], "<m2@example.net>");
  EXPECT_EQ(compose_test_header_decode(p.headers["References"]), "<m1@example.net> <r1@example.org> <m2@example.net>");
  EXPECT_EQ(p.headers["Date"], rfc5322_date(1'796'000'000'000));
  EXPECT_EQ(p.headers["MIME-Version"], "1.0");
  EXPECT_EQ(p.headers.count("Auto-Submitted"), 0u);
  EXPECT_NE(p.plain_type.find("charset=utf-8"), std::string::npos);
  EXPECT_EQ(p.plain, "Sure, **noon** works.\r\n\r\n- soup\r\n- bread\r\n");
  EXPECT_NE(p.html.find("<strong>noon</strong>"), std::string::npos) << p.html;
  EXPECT_NE(p.html.find("<li>soup</li>"), std::string::npos) << p.html;
  for (std::size_t pos = 0, nl; (nl = msg.find("\r\n", pos)) != std::string::npos; pos = nl + 2) {
    EXPECT_LE(nl - pos, 78u) << msg.substr(pos, nl - pos);
    EXPECT_EQ(msg.substr(pos, nl - pos).find('\n'), std::string::npos);  // no bare LF
  }
}

TEST(EmailCompose, FirstMessageHasNoThreadHeaders) {
  OutgoingEmail e = compose_test_email();
  e.in_reply_to.clear();
  e.references.clear();
  e.subject.clear();
  auto p = compose_test_parse(compose_email(e, "<x@example.org>", 0));
  EXPECT_EQ(p.headers.count("In-Reply-To"), 0u);
  EXPECT_EQ(p.headers.count("References"), 0u);
  EXPECT_EQ(p.headers["Subject"], "Re: (no subject)");
  EXPECT_EQ(p.headers["Date"], "Thu, 01 Jan 1970 00:00:00 +0000");
}

TEST(EmailCompose, NonAsciiSubjectAndNameAreEncodedWords) {
  OutgoingEmail e = compose_test_email();
  e.subject = "Grüße aus Köln — ein sehr langer Betreff, der über mehrere Wörter geht 🦀🦀";
  e.from_name = "Pinçer Bot";
  e.markdown = "Schöne Grüße = ok\n.leading dot";
  auto p = compose_test_parse(compose_email(e, "<x@example.org>", 0));
  EXPECT_EQ(compose_test_header_decode(p.headers["Subject"]), "Re: " + e.subject);
  EXPECT_EQ(p.headers["Subject"].rfind("=?UTF-8?B?", 0), 0u);
  EXPECT_EQ(compose_test_header_decode(p.headers["From"]), "Pinçer Bot <bot@example.org>");
  EXPECT_EQ(p.plain, "Schöne Grüße = ok\r\n.leading dot");
}

TEST(EmailCompose, HeaderValuesCannotInjectHeaders) {
  OutgoingEmail e = compose_test_email();
  e.subject = "hi\r\nBcc: eve@example.com";
  e.from_name = "Pin\ncer";
  auto p = compose_test_parse(compose_email(e, "<x@example.org>", 0));
  EXPECT_EQ(p.headers.count("Bcc"), 0u);
  EXPECT_EQ(p.headers["Subject"], "Re: hi  Bcc: eve@example.com");
  EXPECT_EQ(p.headers["From"], "\"Pin cer\" <bot@example.org>");
}

TEST(EmailCompose, ReplySubjectKeepsAnExistingPrefix) {
  EXPECT_EQ(reply_subject("Hello"), "Re: Hello");
  EXPECT_EQ(reply_subject("Re: Hello"), "Re: Hello");
  EXPECT_EQ(reply_subject("RE:Hello"), "RE:Hello");
  EXPECT_EQ(reply_subject("AW: Hallo"), "AW: Hallo");
  EXPECT_EQ(reply_subject("sv: Hej"), "sv: Hej");
  EXPECT_EQ(reply_subject("  Regarding  "), "Re: Regarding");
  EXPECT_EQ(reply_subject(""), "Re: (no subject)");
}

TEST(EmailCompose, QuotedPrintableWireForm) {
  EXPECT_EQ(quoted_printable("a=b"), "a=3Db");
  EXPECT_EQ(quoted_printable("trailing \nx\t"), "trailing=20\r\nx=09");
  EXPECT_EQ(quoted_printable("é"), "=C3=A9");
  EXPECT_EQ(quoted_printable("a\r\nb"), "a\r\nb");
  const std::string long_line(100, 'x');
  const std::string qp = quoted_printable(long_line);
  EXPECT_EQ(qp, std::string(75, 'x') + "=\r\n" + std::string(25, 'x'));
  EXPECT_EQ(compose_test_qp_decode(quoted_printable("ünïcödé " + long_line + " =\n")), "ünïcödé " + long_line + " =\r\n");
}

TEST(EmailCompose, EncodedWordsNeverSplitAUtf8Sequence) {
  const std::string text(40, 'a');
  const std::string crab = text + "🦀🦀🦀";  // the first crab would straddle byte 45
  const std::string enc = encode_header_text(crab, 9);
  EXPECT_EQ(compose_test_header_decode(enc), crab);
  for (std::size_t pos = 0, nl; pos < enc.size(); pos = nl + 2) {
    nl = enc.find("\r\n", pos);
    if (nl == std::string::npos) nl = enc.size();
    EXPECT_LE(nl - pos, 76u);
  }
  EXPECT_EQ(encode_header_text("plain ascii", 9), "plain ascii");
  EXPECT_EQ(encode_header_text("looks =?like?= a word", 9).rfind("=?UTF-8?B?", 0), 0u);
}

TEST(EmailCompose, MailboxAndAddressChecks) {
  EXPECT_EQ(format_mailbox("", "a@b.c"), "<a@b.c>");
  EXPECT_EQ(format_mailbox("Say \"hi\"", "a@b.c"), "\"Say \\\"hi\\\"\" <a@b.c>");
  EXPECT_FALSE(address_problem("alice@example.net"));
  EXPECT_TRUE(address_problem(""));
  EXPECT_TRUE(address_problem("alice"));
  EXPECT_TRUE(address_problem("@example.net"));
  EXPECT_TRUE(address_problem("alice@"));
  EXPECT_TRUE(address_problem("alice@example.net>\r\nRCPT TO:<eve@x"));
  EXPECT_TRUE(address_problem("a b@example.net"));
  EXPECT_EQ(address_domain("bot@example.org"), "example.org");
}

TEST(EmailCompose, MessageIdsAreFreshAndUseTheDomain) {
  const std::string a = new_message_id("example.org"), b = new_message_id("example.org");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.front(), '<');
  EXPECT_EQ(a.substr(a.size() - 13), "@example.org>");
  EXPECT_EQ(a.size(), 1 + 26 + 13u);
  const std::string bad = new_message_id("ex ample>");
  EXPECT_EQ(bad.substr(bad.size() - 16), "@pincer.invalid>");
}
