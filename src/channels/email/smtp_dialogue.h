// The client side of one SMTP submission (RFC 5321; STARTTLS RFC 3207; AUTH PLAIN/LOGIN RFC 4954
// and 4616) as a pure state machine: fed the server's replies, it says what to write next.
// net_smtp_sender.cpp moves the bytes; this file holds every protocol decision, so it is
// unit-tested without a network.
//
//   greeting 220 → EHLO → [STARTTLS → 220 → (TLS handshake) → EHLO] → [AUTH PLAIN | AUTH LOGIN]
//   → MAIL FROM:<from> → RCPT TO:<to> → DATA → 354 → message (dot-stuffed) "." → 250 → QUIT
//
// Errors are coded as Channel::send_text's (channels/channel.h): a 4xx reply, a closed connection
// or a timeout → "UNAVAILABLE" (try again later); a 5xx reply to RCPT TO, DATA or the message
// (this message is refused: recipient unknown, too big …) → "REJECTED" with the server's text.
// Problems of the account, not of the message, are "UNAVAILABLE" too, so the reply is kept and
// sent once the config is fixed (the outbox retries, then parks it until the account restarts):
// a refused login (535/534/530/454 after AUTH) naming <config_path>.smtp.password; a server that
// does not offer STARTTLS when security is "starttls" naming <config_path>.smtp.security (the
// password is never sent in the clear); a 5xx to the greeting, EHLO or STARTTLS; a 5xx to MAIL
// FROM naming <config_path>.address.
//
// Not thread-safe; one instance per submission.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::channels::email {

/// One complete server reply: its three-digit code and its text lines (without "250-"/"250 ").
struct SmtpReply {
  int code = 0;
  std::vector<std::string> lines;
  /// "250 first line / second line" for error messages (at most 300 characters).
  std::string summary() const;
};

/// Collects reply lines ("250-…" continues, "250 …" or "250" ends) into SmtpReply values.
class SmtpReplyReader {
 public:
  /// One line without CR LF. Returns the reply when this line completes it; an Error
  /// ("UNAVAILABLE") for a line that is not an SMTP reply line or a reply of over 100 lines.
  std::optional<Result<SmtpReply>> feed(std::string_view line);

 private:
  SmtpReply pending_;
};

/// The message as DATA sends it: each line starting with "." gets another "." (RFC 5321 §4.5.2),
/// bare LF become CRLF, and "\r\n.\r\n" ends it.
std::string smtp_dot_stuff(std::string_view message);

/// What the connection does next.
struct SmtpStep {
  enum class Kind {
    kWrite,     ///< write `bytes`, then read the next reply
    kStartTls,  ///< run the TLS handshake, then call after_tls()
    kDone,      ///< the message was accepted (QUIT was written in `bytes`; close after writing it)
    kFail,      ///< stop: `error`
  };
  Kind kind = Kind::kWrite;
  std::string bytes;
  Error error;
};

class SmtpDialogue {
 public:
  struct Params {
    std::string host;       ///< for messages
    std::string security;   ///< "tls" | "starttls" | "none"
    std::string user;       ///< empty: no AUTH
    std::string password;
    std::string ehlo_name;  ///< the name we greet with (the domain of our address)
    std::string from;       ///< envelope sender (bare address)
    std::string to;         ///< envelope recipient (bare address)
    std::string data;       ///< the composed message (compose_email)
    std::string config_path = "channels.email";  ///< the account's config keys, for messages
    bool probe_only = false;  ///< stop after the login (or EHLO without user): QUIT, kDone
  };
  explicit SmtpDialogue(Params params);

  /// The next step after the server's reply `reply`.
  SmtpStep on_reply(const SmtpReply& reply);
  /// The next step once the STARTTLS handshake succeeded (a fresh EHLO).
  SmtpStep after_tls();
  /// The current stage's name for messages ("greeting", "EHLO", "AUTH", "MAIL FROM", "RCPT TO",
  /// "DATA", "message", "QUIT").
  const std::string& stage() const { return stage_; }

 private:
  SmtpStep write(std::string stage, std::string bytes);
  SmtpStep fail_reply(const SmtpReply& reply);
  SmtpStep after_ehlo(const SmtpReply& reply);
  SmtpStep mail_from();

  Params p_;
  std::string stage_ = "greeting";
  bool tls_up_ = false;
};

}  // namespace pincer::channels::email
