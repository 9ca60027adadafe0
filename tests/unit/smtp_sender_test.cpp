// The e-mail channel's SMTP submission (src/channels/email/smtp_dialogue.h, smtp_sender.h): the
// reply reader, dot-stuffing, the dialogue's steps and error codes (4xx UNAVAILABLE; a 5xx that
// refuses the message REJECTED; the account's problems — a refused login, a missing STARTTLS, a
// refused sender — UNAVAILABLE naming the config keys, so the reply is kept), settings checks,
// the probe (login, QUIT, no mail), and SmtpSender on the event loop against a scripted SMTP server on loopback (a real socket, a
// thread answering line by line). STARTTLS/TLS against a real server: tests/email_servers.
#include <gtest/gtest.h>

#include "../support/loopback_listener.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <thread>

#include "channels/email/smtp_dialogue.h"
#include "channels/email/smtp_sender.h"

using namespace pincer;
using namespace pincer::channels::email;

namespace {

SmtpReply smtp_test_reply(int code, std::vector<std::string> lines) { return SmtpReply{code, std::move(lines)}; }

SmtpDialogue::Params smtp_test_params(std::string security = "none", std::string user = "bot") {
  SmtpDialogue::Params p;
  p.host = "mail.test";
  p.security = std::move(security);
  p.user = std::move(user);
  p.password = "secret";
  p.ehlo_name = "example.org";
  p.from = "bot@example.org";
  p.to = "alice@example.net";
  p.data = "Subject: x\r\n\r\n.hi\r\n";
  return p;
}

/// A one-connection SMTP server on 127.0.0.1: answers each command with the next scripted reply
/// (by command word), records what the client wrote.
class SmtpTestServer {
 public:
  explicit SmtpTestServer(std::map<std::string, std::string> replies) : replies_(std::move(replies)) {
    fd_ = test::listen_on_loopback(port_);
    EXPECT_GE(fd_, 0) << "cannot listen on 127.0.0.1";
    thread_ = std::thread([this] { serve(); });
  }
  ~SmtpTestServer() {
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  /// Waits until the client closed or QUIT (the transcript is complete then).
  const std::string& finished_transcript() {
    if (thread_.joinable()) thread_.join();
    return transcript_;
  }
  int port() const { return port_; }

 private:
  void serve() {
    const int c = ::accept(fd_, nullptr, nullptr);
    auto say = [&](const std::string& s) { (void)!::write(c, s.data(), s.size()); };
    say(replies_.count("greeting") ? replies_["greeting"] : "220 test ESMTP\r\n");
    std::string buf;
    bool in_data = false;
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::read(c, chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, static_cast<std::size_t>(n));
      transcript_.append(chunk, static_cast<std::size_t>(n));
      std::size_t nl;
      while ((nl = buf.find("\r\n")) != std::string::npos) {
        const std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 2);
        if (in_data) {
          if (line == ".") {
            in_data = false;
            say(replies_.count(".") ? replies_["."] : "250 queued\r\n");
          }
          continue;
        }
        const std::string word = line.substr(0, line.find_first_of(" :"));
        const std::string reply = replies_.count(word) ? replies_[word] : "250 ok\r\n";
        say(reply);
        if (word == "DATA" && reply.rfind("354", 0) == 0) in_data = true;
        if (word == "QUIT" || reply.rfind("5", 0) == 0) {
          ::close(c);
          return;
        }
      }
    }
    ::close(c);
  }

  std::map<std::string, std::string> replies_;
  int fd_ = -1;
  int port_ = 0;
  std::string transcript_;
  std::thread thread_;
};

Result<std::string> smtp_test_send(int port, const std::string& user = "bot") {
  EventLoop loop;
  SmtpSettings s;
  s.host = "127.0.0.1";
  s.port = port;
  s.security = "none";
  s.user = user;
  s.password = "secret";
  s.timeout_ms = 20'000;
  SmtpSender sender(loop, s);
  OutgoingEmail e;
  e.from_address = "bot@example.org";
  e.to_address = "alice@example.net";
  e.subject = "Hi";
  e.markdown = ".dot line\nsecond";
  std::optional<Result<std::string>> result;
  loop.post([&] {
    sender.send(e, [&](Result<std::string> r) {
      result = std::move(r);
      loop.stop();
    });
  });
  loop.run();
  return std::move(*result);
}

}  // namespace

TEST(SmtpDialogue, ReaderJoinsMultilineReplies) {
  SmtpReplyReader r;
  EXPECT_FALSE(r.feed("250-mail.test hello"));
  EXPECT_FALSE(r.feed("250-STARTTLS"));
  auto done = r.feed("250 AUTH PLAIN LOGIN");
  ASSERT_TRUE(done && done->ok());
  EXPECT_EQ((*done)->code, 250);
  EXPECT_EQ((*done)->lines, (std::vector<std::string>{"mail.test hello", "STARTTLS", "AUTH PLAIN LOGIN"}));
  auto bare = r.feed("354");
  ASSERT_TRUE(bare && bare->ok());
  EXPECT_EQ((*bare)->code, 354);
  auto bad = r.feed("hello there");
  ASSERT_TRUE(bad && !bad->ok());
  EXPECT_EQ(bad->error().code, "UNAVAILABLE");
}

TEST(SmtpDialogue, DotStuffing) {
  EXPECT_EQ(smtp_dot_stuff("a\r\n.b\r\n..c"), "a\r\n..b\r\n...c\r\n.\r\n");
  EXPECT_EQ(smtp_dot_stuff(".\nx\n"), "..\r\nx\r\n.\r\n");
}

TEST(SmtpDialogue, PlainSubmissionWithAuthPlain) {
  SmtpDialogue d(smtp_test_params());
  EXPECT_EQ(d.on_reply(smtp_test_reply(220, {"hi"})).bytes, "EHLO example.org\r\n");
  auto auth = d.on_reply(smtp_test_reply(250, {"mail.test", "AUTH LOGIN PLAIN"}));
  EXPECT_EQ(auth.bytes, "AUTH PLAIN AGJvdABzZWNyZXQ=\r\n");  // "\0bot\0secret"
  EXPECT_EQ(d.on_reply(smtp_test_reply(235, {"ok"})).bytes, "MAIL FROM:<bot@example.org>\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"ok"})).bytes, "RCPT TO:<alice@example.net>\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"ok"})).bytes, "DATA\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(354, {"go"})).bytes, "Subject: x\r\n\r\n..hi\r\n.\r\n");
  auto done = d.on_reply(smtp_test_reply(250, {"queued"}));
  EXPECT_EQ(done.kind, SmtpStep::Kind::kDone);
  EXPECT_EQ(done.bytes, "QUIT\r\n");
}

TEST(SmtpDialogue, AuthLoginWhenOnlyLoginIsOffered) {
  SmtpDialogue d(smtp_test_params());
  d.on_reply(smtp_test_reply(220, {"hi"}));
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"mail.test", "AUTH=LOGIN", "AUTH LOGIN"})).bytes, "AUTH LOGIN\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(334, {"VXNlcm5hbWU6"})).bytes, "Ym90\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(334, {"UGFzc3dvcmQ6"})).bytes, "c2VjcmV0\r\n");
  auto refused = d.on_reply(smtp_test_reply(535, {"5.7.8 bad credentials"}));
  EXPECT_EQ(refused.kind, SmtpStep::Kind::kFail);
  EXPECT_EQ(refused.error.code, "UNAVAILABLE");  // the config's problem, not the message's: kept
  EXPECT_NE(refused.error.message.find("refused the login for bot (535 5.7.8 bad credentials)"), std::string::npos);
  EXPECT_NE(refused.error.message.find("channels.email.smtp.password"), std::string::npos);
}

TEST(SmtpDialogue, StartTlsThenEhloAgain) {
  SmtpDialogue d(smtp_test_params("starttls"));
  d.on_reply(smtp_test_reply(220, {"hi"}));
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"mail.test", "STARTTLS", "AUTH PLAIN"})).bytes, "STARTTLS\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(220, {"go ahead"})).kind, SmtpStep::Kind::kStartTls);
  EXPECT_EQ(d.after_tls().bytes, "EHLO example.org\r\n");
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"mail.test", "AUTH PLAIN"})).bytes.rfind("AUTH PLAIN ", 0), 0u);
}

TEST(SmtpDialogue, MissingStartTlsNeverSendsThePassword) {
  SmtpDialogue d(smtp_test_params("starttls"));
  d.on_reply(smtp_test_reply(220, {"hi"}));
  auto s = d.on_reply(smtp_test_reply(250, {"mail.test", "AUTH PLAIN"}));
  EXPECT_EQ(s.kind, SmtpStep::Kind::kFail);
  EXPECT_EQ(s.error.code, "UNAVAILABLE");
  EXPECT_NE(s.error.message.find("does not offer STARTTLS: check channels.email.smtp.security"), std::string::npos);
}

TEST(SmtpDialogue, TemporaryAndPermanentRefusals) {
  SmtpDialogue d(smtp_test_params("none", ""));
  d.on_reply(smtp_test_reply(220, {"hi"}));
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"mail.test"})).bytes, "MAIL FROM:<bot@example.org>\r\n");
  d.on_reply(smtp_test_reply(250, {"ok"}));
  auto temp = d.on_reply(smtp_test_reply(451, {"4.3.0 try later"}));
  EXPECT_EQ(temp.error.code, "UNAVAILABLE");
  EXPECT_EQ(temp.error.message, "the SMTP server mail.test could not take (try again later) RCPT TO: 451 4.3.0 try later");
  SmtpDialogue d2(smtp_test_params("none", ""));
  d2.on_reply(smtp_test_reply(220, {"hi"}));
  d2.on_reply(smtp_test_reply(250, {"mail.test"}));
  d2.on_reply(smtp_test_reply(250, {"ok"}));
  auto perm = d2.on_reply(smtp_test_reply(550, {"5.1.1 no such user"}));
  EXPECT_EQ(perm.error.code, "REJECTED");
  EXPECT_EQ(perm.error.message, "the SMTP server mail.test refused RCPT TO: 550 5.1.1 no such user");
  SmtpDialogue d3(smtp_test_params("none", ""));
  d3.on_reply(smtp_test_reply(220, {"hi"}));
  d3.on_reply(smtp_test_reply(250, {"mail.test"}));
  d3.on_reply(smtp_test_reply(250, {"ok"}));
  d3.on_reply(smtp_test_reply(250, {"ok"}));
  d3.on_reply(smtp_test_reply(354, {"go"}));
  auto too_big = d3.on_reply(smtp_test_reply(552, {"5.3.4 message too big"}));
  EXPECT_EQ(too_big.error.code, "REJECTED");
}

TEST(SmtpDialogue, TheAccountsProblemsAreNotTheMessagesAndNameTheKeys) {
  auto p = smtp_test_params("none", "");
  p.config_path = "channels.email.accounts.work";
  SmtpDialogue d(p);
  d.on_reply(smtp_test_reply(220, {"hi"}));
  d.on_reply(smtp_test_reply(250, {"mail.test"}));
  auto sender = d.on_reply(smtp_test_reply(553, {"5.7.1 sender not owned by user"}));
  EXPECT_EQ(sender.error.code, "UNAVAILABLE");
  EXPECT_NE(sender.error.message.find("refused MAIL FROM: 553 5.7.1 sender not owned by user: check "
                                      "channels.email.accounts.work.address"),
            std::string::npos)
      << sender.error.message;
  SmtpDialogue greeting(p);
  EXPECT_EQ(greeting.on_reply(smtp_test_reply(554, {"no service for you"})).error.code, "UNAVAILABLE");
  auto login = smtp_test_params();
  login.config_path = "channels.email.accounts.work";
  SmtpDialogue d2(login);
  d2.on_reply(smtp_test_reply(220, {"hi"}));
  d2.on_reply(smtp_test_reply(250, {"mail.test", "AUTH PLAIN"}));
  auto refused = d2.on_reply(smtp_test_reply(535, {"5.7.8 no"}));
  EXPECT_EQ(refused.error.code, "UNAVAILABLE");
  EXPECT_NE(refused.error.message.find("check channels.email.accounts.work.smtp.user and "
                                       "channels.email.accounts.work.smtp.password"),
            std::string::npos);
}

TEST(SmtpDialogue, ProbeStopsAfterTheLogin) {
  auto p = smtp_test_params();
  p.probe_only = true;
  SmtpDialogue d(p);
  d.on_reply(smtp_test_reply(220, {"hi"}));
  EXPECT_EQ(d.on_reply(smtp_test_reply(250, {"mail.test", "AUTH PLAIN"})).bytes.rfind("AUTH PLAIN ", 0), 0u);
  auto done = d.on_reply(smtp_test_reply(235, {"ok"}));
  EXPECT_EQ(done.kind, SmtpStep::Kind::kDone);
  EXPECT_EQ(done.bytes, "QUIT\r\n");
}

TEST(SmtpSender, SettingsProblemsNameTheKey) {
  SmtpSettings s{"smtp.example.org", 587, "starttls", "u", "p"};
  EXPECT_FALSE(smtp_settings_problem(s));
  s.security = "ssl";
  EXPECT_NE(smtp_settings_problem(s)->find("channels.email.smtp.security must be"), std::string::npos);
  s.security = "none";
  EXPECT_NE(smtp_settings_problem(s)->find("channels.email.allowInsecure"), std::string::npos);
  s.allow_insecure = true;
  EXPECT_FALSE(smtp_settings_problem(s));
  s = SmtpSettings{"127.0.0.1", 2525, "none", "", ""};
  EXPECT_FALSE(smtp_settings_problem(s));
  s.port = 0;
  EXPECT_NE(smtp_settings_problem(s)->find("channels.email.smtp.port"), std::string::npos);
}

TEST(SmtpSender, SubmitsToARealSocketAndAnswersTheMessageId) {
  SmtpTestServer server({{"EHLO", "250-test\r\n250 AUTH PLAIN\r\n"}, {"AUTH", "235 ok\r\n"}, {"DATA", "354 go\r\n"}});
  auto r = smtp_test_send(server.port());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->substr(r->size() - 13), "@example.org>");
  const std::string& t = server.finished_transcript();  // after the server thread wrote its last line
  EXPECT_NE(t.find("AUTH PLAIN AGJvdABzZWNyZXQ=\r\nMAIL FROM:<bot@example.org>\r\nRCPT TO:<alice@example.net>\r\n"),
            std::string::npos);
  EXPECT_NE(t.find("Message-ID: " + r.value() + "\r\n"), std::string::npos);
  EXPECT_NE(t.find("\r\n..dot line\r\nsecond"), std::string::npos);  // dot-stuffed plain part
  EXPECT_NE(t.find("\r\n.\r\nQUIT\r\n"), std::string::npos);
}

TEST(SmtpSender, RefusedLoginIsUnavailableNamingThePassword) {
  // Not REJECTED: the outbox keeps the reply until the password is fixed (reply_delivery.h).
  SmtpTestServer server({{"EHLO", "250-test\r\n250 AUTH PLAIN\r\n"}, {"AUTH", "535 5.7.8 no\r\n"}});
  auto r = smtp_test_send(server.port());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "UNAVAILABLE");
  EXPECT_NE(r.error().message.find("check channels.email.smtp.user and channels.email.smtp.password"), std::string::npos);
}

TEST(SmtpSender, ServerClosingIsUnavailable) {
  SmtpTestServer server(std::map<std::string, std::string>{{"EHLO", "421 4.3.2 shutting down\r\n"}});
  auto r = smtp_test_send(server.port());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "UNAVAILABLE");
  EXPECT_NE(r.error().message.find("421 4.3.2 shutting down"), std::string::npos);
}

TEST(SmtpSender, NothingListeningIsUnavailable) {
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    ::close(fd);  // bound, never listened: connecting is refused
  }
  auto r = smtp_test_send(port);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "UNAVAILABLE");
  EXPECT_NE(r.error().message.find("could not connect to the SMTP server 127.0.0.1:" + std::to_string(port)),
            std::string::npos);
}

namespace {

Status smtp_test_probe(int port) {
  EventLoop loop;
  SmtpSettings s;
  s.host = "127.0.0.1";
  s.port = port;
  s.security = "none";
  s.user = "bot";
  s.password = "secret";
  s.timeout_ms = 20'000;
  SmtpSender sender(loop, s);
  std::optional<Status> result;
  loop.post([&] {
    sender.probe("bot@example.org", [&](Status st) {
      result = std::move(st);
      loop.stop();
    });
  });
  loop.run();
  return std::move(*result);
}

}  // namespace

TEST(SmtpSender, ProbeLogsInAndQuitsWithoutMail) {
  SmtpTestServer server({{"EHLO", "250-test\r\n250 AUTH PLAIN\r\n"}, {"AUTH", "235 ok\r\n"}});
  auto st = smtp_test_probe(server.port());
  ASSERT_TRUE(st.ok()) << st.error().message;
  const std::string& t = server.finished_transcript();
  EXPECT_EQ(t.rfind("EHLO example.org\r\nAUTH PLAIN AGJvdABzZWNyZXQ=\r\n", 0), 0u) << t;
  EXPECT_EQ(t.find("MAIL FROM"), std::string::npos) << t;  // (QUIT follows as a courtesy)
}

TEST(SmtpSender, ProbeNamesARefusedLogin) {
  SmtpTestServer server({{"EHLO", "250-test\r\n250 AUTH PLAIN\r\n"}, {"AUTH", "535 5.7.8 no\r\n"}});
  auto st = smtp_test_probe(server.port());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "UNAVAILABLE");
  EXPECT_NE(st.error().message.find("refused the login for bot (535 5.7.8 no): check channels.email.smtp.user and "
                                    "channels.email.smtp.password"),
            std::string::npos)
      << st.error().message;
}
