// Reading inbound e-mail (src/channels/email/email_parse.h) as real clients write it: Thunderbird
// and Gmail multipart/alternative, quoted-printable Latin-1, base64 UTF-8, RFC 2047 subjects and
// names, an HTML-only Outlook mail, Gmail's and Outlook's quoted replies, a signature, bounces and
// auto-replies (never answered), and strip_quoted on its own.
#include <gtest/gtest.h>

#include "channels/email/email_parse.h"

using namespace pincer::channels::email;

namespace {

std::string email_test_crlf(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace

TEST(EmailParse, GmailReplyMultipartAlternativeQuotedPrintable) {
  const std::string raw = email_test_crlf(
      "Delivered-To: pincer@example.org\n"
      "MIME-Version: 1.0\n"
      "References: <root-1@example.org> <bot-2@example.org>\n"
      "In-Reply-To: <bot-2@example.org>\n"
      "From: =?UTF-8?Q?Zo=C3=AB_M=C3=BCller?= <Zoe.Mueller@Gmail.com>\n"
      "Date: Sun, 6 Dec 2026 02:43:39 +0100\n"
      "Message-ID: <CAB+x=1@mail.gmail.com>\n"
      "Subject: Re: Trip to =?UTF-8?B?WsO8cmljaA==?=\n"
      "To: Pincer <pincer@example.org>\n"
      "Content-Type: multipart/alternative; boundary=\"000000000000b5f1\"\n"
      "\n"
      "--000000000000b5f1\n"
      "Content-Type: text/plain; charset=\"UTF-8\"\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "Yes, book the 9:15 train please. Caf=C3=A9 at the station is fine, and this line is=\n"
      " long.\n"
      "\n"
      "On Sun, Dec 6, 2026 at 1:43 AM Pincer <pincer@example.org>\n"
      "wrote:\n"
      "\n"
      "> Which train do you want?\n"
      "> 9:15 or 10:15?\n"
      "\n"
      "--000000000000b5f1\n"
      "Content-Type: text/html; charset=\"UTF-8\"\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "<div dir=3D\"ltr\">Yes, book the 9:15 train please.</div>\n"
      "--000000000000b5f1--\n");
  const ParsedEmail m = parse_email(raw);
  EXPECT_EQ(m.message_id, "<CAB+x=1@mail.gmail.com>");
  EXPECT_EQ(m.in_reply_to, "<bot-2@example.org>");
  EXPECT_EQ(m.references, (std::vector<std::string>{"<root-1@example.org>", "<bot-2@example.org>"}));
  EXPECT_EQ(m.thread_root(), "<root-1@example.org>");
  EXPECT_EQ(m.from_address, "zoe.mueller@gmail.com");
  EXPECT_EQ(m.from_name, "Zoë Müller");
  EXPECT_EQ(m.subject, "Re: Trip to Zürich");
  EXPECT_EQ(m.date_ms, 1796521419000);  // 2026-12-06T01:43:39Z
  EXPECT_EQ(m.text, "Yes, book the 9:15 train please. Café at the station is fine, and this line is long.");
  EXPECT_FALSE(m.from_html);
  EXPECT_TRUE(m.is_reply());
  EXPECT_EQ(m.auto_generated, "");
}

TEST(EmailParse, ThunderbirdNewMessageLatin1WithSignature) {
  const std::string raw =
      "Message-ID: <5f1c2d@thunderbird.example>\n"
      "Date: Sat, 5 Dec 2026 18:00:00 -0500\n"
      "From: jane@example.net (Jane Doe)\n"
      "Subject: =?ISO-8859-1?Q?R=E9sum=E9?= for the\n"
      " application\n"
      "Content-Type: text/plain; charset=ISO-8859-1; format=flowed\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "Please read my r=E9sum=E9 =96 thanks!\n"
      "\n"
      "-- \n"
      "Jane Doe, +1 555 0100\n";
  const ParsedEmail m = parse_email(raw);
  EXPECT_EQ(m.from_address, "jane@example.net");
  EXPECT_EQ(m.from_name, "Jane Doe");
  EXPECT_EQ(m.subject, "Résumé for the application");
  EXPECT_EQ(m.text, "Please read my résumé – thanks!");  // 0x96 read as windows-1252's en dash
  EXPECT_EQ(m.thread_root(), "<5f1c2d@thunderbird.example>");
  EXPECT_FALSE(m.is_reply());
  EXPECT_EQ(m.date_ms, 1796511600000);  // 23:00 UTC
}

TEST(EmailParse, Base64Utf8InMixedWithAttachment) {
  const std::string raw = email_test_crlf(
      "From: Bob <bob@example.com>\n"
      "Subject: report\n"
      "Message-ID: <b64@example.com>\n"
      "Content-Type: multipart/mixed; boundary=outer\n"
      "\n"
      "preamble\n"
      "--outer\n"
      "Content-Type: text/plain; charset=utf-8\n"
      "Content-Transfer-Encoding: base64\n"
      "\n"
      "SGVyZSBpcyB0aGUgcmVwb3J0IOKAlCBzZWUg\n"
      "YXR0YWNobWVudC4=\n"
      "--outer\n"
      "Content-Type: text/plain; name=data.txt\n"
      "Content-Disposition: attachment; filename=data.txt\n"
      "\n"
      "not the message\n"
      "--outer--\n");
  const ParsedEmail m = parse_email(raw);
  EXPECT_EQ(m.text, "Here is the report — see attachment.");
  // The attachment after the text is listed (it was not read at all before), named and sized.
  ASSERT_EQ(m.attachments.size(), 1u);
  EXPECT_EQ(m.attachments[0].filename, "data.txt");
  EXPECT_EQ(m.attachments[0].mime_type, "text/plain");
  EXPECT_EQ(m.attachments[0].bytes, 15u);  // "not the message": the line break before the delimiter is not the part's
}

TEST(EmailParse, AttachmentsOnlyAnInlineImageAndBrokenParts) {
  // A mail that is only a PDF (the new-user pass: it reached the model as its subject alone).
  const ParsedEmail pdf = parse_email(email_test_crlf(
      "From: bob@example.com\nSubject: invoice\n"
      "Content-Type: multipart/mixed; boundary=b1\n\n"
      "--b1\n"
      "Content-Type: application/pdf; name=\"=?UTF-8?Q?Rechnung_M=C3=A4rz.pdf?=\"\n"
      "Content-Disposition: attachment\n"
      "Content-Transfer-Encoding: base64\n\n"
      "JVBERi0xLjQK\n"
      "--b1\n"
      "Content-Type: image/png\n"
      "Content-Disposition: inline; filename=\"logo.png\"\n"
      "Content-Transfer-Encoding: base64\n\n"
      "iVBORw0KGgo=\n"
      "--b1--\n"));
  EXPECT_EQ(pdf.text, "");
  ASSERT_EQ(pdf.attachments.size(), 2u);
  EXPECT_EQ(pdf.attachments[0].filename, "Rechnung März.pdf");  // Content-Type name=, RFC 2047
  EXPECT_EQ(pdf.attachments[0].mime_type, "application/pdf");
  EXPECT_EQ(pdf.attachments[0].bytes, 9u);  // "%PDF-1.4\n"
  EXPECT_EQ(pdf.attachments[1].filename, "logo.png");  // inline, not text: listed too
  EXPECT_EQ(pdf.attachments[1].bytes, 8u);
  // A signed mail: its signature is not listed.
  const ParsedEmail signed_mail = parse_email(
      "From: bob@example.com\nContent-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=s\n\n"
      "--s\nContent-Type: text/plain\n\nsigned words\n--s\nContent-Type: application/pgp-signature; name=signature.asc\n\n"
      "-----BEGIN PGP SIGNATURE-----\n--s--\n");
  EXPECT_EQ(signed_mail.text, "signed words");
  EXPECT_TRUE(signed_mail.attachments.empty());
  // Labelled base64 but not base64 (a broken sender): read as it is, not decoded into garbage.
  const ParsedEmail broken = parse_email(
      "From: bob@example.com\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
      "Hello, this is plain text!\n");
  EXPECT_EQ(broken.text, "Hello, this is plain text!");
  // multipart without a boundary cannot be split: its body is the text (it was lost).
  const ParsedEmail no_boundary = parse_email(
      "From: bob@example.com\nContent-Type: multipart/mixed\n\nThe body is still here.\n");
  EXPECT_EQ(no_boundary.text, "The body is still here.");
  EXPECT_TRUE(no_boundary.attachments.empty());
}

TEST(EmailParse, OutlookHtmlOnlyReply) {
  const std::string raw = email_test_crlf(
      "From: \"Smith, Ann\" <ann.smith@corp.example>\n"
      "Subject: RE: Budget\n"
      "Thread-Topic: Budget\n"
      "Message-ID: <DM6PR1@namprd.outlook.com>\n"
      "In-Reply-To: <bot-7@example.org>\n"
      "Content-Type: text/html; charset=\"us-ascii\"\n"
      "Content-Transfer-Encoding: quoted-printable\n"
      "\n"
      "<html><head><style>p {margin:0}</style></head><body>\n"
      "<p>Approved &amp; signed.</p><p>Ann</p>\n"
      "<div id=3D\"appendonsend\"></div>\n"
      "<hr style=3D\"display:inline-block\"><div id=3D\"divRplyFwdMsg\"><b>From:</b> Pincer<br><b>Sent:</b> Friday</div>\n"
      "<div>The old budget text</div></body></html>\n");
  const ParsedEmail m = parse_email(raw);
  EXPECT_TRUE(m.from_html);
  EXPECT_EQ(m.from_address, "ann.smith@corp.example");
  EXPECT_EQ(m.from_name, "Smith, Ann");
  EXPECT_NE(m.text.find("Approved & signed."), std::string::npos) << m.text;
  EXPECT_NE(m.text.find("Ann"), std::string::npos);
  EXPECT_EQ(m.text.find("old budget"), std::string::npos) << m.text;
  EXPECT_EQ(m.text.find("margin"), std::string::npos) << m.text;
}

TEST(EmailParse, GmailHtmlQuoteIsDropped) {
  EXPECT_EQ(email_html_to_text("<div dir=\"ltr\">Sounds good</div><br><div class=\"gmail_quote\"><div class=\"gmail_attr\">"
                               "On Sun wrote:</div><blockquote class=\"gmail_quote\">old</blockquote></div>")
                .find("old"),
            std::string::npos);
}

TEST(EmailParse, OutlookPlainTextReply) {
  EXPECT_EQ(strip_quoted("Thanks, that works.\r\n\r\n-----Original Message-----\r\nFrom: Pincer <pincer@example.org>\r\n"
                         "Sent: Friday, December 4, 2026 9:00 AM\r\nTo: Ann\r\nSubject: Budget\r\n\r\nThe old text\r\n"),
            "Thanks, that works.");
  EXPECT_EQ(strip_quoted("Fine by me.\n\n________________________________\nFrom: Pincer <pincer@example.org>\n"
                         "Sent: Friday, December 4, 2026 9:00\nTo: Ann\nSubject: Budget\n\nOld\n"),
            "Fine by me.");
  EXPECT_EQ(strip_quoted("Ok.\n\nFrom: Pincer <pincer@example.org>\nDate: Friday\nTo: Ann\n\nOld\n"), "Ok.");
}

TEST(EmailParse, StripQuotedKeepsInlineAnswersAndDropsAttribution) {
  EXPECT_EQ(strip_quoted("On Mon, Jan 5, 2026, Bot <b@x> wrote:\n> question one?\nanswer one\n\n> question two?\nanswer two\n"),
            "answer one\n\nanswer two");
  EXPECT_EQ(strip_quoted("Am So., 6. Dez. 2026 um 01:43 Uhr schrieb Bot <b@x>:\n> Frage\n"), "");
  EXPECT_EQ(strip_quoted("\n\n  just text  \n\n\n\nmore\n\n"), "  just text\n\nmore");
  EXPECT_EQ(strip_quoted("a\n--\nsig"), "a");
  EXPECT_EQ(strip_quoted("the -- dash stays\n--not a signature"), "the -- dash stays\n--not a signature");
}

TEST(EmailParse, BouncesAndAutoRepliesAreMarked) {
  const ParsedEmail bounce = parse_email(
      "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\n"
      "Subject: Undelivered Mail Returned to Sender\n"
      "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\n\n"
      "--b\nContent-Type: text/plain\n\nThis is the mail system.\n--b--\n");
  EXPECT_EQ(bounce.auto_generated, "sent by mailer-daemon@mx.example.org");
  const ParsedEmail vacation = parse_email("From: ann@corp.example\nAuto-Submitted: auto-replied (vacation)\nSubject: Out of office\n\nAway.\n");
  EXPECT_EQ(vacation.auto_generated, "Auto-Submitted: auto-replied (vacation)");
  EXPECT_EQ(parse_email("From: a@b.c\nAuto-Submitted: no\n\nhi\n").auto_generated, "");
  EXPECT_EQ(parse_email("From: list@lists.example\nList-Id: <dev.lists.example>\n\nhi\n").auto_generated,
            "List-Id: <dev.lists.example>");
  EXPECT_EQ(parse_email("From: a@b.c\nPrecedence: bulk\n\nhi\n").auto_generated, "Precedence: bulk");
  EXPECT_EQ(parse_email("Return-Path: <>\nFrom: a@b.c\n\nhi\n").auto_generated, "an empty Return-Path (a bounce)");
}

TEST(EmailParse, Decoders) {
  EXPECT_EQ(decode_rfc2047("=?utf-8?q?a_b?= =?utf-8?q?c?= plain =?bogus"), "a bc plain =?bogus");
  EXPECT_EQ(decode_quoted_printable("a=3Db=\r\nc= \nd=4"), "a=bcd=4");
  EXPECT_EQ(decode_base64("aGk=\n"), "hi");
  EXPECT_EQ(email_to_utf8("caf\xe9", "latin1"), "café");
  EXPECT_EQ(email_to_utf8("\xa4", "ISO-8859-15"), "€");
  EXPECT_EQ(email_to_utf8("bad \xff utf8", "utf-8"), "bad \xEF\xBF\xBD utf8");
  EXPECT_EQ(email_to_utf8("\x8e\xa4", "koi8-r"), email_to_utf8("\x8e\xa4", "KOI8-R"));  // through iconv
  EXPECT_EQ(parse_email_date("6 Dec 2026 01:43 GMT"), 1796521380000);
  EXPECT_EQ(parse_email_date("garbage"), 0);
  EXPECT_EQ(parse_email_address("<Only@Addr.example>").first, "only@addr.example");
  EXPECT_EQ(parse_email_address("\"Doe, \\\"JD\\\" John\" <jd@x.example>").second, "Doe, \"JD\" John");
  EXPECT_EQ(parse_email_address("undisclosed-recipients:;").first, "");
}

TEST(EmailParse, MessageWithoutHeadersOrBodyDoesNotFail) {
  const ParsedEmail empty = parse_email("");
  EXPECT_EQ(empty.text, "");
  EXPECT_EQ(empty.thread_root(), "");
  const ParsedEmail only_headers = parse_email("Subject: x");
  EXPECT_EQ(only_headers.subject, "x");
}
