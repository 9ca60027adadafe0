// The settings of the IRC channel and how they are read from `channels.irc` (issue #5 §5 IRC;
// key names as OpenClaw's IRC extension, extensions/irc/src/config-schema.ts, plus `sasl`).
//
//   host, port (default 6697 with tls, else 6667), tls (default false), nick (required),
//   username (default: nick), realname (default "Pincer"), password (server PASS),
//   sasl {username, password} (SASL PLAIN), nickserv {password, service (default "NickServ")},
//   channels ["#chan" or "#chan key", …] (joined after registration), enabled.
// The access keys (dmPolicy, allowFrom, groupPolicy, groups …) are read by the inbound pipeline.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "channels/irc/irc_flood.h"
#include "channels/irc/irc_session.h"
#include "core/result.h"

namespace pincer::channels::irc {

struct IrcSettings {
  std::string account_id = "default";
  std::string host;
  uint16_t port = 6667;
  bool tls = false;  ///< TLS with certificate and host name verification (system CA store)
  SessionSettings session;
  FloodSettings flood;
  int64_t register_timeout_ms = 30'000;  ///< connect + registration (001) must finish within this
  int64_t ping_idle_ms = 90'000;         ///< send PING after this long without any line from the server
  int64_t ping_timeout_ms = 60'000;      ///< and give up this long after that PING without a line
  int64_t keepalive_tick_ms = 5'000;     ///< how often the two above are checked
};

/// Reads a validated `channels.irc` object. Errors ("CONFIG_INVALID", naming the key): no host,
/// no nick, a nick with characters IRC does not allow (RFC 2812 §2.3.1), a channel entry that is
/// not "#name" / "&name" (optionally followed by a space and a key).
/// `config_path` prefixes the key in errors ("channels.irc", "channels.irc.accounts.<id>").
Result<IrcSettings> irc_settings_from_json(const nlohmann::json& config, const std::string& config_path = "channels.irc");

}  // namespace pincer::channels::irc
