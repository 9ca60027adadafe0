// What the gateway says about itself beyond the protocol core: the events it emits (hello-ok
// features.events), its capabilities (features.capabilities) and the state of its configuration (`status.config`, client errors).
#include "core/config.h"
#include "gateway/config_reload.h"
#include "gateway/gateway.h"

namespace pincer::gateway {

using nlohmann::json;

const std::vector<std::string>& gateway_events() {
  // Every event the gateway sends; Gateway::send_event() refuses any other, so this list cannot
  // fall behind what is emitted.
  static const std::vector<std::string> events = {
      "connect.challenge", "tick", "health", "presence", "shutdown", "agent", "chat",
      "device.pair.requested", "device.pair.resolved", "device.pair.changed", "sessions.changed", "session.message",
      "exec.approval.requested", "exec.approval.resolved", "cron", "heartbeat"};
  return events;
}

const std::vector<std::string>& gateway_capabilities() {
  // Only what Pincer honours: models.list answers the published catalog (`openclaw models list`
  // asks only a gateway that says so).
  static const std::vector<std::string> caps = {"published-model-catalog"};
  return caps;
}

json Gateway::config_status() const {
  const std::string path = settings_.config_path.string();
  const std::string file_hash = settings_.config_path.empty() ? "" : config::file_sha256(settings_.config_path);
  json out = {{"path", path},
              {"hash", settings_.config_hash},
              {"fileHash", file_hash},
              {"matchesFile", file_hash == settings_.config_hash},
              {"lastRejectedReload", nullptr}};
  if (!reload_rejected_reason_.empty()) {
    out["lastRejectedReload"] = {{"atMs", reload_rejected_at_ms_},
                                 {"reason", reload_rejected_reason_},
                                 {"fix", config_reload_fix(reload_rejected_reason_, path)}};
  }
  return out;
}

std::string Gateway::config_drift_note() const {
  if (reload_rejected_reason_.empty()) return "";
  const std::string path = settings_.config_path.string();
  if (config::file_sha256(settings_.config_path) == settings_.config_hash) return "";
  return "note: this gateway still runs an older config than " + path + ": its reload was rejected: " +
         reload_rejected_reason_ + ". To fix: " + config_reload_fix(reload_rejected_reason_, path);
}

}  // namespace pincer::gateway
