// The checks every HTTP route added by another layer (core/http_route.h: webhooks) gets from the
// transport before its handler runs (issue 22 §1): a route is for servers, not for web pages. A
// browser request — one with an Origin or Sec-Fetch-Site header — is refused unless it comes from
// the gateway's own page under a Host no DNS-rebinding page can produce, or from an allowed origin
// (browser_origin_allowed); and a body of any type but the one the route reads (JSON) is refused,
// so that no "simple" cross-site request (text/plain, form data: no CORS preflight) reaches it.
// Server-to-server callers (Telegram, scripts) send no Origin and pass. Pure logic.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "gateway/protocol/connect.h"

namespace pincer::gateway {

struct RouteRefusal {
  int status = 403;   ///< 403 cross-site, 415 wrong body type
  std::string error;  ///< one line for the JSON answer {"ok":false,"error":…}
};

/// `headers`: the request's headers, names lower-cased. `body_type`: the media type the route reads
/// ("application/json"; "" = any), required of requests that carry a body (POST, PUT, PATCH, or any
/// with Content-Length > 0 / Transfer-Encoding). nullopt when the request may reach the route.
std::optional<RouteRefusal> check_route_request(const std::string& method,
                                                const std::map<std::string, std::string>& headers,
                                                const std::string& body_type, const AuthSettings& auth);

}  // namespace pincer::gateway
