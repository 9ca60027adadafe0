// The IRC channel's pure parts (issue #5 §5 IRC): line parsing and building (RFC 1459 §2.3,
// IRCv3 message-tags), CTCP, outbound splitting within the 512-byte relayed line, mentions and
// casemapping, flood control (RFC 1459 §8.10), the registration state machine (CAP, SASL PLAIN,
// nick fallback, NickServ, JOIN) and the `channels.irc` settings.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "channels/irc/irc_flood.h"
#include "channels/irc/irc_protocol.h"
#include "channels/irc/irc_session.h"
#include "channels/irc/irc_settings.h"
#include "delivery/text_units.h"

namespace pincer::channels::irc {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

struct ParseCase {
  const char* name;
  std::string line;
  std::string prefix;
  std::string command;
  std::vector<std::string> params;
  bool trailing;
};

TEST(IrcParse, Lines) {
  const std::vector<ParseCase> cases = {
      {"privmsg", ":alice!~a@host.example PRIVMSG #chan :hello there", "alice!~a@host.example", "PRIVMSG",
       {"#chan", "hello there"}, true},
      {"crlf ignored", "PING :irc.example\r\n", "", "PING", {"irc.example"}, true},
      {"lf only", "PING irc.example\n", "", "PING", {"irc.example"}, false},
      {"numeric", ":srv 001 pincer :Welcome to IRC", "srv", "001", {"pincer", "Welcome to IRC"}, true},
      {"lower-case command", "privmsg bob :x", "", "PRIVMSG", {"bob", "x"}, true},
      {"repeated spaces", ":srv  NOTICE   *   :x  y", "srv", "NOTICE", {"*", "x  y"}, true},
      {"empty trailing", ":srv PRIVMSG bob :", "srv", "PRIVMSG", {"bob", ""}, true},
      {"colon inside a middle", "CAP * LS a:b", "", "CAP", {"*", "LS", "a:b"}, false},
      {"trailing with colons", "PRIVMSG bob ::-) :x", "", "PRIVMSG", {"bob", ":-) :x"}, true},
      {"no params", "QUIT", "", "QUIT", {}, false},
      {"tags", "@msgid=abc;time=2024-01-01T00:00:00Z :a!b@c PRIVMSG #x :hi", "a!b@c", "PRIVMSG", {"#x", "hi"}, true},
  };
  for (const auto& c : cases) {
    auto m = parse_line(c.line);
    ASSERT_TRUE(m) << c.name;
    EXPECT_EQ(m->prefix, c.prefix) << c.name;
    EXPECT_EQ(m->command, c.command) << c.name;
    EXPECT_EQ(m->params, c.params) << c.name;
    EXPECT_EQ(m->has_trailing, c.trailing) << c.name;
  }
}

TEST(IrcParse, RejectsWhatIsNotALine) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"only CR LF", "\r\n"},
      {"only spaces", "   "},
      {"prefix alone", ":srv"},
      {"prefix and spaces", ":srv   "},
      {"empty prefix", ": PING x"},
      {"tags alone", "@a=b"},
      {"NUL inside", std::string("PRIVMSG a :b\0c", 14)},
      {"CR inside", "PRIVMSG a :b\rQUIT"},
      {"LF inside", "PRIVMSG a :b\nQUIT\n"},
      {"too long", "PRIVMSG a :" + std::string(kMaxInboundLineBytes, 'x')},
  };
  for (const auto& [name, line] : cases) EXPECT_FALSE(parse_line(line)) << name;
}

TEST(IrcParse, TagValuesAreUnescaped) {
  auto m = parse_line(R"(@a=semi\:space\sback\\cr\rlf\n;b;c=;d=x\y;e=end\ :s PING x)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tag("a"), std::optional<std::string>("semi;space back\\cr\rlf\n"));
  EXPECT_EQ(m->tag("b"), std::optional<std::string>(""));
  EXPECT_EQ(m->tag("c"), std::optional<std::string>(""));
  EXPECT_EQ(m->tag("d"), std::optional<std::string>("xy"));    // unknown escape: the character
  EXPECT_EQ(m->tag("e"), std::optional<std::string>("end"));   // lone trailing backslash dropped
  EXPECT_EQ(m->tag("missing"), std::nullopt);
}

TEST(IrcParse, Prefixes) {
  struct Case {
    const char* prefix;
    const char* nick;
    const char* user;
    const char* host;
  };
  for (const Case& c : std::vector<Case>{{"alice!~al@host.example", "alice", "~al", "host.example"},
                                         {"alice@host", "alice", "", "host"},
                                         {"alice!al", "alice", "al", ""},
                                         {"irc.server.example", "irc.server.example", "", ""},
                                         {"a!b@c@d", "a", "b", "c@d"},
                                         {"", "", "", ""}}) {
    const Prefix p = parse_prefix(c.prefix);
    EXPECT_EQ(p.nick, c.nick) << c.prefix;
    EXPECT_EQ(p.user, c.user) << c.prefix;
    EXPECT_EQ(p.host, c.host) << c.prefix;
  }
}

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

TEST(IrcBuild, Lines) {
  EXPECT_EQ(build_line("NICK", {"pincer"}), std::optional<std::string>("NICK pincer\r\n"));
  EXPECT_EQ(build_line("USER", {"u", "0", "*", "Pincer bot"}), std::optional<std::string>("USER u 0 * :Pincer bot\r\n"));
  EXPECT_EQ(build_line("PRIVMSG", {"#c", ":-)"}), std::optional<std::string>("PRIVMSG #c ::-)\r\n"));
  EXPECT_EQ(build_line("PONG", {""}), std::optional<std::string>("PONG :\r\n"));
  EXPECT_EQ(build_line("CAP", {"END"}), std::optional<std::string>("CAP END\r\n"));
  EXPECT_EQ(build_line("001", {"x"}), std::optional<std::string>("001 x\r\n"));
}

TEST(IrcBuild, RefusesWhatCouldSmuggleACommand) {
  EXPECT_FALSE(build_line("PRIVMSG", {"#c", "hi\r\nQUIT :bye"}));
  EXPECT_FALSE(build_line("PRIVMSG", {"#c", "hi\nQUIT"}));
  EXPECT_FALSE(build_line("PRIVMSG", {"#c", std::string("a\0b", 3)}));
  EXPECT_FALSE(build_line("PRIVMSG", {"#c\r\nQUIT", "x"}));
  EXPECT_FALSE(build_line("PRIVMSG", {"#c x", "y"}));   // a space in a middle parameter
  EXPECT_FALSE(build_line("PRIVMSG", {":c", "y"}));     // a middle starting with ':'
  EXPECT_FALSE(build_line("PRIVMSG", {"", "y"}));       // an empty middle
  EXPECT_FALSE(build_line("PRIV MSG", {"a"}));
  EXPECT_FALSE(build_line("12", {"a"}));
  EXPECT_FALSE(build_line("", {}));
  EXPECT_FALSE(build_line("PRIVMSG", {"#c", std::string(500, 'x')}));  // over 512 bytes
  EXPECT_TRUE(build_line("PRIVMSG", {"#c", std::string(512 - 14, 'x')}));  // exactly 512
}

TEST(IrcBuild, RoundTrip) {
  const std::vector<std::string> params{"#chan", "text with :colons and  spaces"};
  auto line = build_line("PRIVMSG", params);
  ASSERT_TRUE(line);
  auto m = parse_line(*line);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->command, "PRIVMSG");
  EXPECT_EQ(m->params, params);
}

// ---------------------------------------------------------------------------------------------
// CTCP and sanitizing
// ---------------------------------------------------------------------------------------------

TEST(IrcCtcp, ActionAndOthers) {
  using K = CtcpText::Kind;
  struct Case {
    std::string body;
    K kind;
    std::string text;
  };
  for (const Case& c : std::vector<Case>{{"\x01" "ACTION waves\x01", K::Action, "waves"},
                                         {"\x01" "ACTION waves", K::Action, "waves"},
                                         {"\x01" "ACTION\x01", K::Action, ""},
                                         {"\x01VERSION\x01", K::Other, "VERSION"},
                                         {"\x01", K::Other, ""},
                                         {"plain \x01 text", K::None, "plain \x01 text"},
                                         {"", K::None, ""}}) {
    const CtcpText t = parse_ctcp(c.body);
    EXPECT_EQ(t.kind, c.kind) << c.body;
    EXPECT_EQ(t.text, c.text) << c.body;
  }
}

TEST(IrcSanitize, ControlsAndLineBreaks) {
  EXPECT_EQ(sanitize_outbound("a\r\nb\rc\nd"), "a\nb\nc\nd");
  EXPECT_EQ(sanitize_outbound("tab\there"), "tab here");
  EXPECT_EQ(sanitize_outbound(std::string("n\0u\x01l\x02l\x03\x7f!", 11)), "null!");
  EXPECT_EQ(sanitize_outbound("héllo ✓"), "héllo ✓");
}

// ---------------------------------------------------------------------------------------------
// Splitting into PRIVMSG lines
// ---------------------------------------------------------------------------------------------

TEST(IrcSplit, Budget) {
  EXPECT_EQ(privmsg_text_budget("#chan"), 512u - 120u - 5u);
  EXPECT_EQ(privmsg_text_budget(std::string(kTypicalTargetBytes, 'c')), 342u);
  EXPECT_EQ(privmsg_text_budget(""), 0u);
  EXPECT_EQ(privmsg_text_budget(std::string(kMaxTargetBytes + 1, 'c')), 0u);
  EXPECT_GT(privmsg_text_budget(std::string(kMaxTargetBytes, 'c')), 0u);
}

/// Every line, relayed with the longest prefix the budget allows for, is within 512 bytes.
void expect_lines_fit(const std::vector<std::string>& lines, const std::string& target) {
  const std::string longest_prefix = ":" + std::string(30, 'n') + "!~" + std::string(10, 'u') + "@" + std::string(63, 'h');
  for (const auto& l : lines) {
    const std::string relayed = longest_prefix + " PRIVMSG " + target + " :" + l + "\r\n";
    EXPECT_LE(relayed.size(), kMaxLineBytes) << l;
    EXPECT_EQ(l.find_first_of(std::string("\r\n\0", 3)), std::string::npos);
    EXPECT_FALSE(l.empty());
    EXPECT_NE(l.front(), ' ');
    EXPECT_NE(l.back(), ' ');
  }
}

TEST(IrcSplit, ShortTextIsOneLine) {
  EXPECT_EQ(split_privmsg("hello", "#c"), std::vector<std::string>{"hello"});
  EXPECT_TRUE(split_privmsg("", "#c").empty());
  EXPECT_TRUE(split_privmsg(" \n\r\n \t", "#c").empty());
  EXPECT_TRUE(split_privmsg("hello", "").empty());
}

TEST(IrcSplit, LineBreaksBecomeLinesAndCannotInjectCommands) {
  const auto lines = split_privmsg("first\r\nQUIT :bye\n\nJOIN #evil\rlast", "bob");
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "QUIT :bye", "JOIN #evil", "last"}));
  for (const auto& l : lines) {
    auto built = build_line("PRIVMSG", {"bob", l});
    ASSERT_TRUE(built);
    auto parsed = parse_line(*built);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->command, "PRIVMSG");  // the whole line is one PRIVMSG, never a QUIT
    EXPECT_EQ(parsed->params.back(), l);
  }
}

TEST(IrcSplit, LongTextCutsAtSpacesInOrder) {
  std::string text;
  while (text.size() < 3000) text += "The quick brown fox jumps over the lazy dog. ";
  const std::string target = "#pincer";
  const auto lines = split_privmsg(text, target);
  ASSERT_GE(lines.size(), 8u);
  expect_lines_fit(lines, target);
  std::string joined;
  for (const auto& l : lines) joined += (joined.empty() ? "" : " ") + l;
  std::string expected = text;
  while (expected.back() == ' ') expected.pop_back();
  EXPECT_EQ(joined, expected);  // in order; only the space at each cut is gone
}

TEST(IrcSplit, NeverSplitsAUtf8Sequence) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "✓";  // 3 bytes each, no spaces
  text += "😀😀😀";                            // 4 bytes each
  const auto lines = split_privmsg(text, "#c");
  ASSERT_GE(lines.size(), 3u);
  expect_lines_fit(lines, "#c");
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_TRUE(delivery::is_valid_utf8(l)) << l.size();
    joined += l;
  }
  EXPECT_EQ(joined, text);
}

TEST(IrcSplit, WordLongerThanHalfTheBudgetIsCutHard) {
  const std::string text = "short " + std::string(1000, 'x');
  const auto lines = split_privmsg(text, "#c");
  expect_lines_fit(lines, "#c");
  std::string joined;
  for (const auto& l : lines) joined += l;
  EXPECT_EQ(joined, "short " + std::string(1000, 'x'));  // cuts fell inside the word
  EXPECT_EQ(lines[0].size(), privmsg_text_budget("#c"));  // "short " + x… filled to the budget
}

// ---------------------------------------------------------------------------------------------
// Mentions and casemapping
// ---------------------------------------------------------------------------------------------

TEST(IrcMentions, Table) {
  struct Case {
    const char* text;
    bool mentioned;
  };
  for (const Case& c : std::vector<Case>{{"pincer: hello", true},
                                         {"pincer, hello", true},
                                         {"Pincer: hello", true},
                                         {"PINCER,", true},
                                         {"pincer:", true},
                                         {"hey pincer, what's up", true},
                                         {"@pincer what's up", true},
                                         {"what do you think, @Pincer?", true},
                                         {"(@pincer)", true},
                                         {"I like pincer", false},
                                         {"pincers: are claws", false},
                                         {"mypincer: no", false},
                                         {"pincer:8080 is a port", false},
                                         {"mail me@pincer now", false},
                                         {"@pincerbot hi", false},
                                         {"", false}}) {
    EXPECT_EQ(mentions_nick(c.text, "pincer"), c.mentioned) << c.text;
  }
  EXPECT_TRUE(mentions_nick("bot[1]: hi", "BOT{1}"));                         // rfc1459: [] ~ {}
  EXPECT_TRUE(mentions_nick("a~b: hi", "A^B"));                               // rfc1459: ~ ~ ^
  EXPECT_FALSE(mentions_nick("a~b: hi", "A^B", CaseMapping::StrictRfc1459));  // strict: ~ is not ^
  EXPECT_FALSE(mentions_nick("bot[1]: hi", "BOT{1}", CaseMapping::Ascii));
  EXPECT_FALSE(mentions_nick("anything: at all", ""));
}

TEST(IrcMentions, StripAddress) {
  EXPECT_EQ(strip_address("pincer: /new", "pincer"), "/new");
  EXPECT_EQ(strip_address("Pincer,  hello", "pincer"), "hello");
  EXPECT_EQ(strip_address("@pincer: hello", "pincer"), "hello");
  EXPECT_EQ(strip_address("@pincer hello", "pincer"), "hello");
  EXPECT_EQ(strip_address("hey pincer: hello", "pincer"), "hey pincer: hello");
  EXPECT_EQ(strip_address("pincers: x", "pincer"), "pincers: x");
}

TEST(IrcCasemapping, Folding) {
  EXPECT_EQ(irc_lower("Nick[]\\~"), "nick{}|^");
  EXPECT_EQ(irc_lower("Nick[]\\~", CaseMapping::StrictRfc1459), "nick{}|~");
  EXPECT_EQ(irc_lower("Nick[]\\~", CaseMapping::Ascii), "nick[]\\~");
  EXPECT_TRUE(irc_equal("#Chan[x]", "#chan{X}"));
  EXPECT_FALSE(irc_equal("#chan", "#chan2"));
  EXPECT_EQ(parse_casemapping("ascii"), std::optional<CaseMapping>(CaseMapping::Ascii));
  EXPECT_EQ(parse_casemapping("rfc7613"), std::nullopt);
  EXPECT_TRUE(is_channel_name("#x"));
  EXPECT_TRUE(is_channel_name("&x"));
  EXPECT_FALSE(is_channel_name("bob"));
  EXPECT_TRUE(is_channel_name("+x", "#+"));
}

// ---------------------------------------------------------------------------------------------
// Flood control (RFC 1459 §8.10)
// ---------------------------------------------------------------------------------------------

TEST(IrcFlood, BurstThenOneLinePerInterval) {
  FloodControl f;  // burst 5, 2000 ms
  const int64_t t0 = 1'000'000;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f.take(t0), 0) << i;
  EXPECT_EQ(f.take(t0), 2000);
  EXPECT_EQ(f.take(t0 + 1999), 1);
  EXPECT_EQ(f.take(t0 + 2000), 0);
  EXPECT_EQ(f.take(t0 + 2000), 2000);
  // After a quiet period the burst is back, never more.
  const int64_t later = t0 + 60'000;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f.take(later), 0) << i;
  EXPECT_GT(f.take(later), 0);
  f.reset();
  EXPECT_EQ(f.take(later), 0);
}

TEST(IrcFlood, CustomSettings) {
  FloodControl f({2, 700});
  EXPECT_EQ(f.take(0), 0);
  EXPECT_EQ(f.take(0), 0);
  EXPECT_EQ(f.take(0), 700);
  EXPECT_EQ(f.take(700), 0);
}

// ---------------------------------------------------------------------------------------------
// Session: registration, SASL, nick fallback, NickServ, messages
// ---------------------------------------------------------------------------------------------

/// SessionSettings with `nick` and the given fields set (-Wmissing-field-initializers forbids
/// partial designated initializers).
SessionSettings settings(const std::string& nick, const std::function<void(SessionSettings&)>& edit = {}) {
  SessionSettings s;
  s.nick = nick;
  if (edit) edit(s);
  return s;
}

SessionOutput feed(IrcSession& s, const std::string& line) {
  auto m = parse_line(line);
  EXPECT_TRUE(m) << line;
  return m ? s.handle(*m) : SessionOutput{};
}

TEST(IrcSession, PlainRegistration) {
  SessionSettings st;
  st.nick = "pincer";
  st.password = "server pass";
  st.channels = {"#one", "#two key", "bad"};
  IrcSession s(st);
  EXPECT_EQ(s.start(), (std::vector<std::string>{"CAP LS 302\r\n", "PASS :server pass\r\n", "NICK pincer\r\n",
                                                 "USER pincer 0 * Pincer\r\n"}));
  EXPECT_EQ(feed(s, ":srv CAP * LS :multi-prefix away-notify").send, std::vector<std::string>{"CAP END\r\n"});
  EXPECT_FALSE(s.registered());
  auto welcome = feed(s, ":srv 001 pincer :Welcome");
  EXPECT_TRUE(welcome.registered);
  EXPECT_TRUE(s.registered());
  EXPECT_EQ(welcome.send, (std::vector<std::string>{"JOIN #one\r\n", "JOIN #two key\r\n"}));
  EXPECT_EQ(feed(s, "PING :srv.example").send, std::vector<std::string>{"PONG srv.example\r\n"});
  feed(s, ":pincer!~p@h JOIN #one");
  EXPECT_EQ(s.joined(), (std::set<std::string>{"#one"}));
  feed(s, ":op!o@h KICK #one pincer :bye");
  EXPECT_TRUE(s.joined().empty());
}

TEST(IrcSession, NickFallbackOn433ThenGivesUp) {
  IrcSession s(settings("pincer"));
  s.start();
  EXPECT_EQ(feed(s, ":srv 433 * pincer :Nickname is already in use").send, std::vector<std::string>{"NICK pincer_\r\n"});
  EXPECT_EQ(s.nick(), "pincer_");
  EXPECT_EQ(feed(s, ":srv 433 * pincer_ :in use").send, std::vector<std::string>{"NICK pincer__\r\n"});
  feed(s, ":srv 433 * x :in use");
  feed(s, ":srv 433 * x :in use");
  EXPECT_TRUE(feed(s, ":srv 433 * x :in use").fatal);
  // After registration a 433 (e.g. from a NICK we did not send) changes nothing.
  IrcSession r(settings("pincer"));
  r.start();
  feed(r, ":srv 001 pincer :hi");
  auto late = feed(r, ":srv 433 pincer other :in use");
  EXPECT_TRUE(late.send.empty());
  EXPECT_FALSE(late.fatal);
}

TEST(IrcSession, FatalReplies) {
  for (const char* line : {":srv 432 * b@d :Erroneous nickname", ":srv 464 * :Password incorrect",
                           ":srv 465 * :You are banned", "ERROR :Closing link"}) {
    IrcSession s(settings("pincer"));
    s.start();
    EXPECT_TRUE(feed(s, line).fatal) << line;
  }
}

TEST(IrcSession, SaslPlain) {
  SessionSettings st;
  st.nick = "pincer";
  st.sasl_username = "acct";
  st.sasl_password = "secret";
  IrcSession s(st);
  s.start();
  EXPECT_TRUE(feed(s, ":srv CAP * LS * :multi-prefix").send.empty());  // more to come
  EXPECT_EQ(feed(s, ":srv CAP * LS :sasl=EXTERNAL,PLAIN away-notify").send, std::vector<std::string>{"CAP REQ sasl\r\n"});
  EXPECT_EQ(feed(s, ":srv CAP * ACK :sasl").send, std::vector<std::string>{"AUTHENTICATE PLAIN\r\n"});
  // base64("acct\0acct\0secret")
  EXPECT_EQ(feed(s, "AUTHENTICATE +").send, std::vector<std::string>{"AUTHENTICATE YWNjdABhY2N0AHNlY3JldA==\r\n"});
  EXPECT_TRUE(feed(s, ":srv 900 pincer pincer!p@h acct :You are now logged in").send.empty());
  EXPECT_EQ(feed(s, ":srv 903 pincer :SASL authentication successful").send, std::vector<std::string>{"CAP END\r\n"});
  EXPECT_TRUE(feed(s, ":srv 001 pincer :Welcome").registered);
}

TEST(IrcSession, SaslFailures) {
  const SessionSettings st = settings("pincer", [](SessionSettings& x) {
    x.sasl_username = "a";
    x.sasl_password = "b";
  });
  {
    IrcSession s(st);
    s.start();
    auto out = feed(s, ":srv CAP * LS :multi-prefix");
    ASSERT_TRUE(out.fatal);
    EXPECT_NE(out.fatal->find("SASL"), std::string::npos);
    EXPECT_TRUE(out.send.empty());  // never CAP END: no registration without the login asked for
  }
  {
    IrcSession s(st);
    s.start();
    EXPECT_TRUE(feed(s, ":srv CAP * LS :sasl=EXTERNAL").fatal);  // SASL, but not PLAIN
  }
  {
    IrcSession s(st);
    s.start();
    feed(s, ":srv CAP * LS :sasl");
    EXPECT_TRUE(feed(s, ":srv CAP * NAK :sasl").fatal);
  }
  {
    IrcSession s(st);  // a server without CAP: 421 for CAP LS, then registered anyway
    s.start();
    EXPECT_FALSE(feed(s, ":srv 421 * CAP :Unknown command").fatal);
    auto welcome = feed(s, ":srv 001 pincer :Welcome");
    EXPECT_TRUE(welcome.fatal);
    EXPECT_FALSE(s.registered());
  }
  {
    IrcSession s(st);
    s.start();
    feed(s, ":srv CAP * LS :sasl");
    feed(s, ":srv CAP * ACK :sasl");
    feed(s, "AUTHENTICATE +");
    EXPECT_TRUE(feed(s, ":srv 904 pincer :SASL authentication failed").fatal);
  }
}

TEST(IrcSession, SaslPayloadInPiecesOf400) {
  const SessionSettings st = settings("p", [](SessionSettings& x) {
    x.sasl_username = "u";
    x.sasl_password = std::string(296, 'x');
  });
  IrcSession s(st);  // "u\0u\0" + 296 bytes = 300 bytes → exactly 400 base64 characters
  s.start();
  feed(s, ":srv CAP * LS :sasl");
  feed(s, ":srv CAP * ACK :sasl");
  auto out = feed(s, "AUTHENTICATE +");
  ASSERT_EQ(out.send.size(), 2u);
  EXPECT_EQ(out.send[0].size(), std::string("AUTHENTICATE ").size() + 400 + 2);
  EXPECT_EQ(out.send[1], "AUTHENTICATE +\r\n");
}

TEST(IrcSession, NickServIdentifyAfterWelcome) {
  const SessionSettings st = settings("pincer", [](SessionSettings& x) { x.nickserv_password = "hunter2"; });
  IrcSession s(st);
  s.start();
  feed(s, ":srv CAP * LS :");
  EXPECT_EQ(feed(s, ":srv 001 pincer :hi").send, std::vector<std::string>{"PRIVMSG NickServ :IDENTIFY hunter2\r\n"});
}

TEST(IrcSession, Messages) {
  const SessionSettings st = settings("pincer", [](SessionSettings& x) { x.channels = {"#Pincer"}; });
  IrcSession s(st);
  s.start();
  EXPECT_FALSE(feed(s, ":alice!~a@h PRIVMSG pincer :too early").message);  // before 001
  feed(s, ":srv 001 pincer :hi");

  auto dm = feed(s, "@msgid=m1 :alice!~a@h.example PRIVMSG Pincer :hello");
  ASSERT_TRUE(dm.message);
  EXPECT_FALSE(dm.message->is_group);
  EXPECT_EQ(dm.message->chat, "alice");
  EXPECT_EQ(dm.message->sender.user, "~a");
  EXPECT_EQ(dm.message->sender.host, "h.example");
  EXPECT_EQ(dm.message->text, "hello");
  EXPECT_EQ(dm.message->msgid, "m1");

  auto group = feed(s, ":alice!~a@h PRIVMSG #pincer :pincer: hi");
  ASSERT_TRUE(group.message);
  EXPECT_TRUE(group.message->is_group);
  EXPECT_EQ(group.message->chat, "#Pincer");  // spelled as configured
  EXPECT_TRUE(group.message->mentions_bot);
  auto chatter = feed(s, ":alice!~a@h PRIVMSG #other :no mention of the bot");
  ASSERT_TRUE(chatter.message);
  EXPECT_EQ(chatter.message->chat, "#other");
  EXPECT_FALSE(chatter.message->mentions_bot);

  auto action = feed(s, ":alice!~a@h PRIVMSG pincer :\x01" "ACTION waves\x01");
  ASSERT_TRUE(action.message);
  EXPECT_TRUE(action.message->action);
  EXPECT_EQ(action.message->text, "waves");

  EXPECT_FALSE(feed(s, ":alice!~a@h PRIVMSG pincer :\x01VERSION\x01").message);
  EXPECT_FALSE(feed(s, ":alice!~a@h NOTICE pincer :notices are never answered").message);
  EXPECT_FALSE(feed(s, ":pincer!~p@h PRIVMSG #pincer :our own echo").message);
  EXPECT_FALSE(feed(s, ":alice!~a@h PRIVMSG @#pincer :statusmsg").message);
  EXPECT_FALSE(feed(s, ":alice!~a@h PRIVMSG pincer").message);  // no text

  // Our nick changes: DMs and mentions follow it.
  feed(s, ":pincer!~p@h NICK :claw");
  EXPECT_EQ(s.nick(), "claw");
  EXPECT_TRUE(feed(s, ":alice!~a@h PRIVMSG #pincer :claw, hi").message->mentions_bot);
  EXPECT_FALSE(feed(s, ":alice!~a@h PRIVMSG claw :x").message->is_group);
}

TEST(IrcSession, IsupportCasemappingAndChantypes) {
  IrcSession s(settings("a~b"));
  s.start();
  feed(s, ":srv 001 a~b :hi");
  feed(s, ":srv 005 a~b CASEMAPPING=ascii CHANTYPES=#+ :are supported by this server");
  EXPECT_EQ(s.casemapping(), CaseMapping::Ascii);
  EXPECT_FALSE(feed(s, ":x!y@z PRIVMSG A^B :not us under ascii").message);
  auto plus = feed(s, ":x!y@z PRIVMSG +chan :hi");
  ASSERT_TRUE(plus.message);
  EXPECT_TRUE(plus.message->is_group);
}

TEST(IrcBase64, Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

// ---------------------------------------------------------------------------------------------
// channels.irc
// ---------------------------------------------------------------------------------------------

TEST(IrcSettings, FromConfig) {
  auto s = irc_settings_from_json(json::parse(R"({"host":"irc.example","nick":"pincer","tls":true,
      "sasl":{"username":"a","password":"b"},"nickserv":{"password":"n"},"channels":["#x","#y key"]})"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->port, 6697);
  EXPECT_TRUE(s->tls);
  EXPECT_EQ(s->session.sasl_username, "a");
  EXPECT_EQ(s->session.nickserv_password, "n");
  EXPECT_EQ(s->session.nickserv_service, "NickServ");
  EXPECT_EQ(s->session.channels, (std::vector<std::string>{"#x", "#y key"}));
  auto plain = irc_settings_from_json(json::parse(R"({"host":"h","nick":"p","port":7000})"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->port, 7000);
  EXPECT_FALSE(plain->tls);
  EXPECT_EQ(irc_settings_from_json(json::parse(R"({"host":"h","nick":"p"})"))->port, 6667);
}

TEST(IrcSettings, Errors) {
  for (const char* bad : {R"({"nick":"p"})", R"({"host":"h"})", R"({"host":"h","nick":"9lives"})",
                          R"({"host":"h","nick":"has space"})", R"({"host":"h","nick":"p","channels":["nochan"]})",
                          R"({"host":"h","nick":"p","channels":["#a,#b"]})",
                          R"({"host":"h","nick":"p","sasl":{"username":"only"}})"}) {
    auto s = irc_settings_from_json(json::parse(bad));
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().code, "CONFIG_INVALID");
    EXPECT_EQ(s.error().message.rfind("channels.irc.", 0), 0u) << s.error().message;
  }
}

}  // namespace
}  // namespace pincer::channels::irc
