// `pincer mcp serve` (SPEC IX-1; docs/interop.md "MCP server"): Pincer's conversations as an MCP
// server on stdio, through the running gateway. Other `pincer mcp` subcommands may register on the
// same `mcp` command from their own files.
#include <memory>

#include "app/commands.h"
#include "app/stdio_bridge.h"
#include "interop/mcp/mcp_server.h"

namespace pincer::app {

CLI::App* mcp_parent_command(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == "mcp") return sub;
  }
  auto* mcp = app.add_subcommand("mcp", "MCP: Pincer as an MCP server, and the MCP servers Pincer uses");
  mcp->require_subcommand(1);
  return mcp;
}

void register_mcp_serve_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ClientFlags>();
  auto verbose = std::make_shared<bool>(false);
  auto* serve = mcp_parent_command(app)->add_subcommand(
      "serve", "Run an MCP server on stdio whose tools read and drive the running gateway's conversations");
  add_client_flags(serve, *flags, /*json_flag=*/false);
  serve->add_flag("-v,--verbose", *verbose, "Debug logs on stderr");
  on_parsed(serve, action, [flags, verbose] {
    StdioBridgeSpec spec;
    spec.name = "pincer mcp serve";
    spec.verbose = *verbose;
    spec.setup_calls = {{"sessions.subscribe", nlohmann::json::object()}};
    spec.make = [](EventLoop& loop, interop::StdioServer& rpc, interop::GatewayLink& link) {
      return std::make_unique<interop::mcp::McpServer>(loop, rpc, link, PINCER_VERSION);
    };
    return run_stdio_bridge(*flags, spec);
  });
}

}  // namespace pincer::app
