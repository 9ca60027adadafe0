// Device pairing and device-token methods (AU-3, GW-4; openclaw-protocol.md §2.1 "Nodes / devices /
// pairing", §4.4; shapes as OpenClaw's server-methods/devices.ts). All need operator.pairing
// (protocol/scopes.cpp). A caller that is itself a paired device and lacks operator.admin may only
// manage its own device.
//   device.pair.list    {}                          → {pending: Pending[], paired: Paired[] (tokens summarized, connected)}
//   device.pair.approve {requestId}                 → {requestId, device}     + event device.pair.resolved
//                       (the approver must hold the scopes requested: "missing scope: <scope>")
//   device.pair.reject  {requestId}                 → {requestId, deviceId}   + event device.pair.resolved
//   device.pair.remove  {deviceId}                  → {deviceId}              (its connections are closed)
//   device.pair.rename  {deviceId, label}           → {deviceId, label}       + event device.pair.changed
//   device.token.rotate {deviceId, role, scopes?}   → {deviceId, role, token?, scopes, rotatedAtMs, tokenDelivery}
//   device.token.revoke {deviceId, role}            → {deviceId, role, revokedAtMs}
// Unknown ids answer INVALID_REQUEST "unknown requestId" / "unknown deviceId"; refused token changes
// answer INVALID_REQUEST "device token rotation denied" / "device token revocation denied".
#include <algorithm>

#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/protocol/device_auth.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

RpcError store_error(const Error& e) { return RpcError::unavailable("device store: " + e.message); }

bool has_admin(const Client& c) { return std::find(c.scopes.begin(), c.scopes.end(), kScopeAdmin) != c.scopes.end(); }

/// A caller connected as a paired device, without operator.admin, sees and manages only that device.
bool own_device_only(const MethodContext& ctx) { return !ctx.client.device_id.empty() && !has_admin(ctx.client); }

bool denies_cross_device(const MethodContext& ctx, const std::string& target_device_id) {
  return own_device_only(ctx) && ctx.client.device_id != target_device_id;
}

MethodResult pair_list(MethodContext& ctx) {
  Params p("device.pair.list", ctx.request.params);
  if (auto e = p.only({})) return *e;
  auto& store = ctx.gateway.devices();
  const int64_t now = ctx.gateway.clock().wall_ms();
  json pending = json::array(), paired = json::array();
  const std::string& own = ctx.client.device_id;
  const bool own_only = own_device_only(ctx);
  for (const auto& r : store.list_pending(now)) {
    if (!own_only || r.device_id == own) pending.push_back(store::to_json(r));
  }
  for (const auto& d : store.list_paired()) {
    if (own_only && d.device_id != own) continue;
    json j = store::to_json(d, /*include_secrets=*/false);
    j["connected"] = ctx.gateway.device_connected(d.device_id);
    paired.push_back(std::move(j));
  }
  return json{{"pending", std::move(pending)}, {"paired", std::move(paired)}};
}

/// Shared by approve/reject: reads `requestId` and applies the ownership rule.
std::optional<RpcError> request_param(MethodContext& ctx, const char* method, std::string& request_id,
                                      const char* denied) {
  Params p(method, ctx.request.params);
  if (auto e = p.only({"requestId"})) return e;
  if (auto e = p.string("requestId", request_id, true, true)) return e;
  const auto* pending = ctx.gateway.devices().pending(request_id, ctx.gateway.clock().wall_ms());
  if (pending && denies_cross_device(ctx, pending->device_id)) return RpcError::invalid(denied);
  return std::nullopt;
}

/// OpenClaw's approval rule (device-pairing approve with callerScopes): the approver must hold
/// every operator scope the device asks for (operator.admin covers all, write covers read), so
/// an operator.pairing client cannot mint an operator.admin device; a role other than operator
/// needs operator.admin. The error names the first missing scope.
std::optional<RpcError> approver_lacks_scopes(const MethodContext& ctx, const store::PendingPairing& pending) {
  std::vector<std::string> roles = pending.roles;
  if (!pending.role.empty()) roles.push_back(pending.role);
  for (const auto& role : roles) {
    if (role != "operator" && !has_admin(ctx.client)) return RpcError::invalid("device pairing approval denied");
  }
  for (const auto& scope : device_auth::normalize_scopes(pending.scopes)) {
    if (!scope.starts_with("operator.")) continue;
    if (!device_auth::role_scopes_allow("operator", {scope}, ctx.client.scopes)) {
      return RpcError::invalid("missing scope: " + scope);
    }
  }
  return std::nullopt;
}

MethodResult pair_approve(MethodContext& ctx) {
  std::string request_id;
  if (auto e = request_param(ctx, "device.pair.approve", request_id, "device pairing approval denied")) return *e;
  const int64_t now = ctx.gateway.clock().wall_ms();
  if (const auto* pending = ctx.gateway.devices().pending(request_id, now)) {
    if (auto e = approver_lacks_scopes(ctx, *pending)) return *e;
  }
  auto approved = ctx.gateway.devices().approve(request_id, now);
  if (!approved) return store_error(approved.error());
  if (!*approved) return RpcError::invalid("unknown requestId");
  const store::PairedDevice& d = **approved;
  ctx.gateway.broadcast_pairing_event(
      "device.pair.resolved", {{"requestId", request_id}, {"deviceId", d.device_id}, {"decision", "approved"}, {"ts", now}});
  return json{{"requestId", request_id}, {"device", store::to_json(d, /*include_secrets=*/false)}};
}

MethodResult pair_reject(MethodContext& ctx) {
  std::string request_id;
  if (auto e = request_param(ctx, "device.pair.reject", request_id, "device pairing rejection denied")) return *e;
  const int64_t now = ctx.gateway.clock().wall_ms();
  auto rejected = ctx.gateway.devices().reject(request_id, now);
  if (!rejected) return store_error(rejected.error());
  if (!*rejected) return RpcError::invalid("unknown requestId");
  ctx.gateway.broadcast_pairing_event(
      "device.pair.resolved", {{"requestId", request_id}, {"deviceId", **rejected}, {"decision", "rejected"}, {"ts", now}});
  return json{{"requestId", request_id}, {"deviceId", **rejected}};
}

MethodResult pair_remove(MethodContext& ctx) {
  Params p("device.pair.remove", ctx.request.params);
  std::string device_id;
  if (auto e = p.only({"deviceId"})) return *e;
  if (auto e = p.string("deviceId", device_id, true, true)) return *e;
  if (denies_cross_device(ctx, device_id)) return RpcError::invalid("device pairing removal denied");
  auto removed = ctx.gateway.devices().remove(device_id);
  if (!removed) return store_error(removed.error());
  if (!*removed) return RpcError::invalid("unknown deviceId");
  ctx.gateway.broadcast_pairing_event("device.pair.changed", json::object());
  // The answer is queued first, so a device removing itself still receives it.
  ctx.gateway.send_to(ctx.client.id, build_ok_value(ctx.request.id, json{{"deviceId", device_id}}));
  ctx.gateway.disconnect_device(device_id, "", "device removed");
  return Deferred{};
}

/// Gives a paired device the operator's label (`operatorLabel` in paired.json; shown by
/// device.pair.list and `pincer devices list`). The label is trimmed, 1..64 characters, one line.
MethodResult pair_rename(MethodContext& ctx) {
  const char* m = "device.pair.rename";
  Params p(m, ctx.request.params);
  std::string device_id, label;
  if (auto e = p.only({"deviceId", "label"})) return *e;
  if (auto e = p.string("deviceId", device_id, true, true)) return *e;
  if (auto e = p.string("label", label, true, true)) return *e;
  std::size_t chars = 0;
  for (unsigned char c : label) chars += (c & 0xC0) != 0x80;
  if (chars > 64) return invalid_params(m, "/label must NOT have more than 64 characters");
  if (std::any_of(label.begin(), label.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return invalid_params(m, "/label must be one line without control characters");
  }
  const auto a = label.find_first_not_of(' '), b = label.find_last_not_of(' ');
  const std::string trimmed = a == std::string::npos ? "" : label.substr(a, b - a + 1);
  if (trimmed.empty()) return RpcError::invalid("label required");
  if (denies_cross_device(ctx, device_id)) return RpcError::invalid("device pairing rename denied");
  if (own_device_only(ctx)) {  // a non-operator role of one's own device is the admin's to manage
    if (const auto* d = ctx.gateway.devices().paired(device_id)) {
      for (const auto& role : d->roles) {
        if (role != "operator") return RpcError::invalid("device pairing rename denied");
      }
    }
  }
  auto renamed = ctx.gateway.devices().rename(device_id, trimmed);
  if (!renamed) return store_error(renamed.error());
  if (!*renamed) return RpcError::invalid("unknown deviceId");
  ctx.gateway.broadcast_pairing_event("device.pair.changed", json::object());
  return json{{"deviceId", device_id}, {"label", trimmed}};
}

/// Shared by rotate/revoke: {deviceId, role} (+ scopes? for rotate).
std::optional<RpcError> token_params(MethodContext& ctx, const char* method, std::string& device_id, std::string& role,
                                     std::optional<std::vector<std::string>>* scopes) {
  Params p(method, ctx.request.params);
  if (auto e = scopes ? p.only({"deviceId", "role", "scopes"}) : p.only({"deviceId", "role"})) return e;
  if (auto e = p.string("deviceId", device_id, true, true)) return e;
  if (auto e = p.string("role", role, true, true)) return e;
  if (scopes && ctx.request.params.contains("scopes")) {
    const json& s = ctx.request.params["scopes"];
    if (!s.is_array()) return invalid_params(method, "/scopes must be array");
    std::vector<std::string> list;
    for (const auto& v : s) {
      if (!v.is_string()) return invalid_params(method, "/scopes must be an array of strings");
      list.push_back(v.get<std::string>());
    }
    *scopes = device_auth::normalize_scopes(list);
  }
  return std::nullopt;
}

/// Whether the caller may manage `role` tokens of `device_id` with `scopes` (operator tokens never
/// exceed the caller's own scopes; other roles need operator.admin).
bool may_manage(const MethodContext& ctx, const std::string& device_id, const std::string& role,
                const std::vector<std::string>& scopes) {
  if (denies_cross_device(ctx, device_id)) return false;
  if (role != "operator") return has_admin(ctx.client);
  return device_auth::role_scopes_allow("operator", scopes, ctx.client.scopes);
}

MethodResult token_rotate(MethodContext& ctx) {
  std::string device_id, role;
  std::optional<std::vector<std::string>> scopes;
  if (auto e = token_params(ctx, "device.token.rotate", device_id, role, &scopes)) return *e;
  const auto* paired = ctx.gateway.devices().paired(device_id);
  std::vector<std::string> effective = scopes.value_or(std::vector<std::string>{});
  if (!scopes && paired) {
    auto t = paired->tokens.find(role);
    effective = t != paired->tokens.end() ? t->second.scopes : paired->approved_scopes;
  }
  if (!may_manage(ctx, device_id, role, effective)) return RpcError::invalid("device token rotation denied");
  auto rotated = ctx.gateway.devices().rotate_token(device_id, role, scopes, ctx.gateway.clock().wall_ms());
  if (!rotated) {
    if (rotated.error().code == "IO_ERROR") return store_error(rotated.error());
    return RpcError::invalid("device token rotation denied", {{"reason", rotated.error().message}});
  }
  // Only a device rotating its own token receives it in-band (devices.ts shouldReturnRotatedDeviceToken).
  const bool in_band = ctx.client.device_id == device_id;
  json out = {{"deviceId", device_id},
              {"role", rotated->role},
              {"scopes", rotated->scopes},
              {"rotatedAtMs", rotated->rotated_at_ms.value_or(rotated->created_at_ms)},
              {"tokenDelivery", in_band ? "in-band" : "withheld-cross-device"}};
  if (in_band) out["token"] = rotated->token;
  ctx.gateway.send_to(ctx.client.id, build_ok_value(ctx.request.id, out));
  ctx.gateway.disconnect_device(device_id, role, "device token rotated");  // the old token's sessions end
  return Deferred{};
}

MethodResult token_revoke(MethodContext& ctx) {
  std::string device_id, role;
  if (auto e = token_params(ctx, "device.token.revoke", device_id, role, nullptr)) return *e;
  if (!may_manage(ctx, device_id, role, {})) return RpcError::invalid("device token revocation denied");
  auto revoked = ctx.gateway.devices().revoke_token(device_id, role, ctx.gateway.clock().wall_ms());
  if (!revoked) {
    if (revoked.error().code == "IO_ERROR") return store_error(revoked.error());
    return RpcError::invalid("device token revocation denied", {{"reason", revoked.error().message}});
  }
  ctx.gateway.send_to(ctx.client.id,
                      build_ok_value(ctx.request.id, json{{"deviceId", device_id},
                                                          {"role", revoked->role},
                                                          {"revokedAtMs", revoked->revoked_at_ms.value_or(0)}}));
  ctx.gateway.disconnect_device(device_id, role, "device token revoked");
  return Deferred{};
}

}  // namespace

void register_device_methods(MethodRegistry& registry) {
  registry.add({"device.pair.list", pair_list});
  registry.add({"device.pair.approve", pair_approve});
  registry.add({"device.pair.reject", pair_reject});
  registry.add({"device.pair.remove", pair_remove});
  registry.add({"device.pair.rename", pair_rename});
  registry.add({"device.token.rotate", token_rotate});
  registry.add({"device.token.revoke", token_revoke});
}

}  // namespace pincer::gateway
