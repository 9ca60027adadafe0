// The web chat UI's static files (src/gateway/web_ui/), embedded in the binary at build time by
// cmake/embed_assets.cmake, and the HTTP rules for serving them. Asio-free: net_server.cpp does
// the serving; everything here is pure lookup and string logic.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace pincer::gateway {

/// One embedded file.
struct WebAsset {
  const char* path;           ///< URL path: "/" + file name, e.g. "/app.mjs"
  const unsigned char* data;  ///< the file's bytes, followed by a NUL that `size` does not count
  std::size_t size;           ///< length in bytes
  const char* content_type;   ///< Content-Type value, e.g. "text/html; charset=utf-8"
  const char* etag;           ///< strong ETag including its quotes: "\"<32 hex digits of SHA-256>\""

  std::string_view bytes() const { return {reinterpret_cast<const char*>(data), size}; }
};

/// Every embedded file, in path order.
std::span<const WebAsset> web_assets();

/// The file served at the URL path `path` (without query string): "/" is "/index.html"; other
/// paths must equal an asset's path exactly (case-sensitive; there are no directories, so no
/// traversal). nullptr when nothing is served there.
const WebAsset* find_web_asset(std::string_view path);

/// True when the If-None-Match header value `if_none_match` matches `etag` (RFC 9110 §13.1.2:
/// weak comparison, a comma-separated list, or "*"). An empty header never matches.
bool etag_matches(std::string_view if_none_match, std::string_view etag);

/// Content-Security-Policy for the web UI: scripts, styles, images and fonts from the page's own
/// origin only, no inline script or style, no plugins, no framing, no form posts, and WebSocket
/// connections only back to `host` (the request's Host header, e.g. "127.0.0.1:18789"). A Host
/// value with characters outside [A-Za-z0-9.:[]-] is not echoed: connect-src is then 'self' only.
std::string web_ui_csp(std::string_view host);

namespace detail {
/// Defined by the generated web_assets_data.cpp.
extern const WebAsset kWebAssets[];
extern const std::size_t kWebAssetCount;
}  // namespace detail

}  // namespace pincer::gateway
