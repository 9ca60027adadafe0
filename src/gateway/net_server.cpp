// Boost.Beast transport for the gateway: accepts TCP connections (each served by
// net_http_session.cpp: probes, web UI, routes, WebSocket upgrades), runs the periodic timers and
// handles signals and the drain on shutdown. All handlers run on one io_context thread
// (docs/architecture.md "Concurrency model").
#include "gateway/net_server.h"

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <memory>

#include <spdlog/spdlog.h>

#include "core/descriptor_limit.h"
#include "gateway/net_http_session.h"
#include "gateway/net_transport.h"
#include "gateway/control_ui.h"

namespace pincer::gateway {
namespace transport {

constexpr int64_t kAcceptBackoffMs = 200;

PeerInfo peer_info(const Socket& socket, const http::request<http::string_body>& req, const AuthSettings& auth) {
  PeerInfo peer;
  error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (!ec) {
    peer.remote_ip = ep.address().to_string();
    peer.loopback = is_loopback(ep.address());
  }
  peer.headers = header_map(req);
  const auto& h = peer.headers;
  if (auto it = h.find("host"); it != h.end()) peer.host = it->second;
  if (auto it = h.find("origin"); it != h.end()) peer.origin = it->second;
  peer.forwarded = h.count("x-forwarded-for") || h.count("x-real-ip") || h.count("forwarded");
  if (is_trusted_proxy(peer.remote_ip, auth.trusted_proxies)) {
    auto xff = h.find("x-forwarded-for");
    peer.proxied_client_ip =
        resolve_client_ip(peer.remote_ip, xff == h.end() ? std::string_view() : std::string_view(xff->second),
                          auth.trusted_proxies)
            .value_or("unknown");
  }
  return peer;
}

void warn_throttled(std::chrono::steady_clock::time_point& last, const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::seconds(1)) return;
  last = now;
  spdlog::warn("{}", what);
}

}  // namespace transport

namespace {

using namespace transport;

/// How soon clients may expect the gateway back after an in-process restart (the shutdown event).
constexpr int64_t kRestartExpectedMs = 1500;

/// Accept loop, periodic timers and signal handling.
class Server {
 public:
  Server(asio::io_context& ioc, Gateway& gateway)
      : ioc_(ioc), gateway_(gateway),
        control_ui_(gateway.settings().control_ui, gateway.settings().config, gateway.settings().version),
        acceptor_(ioc.get_executor()), tick_(ioc), health_(ioc), accept_retry_(ioc), stop_(ioc), signals_(ioc, SIGTERM, SIGINT, SIGHUP) {
    signals_.add(SIGUSR1);  // restart in process (as OpenClaw), also raised by a config reload
  }

  Status listen(const ServerOptions& options) {
    on_stopping_ = options.on_stopping;
    error_code ec;
    auto address = asio::ip::make_address(options.host, ec);
    if (ec) return Error{"LISTEN_FAILED", "invalid bind address \"" + options.host + "\": " + ec.message()};
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    auto where = options.host + ":" + std::to_string(options.port);
    if (acceptor_.open(endpoint.protocol(), ec); ec) return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message()};
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (acceptor_.bind(endpoint, ec); ec) {
      const std::string hint = ec == asio::error::address_in_use ? kPortInUseHint : "";
      return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message() + hint};
    }
    if (acceptor_.listen(asio::socket_base::max_listen_connections, ec); ec) {
      return Error{"LISTEN_FAILED", "cannot listen on " + where + ": " + ec.message()};
    }
    return Ok{};
  }

  int port() const { return acceptor_.local_endpoint().port(); }

  void start() {
    accept_next();
    schedule(tick_, kTickIntervalMs, [this] { gateway_.tick(); });
    schedule(health_, kHealthRefreshMs, [this] {
      gateway_.refresh_health();
      ::malloc_trim(0);  // give memory freed after a burst back to the system
    });
    signals_.async_wait([this](error_code ec, int signo) {
      if (ec) return;
      restart_ = signo == SIGUSR1;
      begin_shutdown(signo == SIGTERM ? "SIGTERM" : signo == SIGHUP ? "SIGHUP" : restart_ ? "SIGUSR1" : "SIGINT");
    });
  }

  bool restart_requested() const { return restart_; }

 private:
  void accept_next() {
    acceptor_.async_accept([this](error_code ec, Socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
        // Out of descriptors (EMFILE/ENFILE) or similar: the pending connection stays in the
        // backlog, so accepting again at once would spin. Pause, and log once per pause.
        spdlog::warn("accept failed: {}; pausing accepts for {} ms", ec.message(), kAcceptBackoffMs);
        accept_retry_.expires_after(std::chrono::milliseconds(kAcceptBackoffMs));
        accept_retry_.async_wait([this](error_code wait_ec) {
          if (!wait_ec && !gateway_.shutting_down()) accept_next();
        });
        return;
      }
      socket.set_option(tcp::no_delay(true), ec);  // small frames, pipelined: no Nagle delays
      reading_->make_room();
      start_http_session(std::move(socket), gateway_, reading_, control_ui_);
      accept_next();
    });
  }

  template <class Fn>
  void schedule(asio::steady_timer& timer, int64_t period_ms, Fn fn) {
    timer.expires_after(std::chrono::milliseconds(period_ms));
    timer.async_wait([this, &timer, period_ms, fn](error_code ec) {
      if (ec) return;
      fn();
      schedule(timer, period_ms, fn);
    });
  }

  void begin_shutdown(const char* why) {
    if (restart_) spdlog::info("restart requested ({}); stopping to start again", why);
    else spdlog::info("received {}; shutting down", why);
    error_code ignored;
    acceptor_.close(ignored);
    if (on_stopping_) on_stopping_(restart_);  // e.g. the lock file says so, for clients that cannot connect
    tick_.cancel();
    health_.cancel();
    accept_retry_.cancel();
    gateway_.shutdown(std::string(restart_ ? "gateway restarting (" : "gateway stopping (") + why + ")",
                      restart_ ? std::optional<int64_t>(kRestartExpectedMs) : std::nullopt);
    // GW-10: running turns and replies in delivery get gateway.drainTimeoutMs to finish (the
    // journal resumes what is still running then at the next start); clients then 800 ms to close.
    drain_deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(gateway_.settings().drain_timeout_ms);
    if (const std::size_t pending = gateway_.pending_work()) {
      spdlog::info("waiting up to {} ms for {} running turns and replies to finish", gateway_.settings().drain_timeout_ms,
                   pending);
    }
    wait_for_drain();
  }

  // Checks every 50 ms (while stopping only) until no turn or reply is pending, or the drain deadline.
  void wait_for_drain() {
    const auto now = std::chrono::steady_clock::now();
    if (gateway_.pending_work() == 0 || now >= drain_deadline_) {
      if (const std::size_t left = gateway_.pending_work()) {
        spdlog::warn("stopping with {} turns or replies unfinished (gateway.drainTimeoutMs); they resume at the next start",
                     left);
      }
      // Clients stayed open during the drain (they receive the answers of their turns): close now.
      gateway_.close_clients();
      deadline_ = now + std::chrono::milliseconds(800);
      return wait_for_clients();
    }
    stop_.expires_after(std::chrono::milliseconds(50));
    stop_.async_wait([this](error_code) { wait_for_drain(); });
  }

  // Polls until every client has finished its close handshake, bounded by the deadline.
  void wait_for_clients() {
    if (gateway_.client_count() == 0 || std::chrono::steady_clock::now() >= deadline_) {
      ioc_.stop();
      return;
    }
    stop_.expires_after(std::chrono::milliseconds(5));
    stop_.async_wait([this](error_code) { wait_for_clients(); });
  }

  asio::io_context& ioc_;
  Gateway& gateway_;
  ControlUi control_ui_;  ///< outlives the sessions: they end before the loop returns
  Acceptor acceptor_;
  asio::steady_timer tick_, health_, accept_retry_, stop_;
  asio::signal_set signals_;
  std::chrono::steady_clock::time_point deadline_, drain_deadline_;
  bool restart_ = false;
  std::function<void(bool restarting)> on_stopping_;
  std::shared_ptr<ReadingSessions> reading_ = std::make_shared<ReadingSessions>();
};

}  // namespace

Status run_server(EventLoop& loop, Gateway& gateway, const ServerOptions& options, bool* restart) {
  // The default soft limit of 1 024 is a few hundred slow clients away from "Too many open files"
  // (exec's children get the original back, core/descriptor_limit.h).
  if (const uint64_t raised = raise_descriptor_limit()) {
    spdlog::debug("open-file limit raised from {} to {}", original_descriptor_soft_limit(), raised);
  }
  asio::io_context& ioc = loop.context();
  Server server(ioc, gateway);
  if (auto st = server.listen(options); !st) return st;
  server.start();
  if (options.on_listening) options.on_listening(server.port());
  loop.run();
  if (restart) *restart = server.restart_requested();
  return Ok{};
}

}  // namespace pincer::gateway
