#include "gateway/protocol/route_guard.h"

#include <algorithm>
#include <cctype>

namespace pincer::gateway {
namespace {

std::string header(const std::map<std::string, std::string>& headers, const char* name) {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string lower_trimmed(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto first = s.find_first_not_of(" \t");
  const auto last = s.find_last_not_of(" \t");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

}  // namespace

std::optional<RouteRefusal> check_route_request(const std::string& method,
                                                const std::map<std::string, std::string>& headers,
                                                const std::string& body_type, const AuthSettings& auth) {
  const std::string origin = header(headers, "origin");
  const std::string fetch_site = lower_trimmed(header(headers, "sec-fetch-site"));
  const std::string host = header(headers, "host");
  const RouteRefusal cross_site{403, "cross-site request refused: this endpoint is for servers, not web pages"};
  // "none" is the user's own navigation (typed URL, bookmark); anything else names a page.
  if (!fetch_site.empty() && fetch_site != "none" && fetch_site != "same-origin") return cross_site;
  if (!origin.empty()) {
    if (!browser_origin_allowed(origin, host, auth)) return cross_site;
  } else if (fetch_site == "same-origin" && !browser_origin_allowed("http://" + host, host, auth)) {
    return cross_site;  // "same origin" with a page under a name that was re-pointed at us
  }

  if (body_type.empty()) return std::nullopt;
  const std::string length = lower_trimmed(header(headers, "content-length"));
  const bool has_body = method == "POST" || method == "PUT" || method == "PATCH" ||
                        (!length.empty() && length != "0") || headers.count("transfer-encoding");
  if (!has_body) return std::nullopt;
  std::string type = lower_trimmed(header(headers, "content-type"));
  type = lower_trimmed(type.substr(0, type.find(';')));
  if (type != body_type) {
    if (type.size() > 80) type = type.substr(0, 80) + "…";
    return RouteRefusal{415, "unsupported Content-Type \"" + type + "\": send the body as " + body_type};
  }
  return std::nullopt;
}

}  // namespace pincer::gateway
