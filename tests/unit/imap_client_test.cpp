// The IMAP client's connection set-up (src/channels/email/imap_client.h) and the e-mail channel's
// start (email_channel.h) against a scripted IMAP server on loopback (a real socket, a thread):
// the server accepts STARTTLS and then presents a self-signed certificate the client does not
// trust. The connect callback must get the certificate failure (it once got nothing: the
// handshake after STARTTLS failed with no command waiting), and the channel must fail — retried,
// not permanent — with a reason naming the config keys. Full IMAP sessions: tests/email_servers.
#include <gtest/gtest.h>

#include "../support/loopback_listener.h"
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <thread>

#include "channels/email/email_channel.h"
#include "channels/email/email_settings.h"
#include "channels/email/imap_client.h"

using namespace pincer;
using namespace pincer::channels::email;

namespace {

/// A one-connection IMAP server on 127.0.0.1: greets, answers the client's STARTTLS with OK, then
/// runs a TLS handshake with a fresh self-signed certificate (CN 127.0.0.1, trusted by nobody).
class ImapStartTlsTestServer {
 public:
  ImapStartTlsTestServer() {
    key_ = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    cert_ = X509_new();
    X509_set_version(cert_, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert_), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert_), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert_), 3600);
    X509_set_pubkey(cert_, key_);
    X509_NAME* name = X509_get_subject_name(cert_);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(cert_, name);
    X509_sign(cert_, key_, EVP_sha256());
    ctx_ = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx_, cert_);
    SSL_CTX_use_PrivateKey(ctx_, key_);

    fd_ = test::listen_on_loopback(port_);
    EXPECT_GE(fd_, 0) << "cannot listen on 127.0.0.1";
    thread_ = std::thread([this] { serve(); });
  }
  ~ImapStartTlsTestServer() {
    thread_.join();
    ::close(fd_);
    SSL_CTX_free(ctx_);
    X509_free(cert_);
    EVP_PKEY_free(key_);
  }
  uint16_t port() const { return static_cast<uint16_t>(port_); }
  /// What the client wrote before the handshake.
  const std::string& transcript() const { return transcript_; }
  /// Whether the client went on to the TLS handshake (which it must then refuse).
  bool handshake_attempted() const { return handshake_attempted_; }
  bool handshake_succeeded() const { return handshake_succeeded_; }

 private:
  void serve() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 30'000) != 1) return;  // no client: the test fails on its own
    const int c = ::accept(fd_, nullptr, nullptr);
    auto say = [&](const std::string& s) { (void)!::write(c, s.data(), s.size()); };
    say("* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] test ready\r\n");
    char chunk[1024];
    while (transcript_.find("\r\n") == std::string::npos) {
      const ssize_t n = ::read(c, chunk, sizeof chunk);
      if (n <= 0) break;
      transcript_.append(chunk, static_cast<std::size_t>(n));
    }
    const std::string tag = transcript_.substr(0, transcript_.find(' '));
    if (transcript_.find(" STARTTLS\r\n") != std::string::npos) {
      say(tag + " OK Begin TLS negotiation now\r\n");
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, c);
      handshake_attempted_ = true;
      handshake_succeeded_ = SSL_accept(ssl) == 1;
      SSL_free(ssl);
    }
    ::close(c);
  }

  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  SSL_CTX* ctx_ = nullptr;
  int fd_ = -1;
  int port_ = 0;
  std::string transcript_;
  std::atomic<bool> handshake_attempted_{false}, handshake_succeeded_{false};
  std::thread thread_;
};

class ImapTestHost final : public channels::ChannelHost {
 public:
  channels::InboundOutcome on_inbound(channels::InboundMessage) override { return {}; }
};

/// Connects an ImapClient to 127.0.0.1:`port` (`security`, user "bot", password "secret") and
/// returns what its connect callback got — nullopt when it was never called (60 s safety net).
std::optional<Status> imap_connect_result(uint16_t port, const std::string& security) {
  EventLoop loop;
  ImapClient client(loop);
  std::optional<Status> result;
  loop.post([&] {
    ImapConnectOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.security = security;
    o.user = "bot";
    o.password = "secret";
    o.command_timeout_ms = 20'000;
    client.connect(o, [&](Status st) {
      result = std::move(st);
      loop.stop();
    });
    loop.after(60'000, [&] { loop.stop(); });  // a safety net only: the callback stops the loop first
  });
  loop.run();
  client.close();
  return result;
}

}  // namespace

TEST(ImapClient, UntrustedCertificateAfterStartTlsReachesTheConnectCallback) {
  ImapStartTlsTestServer server;
  const auto result = imap_connect_result(server.port(), "starttls");
  ASSERT_TRUE(result.has_value()) << "the connect callback was never called";
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().code, "UNAVAILABLE");
  EXPECT_NE(result->error().message.find("certificate verify failed"), std::string::npos) << result->error().message;
  EXPECT_EQ(server.transcript(), "P1 STARTTLS\r\n");  // no login in the clear
}

TEST(EmailChannelStart, UntrustedStartTlsCertificateFailsNamingTheKeys) {
  ImapStartTlsTestServer server;
  const nlohmann::json config = {
      {"address", "bot@example.org"},
      {"imap", {{"host", "127.0.0.1"}, {"port", server.port()}, {"security", "starttls"}, {"password", "secret"}}},
      {"smtp", {{"host", "127.0.0.1"}, {"port", 2525}, {"security", "none"}}}};
  auto settings = email_settings_of(channels::ChannelAccount{"email", "default", "channels.email", config}, testing::TempDir());
  ASSERT_TRUE(settings) << settings.error().message;
  EventLoop loop;
  EmailChannel channel(loop, *settings);
  ImapTestHost host;
  std::optional<std::string> failed;
  loop.post([&] {
    channel.start(host, [&](const std::string& why) {
      failed = why;
      loop.stop();
    });
    loop.after(60'000, [&] { loop.stop(); });  // a safety net only
  });
  loop.run();
  ASSERT_TRUE(failed.has_value()) << "the channel never failed (it showed `running` forever)";
  EXPECT_NE(failed->find("certificate verify failed"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("check channels.email.imap.host"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("channels.email.imap.security"), std::string::npos) << *failed;
  EXPECT_FALSE(channel.failed_permanently());  // the manager retries with backoff
  EXPECT_FALSE(channel.status().value("running", true));
  channel.stop();
}

TEST(ImapClient, AnSmtpServerOnTheImapPortIsNamedAsNotIMAP) {
  // The new-user pass pointed the IMAP port at an SMTP server: the error spoke of "a tagged response
  // without OK, NO or BAD". It must say what answered, and which setting to check.
  int port = 0;
  const int fd = test::listen_on_loopback(port);
  ASSERT_GE(fd, 0);
  std::thread server([fd] {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 30'000) != 1) return;
    const int c = ::accept(fd, nullptr, nullptr);
    const std::string greeting = "220 mail.example.org ESMTP Postfix\r\n";
    (void)!::write(c, greeting.data(), greeting.size());
    char chunk[256];
    while (::read(c, chunk, sizeof chunk) > 0) {
    }
    ::close(c);
  });
  const auto result = imap_connect_result(static_cast<uint16_t>(port), "none");
  server.join();
  ::close(fd);
  ASSERT_TRUE(result.has_value()) << "the connect callback was never called";
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().message,
            "IMAP: 127.0.0.1 did not greet as an IMAP server (it said \"220 mail.example.org ESMTP Postfix\"): is the IMAP "
            "port right (993 with security tls, 143 with starttls)?");
}
