// Internal to the gateway's Beast transport (net_server.cpp: accept, HTTP, routes;
// net_ws_session.cpp: WebSocket sessions): the Asio types and helpers both translation units
// share. Not for other layers (Asio headers are slow to compile). Loop thread only.
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <string>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "gateway/gateway.h"

namespace pincer::gateway::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using boost::system::error_code;
// Concrete io_context executors instead of the type-erased default: less work per operation on
// the hot path (docs/benchmarks.md, health RPC/s).
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using Stream = beast::basic_stream<tcp, Executor>;

// After refusing a request or a WebSocket message, what the peer still sends is read and dropped
// (up to this much, for this long) before the socket closes: closing with unread data makes the
// kernel send a reset, and the peer would lose our answer (431, 413, close 1009).
inline constexpr auto kLingerTimeout = std::chrono::seconds(2);
inline constexpr std::size_t kLingerBytes = 64u * 1024 * 1024;

inline bool is_loopback(const asio::ip::address& a) {
  if (a.is_loopback()) return true;
  return a.is_v6() && a.to_v6().is_v4_mapped() &&
         asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).is_loopback();
}

/// The request's headers, names lower-cased; repeated fields joined with ", " (RFC 9110 §5.3).
template <class Fields>
std::map<std::string, std::string> header_map(const Fields& fields) {
  std::map<std::string, std::string> out;
  for (const auto& field : fields) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    auto [it, fresh] = out.try_emplace(std::move(name), field.value());
    if (!fresh) it->second.append(", ").append(field.value());
  }
  return out;
}

/// What the gateway knows of the client behind `socket` from its upgrade request: addresses
/// (resolved through gateway.trustedProxies), Host, Origin, headers.
PeerInfo peer_info(const Socket& socket, const http::request<http::string_body>& req, const AuthSettings& auth);

/// Logs `what` as a warning at most once per second per `last` (a flood must not flood the log).
void warn_throttled(std::chrono::steady_clock::time_point& last, const std::string& what);

/// Completes the WebSocket upgrade `req` on `socket` and bridges it to `gateway` (net_ws_session.cpp).
void start_websocket(Socket socket, Gateway& gateway, http::request<http::string_body> req, PeerInfo peer);

}  // namespace pincer::gateway::transport
