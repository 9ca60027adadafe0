// IRC as a Channel (issue #5 §5 IRC; SPEC CH-1, CH-2, CH-7): one connection to one server
// (TCP, or TLS verified against the system CA store), registered by IrcSession (PASS, NICK with
// fallbacks, USER, SASL PLAIN, NickServ IDENTIFY, JOIN), kept alive with PING, and handed to
// the manager's on_failed when it drops, so the manager reconnects with backoff.
//
// Inbound: a PRIVMSG to our nick is a direct message (chat = the sender's nick); one to a joined
// channel is a group message (chat = the channel, spelled as in `channels`), with mentions_bot
// set when it addresses our nick ("nick:", "nick,", "@nick"; irc_protocol.h) and that address
// removed from the text. The sender's id is "nick!user@host" and its username the nick, so
// allowFrom accepts "nick!user@host" (what OpenClaw's IRC allowlist matches) or "@nick" (trusts
// that the network protects nicks, e.g. with NickServ enforcement). CTCP ACTION becomes "*text*";
// other CTCP and NOTICE are ignored.
//
// Outbound: send_text() splits the rendered plain text into PRIVMSG lines (split_privmsg: the
// 512-byte limit with the relay prefix budget, CR/LF/NUL/CTCP stripped) and queues them behind
// flood control (irc_flood.h); `done` runs once the last line is handed to the socket. Not
// connected → "UNAVAILABLE"; an invalid target → "REJECTED". Lines still queued when the
// connection drops fail with "UNAVAILABLE" (reply delivery retries them after the reconnect).
//
// Capabilities: Plain text, measured in UTF-8 bytes, text_limit = the per-line budget for a
// 50-byte target (342 bytes): each chunk of the chunker becomes one PRIVMSG line (a cut of the
// chunker's choosing: paragraph, sentence, space), and the outbox resumes line by line.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <deque>
#include <memory>

#include "channels/channel.h"
#include "channels/irc/irc_connection.h"
#include "channels/irc/irc_flood.h"
#include "channels/irc/irc_session.h"
#include "channels/irc/irc_settings.h"
#include "core/event_loop.h"

namespace pincer::channels::irc {

class IrcChannel final : public Channel {
 public:
  IrcChannel(EventLoop& loop, IrcSettings settings);
  ~IrcChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// After a failure: the server refused the login (SASL 902/904, 464 bad server password).
  bool failed_permanently() const override { return permanent_failure_; }
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  nlohmann::json status() const override;

 private:
  struct Queued {
    std::string line;                                  ///< complete, CR LF included
    std::function<void(Result<std::string>)> done;     ///< on the last line of a send_text only
    std::string id;
  };

  void on_line(const std::string& raw);
  void deliver(InboundPrivmsg msg);
  void fail(const std::string& why, bool permanent = false);
  void pump();
  void keepalive();
  void after(int64_t delay_ms, std::function<void()> fn);  ///< a timer that dies with this connection

  EventLoop& loop_;
  IrcSettings settings_;
  std::string id_ = "irc";
  IrcConnection conn_;
  IrcSession session_;
  FloodControl flood_;
  ChannelHost* host_ = nullptr;
  std::function<void(const std::string&)> on_failed_;
  std::shared_ptr<bool> alive_;  ///< false after stop() or a failure: late timers do nothing
  std::deque<Queued> queue_;
  bool pump_waiting_ = false;
  int64_t connected_at_ms_ = 0;   ///< wall clock; with seq_, the message id when there is no msgid tag
  int64_t seq_ = 0;
  int64_t last_rx_ms_ = 0;        ///< steady clock
  int64_t ping_sent_ms_ = 0;      ///< steady clock; 0 = no PING outstanding
  int64_t lines_sent_ = 0;
  int64_t messages_received_ = 0;
  int64_t sends_ = 0;
  std::string last_error_;
  bool permanent_failure_ = false;  ///< the last failure refused the credentials (cleared by start())
};

}  // namespace pincer::channels::irc
