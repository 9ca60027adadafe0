// fetch_url (web_fetch_core.h): one private event loop per call, the core HTTP client with the
// address check, redirects followed here so that each hop is checked again.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <optional>

#include "core/event_loop.h"
#include "core/http_client.h"
#include "tools/web/web_fetch_core.h"

namespace pincer::tools::web {
namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool host_allowed(const FetchLimits& limits, const std::string& host) {
  std::string h = lower(host);
  if (!h.empty() && h.back() == '.') h.pop_back();
  return std::any_of(limits.allowed_hostnames.begin(), limits.allowed_hostnames.end(),
                     [&](const std::string& a) { return lower(a) == h; });
}

std::string blocked_message(const std::string& host, const std::string& address) {
  return host + (host == address ? " is" : " resolves to") + " a private, loopback or link-local address (" + address +
         "); web_fetch refuses it unless tools.web.fetch.ssrfPolicy.dangerouslyAllowPrivateNetwork is true "
         "(or the host is in tools.web.fetch.ssrfPolicy.allowedHostnames)";
}

struct Hop {
  int status = 0;
  net::Headers headers;
  std::string body;
  bool truncated = false;
  std::optional<std::string> error;  ///< transport failure
  std::optional<std::string> blocked;
  bool timed_out = false;
  bool cancelled = false;
};

Hop one_request(const std::string& url, const std::string& host, const FetchLimits& limits, int64_t budget_ms,
                CancelSignal* cancelled) {
  Hop hop;
  EventLoop loop(1);
  net::HttpClient client(loop);
  net::HttpRequestSpec spec;
  spec.method = "GET";
  spec.url = url;
  spec.headers = {{"User-Agent", limits.user_agent},
                  {"Accept", limits.accept},
                  {"Accept-Encoding", "identity"},
                  {"Accept-Language", "en-US,en;q=0.9"}};
  for (const auto& h : limits.headers) spec.headers.push_back(h);
  spec.connect_timeout_ms = std::max<int64_t>(budget_ms, 1);
  spec.idle_timeout_ms = std::max<int64_t>(budget_ms, 1);
  const bool allow = limits.allow_private || host_allowed(limits, host);
  spec.check_address = [allow, host, &hop](const std::string& address) -> std::optional<std::string> {
    if (allow || !is_private_address(address)) return std::nullopt;
    hop.blocked = blocked_message(host, address);
    return hop.blocked;
  };
  bool stopped_by_us = false;
  net::HttpClient::RequestId id = 0;
  net::HttpCallbacks cb;
  cb.on_head = [&](const net::HttpResponseHead& head) {
    hop.status = head.status;
    hop.headers = head.headers;
    if (head.status >= 300 && head.status < 400 && !head.header("Location").empty()) {
      stopped_by_us = true;  // a redirect: its body is not needed
      client.cancel(id);
    }
  };
  cb.on_data = [&](std::string_view data) {
    if (stopped_by_us) return;
    const size_t room = limits.max_response_bytes - std::min(hop.body.size(), limits.max_response_bytes);
    hop.body.append(data.substr(0, room));
    if (data.size() > room) {
      hop.truncated = true;
      stopped_by_us = true;
      client.cancel(id);
    }
  };
  cb.on_done = [&](const std::optional<net::TransportError>& e) {
    if (e && !stopped_by_us && !hop.blocked) {
      hop.error = e->what;
      hop.timed_out = e->timed_out;
    }
    loop.stop();
  };
  loop.post([&] { id = client.start(std::move(spec), std::move(cb)); });
  // Two ways to stop early, each waking the loop when it happens (no watch on a timer): the
  // hop's budget runs out, or the run is stopped (from the thread that stops it).
  loop.post([&] {
    loop.after(std::max<int64_t>(budget_ms, 1), [&] {
      hop.timed_out = true;
      hop.error = "timed out";
      stopped_by_us = true;
      client.cancel(id);
    });
  });
  auto stop = cancelled ? cancelled->subscribe([&] {
    loop.post([&] {
      if (hop.timed_out) return;
      hop.cancelled = true;
      stopped_by_us = true;
      client.cancel(id);
    });
  })
                        : CancelSignal::Subscription{};
  loop.run();
  stop.reset();  // before the loop it posts to is gone
  return hop;
}

std::string header_of(const net::Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (lower(k) == lower(std::string(name))) return v;
  }
  return "";
}

}  // namespace

std::string resolve_url(const std::string& base, const std::string& rel) {
  if (rel.empty()) return "";
  const std::string lr = lower(rel.substr(0, 8));
  if (lr.rfind("http://", 0) == 0 || lr.rfind("https://", 0) == 0) return rel;
  const size_t scheme_end = base.find("://");
  if (scheme_end == std::string::npos) return "";
  if (rel.rfind("//", 0) == 0) return base.substr(0, scheme_end + 1) + rel;
  const size_t path_start = base.find('/', scheme_end + 3);
  const std::string origin = path_start == std::string::npos ? base : base.substr(0, path_start);
  if (rel[0] == '/') return origin + rel;
  if (rel[0] == '?') {
    std::string b = base.substr(0, base.find_first_of("?#", scheme_end + 3));
    return b + rel;
  }
  std::string path = path_start == std::string::npos ? "/" : base.substr(path_start);
  path = path.substr(0, path.find_first_of("?#"));
  path = path.substr(0, path.rfind('/') + 1);
  return origin + path + rel;
}

Result<FetchResult> fetch_url(const std::string& url, const FetchLimits& limits, CancelSignal* cancelled) {
  const auto started = Clock::now();
  std::string current = url;
  for (int hop = 0;; ++hop) {
    auto parsed = net::parse_url(current);
    if (!parsed) {
      return Error{hop == 0 ? "TOOL_ARGS_INVALID" : "WEB_FETCH_FAILED",
                   (hop == 0 ? "url \"" : "redirect to \"") + current + "\" is not an http:// or https:// URL"};
    }
    std::string host = lower(parsed->host);
    if (!host.empty() && host.back() == '.') host.pop_back();
    const bool allow = limits.allow_private || host_allowed(limits, host);
    if (!allow && (host == "localhost" || (host.size() > 10 && host.ends_with(".localhost")))) {
      return Error{"WEB_FETCH_BLOCKED", blocked_message(parsed->host, "loopback")};
    }
    const int64_t used =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
    const int64_t budget = limits.timeout_ms - used;
    if (budget <= 0) return Error{"WEB_FETCH_FAILED", "fetch of " + url + " timed out"};
    Hop h = one_request(current, parsed->host, limits, budget, cancelled);
    if (h.cancelled) return Error{"CANCELLED", "cancelled"};
    if (h.blocked) {
      return Error{"WEB_FETCH_BLOCKED", (hop > 0 ? "redirect to " + current + ": " : std::string()) + *h.blocked};
    }
    if (h.error) {
      return Error{"WEB_FETCH_FAILED", "fetch of " + current + " failed: " + *h.error};
    }
    const std::string location = header_of(h.headers, "Location");
    if (h.status >= 300 && h.status < 400 && !location.empty()) {
      if (hop >= limits.max_redirects) {
        return Error{"WEB_FETCH_FAILED", "too many redirects (more than " + std::to_string(limits.max_redirects) +
                                             "; tools.web.fetch.maxRedirects) from " + url};
      }
      const std::string next = resolve_url(current, location);
      if (next.empty()) return Error{"WEB_FETCH_FAILED", "redirect with an unusable Location \"" + location + "\""};
      current = next;
      continue;
    }
    FetchResult r;
    r.final_url = current;
    r.status = h.status;
    r.content_type = header_of(h.headers, "Content-Type");
    r.body = std::move(h.body);
    r.truncated = h.truncated;
    r.redirects = hop;
    return r;
  }
}

}  // namespace pincer::tools::web
