// The streamable HTTP transport of the MCP client (mcp_transport.h; MCP "Transports", streamable
// HTTP): every message is POSTed to the endpoint with `Accept: application/json,
// text/event-stream`; a request is answered by a JSON body or by an event stream whose events
// carry the response (and maybe server requests or notifications before it); a notification or
// response by 202. The `Mcp-Session-Id` the server gives in its initialize answer goes with every
// later request; a 404 then means the session is gone (the transport closes; the client starts
// over); closing sends a best-effort DELETE with it. The optional GET stream for unsolicited
// server messages is not opened: notifications reach Pincer only inside the streams of its own
// requests.
#include <map>
#include <spdlog/spdlog.h>

#include "interop/mcp/mcp_transport.h"
#include "llm/sse_parser.h"

namespace pincer::interop::mcp {

namespace detail_mcp_http_transport {

constexpr std::size_t kMaxBodyBytes = 16u << 20;
constexpr std::size_t kErrorHeadBytes = 300;

struct Shared {
  bool closed = false;
  bool reported = false;
  std::string session_id;
  std::string protocol_version;
  Transport::Handlers handlers;
  std::map<uint64_t, bool> in_flight;  // request ids of the HTTP client

  void report(const std::string& reason) {
    if (closed || reported) return;
    reported = true;
    if (handlers.on_closed) handlers.on_closed(reason);
  }
  void deliver(std::string_view message) {
    if (!closed && !reported && handlers.on_message) handlers.on_message(message);
  }
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class HttpTransport final : public Transport {
 public:
  HttpTransport(net::HttpClient& http, ServerConfig config) : http_(http), config_(std::move(config)) {}
  ~HttpTransport() override { close(); }

  Status start(Handlers handlers) override {
    if (!net::parse_url(config_.url)) return Error{"MCP_BAD_URL", "url \"" + config_.url + "\" is not an http(s) URL"};
    shared_->handlers = std::move(handlers);
    return Ok{};
  }

  void set_protocol_version(const std::string& version) override { shared_->protocol_version = version; }

  void send(std::string message) override {
    if (shared_->closed) return;
    net::HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = config_.url;
    spec.body = std::move(message);
    spec.connect_timeout_ms = config_.connection_timeout_ms;
    spec.idle_timeout_ms = std::max(config_.tool_timeout_ms, config_.connection_timeout_ms);
    spec.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
    for (const auto& h : config_.headers) spec.headers.push_back(h);
    if (!shared_->session_id.empty()) spec.headers.emplace_back("Mcp-Session-Id", shared_->session_id);
    if (!shared_->protocol_version.empty()) spec.headers.emplace_back("MCP-Protocol-Version", shared_->protocol_version);

    struct Reply {
      int status = 0;
      bool sse = false;
      std::string body;
      llm::SseParser parser;
    };
    auto reply = std::make_shared<Reply>();
    auto shared = shared_;
    auto id = std::make_shared<uint64_t>(0);
    net::HttpCallbacks cb;
    cb.on_head = [shared, reply](const net::HttpResponseHead& head) {
      reply->status = head.status;
      reply->sse = lower(head.header("Content-Type")).find("text/event-stream") != std::string::npos;
      if (std::string sid = head.header("Mcp-Session-Id"); !sid.empty()) shared->session_id = sid;
    };
    cb.on_data = [shared, reply](std::string_view bytes) {
      if (reply->status < 200 || reply->status >= 300 || !reply->sse) {
        if (reply->body.size() < kMaxBodyBytes) reply->body.append(bytes.substr(0, kMaxBodyBytes - reply->body.size()));
        return;
      }
      std::vector<llm::SseEvent> events;
      if (auto st = reply->parser.feed(bytes, events); !st) shared->report("the server's event stream: " + st.error().message);
      for (const auto& e : events) {
        if (e.type == "message" && !e.data.empty()) shared->deliver(e.data);
      }
    };
    cb.on_done = [shared, reply, id, this_session = shared_->session_id](const std::optional<net::TransportError>& error) {
      shared->in_flight.erase(*id);
      if (shared->closed) return;
      if (error) {
        if (!error->cancelled) shared->report("HTTP request failed: " + error->what);
        return;
      }
      if (reply->status == 404 && !this_session.empty()) {
        shared->report("the server ended the session (HTTP 404 for Mcp-Session-Id)");
        return;
      }
      if (reply->status < 200 || reply->status >= 300) {
        std::string head = reply->body.substr(0, kErrorHeadBytes);
        for (auto& c : head) {
          if (c == '\n' || c == '\r') c = ' ';
        }
        shared->report("HTTP " + std::to_string(reply->status) + (head.empty() ? "" : ": " + head));
        return;
      }
      if (reply->sse) {
        std::vector<llm::SseEvent> events;
        reply->parser.flush(events);
        for (const auto& e : events) {
          if (e.type == "message" && !e.data.empty()) shared->deliver(e.data);
        }
      } else if (!reply->body.empty() && reply->status != 202) {
        shared->deliver(reply->body);
      }
    };
    *id = http_.start(std::move(spec), std::move(cb));
    shared_->in_flight[*id] = true;
  }

  void close() override {
    if (shared_->closed) return;
    shared_->closed = true;
    auto ids = shared_->in_flight;
    for (const auto& [id, unused] : ids) http_.cancel(id);
    if (!shared_->session_id.empty()) {  // the session ends with us (MCP: clients SHOULD say so); best effort
      net::HttpRequestSpec spec;
      spec.method = "DELETE";
      spec.url = config_.url;
      spec.connect_timeout_ms = 5000;
      spec.idle_timeout_ms = 5000;
      for (const auto& h : config_.headers) spec.headers.push_back(h);
      spec.headers.emplace_back("Mcp-Session-Id", shared_->session_id);
      net::HttpCallbacks cb;
      cb.on_head = [](const net::HttpResponseHead&) {};
      cb.on_data = [](std::string_view) {};
      cb.on_done = [](const std::optional<net::TransportError>&) {};
      http_.start(std::move(spec), std::move(cb));
    }
  }

 private:
  net::HttpClient& http_;
  ServerConfig config_;
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

}  // namespace detail_mcp_http_transport

std::unique_ptr<Transport> make_http_transport(EventLoop&, net::HttpClient& http, const ServerConfig& config) {
  return std::make_unique<detail_mcp_http_transport::HttpTransport>(http, config);
}

}  // namespace pincer::interop::mcp
