// `pincer acp` (SPEC IX-3; docs/interop.md "ACP"): an Agent Client Protocol agent on stdio for
// editors (Zed …), whose prompts go through the running gateway's chat.send.
#include <cstdlib>
#include <memory>

#include "app/commands.h"
#include "app/stdio_bridge.h"
#include "interop/acp/acp_server.h"

namespace pincer::app {

void register_acp_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ClientFlags>();
  auto options = std::make_shared<interop::acp::AcpOptions>();
  auto verbose = std::make_shared<bool>(false);
  auto no_prefix = std::make_shared<bool>(false);
  auto* acp = app.add_subcommand("acp", "Run an ACP agent on stdio (for editors such as Zed) backed by the running gateway");
  add_client_flags(acp, *flags, /*json_flag=*/false);
  acp->add_option("--session", options->session_key, "Session key every ACP session uses (default: a new acp-bridge:<id> each)")
      ->check(session_key_check());
  acp->add_option("--session-label", options->session_label, "Use the existing session with this label");
  acp->add_flag("--require-existing", options->require_existing, "Fail when the --session key does not exist");
  acp->add_flag("--reset-session", options->reset_session, "Start the session key afresh (new transcript) before first use");
  acp->add_flag("--no-prefix-cwd", *no_prefix, "Do not prefix prompts with the editor's working directory");
  acp->add_flag("-v,--verbose", *verbose, "Debug logs on stderr");
  on_parsed(acp, action, [flags, options, verbose, no_prefix] {
    interop::acp::AcpOptions o = *options;
    o.version = PINCER_VERSION;
    o.prefix_cwd = !*no_prefix;
    if (const char* home = std::getenv("HOME")) o.home = home;
    StdioBridgeSpec spec;
    spec.name = "pincer acp";
    spec.verbose = *verbose;
    spec.caps = {"tool-events"};
    spec.make = [o](EventLoop&, interop::StdioServer& rpc, interop::GatewayLink& link) {
      return std::make_unique<interop::acp::AcpServer>(rpc, link, o);
    };
    return run_stdio_bridge(*flags, spec);
  });
}

}  // namespace pincer::app
