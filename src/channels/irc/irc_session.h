// One IRC client session as a pure state machine (issue #5 §5 IRC): what to send on connect,
// and, for each parsed server line, the lines to answer, a message for the agent, or a fatal
// error. No I/O, no clock: irc_channel.cpp feeds it lines and writes what it returns.
//
// Registration (RFC 1459 §4.1, IRCv3 capability negotiation and SASL 3.1):
//   on connect   CAP LS 302, PASS <password> (when set), NICK <nick>, USER <username> 0 * :<realname>
//   CAP LS       (multi-line "CAP * LS * :…" gathered) → CAP REQ :sasl when SASL is configured and
//                the server offers it (with PLAIN, when it lists mechanisms), else CAP END.
//                SASL configured but not offered, the REQ NAKed, or 001 before SASL finished
//                (a server without CAP) → fatal: the bot never continues unauthenticated when
//                credentials were given.
//   AUTHENTICATE PLAIN; on "AUTHENTICATE +" the base64 of "user\0user\0password" in 400-byte
//                pieces (an exact multiple of 400 ends with "AUTHENTICATE +").
//   903          CAP END.  902/904/905/906 → fatal "SASL authentication failed".  907 → CAP END.
//   433/436/437  (nick in use or held) before 001 → NICK <nick>_ , <nick>__ , … up to
//                kMaxNickAttempts, then fatal.  432 (erroneous nick), 464 (bad PASS), 465 (banned),
//                ERROR → fatal.
//   001          registered (our nick is its first parameter); then PRIVMSG NickServ :IDENTIFY
//                <password> when configured, and JOIN of each configured channel.
//   005          CASEMAPPING and CHANTYPES are honoured.
// After registration: PING → PONG; NICK/JOIN/PART/KICK of ourselves are tracked; PRIVMSG to our
// nick (a DM) or to a channel becomes an InboundPrivmsg; NOTICE is never answered (RFC 1459 §4.4.2);
// CTCP other than ACTION is ignored; our own messages (echo) are ignored.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "channels/irc/irc_protocol.h"
#include "core/base64.h"

namespace pincer::channels::irc {

/// Nick fallbacks tried on 433 before registration gives up.
inline constexpr int kMaxNickAttempts = 4;

struct SessionSettings {
  std::string nick;                 ///< wanted nick (channels.irc.nick)
  std::string username;             ///< USER name (default: the nick)
  std::string realname;             ///< USER real name (default "Pincer")
  std::string password;             ///< server PASS ("" = none)
  std::string sasl_username;        ///< SASL PLAIN when both are set
  std::string sasl_password;
  std::string nickserv_password;    ///< "IDENTIFY <password>" to NickServ after 001 ("" = none)
  std::string nickserv_service = "NickServ";
  std::vector<std::string> channels;  ///< to JOIN after registration ("#chan" or "#chan key")
};

/// A PRIVMSG for the agent.
struct InboundPrivmsg {
  bool is_group = false;   ///< sent to a channel (else to our nick)
  std::string chat;        ///< where replies go: the channel (as configured when it matches) or the sender's nick
  Prefix sender;
  std::string text;        ///< CTCP framing removed
  bool action = false;     ///< a CTCP ACTION ("/me …")
  bool mentions_bot = false;
  std::string msgid;       ///< IRCv3 msgid tag ("" = none)
};

/// What one server line asks for.
struct SessionOutput {
  std::vector<std::string> send;        ///< complete lines (with CR LF), to write now, in order
  std::optional<InboundPrivmsg> message;
  std::optional<std::string> fatal;     ///< the session cannot go on: close, report, reconnect later
  /// With `fatal`: the server refused the login itself (SASL 904 bad credentials / 902 account
  /// locked, 464 bad server password): reconnecting cannot help until the config changes.
  bool credentials_refused = false;
  std::vector<std::string> notes;       ///< worth logging (joined, kicked, nick changed, …)
  bool registered = false;              ///< this line completed registration
};

class IrcSession {
 public:
  explicit IrcSession(SessionSettings settings);

  /// The lines to send once connected (CAP LS, PASS, NICK, USER). Resets the session state.
  std::vector<std::string> start();
  /// Reacts to one parsed server line.
  SessionOutput handle(const Message& message);

  bool registered() const { return registered_; }
  const std::string& nick() const { return nick_; }
  CaseMapping casemapping() const { return casemapping_; }
  const std::set<std::string>& joined() const { return joined_; }

 private:
  void finish_cap_ls(SessionOutput& out);
  void on_welcome(const Message& m, SessionOutput& out);
  void on_privmsg(const Message& m, SessionOutput& out);
  bool is_me(const std::string& nick) const { return irc_equal(nick, nick_, casemapping_); }
  bool wants_sasl() const { return !settings_.sasl_username.empty() && !settings_.sasl_password.empty(); }

  SessionSettings settings_;
  std::string nick_;
  bool registered_ = false;
  bool cap_done_ = false;
  int nick_attempts_ = 0;
  std::string caps_;  ///< CAP LS gathered so far
  CaseMapping casemapping_ = CaseMapping::Rfc1459;
  std::string chantypes_ = "#&";
  std::set<std::string> joined_;  ///< channel names as the server spells them
};

using pincer::base64_encode;  // core/base64.h: for SASL

}  // namespace pincer::channels::irc
