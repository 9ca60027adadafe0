// A small IMAP4rev1 client (RFC 3501, IDLE of RFC 2177) over Asio on the gateway's event loop, for
// the e-mail channel: connect (TLS, STARTTLS or plain), the greeting, CAPABILITY, login
// (AUTHENTICATE PLAIN when offered, with SASL-IR when offered, else LOGIN with quoted strings),
// SELECT, UID SEARCH, UID FETCH of whole messages (BODY.PEEK[]: fetching does not set \Seen),
// UID STORE +FLAGS.SILENT (\Seen), NOOP, IDLE and DONE, LOGOUT. The header is Asio-free; the
// implementation (imap_client.cpp) is the e-mail channel's only Asio translation unit.
//
// Commands are queued and sent one at a time (tags "P1", "P2" …). Responses are read by
// ImapResponseParser (imap_protocol.h, bounded). TLS verifies the server certificate against the
// system CA store and the host name (core/net_tls.h; SNI for names).
//
// Errors given to `done` callbacks: "UNAVAILABLE" (resolve/connect/TLS/read/write failed — also the
// TLS handshake after STARTTLS, e.g. "… certificate verify failed" —, the
// server closed the connection or said BYE, a command took longer than `command_timeout_ms`: the
// connection is then closed), "AUTH" (the login was refused: the server's text), "NO" / "BAD"
// (a command was refused: the server's text), "PROTOCOL" (the server broke the protocol: the
// connection is closed). After a connection-level error every queued command fails the same way.
//
// Loop affinity: event-loop thread only; callbacks run on it. close() (and the destructor) drop
// every pending callback: none runs afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "channels/email/imap_protocol.h"
#include "core/event_loop.h"
#include "core/result.h"

namespace pincer::channels::email {

/// What SELECT reports about the mailbox.
struct ImapMailbox {
  uint32_t uidvalidity = 0;
  uint32_t uidnext = 0;  ///< 0 when the server did not say
  uint32_t exists = 0;
};

/// One fetched message: its UID and the raw bytes of BODY[].
struct ImapFetched {
  uint32_t uid = 0;
  std::string raw;
};

struct ImapConnectOptions {
  std::string host;
  uint16_t port = 993;
  std::string security = "tls";  ///< "tls" | "starttls" | "none"
  std::string user;
  std::string password;
  int64_t command_timeout_ms = 60'000;
};

class ImapClient {
 public:
  explicit ImapClient(EventLoop& loop);
  ~ImapClient();  ///< close()
  ImapClient(const ImapClient&) = delete;
  ImapClient& operator=(const ImapClient&) = delete;

  /// Connects, reads the greeting, upgrades with STARTTLS when asked (refusing a server that does
  /// not offer it), learns the capabilities and logs in. Replaces a previous connection. `done`
  /// runs exactly once (unless close() or logout() comes first), also when the TLS handshake
  /// after STARTTLS fails or times out.
  void connect(ImapConnectOptions options, std::function<void(Status)> done);
  /// SELECT `mailbox` (quoted).
  void select(const std::string& mailbox, std::function<void(Result<ImapMailbox>)> done);
  /// UID SEARCH `criteria` (e.g. "UID 42:*"): the UIDs, ascending.
  void uid_search(const std::string& criteria, std::function<void(Result<std::vector<uint32_t>>)> done);
  /// UID FETCH `uids` (UID BODY.PEEK[]): the messages the server returned, ascending by UID.
  void uid_fetch(const std::vector<uint32_t>& uids, std::function<void(Result<std::vector<ImapFetched>>)> done);
  /// UID STORE `uids` +FLAGS.SILENT (\Seen).
  void uid_store_seen(const std::vector<uint32_t>& uids, std::function<void(Status)> done);
  void noop(std::function<void(Status)> done);
  /// IDLE: `on_event` gets each untagged response while idling (e.g. "* 5 EXISTS"); `done` runs
  /// when the server completes the command after idle_done(), or with an error. Needs the IDLE
  /// capability (else done gets "NO").
  void idle(std::function<void(const ImapResponse&)> on_event, std::function<void(Status)> done);
  /// Ends a running IDLE (sends DONE, now or as soon as the server has accepted the IDLE).
  void idle_done();
  /// Called with every untagged response received (any command, or none), before the command's
  /// own handling; e.g. to notice "* n EXISTS" that arrives outside IDLE.
  void set_untagged_listener(std::function<void(const ImapResponse&)> listener);
  /// Whether the server announced `capability` (upper-case, e.g. "IDLE").
  bool has_capability(const std::string& capability) const;
  /// Sends LOGOUT and closes once it is written; no callback runs afterwards.
  void logout();
  /// Closes now; no callback runs afterwards.
  void close();
  bool is_open() const;

  struct Impl;  ///< the connection (imap_client.cpp)

 private:
  EventLoop& loop_;
  std::shared_ptr<Impl> impl_;
};


}  // namespace pincer::channels::email
