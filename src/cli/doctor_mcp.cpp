// `pincer doctor`'s MCP check (IX-2; docs/interop.md "MCP client"): one finding per configured
// MCP server — from the running gateway's `mcp.status` when it answers (state and reason), else
// from the configuration alone (what keeps a server from starting: neither command nor url, an
// unsupported transport, a command not on PATH).
#include <unistd.h>

#include <chrono>

#include "cli/connection.h"
#include "cli/doctor.h"
#include "cli/gateway_client.h"
#include "cli/invoked_command.h"

namespace pincer::cli {

namespace detail_doctor_mcp {

using nlohmann::json;

Finding make(const std::string& status, std::string message, std::string fix = "") {
  return {"mcp", status, std::move(message), std::move(fix)};
}

bool on_path(const std::string& command, const config::EnvLookup& env) {
  if (command.find('/') != std::string::npos) return ::access(command.c_str(), X_OK) == 0;
  const std::string path = env("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const std::string dir = path.substr(start, end - start);
    if (::access(((dir.empty() ? "." : dir) + "/" + command).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

/// What the configuration alone says about one server.
Finding from_config(const std::string& name, const json& s, const config::EnvLookup& env) {
  const std::string where = "mcp.servers." + name;
  if (!s.is_object()) return make("fail", where + " is not an object", "fix it in pincer.json");
  if (!s.value("enabled", true)) return make("ok", "MCP server " + name + ": disabled (enabled: false)");
  const std::string command = s.value("command", ""), url = s.value("url", "");
  if (command.empty() && url.empty()) return make("fail", where + " sets neither command nor url", "set command (stdio) or url (HTTP)");
  if (!command.empty() && !url.empty()) return make("fail", where + " sets both command and url", "keep one of them");
  if (!url.empty() && s.value("transport", "") == "sse") {
    return make("warn", "MCP server " + name + ": transport \"sse\" is not supported", "use a streamable-http endpoint");
  }
  if (s.value("auth", "") == "oauth") return make("warn", "MCP server " + name + ": auth \"oauth\" is not supported", "put a token in headers");
  if (!command.empty() && !on_path(command, env)) {
    return make("warn", "MCP server " + name + ": command \"" + command + "\" is not on PATH here",
                "install it, or give its absolute path (the gateway's PATH may differ)");
  }
  return make("ok", "MCP server " + name + ": configured (" + (command.empty() ? url : command) + ")");
}

}  // namespace detail_doctor_mcp

std::vector<Finding> check_mcp_servers(const nlohmann::json& effective, const config::EnvLookup& env, bool ask_gateway) {
  namespace d = detail_doctor_mcp;
  using nlohmann::json;
  std::vector<Finding> out;
  const json mcp = effective.is_object() ? effective.value("mcp", json::object()) : json::object();
  const json servers = mcp.is_object() ? mcp.value("servers", json::object()) : json::object();
  if (!servers.is_object() || servers.empty()) return out;
  if (ask_gateway) {
    auto options = resolve_connection({}, env);
    if (options) {
      options->connect_timeout = std::chrono::milliseconds(3000);
      if (auto client = GatewayClient::connect(*options)) {
        if (auto st = (*client)->call("mcp.status", json::object(), std::chrono::milliseconds(5000)); st && st->is_object()) {
          for (const auto& s : st->value("servers", json::array())) {
            const std::string name = s.value("name", "?"), state = s.value("state", "?"), reason = s.value("reason", "");
            if (state == "ready") {
              out.push_back(d::make("ok", "MCP server " + name + ": ready, " + std::to_string(s.value("toolCount", 0)) + " tools"));
            } else if (state == "idle") {
              out.push_back(d::make("ok", "MCP server " + name + ": not started yet (it starts with the first run)"));
            } else if (state == "unavailable" || state == "disabled" || !reason.empty()) {
              out.push_back(d::make(state == "disabled" && reason == "enabled: false" ? "ok" : "warn",
                                    "MCP server " + name + ": " + state + (reason.empty() ? "" : ": " + reason),
                                    state == "unavailable" ? "fix the server or its mcp.servers." + name +
                                                                 " entry; " + invoked_command() + " mcp status shows the retries"
                                                           : ""));
            } else {
              out.push_back(d::make("ok", "MCP server " + name + ": " + state));
            }
          }
          return out;
        }
      }
    }
  }
  for (const auto& [name, s] : servers.items()) out.push_back(d::from_config(name, s, env));
  return out;
}

}  // namespace pincer::cli
