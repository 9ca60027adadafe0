// A small WebSocket client for integration tests and tools: speaks to a real gateway over a real
// socket (Boost.Beast). Single-threaded; each call drives its own io_context until done or timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::test {

using namespace std::chrono_literals;

struct CloseInfo {
  uint16_t code = 0;  ///< 1006 when the connection dropped without a close frame
  std::string reason;
};

class WsClient {
 public:
  /// Connects to ws://127.0.0.1:<port>/ with extra upgrade headers (e.g. Origin). Throws
  /// std::runtime_error when the TCP connect or the upgrade fails.
  explicit WsClient(int port, const std::map<std::string, std::string>& headers = {},
                    const std::string& host = "127.0.0.1");
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  /// Sends one text frame; throws when it is not written within `timeout`.
  void send_text(const std::string& text, std::chrono::milliseconds timeout = 5s);
  void send_json(const nlohmann::json& frame) { send_text(frame.dump()); }

  /// Next text frame parsed as JSON, or nullopt on timeout or when the socket closed
  /// (then closed() tells how).
  std::optional<nlohmann::json> recv(std::chrono::milliseconds timeout = 5s);
  /// The oldest event kept in events() (removed from there), else the next frame as recv() gives it.
  std::optional<nlohmann::json> next_frame(std::chrono::milliseconds timeout = 5s);
  /// Next `res` frame with this id, skipping events (kept in events()); nullopt on timeout/close.
  std::optional<nlohmann::json> recv_response(const std::string& id, std::chrono::milliseconds timeout = 5s);
  /// Waits until the server closes the socket; returns how (nullopt on timeout).
  std::optional<CloseInfo> wait_closed(std::chrono::milliseconds timeout = 5s);
  const std::optional<CloseInfo>& closed() const { return closed_; }
  /// Events seen while waiting for responses.
  std::deque<nlohmann::json>& events() { return events_; }

  /// Sends `req` and returns its response (throws on timeout/close).
  nlohmann::json request(const std::string& method, const nlohmann::json& params = nlohmann::json::object());

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::optional<CloseInfo> closed_;
  std::deque<nlohmann::json> events_;
  int next_id_ = 1;
};

/// Standard connect params for tests: protocol 3..4, client cli/cli, operator with the given
/// scopes, and auth.token when non-empty.
nlohmann::json connect_params(const std::string& token,
                              const std::vector<std::string>& scopes = {"operator.admin", "operator.read",
                                                                        "operator.write"});

/// The opening of a session: reads the gateway's connect.challenge, sends `connect` (id "c1") with
/// `params` (e.g. connect_params(token)) and returns its response when ok; nullopt when no
/// challenge came, the connect was refused, or no answer came.
std::optional<nlohmann::json> handshake(WsClient& client, const nlohmann::json& params);

/// Sends `chat.send {sessionKey, message, idempotencyKey: run_id}` and returns every frame after the
/// ack up to the run's terminal `chat` event (final, error or aborted; included, last). A refused
/// send or no terminal event within 2000 frames of at most `per_frame` each is a test failure
/// (ADD_FAILURE) and returns what arrived.
std::vector<nlohmann::json> chat_turn(WsClient& client, const std::string& session_key, const std::string& message,
                                      const std::string& run_id, std::chrono::milliseconds per_frame = 30s);

/// A finished plain HTTP exchange.
struct HttpResult {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< names lower-cased
};

/// One HTTP/1.1 request to 127.0.0.1:<port> with extra request headers (e.g. If-None-Match; a
/// "Host" entry replaces the default 127.0.0.1:<port>); throws on connection failure.
HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers = {});
/// The same with a request body (Content-Length set; give Content-Type in `headers`).
HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers, const std::optional<std::string>& body);

}  // namespace pincer::test
