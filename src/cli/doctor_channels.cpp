// `pincer doctor`'s channel check (CH-7; docs/channels.md): the running gateway's view of every
// channel account (`channels.status`). A failed account used to leave doctor all ✓ while its
// messages went unanswered (new-user pass); now each account that is down is a "fail" naming the
// reason and whether it is retried, one that runs with a last error a "warn".
#include <chrono>

#include "cli/connection.h"
#include "cli/doctor.h"
#include "cli/gateway_client.h"
#include "cli/invoked_command.h"

namespace pincer::cli {

std::vector<Finding> channel_findings(const nlohmann::json& status) {
  using nlohmann::json;
  std::vector<Finding> out;
  if (!status.is_object()) return out;
  const json order = status.value("channelOrder", json::array());
  const json accounts = status.value("channelAccounts", json::object());
  if (!order.is_array() || !accounts.is_object()) return out;
  int running = 0;
  for (const auto& id : order) {
    if (!id.is_string()) continue;
    const json list = accounts.value(id.get<std::string>(), json::array());
    if (!list.is_array()) continue;
    for (const auto& a : list) {
      if (!a.is_object() || !a.value("enabled", true)) continue;  // switched off in the config: not a fault
      const std::string name = id.get<std::string>() + "[" + a.value("accountId", "default") + "]";
      const std::string failure = a.contains("lastFailure") && a["lastFailure"].is_string() ? a["lastFailure"].get<std::string>() : "";
      const std::string error = a.contains("lastError") && a["lastError"].is_string() ? a["lastError"].get<std::string>() : "";
      if (!a.value("running", false)) {
        const bool held = a.value("permanentFailure", false);
        const std::string why = failure.empty() ? (error.empty() ? "not running" : error) : failure;
        out.push_back({"channels", "fail", name + " is stopped: " + why +
                                               (held ? " (not retried until the config changes)"
                                                     : a.contains("restartAt") ? " (restarting with backoff)" : ""),
                       held ? "fix the key the reason names and save the config: the gateway starts the account again"
                            : invoked_command() + " channels status --probe; " + invoked_command() + " logs shows the retries"});
      } else if (!error.empty()) {
        out.push_back({"channels", "warn", name + " runs but: " + error, invoked_command() + " channels status --probe"});
      } else {
        ++running;
      }
    }
  }
  if (running > 0 && out.empty()) {
    out.push_back({"channels", "ok", std::to_string(running) + " channel account" + (running == 1 ? "" : "s") + " running", ""});
  }
  return out;
}

std::vector<Finding> check_channel_accounts(const config::EnvLookup& env) {
  auto options = resolve_connection({}, env);
  if (!options) return {};
  options->connect_timeout = std::chrono::milliseconds(3000);
  auto client = GatewayClient::connect(*options);
  if (!client) return {};  // check_running_gateway has said why
  auto status = (*client)->call("channels.status", nlohmann::json::object(), std::chrono::milliseconds(5000));
  if (!status) {
    return {{"channels", "warn", "the gateway did not answer channels.status: " + status.error().message, ""}};
  }
  return channel_findings(*status);
}

}  // namespace pincer::cli
