// The pieces of web_fetch that are not the tool itself (SPEC TL-1): which addresses a fetch may
// reach (the SSRF guard), a blocking GET with bounded, re-checked redirects and size/time caps
// over the core HTTP client, and HTML → readable Markdown-like text.
//
// Threading: all functions are thread-safe; `fetch_url` blocks the calling (worker) thread and
// runs its own private event loop (nothing is shared with the gateway's loop).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "tools/cancel_signal.h"

namespace pincer::tools::web {

/// True for addresses a fetch must not reach by default: loopback (127/8, ::1), private
/// (10/8, 172.16/12, 192.168/16, fc00::/7), link-local incl. cloud metadata (169.254/16,
/// fe80::/10), CGNAT 100.64/10, benchmark 198.18/15, "this network" 0/8, multicast, reserved
/// 240/4 and broadcast, the unspecified ::, and IPv4-mapped/compatible forms of any of them.
/// A string that is not an IP address counts as private (fail closed).
bool is_private_address(std::string_view ip);

struct FetchLimits {
  std::size_t max_response_bytes = 750'000;  ///< body bytes kept; the rest is not read
  int64_t timeout_ms = 30'000;               ///< the whole fetch, all redirects included
  int max_redirects = 3;
  bool allow_private = false;                      ///< ssrfPolicy.dangerouslyAllowPrivateNetwork
  std::vector<std::string> allowed_hostnames;      ///< ssrfPolicy.allowedHostnames (exact, any case)
  std::string user_agent = "Mozilla/5.0 (compatible; Pincer web_fetch)";
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra request headers (search APIs)
  std::string accept = "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.8";
};

struct FetchResult {
  std::string final_url;
  int status = 0;
  std::string content_type;
  std::string body;
  bool truncated = false;  ///< the body was longer than max_response_bytes
  int redirects = 0;
};

/// GET `url` (http/https only), following up to max_redirects redirects; every hop's host is
/// checked again (literal and resolved addresses). Errors: "WEB_FETCH_BLOCKED" (`127.0.0.1
/// resolves to a private or loopback address (127.0.0.1); set
/// tools.web.fetch.ssrfPolicy.dangerouslyAllowPrivateNetwork to allow it`), "WEB_FETCH_FAILED"
/// (transport, timeout, too many redirects), "TOOL_ARGS_INVALID" (bad URL), "CANCELLED".
Result<FetchResult> fetch_url(const std::string& url, const FetchLimits& limits, CancelSignal* cancelled = nullptr);

/// `relative` (a Location header) against `base`; "" when it cannot be resolved.
std::string resolve_url(const std::string& base, const std::string& relative);

struct ReadableText {
  std::string title;
  std::string text;  ///< Markdown-like: # headings, - lists, [text](href) links, ``` blocks
};

/// Readable text of an HTML document: script/style/head/nav/footer… dropped, block elements as
/// line breaks, entities decoded, whitespace collapsed.
ReadableText html_to_text(std::string_view html);

}  // namespace pincer::tools::web
