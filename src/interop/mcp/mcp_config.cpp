#include "interop/mcp/mcp_config.h"

namespace pincer::interop::mcp {

namespace detail_mcp_config {

using nlohmann::json;

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  return "";
}

ServerConfig read_server(const std::string& name, const json& e) {
  ServerConfig s;
  s.name = name;
  if (!e.is_object()) {
    s.problem = "mcp.servers." + name + " is not an object";
    return s;
  }
  s.command = e.value("command", "");
  if (auto it = e.find("args"); it != e.end() && it->is_array()) {
    for (const auto& a : *it) s.args.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  }
  if (auto it = e.find("env"); it != e.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) s.env[k] = scalar_text(v);
  }
  s.cwd = e.value("cwd", "");
  if (s.cwd.empty()) s.cwd = e.value("workingDirectory", "");
  s.url = e.value("url", "");
  if (auto it = e.find("headers"); it != e.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) s.headers.emplace_back(k, scalar_text(v));
  }
  if (auto it = e.find("connectionTimeoutMs"); it != e.end() && it->is_number_integer()) s.connection_timeout_ms = it->get<int64_t>();
  if (auto it = e.find("toolTimeoutMs"); it != e.end() && it->is_number_integer()) s.tool_timeout_ms = it->get<int64_t>();
  if (auto it = e.find("enabled"); it != e.end() && it->is_boolean()) s.enabled = it->get<bool>();
  const std::string transport = e.value("transport", "");
  if (!s.command.empty() && !s.url.empty()) {
    s.problem = "both command and url are set (choose stdio or HTTP)";
  } else if (!s.command.empty()) {
    s.transport = TransportKind::Stdio;
  } else if (!s.url.empty()) {
    s.transport = TransportKind::StreamableHttp;
    if (transport == "sse") s.problem = "transport \"sse\" (the 2024 HTTP+SSE transport) is not supported; use streamable-http";
  } else {
    s.problem = "neither command (stdio) nor url (HTTP) is set";
  }
  if (s.problem.empty() && e.value("auth", "") == "oauth") s.problem = "auth \"oauth\" is not supported yet (set the token in headers)";
  return s;
}

}  // namespace detail_mcp_config

Settings read_settings(const nlohmann::json& config) {
  Settings out;
  if (!config.is_object()) return out;
  auto mcp = config.find("mcp");
  if (mcp == config.end() || !mcp->is_object()) return out;
  if (auto it = mcp->find("eagerToolLimit"); it != mcp->end() && it->is_number_integer()) {
    out.eager_tool_limit = static_cast<int>(std::max<int64_t>(0, it->get<int64_t>()));
  }
  if (auto servers = mcp->find("servers"); servers != mcp->end() && servers->is_object()) {
    for (const auto& [name, entry] : servers->items()) out.servers.push_back(detail_mcp_config::read_server(name, entry));
  }
  return out;
}

}  // namespace pincer::interop::mcp
