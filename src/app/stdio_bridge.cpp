#include "app/stdio_bridge.h"

#include <csignal>

#include "core/log.h"

namespace pincer::app {

int run_stdio_bridge(const ClientFlags& flags, const StdioBridgeSpec& spec) {
  log::Options log_options;
  log_options.level = spec.verbose ? "debug" : "warn";
  log_options.console_style = "plain";
  if (auto st = log::init(log_options); !st) return fail(1, st.error().message);
  std::signal(SIGPIPE, SIG_IGN);  // a client that closed stdout: write() fails with EPIPE instead

  EventLoop loop(1);
  interop::GatewayLink link(loop, flags.conn.timeout_ms);
  interop::StdioServer rpc(loop, 0, 1);
  std::unique_ptr<interop::BridgeServer> server = spec.make(loop, rpc, link);
  int exit_code = 0;
  bool serving = false;
  auto on_event = link.event_forwarder(
      [&server](const std::string& event, const nlohmann::json& payload) { server->on_gateway_event(event, payload); });
  auto on_close = [&loop, &server, &exit_code, &serving](int code, const std::string& reason) {
    const std::string why = "code " + std::to_string(code) + (reason.empty() ? "" : ", " + reason);
    loop.post([&loop, &server, &exit_code, &serving, why] {
      if (!serving) return;
      server->on_gateway_closed(why);
      exit_code = 1;
      loop.stop();
    });
  };
  const int code = with_gateway(
      flags,
      [&](cli::GatewayClient& client) {
        link.attach(&client);
        for (const auto& [method, params] : spec.setup_calls) {
          if (auto r = client.call(method, params, flags.timeout()); !r) {
            spdlog::warn("{}: {} failed: {}", spec.name, method, r.error().message);
          }
        }
        serving = true;
        spdlog::debug("{}: connected to {}; serving on stdio", spec.name, flags.url_shown);
        rpc.start([&server](const interop::jsonrpc::Message& m) { server->on_message(m); }, [&loop] { loop.stop(); });
        loop.run();
        serving = false;
        link.attach(nullptr);
        return exit_code;
      },
      on_event, spec.caps, on_close);
  log::flush();
  return code;
}

}  // namespace pincer::app
