#include "cli/config_auth_guard.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "cli/invoked_command.h"
#include "core/config_text.h"
#include "core/paths.h"
#include "store/instance_lock.h"

namespace pincer::cli {
namespace {

using nlohmann::json;

/// The auth mode a config text sets ("token" when it sets none) and whether it writes the
/// secret that mode needs, with what its `$include`d files write; nullopt when it does not parse
/// or an include cannot be resolved.
struct FileAuth {
  std::string mode = "token";
  bool has_secret = false;
  std::string secret;               ///< the secret as written ("${NAME}" too)
  std::string reload_mode = "hybrid";  ///< gateway.reload.mode
};
std::optional<FileAuth> file_auth(const std::filesystem::path& file, const std::string& text, const config::EnvLookup& env) {
  // As the gateway reads it: the text (about to be written to `file`) with its includes.
  auto doc = config::resolve_config_text(text, file, env, config::EnvRefs::kKeep);
  if (!doc || !doc->is_object()) return std::nullopt;
  FileAuth out;
  const json gw = doc->value("gateway", json::object());
  const json auth = gw.is_object() ? gw.value("auth", json::object()) : json::object();
  const json reload = gw.is_object() ? gw.value("reload", json::object()) : json::object();
  if (reload.is_object()) {
    if (auto m = reload.find("mode"); m != reload.end() && m->is_string()) out.reload_mode = m->get<std::string>();
  }
  if (!auth.is_object()) return out;
  if (auto m = auth.find("mode"); m != auth.end() && m->is_string()) out.mode = m->get<std::string>();
  const char* key = out.mode == "token" ? "token" : out.mode == "password" ? "password" : nullptr;
  if (key == nullptr) {
    out.has_secret = true;  // none, trusted-proxy: no secret to lose
    return out;
  }
  const auto v = auth.find(key);
  out.has_secret = v != auth.end() && v->is_string() && !v->get<std::string>().empty();
  if (out.has_secret) out.secret = v->get<std::string>();
  return out;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code e1, e2;
  return std::filesystem::weakly_canonical(a, e1) == std::filesystem::weakly_canonical(b, e2);
}

}  // namespace

std::string running_gateway_lockout(const std::filesystem::path& file, const std::string& before, const std::string& after,
                                    const config::EnvLookup& env) {
  const auto state = paths::state_dir(env);
  if (!same_file(file, paths::config_file(state))) return "";
  const auto was = file_auth(file, before, env);
  const auto now = file_auth(file, after, env);
  if (!was || !now || !was->has_secret || now->has_secret) return "";
  if (was->mode != "token" && was->mode != "password") return "";  // the gateway checks no secret now
  const std::string variable = now->mode == "password" ? "PINCER_GATEWAY_PASSWORD" : "PINCER_GATEWAY_TOKEN";
  if (auto v = env(variable); v && !v->empty()) return "";  // this shell's CLI authenticates with that
  const auto holder = store::read_lock_holder(paths::gateway_lock_file(state));
  if (!holder || holder->stopping) return "";
  // The secret the gateway checks, as its lock file records it (store::InstanceLock::record_auth):
  // one from --token/--password(-file), PINCER_GATEWAY_* or another mode (--auth) is not the
  // file's, which it then never checked, so removing that changes nothing for it. A gateway that
  // records none (an older one) is taken to check the file's.
  if (!holder->auth_mode.empty() &&
      (holder->auth_mode != was->mode || holder->auth_source != "gateway.auth." + holder->auth_mode)) {
    return "";
  }
  const std::string key = now->mode == "password" ? "gateway.auth.password" : "gateway.auth.token";
  const std::string old_key = was->mode == "password" ? "gateway.auth.password" : "gateway.auth.token";
  std::string where = "pid " + std::to_string(holder->pid);
  if (holder->port > 0) where += ", on " + (holder->host.empty() ? std::string("127.0.0.1") : holder->host) + ":" + std::to_string(holder->port);
  return "this home's gateway is running (" + where + ") with the " + (was->mode == "password" ? "password" : "token") +
         " of " + old_key + "; without " + key + " in " + file.string() +
         " it rejects this change (unless its own environment sets " + variable +
         "), keeps checking clients against the " + (was->mode == "password" ? "password" : "token") +
         " it started with, and this CLI, which reads " + key + " (or " + variable +
         ") from here, could no longer connect to it. To change the secret, set the new one instead (the gateway "
         "restarts with it): " + invoked_command() + " config set " + key +
         " \"$(openssl rand -hex 24)\"; to take it from the environment, stop the gateway (Ctrl-C where it runs, or kill " +
         std::to_string(holder->pid) + "), make this change, and start it again with " + variable + " set";
}

std::string running_gateway_keeps_old_secret(const std::filesystem::path& file, const std::string& before,
                                             const std::string& after, const config::EnvLookup& env) {
  const auto state = paths::state_dir(env);
  if (!same_file(file, paths::config_file(state))) return "";
  const auto was = file_auth(file, before, env);
  const auto now = file_auth(file, after, env);
  if (!was || !now || !now->has_secret) return "";
  if (was->mode == now->mode && was->secret == now->secret) return "";
  if (now->reload_mode != "hot" && now->reload_mode != "off") return "";
  const auto holder = store::read_lock_holder(paths::gateway_lock_file(state));
  if (!holder || holder->stopping) return "";
  return "this home's gateway (pid " + std::to_string(holder->pid) + ") runs with gateway.reload.mode \"" + now->reload_mode +
         "\", so it does not restart with the new gateway.auth settings: it keeps checking the " +
         (was->mode == "password" ? "password" : "token") +
         " it started with, and this CLI, which now sends the file's, cannot reach it until it restarts (Ctrl-C where it "
         "runs, or kill " + std::to_string(holder->pid) + "; then " + invoked_command() + " gateway run)";
}

}  // namespace pincer::cli
