// `pincer doctor`'s MCP check (IX-2; docs/interop.md "MCP client"): one finding per configured
// MCP server — from the running gateway's `mcp.status` when it answers (state and reason), else
// from the configuration alone (what keeps a server from starting, as the MCP client's own check
// says it — neither command nor url, an unsupported transport —, or a command not on PATH).
#include <unistd.h>

#include <chrono>

#include "cli/connection.h"
#include "cli/doctor.h"
#include "cli/gateway_client.h"
#include "cli/invoked_command.h"
#include "interop/mcp/mcp_config.h"

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

/// What the configuration alone says about one server: the MCP client's own check
/// (interop/mcp/mcp_config.h, the reason the gateway and `mcp status` give — a warning, as the
/// gateway runs without that server), then whether a stdio command is on PATH here.
Finding from_config(const interop::mcp::ServerConfig& s, const config::EnvLookup& env) {
  if (!s.enabled) return make("ok", "MCP server " + s.name + ": disabled (enabled: false)");
  if (!s.problem.empty()) {
    return make("warn", "MCP server " + s.name + ": disabled: " + s.problem,
                "fix mcp.servers." + s.name + " in pincer.json (the gateway runs without this server until then)");
  }
  if (s.transport == interop::mcp::TransportKind::Stdio && !on_path(s.command, env)) {
    return make("warn", "MCP server " + s.name + ": command \"" + s.command + "\" is not on PATH here",
                "install it, or give its absolute path (the gateway's PATH may differ)");
  }
  return make("ok", "MCP server " + s.name + ": configured (" + (s.command.empty() ? s.url : s.command) + ")");
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
  for (const auto& s : interop::mcp::read_settings(effective).servers) out.push_back(d::from_config(s, env));
  return out;
}

}  // namespace pincer::cli
