// Forward-proxy selection for net::HttpClient (core/net_http_proxy.h), as curl reads the environment.
#include "core/net_http_proxy.h"

#include <cstdlib>

namespace pincer::net {

namespace detail_net_http_proxy {

std::string env_value(const char* upper, const char* lower) {
  if (const char* v = std::getenv(lower); v && *v) return v;
  if (const char* v = std::getenv(upper); v && *v) return v;
  return {};
}

/// NO_PROXY: "*", or a comma list of host names/suffixes (".example.com" or "example.com" both
/// match sub.example.com) and literal addresses, as curl reads it.
bool bypasses_proxy(const std::string& host) {
  const std::string list = env_value("NO_PROXY", "no_proxy");
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string entry = list.substr(start, end - start);
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (!entry.empty() && entry[0] == '.') entry.erase(0, 1);
    if (entry == "*") return true;
    if (!entry.empty() && (host == entry || (host.size() > entry.size() &&
                                             host.compare(host.size() - entry.size(), entry.size(), entry) == 0 &&
                                             host[host.size() - entry.size() - 1] == '.'))) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

std::string base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], kAlphabet[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

}  // namespace detail_net_http_proxy

pincer::Result<std::optional<Proxy>> proxy_for(const ParsedUrl& url) {
  std::string value = url.tls ? detail_net_http_proxy::env_value("HTTPS_PROXY", "https_proxy") : detail_net_http_proxy::env_value("HTTP_PROXY", "http_proxy");
  if (value.empty()) value = detail_net_http_proxy::env_value("ALL_PROXY", "all_proxy");
  if (value.empty() || detail_net_http_proxy::bypasses_proxy(url.host)) return std::optional<Proxy>{};
  if (value.find("://") == std::string::npos) value = "http://" + value;
  Proxy proxy;
  // user:password@ is allowed here (and only here): it becomes Proxy-Authorization.
  const size_t scheme_end = value.find("://") + 3;
  const size_t at = value.find('@', scheme_end);
  if (at != std::string::npos && at < value.find('/', scheme_end)) {
    proxy.authorization = "Basic " + detail_net_http_proxy::base64(value.substr(scheme_end, at - scheme_end));
    value.erase(scheme_end, at - scheme_end + 1);
  }
  auto parsed = parse_url(value);
  if (!parsed || parsed->tls) {
    return pincer::Error{"PROXY_INVALID", "proxy setting \"" + value + "\" is not an http:// proxy URL"};
  }
  proxy.url = *parsed;
  return std::optional<Proxy>(std::move(proxy));
}

}  // namespace pincer::net
