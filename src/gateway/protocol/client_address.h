// Who is on the other end of a request (AU-2, GW-9): the client's IP address behind reverse proxies
// listed in `gateway.trustedProxies` (OpenClaw's semantics: the rightmost X-Forwarded-For hop that
// is not itself a trusted proxy; nothing when a trusted proxy names no client), and a strict parse
// of the HTTP Host header (a loopback Host is what keeps DNS-rebinding pages out). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::gateway {

/// True when `entry` is a usable `gateway.trustedProxies` entry: an IPv4/IPv6 address or a CIDR
/// range ("10.0.0.0/8", "fd00::/8").
bool valid_trusted_proxy_entry(std::string_view entry);

/// True when `ip` (an address, IPv4-mapped IPv6 counts as IPv4) matches one of `trusted` (addresses
/// or CIDR ranges; invalid entries match nothing).
bool is_trusted_proxy(std::string_view ip, const std::vector<std::string>& trusted);

/// True for 127.0.0.0/8, ::1 and their IPv4-mapped forms.
bool is_loopback_ip(std::string_view ip);

/// The client's address for a socket peer `peer_ip` with the request's X-Forwarded-For values
/// (several headers joined with ","): `peer_ip` itself unless it is a trusted proxy; else the
/// rightmost hop that is not a trusted proxy (entries may carry a port or brackets). nullopt when a
/// trusted proxy sent no usable X-Forwarded-For, or every hop is trusted: the client is unknown,
/// never mistaken for the proxy (fail closed).
std::optional<std::string> resolve_client_ip(std::string_view peer_ip, std::string_view forwarded_for,
                                             const std::vector<std::string>& trusted);

/// A Host header split strictly (RFC 9110 uri-host [":" port]): a bracketed IPv6 literal or a name /
/// IPv4 literal of letters, digits, '.', '-', '_'; the port, when present, digits only (1-65535).
struct HostHeader {
  std::string name;  ///< lower-cased; IPv6 without brackets
  bool ipv6 = false;
  std::optional<int> port;
};
/// nullopt for anything else: "[::1]evil.com", "127.0.0.1:evil", "::1", "a b", "".
std::optional<HostHeader> parse_host_header(std::string_view host);

/// True for a Host header naming loopback: localhost, an IPv4 literal in 127/8 or [::1], with or
/// without a port — parsed strictly (parse_host_header).
bool is_loopback_host_header(std::string_view host);

/// True for a Host header that is an IP literal (no DNS name that a page could re-point).
bool is_ip_literal_host_header(std::string_view host);

}  // namespace pincer::gateway
