#include "ws_client.h"

#include <algorithm>
#include <stdexcept>

#include <boost/asio.hpp>
#include <gtest/gtest.h>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace pincer::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using nlohmann::json;

struct WsClient::Impl {
  asio::io_context ioc;
  websocket::stream<tcp::socket> ws{ioc};
  beast::flat_buffer buffer;
  bool reading = false;
  std::deque<std::string> inbox;
  std::optional<CloseInfo> closed;

  void start_read() {
    if (reading || closed) return;
    reading = true;
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      reading = false;
      if (ec) {
        CloseInfo info;
        if (ec == websocket::error::closed) {
          info.code = ws.reason().code;
          info.reason = std::string(ws.reason().reason.data(), ws.reason().reason.size());
        } else {
          info.code = 1006;
          info.reason = ec.message();
        }
        closed = info;
        return;
      }
      inbox.push_back(beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      start_read();
    });
  }

  // Runs the loop until `done()` or the timeout.
  template <class Pred>
  bool run_until(Pred done, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      ioc.restart();
      ioc.run_one_for(deadline - now);
    }
    return true;
  }
};

WsClient::WsClient(int port, const std::map<std::string, std::string>& headers, const std::string& host)
    : impl_(std::make_unique<Impl>()) {
  beast::error_code ec;
  tcp::endpoint ep(asio::ip::make_address(host), static_cast<unsigned short>(port));
  impl_->ws.next_layer().connect(ep, ec);
  if (ec) throw std::runtime_error("connect to port " + std::to_string(port) + " failed: " + ec.message());
  impl_->ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
    for (const auto& [k, v] : headers) req.set(k, v);
  }));
  impl_->ws.read_message_max(64u << 20);
  impl_->ws.handshake(host + ":" + std::to_string(port), "/", ec);
  if (ec) throw std::runtime_error("websocket upgrade failed: " + ec.message());
  impl_->start_read();
}

WsClient::~WsClient() {
  beast::error_code ec;
  impl_->ws.next_layer().close(ec);
}

void WsClient::send_text(const std::string& text, std::chrono::milliseconds timeout) {
  bool done = false;
  beast::error_code result;
  impl_->ws.async_write(asio::buffer(text), [&](beast::error_code ec, std::size_t) {
    done = true;
    result = ec;
  });
  if (!impl_->run_until([&] { return done; }, timeout)) throw std::runtime_error("write timed out");
  if (result && !impl_->closed) throw std::runtime_error("write failed: " + result.message());
}

std::optional<json> WsClient::recv(std::chrono::milliseconds timeout) {
  impl_->start_read();
  impl_->run_until([&] { return !impl_->inbox.empty() || impl_->closed.has_value(); }, timeout);
  closed_ = impl_->closed;
  if (impl_->inbox.empty()) return std::nullopt;
  std::string text = std::move(impl_->inbox.front());
  impl_->inbox.pop_front();
  return json::parse(text);
}

std::optional<json> WsClient::next_frame(std::chrono::milliseconds timeout) {
  if (events_.empty()) return recv(timeout);
  json frame = std::move(events_.front());
  events_.pop_front();
  return frame;
}

std::optional<json> WsClient::recv_response(const std::string& id, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto frame = recv(left);
    if (!frame) return std::nullopt;
    if ((*frame)["type"] == "res" && (*frame)["id"] == id) return frame;
    events_.push_back(std::move(*frame));
  }
}

std::optional<CloseInfo> WsClient::wait_closed(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!impl_->closed) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    if (auto frame = recv(left)) events_.push_back(std::move(*frame));
  }
  closed_ = impl_->closed;
  return closed_;
}

json WsClient::request(const std::string& method, const json& params) {
  const std::string id = "r" + std::to_string(next_id_++);
  send_json({{"type", "req"}, {"id", id}, {"method", method}, {"params", params}});
  auto res = recv_response(id);
  if (!res) throw std::runtime_error("no response to " + method);
  return *res;
}

json connect_params(const std::string& token, const std::vector<std::string>& scopes) {
  json p = {{"minProtocol", 3},
            {"maxProtocol", 4},
            {"client", {{"id", "cli"}, {"version", "test"}, {"platform", "linux"}, {"mode", "cli"}}},
            {"role", "operator"},
            {"scopes", scopes},
            {"caps", json::array()}};
  if (!token.empty()) p["auth"] = {{"token", token}};
  return p;
}

std::optional<json> handshake(WsClient& client, const json& params) {
  if (!client.recv()) return std::nullopt;  // the connect.challenge
  client.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = client.recv_response("c1");
  if (!res || (*res)["ok"] != true) return std::nullopt;
  return res;
}

std::vector<nlohmann::json> chat_turn(WsClient& client, const std::string& session_key, const std::string& message,
                                      const std::string& run_id, std::chrono::milliseconds per_frame) {
  std::vector<nlohmann::json> frames;
  auto ack = client.request("chat.send", {{"sessionKey", session_key}, {"message", message}, {"idempotencyKey", run_id}});
  if (ack["ok"] != true) {
    ADD_FAILURE() << "chat.send refused: " << ack.dump();
    return frames;
  }
  auto terminal = [&](const nlohmann::json& f) {
    return f["event"] == "chat" && f["payload"]["runId"] == run_id && f["payload"]["state"] != "delta";
  };
  while (!client.events().empty()) {
    frames.push_back(std::move(client.events().front()));
    client.events().pop_front();
    if (terminal(frames.back())) return frames;
  }
  for (int i = 0; i < 2000; ++i) {
    auto f = client.recv(per_frame);
    if (!f) break;
    frames.push_back(*f);
    if (terminal(*f)) return frames;
  }
  ADD_FAILURE() << "no terminal chat event for " << run_id;
  return frames;
}

HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers) {
  return http_request(port, method, target, headers, std::nullopt);
}

HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers, const std::optional<std::string>& body) {
  asio::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  req.set(http::field::connection, "close");
  for (const auto& [name, value] : headers) req.set(name, value);
  if (body) {
    req.body() = *body;
    req.prepare_payload();
  }
  http::write(socket, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.skip(method == "HEAD");
  http::read(socket, buffer, parser);
  auto res = parser.release();
  HttpResult out;
  out.status = static_cast<int>(res.result_int());
  out.body = res.body();
  for (const auto& f : res) {
    std::string name(f.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    out.headers[name] = std::string(f.value());
  }
  return out;
}

}  // namespace pincer::test
