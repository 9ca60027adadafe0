// An e-mail account's settings from its merged config (`channels.email`, `channels.email.accounts.<id>`):
//   address (required: the bot's own address, the From of its replies), name (From display name,
//   default "Pincer"), allowInsecure (default false),
//   imap: {host (required), port (default 993 for tls, 143 otherwise), security "tls" (default) |
//          "starttls" | "none", user (default: address), password (required), mailbox (default "INBOX")},
//   smtp: {host (required), port (default 465 for tls, 587 for starttls, 25 for none), security
//          (default "tls"), user and password (default: imap's)}.
// security "none" sends the password in clear: only with a loopback host (127.0.0.1, ::1,
// localhost) or `allowInsecure: true`. Passwords may be "${NAME}" references (expanded by the
// gateway). The access keys (dmPolicy, allowFrom: e-mail addresses) are read by the inbound pipeline.
//
// Pure; any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "channels/channel_accounts.h"
#include "core/result.h"

namespace pincer::channels::email {

/// One mail server of the account (IMAP or SMTP).
struct EmailServerSettings {
  std::string host;
  int port = 0;
  std::string security = "tls";  ///< "tls" | "starttls" | "none"
  std::string user;
  std::string password;
};

struct EmailSettings {
  std::string account_id = "default";
  std::string address;          ///< lower-cased "bot@example.org"
  std::string name = "Pincer";  ///< From display name
  EmailServerSettings imap;
  std::string mailbox = "INBOX";
  EmailServerSettings smtp;
  bool allow_insecure = false;
  std::string config_path = "channels.email";  ///< where the account's keys are, for error messages
  std::filesystem::path state_file;           ///< UIDVALIDITY, last UID, threads ("" = memory only)
  int64_t idle_renew_ms = 25 * 60'000;        ///< IDLE is re-issued this often (RFC 2177: < 29 min)
  int64_t command_timeout_ms = 60'000;        ///< an IMAP command (other than IDLE) that takes longer closes the connection
};

/// Whether `host` is a loopback name or address (127.0.0.0/8, ::1, localhost).
bool email_host_is_loopback(const std::string& host);

/// `state_dir` only names the state file (<state>/channels/email/<account>.json; nothing is read).
/// Errors: "CONFIG_INVALID" naming the key, e.g. `channels.email.imap.host: required …`.
Result<EmailSettings> email_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir);

}  // namespace pincer::channels::email
