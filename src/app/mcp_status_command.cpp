// `pincer mcp status` (IX-2; docs/interop.md "MCP client"): the running gateway's MCP servers —
// state, tools, and why one is not ready — through the `mcp.status` gateway method. Adds
// `status` to the `mcp` command (created here when `mcp serve` has not created it yet).
#include <iostream>

#include "app/client_support.h"
#include "app/commands.h"
#include "cli/chat_renderer.h"

namespace pincer::app {

namespace detail_mcp_status_command {

using nlohmann::json;

int run_status(const ClientFlags& f, bool start) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("mcp.status", start ? json{{"start", true}} : json::object(), f.timeout());
    if (!r) return request_failed("mcp.status", r.error());
    if (f.json) return print_json(*r);
    const json& servers = (*r)["servers"];
    if (!servers.is_array() || servers.empty()) {
      std::cout << "No MCP servers configured (mcp.servers; see docs/interop.md).\n";
      return 0;
    }
    bool unavailable = false;
    for (const auto& s : servers) {
      const std::string state = s.value("state", "?");
      unavailable = unavailable || state == "unavailable";
      std::cout << cli::terminal_safe(s.value("name", "?")) << "  " << s.value("transport", "?") << "  " << state;
      if (state == "ready") std::cout << "  " << s.value("toolCount", 0) << " tools";
      if (s.contains("reason")) std::cout << "  reason: " << cli::terminal_safe(s.value("reason", ""));
      if (s.contains("restartInMs")) std::cout << "  (retry in " << (s.value("restartInMs", 0) + 999) / 1000 << " s)";
      std::cout << "\n";
    }
    return unavailable ? 1 : 0;
  });
}

}  // namespace detail_mcp_status_command

void register_mcp_status_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ClientFlags>();
  auto start = std::make_shared<bool>(false);
  auto* status = mcp_parent_command(app)->add_subcommand(
      "status", "The running gateway's MCP servers: state, tools, and why one is unavailable (exit 1 then)");
  add_client_flags(status, *flags);
  status->add_flag("--start", *start, "Start the servers no run has started yet (the answer may say \"starting\")");
  on_parsed(status, action, [flags, start] {
    JsonErrors json_errors(flags->json);  // --json: an error (unreachable, refused) is JSON on stdout too
    return detail_mcp_status_command::run_status(*flags, *start);
  });
}

}  // namespace pincer::app
