// pincer — command-line entry point. Thin: parse arguments, call a service, print.
//
// Exit codes: 0 success; 1 runtime failure (cannot start, already running, port busy, unsafe
// bind); 2 invalid configuration or arguments.
#include <sodium.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "app/gateway_command.h"
#include "core/config.h"

int main(int argc, char** argv) {
  if (sodium_init() < 0) {
    std::cerr << "pincer: libsodium failed to initialise\n";
    return 1;
  }
  CLI::App app{"Pincer — a local-first personal AI agent gateway"};
  app.set_version_flag("--version", std::string("pincer ") + PINCER_VERSION);
  app.require_subcommand(1);

  auto* gateway = app.add_subcommand("gateway", "Run and manage the gateway");
  gateway->require_subcommand(1);
  pincer::app::GatewayRunFlags flags;
  auto* run = gateway->add_subcommand("run", "Run the gateway in the foreground (stop with Ctrl-C / SIGTERM)");
  run->add_option("--port", flags.port, "Port to listen on (0 = any free port; default gateway.port or 18789)");
  run->add_option("--bind", flags.bind, "loopback | lan | custom (default gateway.bind or loopback)")
      ->check(CLI::IsMember({"loopback", "lan", "custom"}));
  run->add_option("--host", flags.host, "Address to bind (implies --bind custom)");
  run->add_option("--auth", flags.auth, "none | token | password | trusted-proxy (default gateway.auth.mode)")
      ->check(CLI::IsMember({"none", "token", "password", "trusted-proxy"}));
  run->add_option("--token", flags.token, "Gateway token (default PINCER_GATEWAY_TOKEN or gateway.auth.token)");
  run->add_option("--password", flags.password, "Gateway password (default PINCER_GATEWAY_PASSWORD or gateway.auth.password)");

  auto* config = app.add_subcommand("config", "Inspect the configuration");
  config->require_subcommand(1);
  auto* schema = config->add_subcommand("schema", "Print the configuration schema");
  bool markdown = false;
  schema->add_flag("--markdown", markdown, "Print the Markdown reference (docs/configuration.md) instead of JSON Schema");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, the documented exit code for bad arguments.
    std::cerr << "pincer: " << e.what() << " (see pincer --help)\n";
    return 2;
  }

  if (run->parsed()) return pincer::app::run_gateway(flags);
  if (schema->parsed()) {
    std::cout << (markdown ? pincer::config::markdown_reference() : pincer::config::json_schema().dump(2) + "\n");
    return 0;
  }
  return 0;
}
