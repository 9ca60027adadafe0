// GatewayClient over Boost.Beast: one private I/O thread owns the socket; public calls post work to
// it and, for call(), wait on a future. Plain ws:// and TLS wss:// share one template.
#include <atomic>
#include <deque>
#include <future>
#include <map>
#include <thread>
#include <variant>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "cli/gateway_client.h"
#include "core/json5.h"
#include "llm/ndjson_parser.h"
#include "core/http_client.h"
#include "core/net_tls.h"
#include "core/utf8.h"
#include "gateway/protocol/constants.h"
#include "core/json_dump.h"

namespace pincer::cli {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using nlohmann::json;

namespace {

using PlainWs = websocket::stream<beast::tcp_stream>;
using TlsWs = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

/// A failed response as one Error with one code: details.code when the gateway gave one (the
/// specific cause, e.g. INVALID_REQUEST under an UNAVAILABLE class, CRON_JOB_NOT_FOUND,
/// AUTH_TOKEN_MISMATCH), else error.code. With `code_in_message` (the connect response, whose
/// callers print only the message) the code is also appended to the message as " [CODE]" (how
/// the CLI shows every error code).
Error response_error(const json& frame, bool code_in_message) {
  const json& err = frame.contains("error") && frame["error"].is_object() ? frame["error"] : json::object();
  std::string code = err.value("code", std::string("ERROR"));
  std::string message = err.value("message", std::string("request failed"));
  if (err.contains("details") && err["details"].is_object() && err["details"].contains("code") &&
      err["details"]["code"].is_string() && !err["details"]["code"].get<std::string>().empty()) {
    code = err["details"]["code"].get<std::string>();
    if (code_in_message) message += " [" + code + "]";
  }
  return Error{code, message};
}

}  // namespace

struct GatewayClient::Impl : std::enable_shared_from_this<Impl> {
  struct Pending {
    bool until_final = false;
    std::function<void(Result<json>)> done;
    /// call()'s: gets the error's class (error.code) before `done` runs, when the answer is an error.
    std::shared_ptr<std::string> error_class;
  };

  ClientOptions options;
  EventHandler on_event;
  CloseHandler on_close;
  asio::io_context ioc;
  std::variant<std::monostate, std::unique_ptr<PlainWs>, std::unique_ptr<TlsWs>> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  std::map<std::string, Pending> pending;
  std::thread thread;
  std::atomic<bool> open{false};
  bool handshake_done = false;
  bool closing = false;
  uint64_t next_id = 1;
  json hello;
  std::promise<Result<json>> connected;

  // Runs `f(stream)` on whichever stream type is active.
  template <class F>
  void with_ws(F&& f) {
    if (auto* p = std::get_if<std::unique_ptr<PlainWs>>(&ws)) f(**p);
    else if (auto* t = std::get_if<std::unique_ptr<TlsWs>>(&ws)) f(**t);
  }

  void fail_connect(const Error& e) {
    if (handshake_done) return;
    handshake_done = true;  // only one outcome
    connected.set_value(e);
  }

  // ---- connect -------------------------------------------------------------------------------
  void start(const net::ParsedUrl& url) {
    auto self = shared_from_this();
    auto resolver = std::make_shared<tcp::resolver>(ioc);
    resolver->async_resolve(url.host, url.port, [self, resolver, url](beast::error_code ec, tcp::resolver::results_type r) {
      if (ec) return self->fail_connect({"UNREACHABLE", self->options.url + ": cannot resolve " + url.host + ": " + ec.message()});
      if (url.tls) self->ws = std::make_unique<TlsWs>(self->ioc, net::client_tls_context());
      else self->ws = std::make_unique<PlainWs>(self->ioc);
      self->with_ws([&](auto& s) {
        auto& tcp_layer = beast::get_lowest_layer(s);
        tcp_layer.expires_after(self->options.connect_timeout);
        tcp_layer.async_connect(r, [self, url](beast::error_code ec, const tcp::endpoint&) {
          if (ec) return self->fail_connect({"UNREACHABLE", self->options.url + ": " + ec.message()});
          self->after_tcp(url);
        });
      });
    });
  }

  void after_tcp(const net::ParsedUrl& url) {
    auto self = shared_from_this();
    if (auto* t = std::get_if<std::unique_ptr<TlsWs>>(&ws)) {
      auto& ssl = (*t)->next_layer();
      SSL_set_tlsext_host_name(ssl.native_handle(), url.host.c_str());
      ssl.set_verify_callback(asio::ssl::host_name_verification(url.host));
      ssl.async_handshake(asio::ssl::stream_base::client, [self, url](beast::error_code ec) {
        if (ec) return self->fail_connect({"UNREACHABLE", self->options.url + ": TLS: " + ec.message()});
        self->upgrade(url);
      });
      return;
    }
    upgrade(url);
  }

  void upgrade(const net::ParsedUrl& url) {
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.read_message_max(64u << 20);
      s.set_option(websocket::stream_base::decorator(
          [](websocket::request_type& req) { req.set(beast::http::field::user_agent, std::string("pincer-cli/") + PINCER_VERSION); }));
      const bool default_port = (url.tls && url.port == "443") || (!url.tls && url.port == "80");
      const std::string host = (url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host) +
                               (default_port ? "" : ":" + url.port);
      s.async_handshake(host, url.target, [self](beast::error_code ec) {
        if (ec) return self->fail_connect({"UNREACHABLE", self->options.url + ": WebSocket upgrade: " + ec.message()});
        self->with_ws([](auto& s2) {
          beast::get_lowest_layer(s2).expires_never();
          s2.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
        });
        self->open = true;
        self->read();
      });
    });
    // The whole handshake (through hello-ok) is bounded by connect_timeout.
    auto timer = std::make_shared<asio::steady_timer>(ioc, options.connect_timeout);
    timer->async_wait([self, timer](beast::error_code ec) {
      if (!ec && !self->handshake_done) {
        self->fail_connect({"TIMEOUT", self->options.url + ": no hello-ok within " +
                                           std::to_string(self->options.connect_timeout.count()) + " ms"});
        self->shutdown();
      }
    });
  }

  json connect_params(const std::string& nonce) const {
    json p = {{"minProtocol", 3},
              {"maxProtocol", 4},
              {"client", {{"id", options.client_id}, {"version", PINCER_VERSION}, {"platform", "linux"}, {"mode", options.client_mode}}},
              {"role", "operator"},
              {"scopes", options.scopes},
              {"caps", options.caps}};
    json auth = json::object();
    if (!options.token.empty()) auth["token"] = options.token;
    if (!options.password.empty()) auth["password"] = options.password;
    if (!auth.empty()) p["auth"] = auth;
    (void)nonce;  // signed device identity (AU-3) is not sent by the CLI: loopback/token auth suffices
    return p;
  }

  // ---- frames ---------------------------------------------------------------------------------
  void read() {
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.async_read(buffer, [self](beast::error_code ec, std::size_t) {
        if (ec) return self->on_closed(ec);
        std::string text = beast::buffers_to_string(self->buffer.data());
        self->buffer.consume(self->buffer.size());
        self->on_frame(text);
        self->read();
      });
    });
  }

  void on_frame(const std::string& text) {
    if (llm::json_nesting_exceeds(text, json5::kMaxDepth)) return;  // copying it would recurse that deep
    json frame = json::parse(text, nullptr, false);
    if (!frame.is_object()) return;
    const std::string type = frame.value("type", "");
    if (type == "event") {
      const std::string event = frame.value("event", "");
      if (!handshake_done && event == "connect.challenge") {
        const json& payload = frame.contains("payload") ? frame["payload"] : json::object();
        send({{"type", "req"}, {"id", "connect"}, {"method", "connect"},
              {"params", connect_params(payload.value("nonce", ""))}});
        return;
      }
      if (on_event) on_event(event, frame.contains("payload") ? frame["payload"] : json(nullptr));
      return;
    }
    if (type != "res") return;
    const std::string id = frame.value("id", "");
    if (!handshake_done && id == "connect") {
      handshake_done = true;
      if (frame.value("ok", false)) {
        hello = frame.contains("payload") ? frame["payload"] : json::object();
        connected.set_value(hello);
      } else {
        connected.set_value(response_error(frame, true));
      }
      return;
    }
    auto it = pending.find(id);
    if (it == pending.end()) return;
    const bool ok = frame.value("ok", false);
    json payload = frame.contains("payload") ? frame["payload"] : json(nullptr);
    if (ok && it->second.until_final && payload.is_object() && payload.value("status", "") == "accepted") return;
    auto done = std::move(it->second.done);
    if (!ok && it->second.error_class) {
      const json& err = frame.contains("error") && frame["error"].is_object() ? frame["error"] : json::object();
      *it->second.error_class = err.value("code", std::string("ERROR"));
    }
    pending.erase(it);
    if (done) done(ok ? Result<json>(std::move(payload)) : Result<json>(response_error(frame, false)));
  }

  void send(json frame) {
    // Never throws: call_async refused invalid UTF-8 in params; anything else (a token from the
    // environment, say) is replaced rather than aborting the process.
    outbox.push_back(json_dump::compact(frame));
    if (outbox.size() == 1) write_next();
  }

  void write_next() {
    if (outbox.empty() || !open) return;
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      s.text(true);
      s.async_write(asio::buffer(outbox.front()), [self](beast::error_code ec, std::size_t) {
        if (ec) return;  // the read side reports the close
        self->outbox.pop_front();
        self->write_next();
      });
    });
  }

  void on_closed(beast::error_code ec) {
    const bool was_open = open.exchange(false);
    int code = 1006;
    std::string reason = ec.message();
    with_ws([&](auto& s) {
      if (ec == websocket::error::closed) {
        code = s.reason().code;
        reason = std::string(s.reason().reason.data(), s.reason().reason.size());
      }
    });
    if (!handshake_done) {
      fail_connect({"UNREACHABLE", options.url + ": connection closed during handshake (" + std::to_string(code) +
                                       (reason.empty() ? "" : " " + reason) + ")"});
      return;
    }
    auto waiting = std::move(pending);
    pending.clear();
    // 1001 (going away) and 1012 (service restart) are a gateway that stops on purpose (GW-10):
    // callers can tell the user that accepted work is kept rather than lost.
    const bool stopping = code == 1001 || code == 1012;
    const std::string why = std::to_string(code) + (reason.empty() ? "" : ": " + reason);
    for (auto& [id, p] : waiting) {
      if (p.done) {
        p.done(stopping ? Error{"GATEWAY_STOPPING", "the gateway stopped before answering (" + why + ")"}
                        : Error{"CLOSED", "connection closed (" + why + ")"});
      }
    }
    if (was_open && on_close && !closing) on_close(code, reason);
  }

  void shutdown() {
    closing = true;
    if (!open) {
      with_ws([](auto& s) {
        beast::error_code ignored;
        beast::get_lowest_layer(s).socket().close(ignored);
      });
      return;
    }
    auto self = shared_from_this();
    with_ws([&](auto& s) {
      beast::get_lowest_layer(s).expires_after(std::chrono::seconds(1));
      s.async_close(websocket::close_code::normal, [self](beast::error_code) {});
    });
  }
};

GatewayClient::GatewayClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<GatewayClient>> GatewayClient::connect(const ClientOptions& options, EventHandler on_event,
                                                              CloseHandler on_close) {
  std::string http_url = options.url;
  if (http_url.rfind("ws://", 0) == 0) http_url = "http://" + http_url.substr(5);
  else if (http_url.rfind("wss://", 0) == 0) http_url = "https://" + http_url.substr(6);
  else return Error{"INVALID_URL", "gateway URL must start with ws:// or wss:// (got \"" + options.url + "\")"};
  auto url = net::parse_url(http_url);
  if (!url) return Error{"INVALID_URL", "malformed gateway URL \"" + options.url + "\""};

  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->on_event = std::move(on_event);
  impl->on_close = std::move(on_close);
  auto outcome = impl->connected.get_future();
  asio::post(impl->ioc, [impl, u = *url] { impl->start(u); });
  std::unique_ptr<GatewayClient> client(new GatewayClient(impl));
  impl->thread = std::thread([impl] {
    auto guard = asio::make_work_guard(impl->ioc);
    impl->ioc.run();
  });
  auto result = outcome.get();
  if (!result) return result.error();
  return client;
}

GatewayClient::~GatewayClient() {
  auto impl = impl_;
  asio::post(impl->ioc, [impl] { impl->shutdown(); });
  // Give the close handshake a moment (bounded), then stop regardless.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (impl->open && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  impl->ioc.stop();
  if (impl->thread.joinable()) impl->thread.join();
}

const json& GatewayClient::hello() const { return impl_->hello; }

bool GatewayClient::connected() const { return impl_->open; }

void GatewayClient::call_async(const std::string& method, const json& params, std::function<void(Result<json>)> done,
                               bool until_final) {
  request(method, params, std::move(done), until_final, nullptr);
}

void GatewayClient::request(const std::string& method, const json& params, std::function<void(Result<json>)> done,
                            bool until_final, std::shared_ptr<std::string> error_class) {
  // Text that is not UTF-8 cannot be sent as JSON: refuse the request and say where it is.
  if (auto bad = utf8::find_invalid(params)) {
    if (done) {
      done(Error{"INVALID_UTF8", "parameter " + (bad->path.empty() ? std::string("(params)") : bad->path.substr(1)) +
                                     " is not UTF-8 text (" + bad->problem + ")"});
    }
    return;
  }
  // Over the gateway's frame limit it would close the connection (1009): say so, with both sizes.
  if (const std::size_t bytes = json_dump::compact(params).size() + method.size() + 64;
      bytes > gateway::kMaxPayloadBytes) {
    if (done) done(Error{"TOO_LARGE", gateway::message_too_large(bytes)});
    return;
  }
  auto impl = impl_;
  asio::post(impl->ioc, [impl, method, params, done = std::move(done), until_final,
                         error_class = std::move(error_class)]() mutable {
    if (!impl->open) {
      if (done) done(Error{"CLOSED", "not connected to the gateway"});
      return;
    }
    const std::string id = "c" + std::to_string(impl->next_id++);
    impl->pending[id] = Impl::Pending{until_final, std::move(done), std::move(error_class)};
    impl->send({{"type", "req"}, {"id", id}, {"method", method}, {"params", params}});
  });
}

Result<json> GatewayClient::call(const std::string& method, const json& params, std::chrono::milliseconds timeout,
                                 bool until_final, std::string* error_class) {
  auto promise = std::make_shared<std::promise<Result<json>>>();
  auto future = promise->get_future();
  // Written on the I/O thread before the promise is set; read here only after the future is ready.
  auto cls = error_class ? std::make_shared<std::string>() : nullptr;
  request(method, params, [promise](Result<json> r) { promise->set_value(std::move(r)); }, until_final, cls);
  if (future.wait_for(timeout) != std::future_status::ready) {
    return Error{"TIMEOUT", method + ": no response within " + std::to_string(timeout.count()) + " ms"};
  }
  if (error_class) *error_class = *cls;
  return future.get();
}

}  // namespace pincer::cli
