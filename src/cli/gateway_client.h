// A WebSocket client of the gateway protocol for the CLI and the terminal chat (UI-1, UI-2):
// challenge → connect → hello-ok, then requests and events. The socket runs on a private I/O
// thread; this header is Asio-free (the only Beast translation unit is net_gateway_client.cpp).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::cli {

/// Where and how to connect. `url` is ws://host:port[/path] or wss://… (TLS verified against the
/// system CA store).
struct ClientOptions {
  std::string url = "ws://127.0.0.1:18789";
  std::string token;     ///< connect.params.auth.token (empty: none)
  std::string password;  ///< connect.params.auth.password (empty: none)
  std::string client_id = "cli";   ///< connect.params.client.id (one of the protocol's client ids)
  std::string client_mode = "cli"; ///< connect.params.client.mode
  std::vector<std::string> scopes = {"operator.admin", "operator.read", "operator.write", "operator.approvals",
                                     "operator.pairing"};
  std::vector<std::string> caps;   ///< e.g. "tool-events"
  std::chrono::milliseconds connect_timeout{10'000};
};

/// Receives every server event (not responses), on the client's I/O thread.
using EventHandler = std::function<void(const std::string& event, const nlohmann::json& payload)>;
/// Called once when the connection ends after a successful connect (code 1006 when dropped), on the
/// client's I/O thread.
using CloseHandler = std::function<void(int code, const std::string& reason)>;

class GatewayClient {
 public:
  /// Connects and completes the handshake. Errors: "UNREACHABLE" (TCP/TLS/upgrade failed: names the
  /// URL and the reason), "TIMEOUT" (no hello-ok within connect_timeout), or the gateway's own error
  /// code from the connect response: its details.code when present, else its error.code (e.g.
  /// "AUTH_TOKEN_MISMATCH", also appended to the message as " [AUTH_TOKEN_MISMATCH]"). Handlers may be set before connect so that no early event is missed.
  static Result<std::unique_ptr<GatewayClient>> connect(const ClientOptions& options, EventHandler on_event = {},
                                                        CloseHandler on_close = {});
  ~GatewayClient();  ///< closes the socket (1000) and joins the I/O thread
  GatewayClient(const GatewayClient&) = delete;
  GatewayClient& operator=(const GatewayClient&) = delete;

  /// The hello-ok payload.
  const nlohmann::json& hello() const;

  /// Sends a request and blocks the calling thread (not the I/O thread) for its response payload.
  /// With `until_final`, interim responses whose payload.status is "accepted" (e.g. `agent`'s ack)
  /// are skipped. Errors: the response's message with one code, its details.code when present
  /// (the specific cause) else its error.code, "TIMEOUT" after `timeout`, "CLOSED" when the connection ended first ("GATEWAY_STOPPING" when
  /// the gateway closed it on purpose: 1001 going away, 1012 service restart), "INVALID_UTF8"
  /// (nothing sent) when a string in `params` is not UTF-8 text (the message names its path).
  /// `error_class` (optional) gets the answer's own error.code when the gateway answered with an
  /// error (the class, e.g. INVALID_REQUEST where the Error's code is details.code
  /// CRON_JOB_NOT_FOUND), else "".
  Result<nlohmann::json> call(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                              std::chrono::milliseconds timeout = std::chrono::seconds(30), bool until_final = false,
                              std::string* error_class = nullptr);

  /// Sends a request without waiting; `done` (optional) gets the final response on the I/O thread
  /// (or at once, on the calling thread, for "INVALID_UTF8": see call()).
  void call_async(const std::string& method, const nlohmann::json& params,
                  std::function<void(Result<nlohmann::json>)> done = {}, bool until_final = false);

  /// True until the connection ends.
  bool connected() const;

 private:
  struct Impl;
  explicit GatewayClient(std::shared_ptr<Impl> impl);
  /// call_async, with call()'s `error_class` filled before `done` runs.
  void request(const std::string& method, const nlohmann::json& params, std::function<void(Result<nlohmann::json>)> done,
               bool until_final, std::shared_ptr<std::string> error_class);
  std::shared_ptr<Impl> impl_;
};

}  // namespace pincer::cli
