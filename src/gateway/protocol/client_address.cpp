#include "gateway/protocol/client_address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace pincer::gateway {
namespace {

/// An address as 16 bytes (IPv4 as IPv4-mapped IPv6, so that both forms compare equal).
struct Ip {
  std::array<uint8_t, 16> bytes{};
  bool v4 = false;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<Ip> parse_ip(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  const std::string s(text);
  Ip ip;
  in_addr a4{};
  if (::inet_pton(AF_INET, s.c_str(), &a4) == 1) {
    ip.v4 = true;
    ip.bytes[10] = ip.bytes[11] = 0xff;
    std::copy_n(reinterpret_cast<const uint8_t*>(&a4), 4, ip.bytes.begin() + 12);
    return ip;
  }
  in6_addr a6{};
  if (::inet_pton(AF_INET6, s.c_str(), &a6) != 1) return std::nullopt;
  std::copy_n(reinterpret_cast<const uint8_t*>(&a6), 16, ip.bytes.begin());
  static constexpr std::array<uint8_t, 12> kMapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  ip.v4 = std::equal(kMapped.begin(), kMapped.end(), ip.bytes.begin());
  return ip;
}

/// `entry` as (network, prefix length in bits of the 128-bit form), or nullopt.
std::optional<std::pair<Ip, int>> parse_range(std::string_view entry) {
  entry = trim(entry);
  const auto slash = entry.find('/');
  auto ip = parse_ip(entry.substr(0, slash));
  if (!ip) return std::nullopt;
  if (slash == std::string_view::npos) return std::pair{*ip, 128};
  const std::string_view bits = entry.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int n = std::stoi(std::string(bits));
  // An IPv4 range written as IPv4 ("10.0.0.0/8") counts its bits within the mapped form.
  const bool v4_text = entry.substr(0, slash).find(':') == std::string_view::npos;
  if (n > (v4_text ? 32 : 128)) return std::nullopt;
  return std::pair{*ip, v4_text ? 96 + n : n};
}

bool in_range(const Ip& ip, const std::pair<Ip, int>& range) {
  const auto& [net, bits] = range;
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(bits - 8 * i, 0, 8);
    const uint8_t mask = keep == 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    if ((ip.bytes[i] & mask) != (net.bytes[i] & mask)) return false;
  }
  return true;
}

/// One X-Forwarded-For entry without a port or brackets ("[::1]:80" → "::1", "1.2.3.4:5" → "1.2.3.4").
std::optional<Ip> forwarded_hop(std::string_view entry) {
  entry = trim(entry);
  if (!entry.empty() && entry.front() == '[') {
    const auto end = entry.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    return parse_ip(entry.substr(1, end - 1));
  }
  if (auto ip = parse_ip(entry)) return ip;
  const auto colon = entry.find(':');
  if (colon != std::string_view::npos && colon == entry.rfind(':')) return parse_ip(entry.substr(0, colon));
  return std::nullopt;
}

std::string to_string(const Ip& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ip.v4) ::inet_ntop(AF_INET, ip.bytes.data() + 12, buf, sizeof buf);
  else ::inet_ntop(AF_INET6, ip.bytes.data(), buf, sizeof buf);
  return buf;
}

bool trusted(const Ip& ip, const std::vector<std::string>& entries) {
  for (const auto& e : entries) {
    if (auto range = parse_range(e); range && in_range(ip, *range)) return true;
  }
  return false;
}

bool loopback(const Ip& ip) {
  if (ip.v4) return ip.bytes[12] == 127;
  static constexpr std::array<uint8_t, 16> kOne = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return ip.bytes == kOne;
}

}  // namespace

bool valid_trusted_proxy_entry(std::string_view entry) { return parse_range(entry).has_value(); }

bool is_trusted_proxy(std::string_view ip, const std::vector<std::string>& entries) {
  auto parsed = parse_ip(ip);
  return parsed && trusted(*parsed, entries);
}

bool is_loopback_ip(std::string_view ip) {
  auto parsed = parse_ip(ip);
  return parsed && loopback(*parsed);
}

std::optional<std::string> resolve_client_ip(std::string_view peer_ip, std::string_view forwarded_for,
                                             const std::vector<std::string>& entries) {
  auto peer = parse_ip(peer_ip);
  if (!peer) return std::nullopt;
  if (!trusted(*peer, entries)) return to_string(*peer);
  // Walk from the right: each trusted proxy appended the address it received the request from; the
  // first hop no trusted proxy vouches for is the client (anything left of it may be forged).
  std::string_view rest = forwarded_for;
  while (!rest.empty()) {
    const auto comma = rest.rfind(',');
    const std::string_view entry = comma == std::string_view::npos ? rest : rest.substr(comma + 1);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    auto hop = forwarded_hop(entry);
    if (!hop) {
      if (trim(entry).empty()) continue;
      return std::nullopt;  // garbage where an address must be: the chain cannot be trusted
    }
    if (!trusted(*hop, entries)) return to_string(*hop);
  }
  return std::nullopt;
}

std::optional<HostHeader> parse_host_header(std::string_view host) {
  if (host.empty() || host.size() > 255) return std::nullopt;
  HostHeader out;
  std::string_view rest;
  if (host.front() == '[') {
    const auto end = host.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    const std::string literal(host.substr(1, end - 1));
    in6_addr a6{};
    if (::inet_pton(AF_INET6, literal.c_str(), &a6) != 1) return std::nullopt;
    out.name = literal;
    out.ipv6 = true;
    rest = host.substr(end + 1);
  } else {
    const auto colon = host.find(':');
    out.name = std::string(host.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : host.substr(colon);
    if (out.name.empty()) return std::nullopt;
    for (const char c : out.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') return std::nullopt;
    }
  }
  if (!rest.empty()) {
    const std::string_view digits = rest.substr(1);
    if (rest.front() != ':' || digits.empty() || digits.size() > 5 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    const int port = std::stoi(std::string(digits));
    if (port < 1 || port > 65535) return std::nullopt;
    out.port = port;
  }
  std::transform(out.name.begin(), out.name.end(), out.name.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_loopback_host_header(std::string_view host) {
  auto h = parse_host_header(host);
  if (!h) return false;
  if (h->name == "localhost") return true;
  // IP literals only: "127.evil.example" is a name anyone can point anywhere.
  in_addr a4{};
  if (!h->ipv6 && ::inet_pton(AF_INET, h->name.c_str(), &a4) != 1) return false;
  return is_loopback_ip(h->name);
}

bool is_ip_literal_host_header(std::string_view host) {
  auto h = parse_host_header(host);
  if (!h) return false;
  in_addr a4{};
  return h->ipv6 || ::inet_pton(AF_INET, h->name.c_str(), &a4) == 1;
}

}  // namespace pincer::gateway
