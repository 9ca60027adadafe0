#include "interop/mcp/mcp_client.h"

#include <spdlog/spdlog.h>

#include "interop/jsonrpc/jsonrpc.h"

namespace pincer::interop::mcp {

namespace detail_mcp_client {

using nlohmann::json;

bool supported_version(const std::string& v) {
  for (const char* s : kSupportedProtocolVersions) {
    if (v == s) return true;
  }
  return false;
}

std::string supported_list() {
  std::string out;
  for (const char* s : kSupportedProtocolVersions) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

std::string short_text(std::string_view text, std::size_t n = 120) {
  std::string s(text.substr(0, n));
  for (auto& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text.size() > n ? s + "…" : s;
}

}  // namespace detail_mcp_client

using nlohmann::json;

Client::Client(EventLoop& loop, std::unique_ptr<Transport> transport, std::string server, int64_t timeout_ms)
    : loop_(loop), transport_(std::move(transport)), server_(std::move(server)), timeout_ms_(timeout_ms) {}

Client::~Client() {
  *alive_ = false;
  for (auto& [id, p] : pending_) loop_.cancel(p.timer);
  pending_.clear();
  if (transport_) transport_->close();
}

void Client::connect(std::function<void(Status)> done) {
  std::weak_ptr<Client> weak = weak_from_this();
  Transport::Handlers h;
  h.on_message = [weak](std::string_view text) {
    if (auto self = weak.lock()) self->on_message(text);
  };
  h.on_closed = [weak](const std::string& reason) {
    if (auto self = weak.lock()) self->on_transport_closed(reason);
  };
  if (auto st = transport_->start(std::move(h)); !st) {
    closed_ = true;
    const std::string message = st.error().message;
    loop_.post([done, message] { done(Error{"MCP_START_FAILED", message}); });
    return;
  }
  json params = {{"protocolVersion", kSupportedProtocolVersions[0]},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "pincer"}, {"version", PINCER_VERSION}}}};
  request("initialize", params, timeout_ms_, [weak, done](Result<json> r) {
    auto self = weak.lock();
    if (!self) return;
    if (!r) return done(r.error());
    const json& result = *r;
    const std::string version = result.is_object() && result.contains("protocolVersion") && result["protocolVersion"].is_string()
                                    ? result["protocolVersion"].get<std::string>() : "";
    if (!detail_mcp_client::supported_version(version)) {
      self->close("unsupported protocol version");
      return done(Error{"MCP_PROTOCOL", "the server answered initialize with protocol version \"" + version +
                                            "\", which Pincer does not speak (it speaks " + detail_mcp_client::supported_list() + ")"});
    }
    self->protocol_version_ = version;
    self->server_info_ = result.contains("serverInfo") && result["serverInfo"].is_object() ? result["serverInfo"] : json::object();
    self->transport_->set_protocol_version(version);
    self->transport_->send(jsonrpc::make_notification("notifications/initialized"));
    self->connected_ = true;
    done(Ok{});
  });
}

void Client::list_tools(std::function<void(Result<std::vector<ServerTool>>)> done) {
  list_page("", 0, std::make_shared<std::vector<ServerTool>>(), std::move(done));
}

void Client::list_page(std::string cursor, int page, std::shared_ptr<std::vector<ServerTool>> acc,
                       std::function<void(Result<std::vector<ServerTool>>)> done) {
  json params = json::object();
  if (!cursor.empty()) params["cursor"] = cursor;
  std::weak_ptr<Client> weak = weak_from_this();
  request("tools/list", params, timeout_ms_, [weak, page, acc, done](Result<json> r) {
    auto self = weak.lock();
    if (!self) return;
    if (!r) return done(r.error());
    const json& result = *r;
    if (!result.is_object() || !result.contains("tools") || !result["tools"].is_array()) {
      return done(Error{"MCP_PROTOCOL", "tools/list answered without a \"tools\" array"});
    }
    for (const auto& t : result["tools"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
      ServerTool tool;
      tool.name = t["name"].get<std::string>();
      tool.title = t.contains("title") && t["title"].is_string() ? t["title"].get<std::string>() : "";
      tool.description = t.contains("description") && t["description"].is_string() ? t["description"].get<std::string>() : "";
      if (t.contains("inputSchema") && t["inputSchema"].is_object()) tool.input_schema = t["inputSchema"];
      if (!tool.input_schema.contains("type")) tool.input_schema["type"] = "object";
      acc->push_back(std::move(tool));
    }
    const std::string next = result.contains("nextCursor") && result["nextCursor"].is_string() ? result["nextCursor"].get<std::string>() : "";
    if (next.empty()) return done(std::move(*acc));
    if (page + 1 >= kMaxToolPages) {
      spdlog::warn("mcp {}: tools/list still had more pages after {}; the rest is ignored", self->server_, kMaxToolPages);
      return done(std::move(*acc));
    }
    self->list_page(next, page + 1, acc, done);
  });
}

int64_t Client::call_tool(const std::string& name, const json& arguments, int64_t timeout_ms,
                          std::function<void(Result<json>)> done) {
  return request("tools/call", {{"name", name}, {"arguments", arguments.is_object() ? arguments : json::object()}},
                 timeout_ms, std::move(done));
}

void Client::cancel(int64_t id, const std::string& reason) {
  auto it = pending_.find(id);
  if (it == pending_.end() || closed_) return;
  loop_.cancel(it->second.timer);
  Reply reply = std::move(it->second.reply);
  pending_.erase(it);
  transport_->send(jsonrpc::make_notification("notifications/cancelled", {{"requestId", id}, {"reason", reason}}));
  reply(Error{"MCP_CANCELLED", reason});
}

void Client::close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  transport_->close();
  fail_all("MCP_CLOSED", reason);
}

int64_t Client::request(const std::string& method, const json& params, int64_t timeout_ms, Reply reply) {
  if (closed_) {
    loop_.post([reply] { reply(Error{"MCP_CLOSED", "the server connection is closed"}); });
    return 0;
  }
  const int64_t id = next_id_++;
  Pending p;
  p.reply = std::move(reply);
  std::weak_ptr<Client> weak = weak_from_this();
  p.timer = loop_.after(timeout_ms, [weak, id, method, timeout_ms] {
    auto self = weak.lock();
    if (!self) return;
    auto it = self->pending_.find(id);
    if (it == self->pending_.end()) return;
    Reply r = std::move(it->second.reply);
    self->pending_.erase(it);
    // Tell the server to stop (MCP "Cancellation"); initialize itself cannot be cancelled.
    if (method != "initialize") {
      self->transport_->send(jsonrpc::make_notification("notifications/cancelled", {{"requestId", id}, {"reason", "timeout"}}));
    }
    r(Error{"MCP_TIMEOUT", method + " timed out after " + std::to_string(timeout_ms) + " ms"});
  });
  pending_.emplace(id, std::move(p));
  transport_->send(jsonrpc::make_request(id, method, params));
  return id;
}

void Client::on_message(std::string_view text) {
  if (closed_) return;
  try {
    dispatch(text);
  } catch (const std::exception& e) {  // a value of the wrong type somewhere in the server's answer
    const std::string reason = std::string("the server's message could not be used: ") + e.what();
    spdlog::warn("mcp {}: {}", server_, reason);
    const bool was_connected = connected_;
    close(reason);
    if (was_connected && on_closed) on_closed(reason);
  }
}

void Client::dispatch(std::string_view text) {
  auto parsed = jsonrpc::parse_message(text);
  if (!parsed) {
    const std::string reason = "the server wrote something that is not JSON-RPC (" + parsed.error().message + "): \"" +
                               detail_mcp_client::short_text(text) + "\"";
    spdlog::warn("mcp {}: {}", server_, reason);
    const bool was_connected = connected_;
    close(reason);
    if (was_connected && on_closed) on_closed(reason);
    return;
  }
  jsonrpc::Message& m = *parsed;
  switch (m.kind) {
    case jsonrpc::Message::Kind::Response: {
      if (!m.id.is_number_integer()) return;
      auto it = pending_.find(m.id.get<int64_t>());
      if (it == pending_.end()) return;  // late (timed out) or unknown: ignored
      loop_.cancel(it->second.timer);
      Reply reply = std::move(it->second.reply);
      pending_.erase(it);
      if (m.error) {
        reply(Error{"MCP_ERROR", "MCP error " + std::to_string(m.error->code) + ": " + m.error->message});
      } else {
        reply(std::move(m.result));
      }
      return;
    }
    case jsonrpc::Message::Kind::Request:
      if (m.method == "ping") {
        transport_->send(jsonrpc::make_result(m.id, json::object()));
      } else {
        transport_->send(jsonrpc::make_error(m.id, jsonrpc::kMethodNotFound, "Pincer does not offer " + m.method));
      }
      return;
    case jsonrpc::Message::Kind::Notification:
      if (m.method == "notifications/tools/list_changed" && on_tools_changed) on_tools_changed();
      return;
  }
}

void Client::on_transport_closed(const std::string& reason) {
  if (closed_) return;
  std::string full = reason;
  if (std::string tail = transport_->stderr_tail(); !tail.empty()) {
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    const std::size_t nl = tail.rfind('\n');
    full += " (stderr: " + detail_mcp_client::short_text(nl == std::string::npos ? tail : tail.substr(nl + 1), 200) + ")";
  }
  closed_ = true;
  transport_->close();
  fail_all("MCP_CLOSED", full);
  if (connected_ && on_closed) on_closed(full);
}

void Client::fail_all(const std::string& code, const std::string& reason) {
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, p] : pending) {
    loop_.cancel(p.timer);
    p.reply(Error{code, reason});
  }
}

}  // namespace pincer::interop::mcp
