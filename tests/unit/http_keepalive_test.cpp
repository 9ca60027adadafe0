// net::HttpClient keep-alive pool (issue 17 "Connection reuse"), against a real loopback HTTP/1.1
// server running on the same io_context: the server counts the TCP connections it accepts, the
// requests it reads and the connections the client closes, so every test asserts what happened on
// the wire (never a timing).
#include "core/event_loop.h"
#include "core/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace pincer {
namespace detail_http_keepalive_test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

enum class Mode {
  kKeepAlive,           ///< 200 "ok" with Content-Length, connection kept
  kChunked,             ///< 200 "ok" chunked, connection kept
  kConnectionClose,     ///< 200 "ok" with `Connection: close`
  kCloseAfterResponse,  ///< answers, then closes the (now idle) connection itself
  kDropSecondRequest,   ///< on a connection's second request: closes without answering
  kHangMidBody,         ///< sends the head and part of the body, then nothing
};

struct LoopbackServer {
  explicit LoopbackServer(asio::io_context& ioc)
      : acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    accept();
  }
  int port() const { return acceptor.local_endpoint().port(); }

  tcp::acceptor acceptor;
  Mode mode = Mode::kKeepAlive;
  int accepts = 0;          ///< TCP connections accepted
  int requests = 0;         ///< requests read completely
  int client_closed = 0;    ///< connections the client closed (EOF/reset while the server read)
  int server_closed = 0;    ///< connections the server closed itself
  std::string last_connection_header;

 private:
  struct Conn : std::enable_shared_from_this<Conn> {
    Conn(LoopbackServer& s, tcp::socket sock) : server(s), socket(std::move(sock)) {}
    LoopbackServer& server;
    tcp::socket socket;
    beast::flat_buffer buffer;
    std::optional<http::request<http::string_body>> req;
    int served = 0;

    void read() {
      req.emplace();
      http::async_read(socket, buffer, *req, [self = shared_from_this()](error_code ec, std::size_t) {
        if (ec) {
          if (ec != asio::error::operation_aborted && ec != asio::error::bad_descriptor) ++self->server.client_closed;
          return;
        }
        ++self->server.requests;
        self->server.last_connection_header = std::string((*self->req)[http::field::connection]);
        self->respond();
      });
    }

    void close() {
      ++server.server_closed;
      error_code ignored;
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
    }

    void send(std::string raw, std::function<void()> then) {
      auto data = std::make_shared<std::string>(std::move(raw));
      asio::async_write(socket, asio::buffer(*data), [self = shared_from_this(), data, then](error_code ec, std::size_t) {
        if (!ec) then();
      });
    }

    void respond() {
      ++served;
      auto self = shared_from_this();
      switch (server.mode) {
        case Mode::kKeepAlive:
          return send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", [self] { self->read(); });
        case Mode::kChunked:
          return send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", [self] { self->read(); });
        case Mode::kConnectionClose:
          return send("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", [self] { self->read(); });
        case Mode::kCloseAfterResponse:
          return send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", [self] { self->close(); });
        case Mode::kDropSecondRequest:
          if (served >= 2) return close();
          return send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", [self] { self->read(); });
        case Mode::kHangMidBody:
          return send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial", [self] { self->read(); });
      }
    }
  };

  void accept() {
    acceptor.async_accept([this](error_code ec, tcp::socket socket) {
      if (ec) return;
      ++accepts;
      std::make_shared<Conn>(*this, std::move(socket))->read();
      accept();
    });
  }
};

struct Outcome {
  bool done = false;
  std::optional<net::TransportError> error;
  int status = 0;
  std::string body;
};

class HttpKeepAliveTest : public ::testing::Test {
 protected:
  /// Runs the loop until `pred` holds (or a generous safety limit, then the assertion fails).
  bool run_until(const std::function<bool()>& pred) {
    auto& ioc = loop.context();
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred() && std::chrono::steady_clock::now() < limit) {
      if (ioc.stopped()) ioc.restart();
      ioc.run_one_for(std::chrono::milliseconds(50));
    }
    return pred();
  }

  std::shared_ptr<Outcome> request(net::HttpClient& client, bool cancel_on_data = false, bool checked = false,
                                   net::Headers headers = {}) {
    auto out = std::make_shared<Outcome>();
    auto id = std::make_shared<net::HttpClient::RequestId>(0);
    net::HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/v1/chat";
    spec.body = "{\"hello\":1}";
    spec.headers = std::move(headers);
    if (checked) spec.check_address = [](const std::string&) { return std::optional<std::string>{}; };
    net::HttpCallbacks cb;
    cb.on_head = [out](const net::HttpResponseHead& head) { out->status = head.status; };
    cb.on_data = [out, id, &client, cancel_on_data](std::string_view data) {
      out->body += data;
      if (cancel_on_data) client.cancel(*id);
    };
    cb.on_done = [out](const std::optional<net::TransportError>& e) {
      out->error = e;
      out->done = true;
    };
    *id = client.start(std::move(spec), std::move(cb));
    EXPECT_TRUE(run_until([&] { return out->done; }));
    return out;
  }

  static void expect_ok(const Outcome& o) {
    EXPECT_FALSE(o.error.has_value()) << (o.error ? o.error->what : "");
    EXPECT_EQ(o.status, 200);
    EXPECT_EQ(o.body, "ok");
  }

  EventLoop loop;
  LoopbackServer server{loop.context()};
};

TEST_F(HttpKeepAliveTest, SequentialRequestsToOneOriginShareOneConnection) {
  net::HttpClient client(loop);
  expect_ok(*request(client));
  EXPECT_EQ(client.idle_connections(), 1u);
  expect_ok(*request(client));
  server.mode = Mode::kChunked;  // a chunked body completed by its last chunk is reusable too
  expect_ok(*request(client));
  expect_ok(*request(client));
  EXPECT_EQ(server.requests, 4);
  EXPECT_EQ(server.accepts, 1);
  EXPECT_EQ(server.last_connection_header, "");  // no `Connection: close` on poolable requests
  EXPECT_EQ(client.idle_connections(), 1u);
}

TEST_F(HttpKeepAliveTest, IdleConnectionClosedByTheServerIsReplaced) {
  server.mode = Mode::kCloseAfterResponse;
  net::HttpClient client(loop);
  expect_ok(*request(client));
  ASSERT_TRUE(run_until([&] { return server.server_closed == 1; }));
  expect_ok(*request(client));
  EXPECT_EQ(server.accepts, 2);
  EXPECT_EQ(server.requests, 2);
}

TEST_F(HttpKeepAliveTest, PooledConnectionDeadBeforeAnswerIsRetriedOnceOnANewOne) {
  server.mode = Mode::kDropSecondRequest;  // the pooled connection reads request 2, then closes unanswered
  net::HttpClient client(loop);
  expect_ok(*request(client));
  expect_ok(*request(client));
  EXPECT_EQ(server.accepts, 2);
  EXPECT_EQ(server.requests, 3);  // request 2 reached the dead connection, then a new one
}

TEST_F(HttpKeepAliveTest, ConnectionCloseResponsesAreNotPooled) {
  server.mode = Mode::kConnectionClose;
  net::HttpClient client(loop);
  expect_ok(*request(client));
  EXPECT_EQ(client.idle_connections(), 0u);
  ASSERT_TRUE(run_until([&] { return server.client_closed == 1; }));  // the client closed it
  expect_ok(*request(client));
  EXPECT_EQ(server.accepts, 2);
}

TEST_F(HttpKeepAliveTest, CancelMidBodyClosesTheConnection) {
  server.mode = Mode::kHangMidBody;
  net::HttpClient client(loop);
  auto cancelled = request(client, /*cancel_on_data=*/true);
  ASSERT_TRUE(cancelled->error.has_value());
  EXPECT_TRUE(cancelled->error->cancelled);
  EXPECT_EQ(client.idle_connections(), 0u);
  ASSERT_TRUE(run_until([&] { return server.client_closed == 1; }));
  server.mode = Mode::kKeepAlive;
  expect_ok(*request(client));
  EXPECT_EQ(server.accepts, 2);
}

TEST_F(HttpKeepAliveTest, IdleConnectionsAreClosedAfterTheIdleTimeout) {
  net::HttpClientOptions options;
  options.pool_idle_timeout_ms = 20;
  net::HttpClient client(loop, options);
  expect_ok(*request(client));
  EXPECT_EQ(client.idle_connections(), 1u);
  ASSERT_TRUE(run_until([&] { return server.client_closed == 1; }));  // closed by the pool's timer
  EXPECT_EQ(client.idle_connections(), 0u);
  expect_ok(*request(client));
  EXPECT_EQ(server.accepts, 2);
}

TEST_F(HttpKeepAliveTest, CheckedRequestsNeverShareThePool) {
  net::HttpClient client(loop);
  expect_ok(*request(client));  // an unchecked connection is pooled
  EXPECT_EQ(client.idle_connections(), 1u);
  expect_ok(*request(client, false, /*checked=*/true));
  EXPECT_EQ(server.accepts, 2);  // the checked request did not take it
  EXPECT_EQ(server.last_connection_header, "close");
  EXPECT_EQ(client.idle_connections(), 1u);  // nor gave its own back
}

// New-user pass: an API key with a line break injected a header of its own, and one over 64 KiB
// made Beast throw (the gateway aborted). Both are refused before anything is sent.
TEST_F(HttpKeepAliveTest, HeaderValuesWithLineBreaksOrOversizedAreRefusedUnsent) {
  net::HttpClient client(loop);
  auto injected = request(client, false, false, {{"Authorization", "Bearer abc\r\nX-Injected: yes"}});
  ASSERT_TRUE(injected->error.has_value());
  EXPECT_NE(injected->error->what.find("Authorization contains a line break"), std::string::npos) << injected->error->what;
  EXPECT_EQ(injected->error->what.find("abc"), std::string::npos) << "the value itself is never quoted";
  auto huge = request(client, false, false, {{"x-api-key", std::string(100'000, 'B')}});
  ASSERT_TRUE(huge->error.has_value());
  EXPECT_NE(huge->error->what.find("longer than"), std::string::npos) << huge->error->what;
  EXPECT_EQ(server.accepts, 0);
  expect_ok(*request(client));  // the client still works
}

TEST_F(HttpKeepAliveTest, DestroyingTheClientClosesPooledConnections) {
  {
    net::HttpClient client(loop);
    expect_ok(*request(client));
    EXPECT_EQ(client.idle_connections(), 1u);
  }
  ASSERT_TRUE(run_until([&] { return server.client_closed == 1; }));
}

}  // namespace detail_http_keepalive_test
}  // namespace pincer
