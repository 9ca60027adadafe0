// Sends the e-mail channel's replies through the account's SMTP server (issue 21 item 3):
// compose (email_compose.h), then one SMTP submission per message (smtp_dialogue.h) over Asio on
// the event loop — TLS from the first byte ("tls", port 465), STARTTLS ("starttls", 587) or plain
// ("none", 25; only to a loopback host unless allow_insecure). TLS verifies the server
// certificate and host name against the system CA store (core/net_tls.h; OpenSSL's
// SSL_CERT_FILE applies). AUTH PLAIN (or LOGIN when only that is offered) when `user` is set.
//
// Written over Asio instead of libcurl: Debian's libcurl.a cannot be linked into the static
// `pincer` binary (it needs librtmp, libssh2, gssapi, ldap archives Debian does not ship).
//
// Loop affinity: construct, send() and stop() on the event-loop thread; `done` runs there,
// always later than send() returns (never re-entrantly), exactly once, unless stop() came first.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "channels/email/email_compose.h"
#include "core/clock.h"
#include "core/event_loop.h"
#include "core/result.h"

namespace pincer::channels::email {

/// channels.email.smtp (+ allowInsecure) as read by the channel's settings reader.
struct SmtpSettings {
  std::string host;
  int port = 0;                 ///< 1..65535
  std::string security;         ///< "tls" | "starttls" | "none"
  std::string user, password;   ///< empty user: no AUTH
  bool allow_insecure = false;  ///< lets "none" reach a host that is not loopback
  int64_t timeout_ms = 60'000;  ///< the whole submission, connect to QUIT
  std::string config_path = "channels.email";  ///< the account's config keys, for messages
};

/// Why `s` cannot be used (naming the config key: "channels.email.smtp.security must be …"), or
/// nullopt. "none" needs a loopback host (localhost, 127.0.0.0/8, ::1) or allow_insecure.
std::optional<std::string> smtp_settings_problem(const SmtpSettings& s);

class SmtpSender {
 public:
  SmtpSender(EventLoop& loop, SmtpSettings settings, Clock& clock = SystemClock::instance());
  ~SmtpSender();  ///< stop()
  SmtpSender(const SmtpSender&) = delete;
  SmtpSender& operator=(const SmtpSender&) = delete;

  /// Composes `email` with a fresh Message-ID and the clock's date, and submits it to
  /// email.to_address. `done` gets the new Message-ID (with <>) once the server accepted the
  /// message (250 after DATA), or an Error coded as Channel::send_text's: "REJECTED" only when
  /// the server refuses this message (a 5xx to RCPT TO, DATA or the message, with the server's
  /// text) or the recipient's address is malformed; everything else is "UNAVAILABLE" — a
  /// resolve/connect/TLS failure, timeout, closed connection, 4xx reply, and the problems a user
  /// fixes in the config (a refused login, missing STARTTLS, a server certificate that fails
  /// verification, bad settings or our own address; the message names the key), so the reply is
  /// kept (channels/reply_delivery.h) until the account works. Several sends may run at once
  /// (one connection each).
  void send(OutgoingEmail email, std::function<void(Result<std::string>)> done);

  /// Connect, EHLO, [STARTTLS, EHLO,] AUTH (when `user` is set), QUIT: whether this account can
  /// send; EHLO greets with the domain of `from_address`. `done` as send()'s (Ok or an
  /// UNAVAILABLE error naming the key), same rules of timing.
  void probe(const std::string& from_address, std::function<void(Status)> done);

  /// Closes every connection; no `done` runs afterwards. send() after stop() is allowed again.
  void stop();

 private:
  struct Session;
  EventLoop& loop_;
  SmtpSettings settings_;
  Clock& clock_;
  std::shared_ptr<bool> alive_;
  std::vector<std::shared_ptr<Session>> sessions_;

  /// Runs `session` (its dialogue set up); `deliver` gets its result once, posted to the loop.
  void run_session(std::shared_ptr<Session> session, std::function<void(Result<std::string>)> deliver);
};

}  // namespace pincer::channels::email
