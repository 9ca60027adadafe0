// The SSRF guard's address classification (web_fetch_core.h).
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "tools/web/web_fetch_core.h"

namespace pincer::tools::web {
namespace {

bool private_v4(uint32_t a) {  // host byte order
  auto in = [a](uint32_t net, int bits) { return bits == 0 || (a >> (32 - bits)) == (net >> (32 - bits)); };
  return in(0x00000000, 8) ||    // 0/8 "this network"
         in(0x0A000000, 8) ||    // 10/8
         in(0x64400000, 10) ||   // 100.64/10 CGNAT
         in(0x7F000000, 8) ||    // 127/8 loopback
         in(0xA9FE0000, 16) ||   // 169.254/16 link-local, cloud metadata
         in(0xAC100000, 12) ||   // 172.16/12
         in(0xC0000000, 24) ||   // 192.0.0/24 IETF protocol assignments
         in(0xC0A80000, 16) ||   // 192.168/16
         in(0xC6120000, 15) ||   // 198.18/15 benchmarking (fake-IP proxies)
         in(0xE0000000, 4) ||    // multicast
         in(0xF0000000, 4);      // reserved, broadcast
}

}  // namespace

bool is_private_address(std::string_view ip_view) {
  std::string ip(ip_view);
  if (auto pct = ip.find('%'); pct != std::string::npos) ip.resize(pct);  // fe80::1%eth0
  in_addr v4{};
  if (::inet_pton(AF_INET, ip.c_str(), &v4) == 1) return private_v4(ntohl(v4.s_addr));
  std::array<uint8_t, 16> b{};
  if (::inet_pton(AF_INET6, ip.c_str(), b.data()) != 1) return true;  // not an address: refuse
  const bool first80_zero = std::all_of(b.begin(), b.begin() + 10, [](uint8_t x) { return x == 0; });
  const uint32_t last32 = (uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) | (uint32_t{b[14]} << 8) | b[15];
  if (first80_zero && b[10] == 0xff && b[11] == 0xff) return private_v4(last32);  // ::ffff:a.b.c.d
  if (first80_zero && b[10] == 0 && b[11] == 0) return true;  // ::, ::1 and IPv4-compatible ::a.b.c.d
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) return private_v4(last32);  // 64:ff9b::/96 NAT64
  if (b[0] == 0x20 && b[1] == 0x02) {  // 2002::/16 6to4 embeds an IPv4 address
    return private_v4((uint32_t{b[2]} << 24) | (uint32_t{b[3]} << 16) | (uint32_t{b[4]} << 8) | b[5]);
  }
  if ((b[0] & 0xfe) == 0xfc) return true;                   // fc00::/7 unique local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;   // fe80::/10 link-local
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true;   // fec0::/10 site-local (deprecated)
  if (b[0] == 0xff) return true;                            // multicast
  return false;
}

}  // namespace pincer::tools::web
