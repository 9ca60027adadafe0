// OpenClaw's browser Control UI served from a directory the user names (`gateway.controlUi.root`,
// e.g. `<openclaw package>/dist/control-ui`; nothing of it is bundled with Pincer), the way
// OpenClaw's gateway serves a configured root: under `gateway.controlUi.basePath` (default `/`),
// static files with their content types, `Cache-Control: no-cache` + Last-Modified revalidation,
// an SPA fallback to index.html for page requests, the bootstrap `/control-ui-config.json`
// (behind the gateway's auth, as in OpenClaw) and the WebSocket on the same port (the transport
// upgrades any path). When the Control UI sits at `/`, Pincer's own web chat moves to
// `/pincer/` (kWebChatPrefix). Asio-free: net_server.cpp translates the answers. Files are opened
// beneath the root only (openat2 RESOLVE_BENEATH), so no request reads outside it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::gateway {

/// Where Pincer's web chat lives while the Control UI takes `/`.
inline constexpr std::string_view kWebChatPrefix = "/pincer";

/// `gateway.controlUi` as the transport needs it.
struct ControlUiSettings {
  std::string root;       ///< gateway.controlUi.root, as written ("" = the Control UI is not served)
  std::string base_path;  ///< normalize_control_ui_base_path(gateway.controlUi.basePath): "" or "/x"
  bool enabled() const { return !root.empty(); }
};

/// OpenClaw's normalisation: "" and "/" → ""; otherwise a leading "/" and no trailing "/".
std::string normalize_control_ui_base_path(std::string_view base_path);

/// Why a normalised base path cannot be served, or "": each "/"-separated segment must be
/// non-empty, not "." or "..", and made of URL-safe characters (letters, digits, `-._~`), so that
/// the path the browser asks for is the path the gateway matches — e.g.
/// `gateway.controlUi.basePath: "/../x": the segment ".." is not allowed`.
std::string control_ui_base_path_problem(std::string_view base_path);

/// The settings from the config's `gateway.controlUi` object: `root` with a leading "~/" expanded
/// to `home` and a relative path made absolute against the working directory (as OpenClaw
/// resolves it), `basePath` normalised.
ControlUiSettings control_ui_settings(const nlohmann::json& control_ui, const std::string& home);

/// Checks that `root` holds a built Control UI: an existing directory with a regular index.html.
/// Error CONTROL_UI_ROOT naming the path and what is wrong (missing, not a directory, no
/// index.html) and how to fix it (point gateway.controlUi.root at `<openclaw>/dist/control-ui`).
Status check_control_ui_root(const std::string& root);

/// One HTTP answer of the Control UI (headers in order; the transport adds Server and framing).
struct ControlUiAnswer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  ///< for HEAD the transport sends the headers only
};

/// A request as the Control UI needs it.
struct ControlUiRequest {
  std::string method;                          ///< "GET", "HEAD", …
  std::string target;                          ///< path and query, as received
  std::map<std::string, std::string> headers;  ///< names lower-cased
};

/// The Control UI of one gateway life. Thread affinity: the loop thread (reads files synchronously;
/// the files are small UI assets on a local disk).
class ControlUi {
 public:
  /// `config`: the effective config (the bootstrap JSON names the default agent from it).
  ControlUi(ControlUiSettings settings, nlohmann::json config, std::string version);
  ~ControlUi();
  ControlUi(const ControlUi&) = delete;
  ControlUi& operator=(const ControlUi&) = delete;

  bool enabled() const { return settings_.enabled(); }
  /// Where Pincer's web chat is served: "" (at `/`), or kWebChatPrefix while the Control UI is at `/`.
  std::string_view web_chat_prefix() const;
  /// Why the root cannot be served ("" when it can): check_control_ui_root's message at start.
  const std::string& root_problem() const { return root_problem_; }

  /// The answer when `request` is the Control UI's, nullopt when it is not (other methods than
  /// GET/HEAD, paths outside the base path, `/pincer…` while the Control UI is at `/`).
  /// `authorized(bearer)`: whether the Authorization Bearer credential (may be empty) passes the
  /// gateway's auth — asked for the bootstrap JSON only (401 otherwise, as OpenClaw).
  /// Answers: 200 file / index.html (SPA fallback for a request that accepts HTML), 302 from the
  /// bare base path to base path + "/", 304 (If-Modified-Since / If-None-Match: *), 404 (unsafe
  /// path, missing asset), 503 naming the root when it is not a built Control UI.
  std::optional<ControlUiAnswer> handle(const ControlUiRequest& request,
                                        const std::function<bool(std::string_view bearer)>& authorized) const;

 private:
  ControlUiAnswer serve_config(const ControlUiRequest& request,
                               const std::function<bool(std::string_view)>& authorized) const;
  ControlUiAnswer serve_index(const ControlUiRequest& request) const;

  ControlUiSettings settings_;
  nlohmann::json config_;
  std::string version_;
  std::string root_problem_;
  int root_fd_ = -1;  ///< O_PATH descriptor of the root directory (-1 when it cannot be served)
};

namespace control_ui_detail {
/// The Content-Type of a Control UI file by its extension (OpenClaw's table), or
/// "application/octet-stream".
std::string content_type(std::string_view path);
/// index.html as served: `./assets/…` and the root public files anchored at the base path, the
/// base-path and terminal attributes on <html>, the build-id attribute removed (a configured root).
std::string rewrite_index(std::string_view html, std::string_view base_path);
/// The Content-Security-Policy of index.html: OpenClaw's policy with the SHA-256 of each inline
/// <script> (no 'unsafe-inline' script), connections only to this origin (`host` as in web_ui_csp).
std::string index_csp(std::string_view html, std::string_view host);
/// RFC 9110 HTTP-date of `unix_seconds`, and its parse (nullopt when malformed).
std::string http_date(int64_t unix_seconds);
std::optional<int64_t> parse_http_date(std::string_view value);
}  // namespace control_ui_detail

}  // namespace pincer::gateway
