// Forward-proxy selection for net::HttpClient (internal to the net_* translation units): the
// proxy for a URL from HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (lower case first) unless NO_PROXY
// exempts the host (`*`, or a comma list of host names/suffixes and literal addresses), as curl
// reads them. Pure functions of the environment; any thread.
#pragma once

#include <optional>
#include <string>

#include "core/http_client.h"
#include "core/result.h"

namespace pincer::net {

/// A forward proxy to go through.
struct Proxy {
  ParsedUrl url;
  std::string authorization;  ///< "Basic …" when the proxy URL carries user:password
};

/// The proxy for `url`, or nullopt for a direct connection. Errors: "PROXY_INVALID" when the
/// setting is not an http:// proxy URL (never a silent direct connection).
pincer::Result<std::optional<Proxy>> proxy_for(const ParsedUrl& url);

}  // namespace pincer::net
