// `pincer devices list|approve|reject|remove|rename|revoke`: device pairing from the command line (AU-3),
// through the running gateway's device.pair.* / device.token.* methods (gateway/methods/devices.cpp);
// `revoke --all` also edits the state dir's files when no gateway runs on it.
// Same verbs as `openclaw devices`. Data commands take --json (the gateway's payload, unchanged).
#include <algorithm>
#include <iostream>
#include <memory>
#include <tuple>

#include "app/client_support.h"
#include "app/commands.h"
#include "cli/invoked_command.h"
#include "core/paths.h"
#include "store/device_store.h"
#include "store/instance_lock.h"

namespace pincer::app {
namespace {

using nlohmann::json;

std::string join(const json& list) {
  std::string out;
  for (const auto& v : list) {
    if (v.is_string()) out += (out.empty() ? "" : ",") + v.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

std::string ago(int64_t now_ms, int64_t then_ms) {
  if (then_ms <= 0) return "-";
  const int64_t s = std::max<int64_t>(0, now_ms - then_ms) / 1000;
  if (s < 120) return std::to_string(s) + "s ago";
  if (s < 7200) return std::to_string(s / 60) + "m ago";
  if (s < 172800) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

std::string short_id(const std::string& id) { return id.size() > 16 ? id.substr(0, 16) + "…" : id; }

std::string client_of(const json& d) {
  std::string c = d.value("displayName", d.value("clientId", "?"));
  if (d.contains("operatorLabel")) c = "\"" + d.value("operatorLabel", "") + "\" " + c;  // device.pair.rename
  if (d.contains("clientMode")) c += "/" + d.value("clientMode", "");
  std::string where = d.value("platform", "");
  if (d.contains("deviceFamily")) where += (where.empty() ? "" : " ") + d.value("deviceFamily", "");
  return where.empty() ? c : c + " (" + where + ")";
}

int run_list(const ClientFlags& f) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("device.pair.list", json::object(), f.timeout());
    if (!r) return request_failed("device.pair.list", r.error());
    if (f.json) return print_json(*r);
    const int64_t now = SystemClock::instance().wall_ms();
    const json& pending = (*r)["pending"];
    const json& paired = (*r)["paired"];
    std::cout << "Pending (" << pending.size() << ")\n";
    for (const auto& p : pending) {
      std::cout << "  " << p.value("requestId", "?") << "  device " << short_id(p.value("deviceId", "")) << "  "
                << client_of(p) << "  role " << p.value("role", "-") << "  scopes " << join(p.value("scopes", json::array()))
                << (p.value("isRepair", false) ? "  (re-pair)" : "") << "  " << ago(now, p.value("ts", int64_t{0}))
                << (p.contains("remoteIp") ? "  from " + p.value("remoteIp", "") : "") << "\n";
    }
    std::cout << "Paired (" << paired.size() << ")\n";
    for (const auto& d : paired) {
      std::string tokens;
      for (const auto& t : d.value("tokens", json::array())) {
        tokens += (tokens.empty() ? "" : ", ") + t.value("role", "?") + (t.contains("revokedAtMs") ? " (revoked)" : "");
      }
      std::cout << "  " << d.value("deviceId", "?") << "\n    " << client_of(d) << "  roles "
                << join(d.value("roles", json::array())) << "  scopes " << join(d.value("scopes", json::array()))
                << "\n    tokens " << (tokens.empty() ? "-" : tokens) << "  approved "
                << ago(now, d.value("approvedAtMs", int64_t{0})) << (d.value("connected", false) ? "  · connected" : "")
                << "\n";
    }
    if (!pending.empty()) std::cout << "Approve with: " + cli::invoked_command() + " devices approve <requestId> (or --latest)\n";
    return 0;
  });
}

struct Target {
  std::string id;
  std::string role = "operator";
  bool latest = false;
};

/// approve/reject: `requestId`, or with --latest the newest pending request.
int run_resolve(const ClientFlags& f, const Target& t, const std::string& method) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    std::string request_id = t.id;
    if (t.latest) {
      auto list = client.call("device.pair.list", json::object(), f.timeout());
      if (!list) return request_failed("device.pair.list", list.error());
      const json& pending = (*list)["pending"];
      if (pending.empty()) return fail(1, "no pending pairing requests");
      request_id = pending[0].value("requestId", "");  // newest first
    }
    auto r = client.call(method, {{"requestId", request_id}}, f.timeout());
    if (!r) return request_failed(method, r.error());
    if (f.json) return print_json(*r);
    if (method == "device.pair.approve") {
      const json& d = (*r)["device"];
      std::cout << "Approved " << d.value("deviceId", "?") << " (" << client_of(d) << ", roles "
                << join(d.value("roles", json::array())) << ", scopes " << join(d.value("scopes", json::array())) << ")\n";
    } else {
      std::cout << "Rejected request " << request_id << " of device " << r->value("deviceId", "?") << "\n";
    }
    return 0;
  });
}

int run_remove(const ClientFlags& f, const Target& t) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("device.pair.remove", {{"deviceId", t.id}}, f.timeout());
    if (!r) return request_failed("device.pair.remove", r.error());
    if (f.json) return print_json(*r);
    std::cout << "Removed device " << r->value("deviceId", t.id) << " (its tokens no longer work)\n";
    return 0;
  });
}

int run_rename(const ClientFlags& f, const Target& t, const std::string& label) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("device.pair.rename", {{"deviceId", t.id}, {"label", label}}, f.timeout());
    if (!r) return request_failed("device.pair.rename", r.error());
    if (f.json) return print_json(*r);
    std::cout << "Renamed device " << r->value("deviceId", t.id) << " to \"" << r->value("label", label) << "\"\n";
    return 0;
  });
}

int run_revoke(const ClientFlags& f, const Target& t) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("device.token.revoke", {{"deviceId", t.id}, {"role", t.role}}, f.timeout());
    if (!r) return request_failed("device.token.revoke", r.error());
    if (f.json) return print_json(*r);
    std::cout << "Revoked the " << r->value("role", t.role) << " token of device " << r->value("deviceId", t.id)
              << "; it must re-pair (or use the shared token) to get a new one\n";
    return 0;
  });
}

/// `revoke --all`: every live device token. Through the gateway when one runs on this state dir
/// (or --url names one): its store is the one in memory. Otherwise in the files themselves.
int run_revoke_all(const ClientFlags& f) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  if (!f.conn.url) {
    auto lock = store::InstanceLock::acquire(paths::gateway_lock_file(state));
    if (lock) {
      store::DeviceStore devices(state / "devices", {}, SystemClock::instance().wall_ms());
      for (const auto& w : devices.load_warnings()) std::cerr << "pincer: warning: " << w << "\n";
      auto revoked = devices.revoke_all_tokens(SystemClock::instance().wall_ms());
      if (!revoked) return fail(1, revoked.error().message);
      if (f.json) return print_json({{"revoked", *revoked}, {"via", "files"}});
      std::cout << "Revoked " << *revoked << " device token(s) in " << (state / "devices" / "paired.json").string()
                << "; devices connect again with the shared token (which issues a fresh one) or are approved again\n";
      return 0;
    }
  }
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto list = client.call("device.pair.list", json::object(), f.timeout());
    if (!list) return request_failed("device.pair.list", list.error());
    int revoked = 0;
    for (const auto& d : (*list)["paired"]) {
      for (const auto& t : d.value("tokens", json::array())) {
        if (t.contains("revokedAtMs")) continue;
        auto r = client.call("device.token.revoke", {{"deviceId", d.value("deviceId", "")}, {"role", t.value("role", "")}},
                             f.timeout());
        if (!r) return request_failed("device.token.revoke", r.error());
        ++revoked;
      }
    }
    if (f.json) return print_json({{"revoked", revoked}, {"via", "gateway"}});
    std::cout << "Revoked " << revoked << " device token(s); their connections were closed. Devices connect again "
              << "with the shared token (which issues a fresh one) or are approved again\n";
    return 0;
  });
}

}  // namespace

void register_devices_commands(CLI::App& app, Action& action) {
  auto* devices = app.add_subcommand("devices", "Pair devices and manage their tokens");
  devices->require_subcommand(1);
  {
    auto f = std::make_shared<ClientFlags>();
    auto* cmd = devices->add_subcommand("list", "List pending pairing requests and paired devices");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f] {
      JsonErrors json_errors(f->json);  // --json: an error (unreachable, refused) is JSON on stdout too
      return run_list(*f);
    });
  }
  for (const auto& [verb, method, help] :
       {std::tuple{"approve", "device.pair.approve", "Approve a pending pairing request"},
        std::tuple{"reject", "device.pair.reject", "Reject a pending pairing request"}}) {
    auto f = std::make_shared<ClientFlags>();
    auto t = std::make_shared<Target>();
    auto* cmd = devices->add_subcommand(verb, help);
    auto* id = cmd->add_option("requestId", t->id, "The request id (pincer devices list)");
    auto* latest = cmd->add_flag("--latest", t->latest, "The newest pending request");
    id->excludes(latest);
    add_client_flags(cmd, *f);
    const std::string m = method;
    on_parsed(cmd, action, [f, t, m] {
      JsonErrors json_errors(f->json);
      if (t->id.empty() && !t->latest) return fail(2, "give a requestId or --latest (see " + cli::invoked_command() + " devices list)");
      return run_resolve(*f, *t, m);
    });
  }
  {
    auto f = std::make_shared<ClientFlags>();
    auto t = std::make_shared<Target>();
    auto* cmd = devices->add_subcommand("remove", "Forget a paired device and all its tokens");
    cmd->add_option("deviceId", t->id, "The device id (pincer devices list)")->required();
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f, t] {
      JsonErrors json_errors(f->json);
      return run_remove(*f, *t);
    });
  }
  {
    auto f = std::make_shared<ClientFlags>();
    auto t = std::make_shared<Target>();
    auto label = std::make_shared<std::string>();
    auto* cmd = devices->add_subcommand("rename", "Give a paired device a label (shown by devices list)");
    cmd->add_option("deviceId", t->id, "The device id (pincer devices list)")->required();
    cmd->add_option("label", *label, "The label (1-64 characters)")->required();
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f, t, label] {
      JsonErrors json_errors(f->json);
      return run_rename(*f, *t, *label);
    });
  }
  {
    auto f = std::make_shared<ClientFlags>();
    auto t = std::make_shared<Target>();
    auto all = std::make_shared<bool>(false);
    auto* cmd = devices->add_subcommand("revoke", "Revoke a paired device's token for one role, or --all tokens");
    auto* id = cmd->add_option("deviceId", t->id, "The device id (pincer devices list)");
    auto* every = cmd->add_flag("--all", *all,
                                "Every device token of every paired device (e.g. after a leaked token or a switch "
                                "from auth none); works without a running gateway too");
    id->excludes(every);
    cmd->add_option("--role", t->role, "The token's role (default operator)")->check(CLI::IsMember({"operator", "node"}));
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f, t, all] {
      JsonErrors json_errors(f->json);
      if (*all) return run_revoke_all(*f);
      if (t->id.empty()) return fail(2, "give a deviceId or --all (see " + cli::invoked_command() + " devices list)");
      return run_revoke(*f, *t);
    });
  }
}

}  // namespace pincer::app
