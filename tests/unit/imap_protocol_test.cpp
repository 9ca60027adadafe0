// The IMAP wire format (src/channels/email/imap_protocol.h): responses cut from a byte stream in
// any split (literals included), untagged EXISTS / EXPUNGE / SEARCH / CAPABILITY, tagged OK / NO /
// BAD with codes, continuations, FETCH items with a BODY[] literal, the limits a hostile server
// meets, and the strings the client builds (quoted strings, UID sets, base64 of AUTH PLAIN).
#include <gtest/gtest.h>

#include "channels/email/imap_client.h"
#include "channels/email/imap_protocol.h"
#include "core/base64.h"

using namespace pincer::channels::email;

namespace {

std::vector<ImapResponse> imap_test_feed_all(const std::string& bytes, std::size_t step) {
  ImapResponseParser p;
  std::vector<ImapResponse> out;
  for (std::size_t i = 0; i < bytes.size(); i += step) {
    auto st = p.feed(std::string_view(bytes).substr(i, step));
    EXPECT_TRUE(st) << st.error().message;
    while (auto r = p.next()) out.push_back(std::move(*r));
  }
  return out;
}

const std::string kImapSelect =
    "* OK [CAPABILITY IMAP4rev1 SASL-IR IDLE AUTH=PLAIN] Dovecot ready.\r\n"
    "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n"
    "* 3 EXISTS\r\n"
    "* 0 RECENT\r\n"
    "* OK [UIDVALIDITY 1733450000] UIDs valid\r\n"
    "* OK [UIDNEXT 4] Predicted next UID\r\n"
    "P2 OK [READ-WRITE] Select completed (0.001 + 0.000 secs).\r\n";

}  // namespace

TEST(ImapProtocol, UntaggedAndTaggedResponsesInAnySplit) {
  for (std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{7}, kImapSelect.size()}) {
    const auto rs = imap_test_feed_all(kImapSelect, step);
    ASSERT_EQ(rs.size(), 7u) << "step " << step;
    EXPECT_EQ(rs[0].kind, ImapResponse::Kind::Untagged);
    EXPECT_EQ(rs[0].status, "OK");
    EXPECT_EQ(rs[0].code, "CAPABILITY IMAP4rev1 SASL-IR IDLE AUTH=PLAIN");
    EXPECT_EQ(parse_capabilities(rs[0]), (std::vector<std::string>{"IMAP4REV1", "SASL-IR", "IDLE", "AUTH=PLAIN"}));
    EXPECT_EQ(rs[1].keyword, "FLAGS");
    ASSERT_TRUE(rs[2].number.has_value());
    EXPECT_EQ(*rs[2].number, 3u);
    EXPECT_EQ(rs[2].keyword, "EXISTS");
    EXPECT_EQ(rs[2].status, "");
    EXPECT_EQ(rs[4].code, "UIDVALIDITY 1733450000");
    EXPECT_EQ(rs[5].code, "UIDNEXT 4");
    EXPECT_EQ(rs[6].kind, ImapResponse::Kind::Tagged);
    EXPECT_EQ(rs[6].tag, "P2");
    EXPECT_EQ(rs[6].status, "OK");
    EXPECT_EQ(rs[6].code, "READ-WRITE");
  }
}

TEST(ImapProtocol, ExpungeRecentAndLowerCaseKeywords) {
  const auto rs = imap_test_feed_all("* 4 expunge\r\n* 5 Exists\n* bye Server shutting down\r\n", 5);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].keyword, "EXPUNGE");
  EXPECT_EQ(*rs[0].number, 4u);
  EXPECT_EQ(rs[1].keyword, "EXISTS");  // a bare LF ends a line too
  EXPECT_EQ(rs[2].status, "BYE");
  EXPECT_EQ(rs[2].text, "Server shutting down");
}

TEST(ImapProtocol, TaggedNoAndBadKeepTheServersText) {
  const auto rs = imap_test_feed_all("P4 NO [AUTHENTICATIONFAILED] Authentication failed.\r\nP5 BAD Error in IMAP command UID: Invalid\r\n", 4);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].status, "NO");
  EXPECT_EQ(rs[0].code, "AUTHENTICATIONFAILED");
  EXPECT_EQ(rs[0].text, "Authentication failed.");
  EXPECT_EQ(rs[1].status, "BAD");
  EXPECT_EQ(rs[1].tag, "P5");
  EXPECT_EQ(rs[1].text, "Error in IMAP command UID: Invalid");
}

TEST(ImapProtocol, ContinuationRequest) {
  const auto rs = imap_test_feed_all("+ idling\r\n+\r\n", 2);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].kind, ImapResponse::Kind::Continuation);
  EXPECT_EQ(rs[0].text, "idling");
  EXPECT_EQ(rs[1].text, "");
}

TEST(ImapProtocol, FetchWithLiteralBodySplitAnywhere) {
  const std::string mail = "From: a@b.c\r\nSubject: hi\r\n\r\nline one\r\n) not the end\r\n";
  const std::string bytes = "* 1 FETCH (UID 7 FLAGS (\\Seen) BODY[] {" + std::to_string(mail.size()) + "}\r\n" + mail +
                            ")\r\n* 2 FETCH (FLAGS (\\Seen) UID 8)\r\nP3 OK Fetch completed.\r\n";
  for (std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{11}, bytes.size()}) {
    const auto rs = imap_test_feed_all(bytes, step);
    ASSERT_EQ(rs.size(), 3u);
    ASSERT_EQ(rs[0].literals.size(), 1u);
    EXPECT_EQ(rs[0].literals[0], mail);  // CR LF and ")" inside the literal are data
    auto items = parse_fetch_items(rs[0]);
    ASSERT_TRUE(items) << items.error().message;
    EXPECT_EQ(items->at("UID").text, "7");
    EXPECT_EQ(items->at("BODY[]").text, mail);
    ASSERT_TRUE(items->at("FLAGS").is_list);
    EXPECT_EQ(items->at("FLAGS").items.at(0).text, "\\Seen");
    auto flags_only = parse_fetch_items(rs[1]);
    ASSERT_TRUE(flags_only);
    EXPECT_EQ(flags_only->count("BODY[]"), 0u);
  }
}

TEST(ImapProtocol, FetchSectionWithSpacesIsOneItemName) {
  const auto rs = imap_test_feed_all("* 3 FETCH (UID 9 BODY[HEADER.FIELDS (FROM SUBJECT)] {5}\r\nab\r\nc)\r\n", 64);
  ASSERT_EQ(rs.size(), 1u);
  auto items = parse_fetch_items(rs[0]);
  ASSERT_TRUE(items);
  EXPECT_EQ(items->at("BODY[HEADER.FIELDS (FROM SUBJECT)]").text, "ab\r\nc");
}

TEST(ImapProtocol, QuotedStringsAndNil) {
  auto v = parse_imap_values("(\"a \\\"b\\\" \\\\c\" NIL abc)", {});
  ASSERT_TRUE(v);
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ((*v)[0].items.at(0).text, "a \"b\" \\c");
  EXPECT_TRUE((*v)[0].items.at(1).is_nil);
  EXPECT_FALSE(parse_imap_values("(abc", {}));
  EXPECT_FALSE(parse_imap_values("\"open", {}));
  EXPECT_FALSE(parse_imap_values("{3}", {}));  // a marker without its literal
}

TEST(ImapProtocol, Search) {
  const auto rs = imap_test_feed_all("* SEARCH 12 7 9\r\n* SEARCH\r\n", 100);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(parse_search(rs[0]), (std::vector<uint32_t>{12, 7, 9}));
  EXPECT_TRUE(parse_search(rs[1]).empty());
}

TEST(ImapProtocol, HostileInputIsBounded) {
  ImapResponseParser long_line;
  std::string junk(kImapMaxLineBytes + 10, 'a');
  auto st = long_line.feed(junk);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "PROTOCOL");
  EXPECT_FALSE(long_line.feed("* OK\r\n"));  // stays broken

  ImapResponseParser huge;
  st = huge.feed("* 1 FETCH (BODY[] {999999999999}\r\n");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("literal"), std::string::npos);

  ImapResponseParser no_tag;
  EXPECT_FALSE(no_tag.feed("(bad\r\n"));
  ImapResponseParser no_status;
  EXPECT_FALSE(no_status.feed("P1 FETCH done\r\n"));
}

TEST(ImapProtocol, ClientStrings) {
  EXPECT_EQ(imap_quote("pa\"ss\\word"), std::optional<std::string>("\"pa\\\"ss\\\\word\""));
  EXPECT_FALSE(imap_quote("line\r\nbreak"));
  EXPECT_EQ(imap_uid_set({9, 4, 7, 8, 4, 12}), "4,7:9,12");
  EXPECT_EQ(imap_uid_set({}), "");
  EXPECT_EQ(pincer::base64_encode(std::string("\0bot@x\0secret", 13)), "AGJvdEB4AHNlY3JldA==");  // AUTHENTICATE PLAIN
  EXPECT_EQ(pincer::base64_encode("ab"), "YWI=");
}
