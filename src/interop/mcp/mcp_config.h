// The settings of the MCP client (docs/interop.md "MCP client"): `mcp.servers.<name>` and
// `mcp.eagerToolLimit` of pincer.json (schema: core/config_schema_mcp.cpp). Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::interop::mcp {

enum class TransportKind { Stdio, StreamableHttp };

/// One configured server, checked. `problem` non-empty: the server cannot be used as configured
/// (e.g. "neither command nor url is set", "transport sse is not supported"); it is listed as
/// unavailable with that reason and never started.
struct ServerConfig {
  std::string name;  ///< the key under mcp.servers
  TransportKind transport = TransportKind::Stdio;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  ///< numbers and booleans as text
  std::string cwd;                          ///< "" = the gateway's state directory
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t connection_timeout_ms = 30'000;
  int64_t tool_timeout_ms = 120'000;
  bool enabled = true;
  std::string problem;

  bool operator==(const ServerConfig&) const = default;
};

struct Settings {
  std::vector<ServerConfig> servers;  ///< in name order
  int eager_tool_limit = 32;
};

/// Reads `config["mcp"]` (validated by the schema; anything else is tolerated and reported in
/// `problem`). Never fails.
Settings read_settings(const nlohmann::json& config);

}  // namespace pincer::interop::mcp
