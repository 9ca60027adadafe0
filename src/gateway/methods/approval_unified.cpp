// OpenClaw's unified approval methods over Pincer's exec approvals (the one ApprovalManager and its
// one decision path, tools/approvals/approval_manager.h), both under operator.approvals:
//   approval.get {id}                      → {approval: snapshot}
//   approval.resolve {id, kind, decision, grantExpiresInDays?, reviewer?}
//                                          → {applied, approval: terminal snapshot}
//   approval.history {cursor?, limit?, kind?} → {items: terminal snapshots, newest first, nextCursor?}
// A snapshot is OpenClaw's reviewer-safe projection: {id, status, presentation, urlPath,
// createdAtMs, expiresAtMs} with status pending | allowed | denied | expired | cancelled and, once
// ended, {resolvedAtMs, reason, decision (allowed/denied), source {agentId, sessionKey},
// resolver {kind, id}}. The presentation of an exec approval is {kind: "exec", commandText,
// commandPreview, warningText (the command analysis' risks), host, nodeId, agentId,
// allowedDecisions}: no cwd, environment or argv.
//
// As in OpenClaw: the id must be the exact full id (not the short code); an unknown id, or one no
// longer kept (the last ApprovalManager::kMaxEnded ended requests are, in memory — a restart
// forgets them), is INVALID_REQUEST "approval not found" with details.reason APPROVAL_NOT_FOUND;
// the first answer wins, and a later one gets {applied: false} with the recorded outcome. Params
// that do not match OpenClaw's schema (unknown field, kind or decision missing or not one of the
// allowed values, grantExpiresInDays out of range) are INVALID_REQUEST naming the field and what is
// allowed, and the approval stays pending; a well-formed answer of another kind (plugin,
// system-agent) denies it with reason "malformed-verdict" (fail closed). Pincer has no channel reviewers: a `reviewer`
// is answered "approval not found", like OpenClaw's unauthorised reviewer.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "core/percent_encoding.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace detail_approval_unified {  // named: the unity build joins this file with other methods files

using nlohmann::json;

constexpr std::size_t kMaxDisplayBytes = 16384;

tools::approvals::ApprovalManager* approvals(MethodContext& ctx) {
  return ctx.gateway.agents() ? &ctx.gateway.agents()->approvals() : nullptr;
}

RpcError not_found(const std::string& id) {
  return RpcError::invalid("approval not found" + (id.empty() ? std::string() : ": \"" + id + "\" (unknown, or no longer kept)"),
                           json{{"reason", "APPROVAL_NOT_FOUND"}});
}

/// OpenClaw's well-formed approval id: non-empty, not "." or "..". (Its lone-surrogate rule cannot
/// apply: the frame's JSON is valid UTF-8.)
bool well_formed_id(const std::string& id) { return !id.empty() && id != "." && id != ".."; }

/// Text shown to a reviewer on one line: control characters, line and paragraph separators and
/// invisible format characters written as \u{HEX}; cut at kMaxDisplayBytes with "…[truncated]".
std::string display_text(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (i + len > text.size()) len = 1;
    uint32_t cp = c;
    if (len == 2) cp = ((c & 0x1F) << 6) | (text[i + 1] & 0x3F);
    if (len == 3) cp = ((c & 0x0F) << 12) | ((text[i + 1] & 0x3F) << 6) | (text[i + 2] & 0x3F);
    if (len == 4) cp = ((c & 0x07) << 18) | ((text[i + 1] & 0x3F) << 12) | ((text[i + 2] & 0x3F) << 6) | (text[i + 3] & 0x3F);
    const bool invisible = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) ||
                           cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) ||
                           cp == 0xFEFF;
    if (invisible) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%X}", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text, i, len);
    }
    i += len;
    if (out.size() >= kMaxDisplayBytes) {
      std::size_t cut = kMaxDisplayBytes;
      while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
      out.resize(cut);
      return out + "…[truncated]";
    }
  }
  return out;
}

/// OpenClaw's ApprovalSnapshot of ApprovalManager::record().
json snapshot(const json& record, const std::string& base_path) {
  const json& request = record["request"];
  std::string warning;
  for (const auto& risk : request.value("risks", json::array())) {
    if (risk.is_string()) warning += (warning.empty() ? "" : "; ") + risk.get<std::string>();
  }
  const std::string agent_id = request.value("agentId", "");
  const std::string id = record.value("id", "");
  json out = {{"id", id},
              {"status", record.value("status", "pending")},
              {"presentation",
               {{"kind", "exec"},
                {"commandText", display_text(request.value("command", ""))},
                {"commandPreview", nullptr},
                {"warningText", warning.empty() ? json(nullptr) : json(display_text(warning))},
                {"host", request.value("host", "gateway")},
                {"nodeId", nullptr},
                {"agentId", agent_id.empty() ? json(nullptr) : json(agent_id)},
                {"allowedDecisions", {"allow-once", "allow-always", "deny"}}}},
              {"urlPath", base_path + "/approve/" + percent_encode(id, "!*'()")},
              {"createdAtMs", record.value("createdAtMs", int64_t{0})},
              {"expiresAtMs", record.value("expiresAtMs", int64_t{0})}};
  if (out["status"] == "pending") return out;
  out["resolvedAtMs"] = record.value("resolvedAtMs", int64_t{0});
  out["reason"] = record.value("reason", "");
  if (record["decision"].is_string()) out["decision"] = record["decision"];
  json source = json::object();
  if (!agent_id.empty()) source["agentId"] = agent_id;
  if (const std::string key = request.value("sessionKey", ""); !key.empty()) source["sessionKey"] = key;
  out["source"] = source;
  if (const std::string kind = record.value("resolverKind", ""); !kind.empty()) {
    out["resolver"] = {{"kind", kind}};
    if (const std::string by = record.value("resolvedBy", ""); !by.empty()) out["resolver"]["id"] = by;
  }
  return out;
}

/// Who answers: the verified device, else the client id (OpenClaw's resolver attribution).
std::pair<std::string, std::string> resolver_of(const Client& client) {
  if (!client.device_id.empty()) return {"device", client.device_id};
  return {"runtime", client.info.id.empty() ? "gateway client" : client.info.id};
}

MethodResult approval_get(MethodContext& ctx) {
  Params p("approval.get", ctx.request.params);
  if (auto e = p.only({"id"})) return *e;
  std::string id;
  if (auto e = p.string("id", id, true, true)) return *e;
  auto* m = approvals(ctx);
  if (!m) return no_runtime();
  const json record = well_formed_id(id) ? m->record(id) : json(nullptr);
  if (record.is_null()) return not_found(id);
  return json{{"approval", snapshot(record, ctx.gateway.settings().control_ui.base_path)}};
}

/// What is wrong with `params` as OpenClaw's ApprovalResolveParams (a closed object: id, kind in
/// exec/plugin/system-agent, decision in allow-once/allow-always/deny, reviewer?,
/// grantExpiresInDays? 1..3650), or "" when they are well-formed.
std::string invalid_params(const json& params) {
  static const std::vector<std::string> kKnown = {"id", "kind", "decision", "reviewer", "grantExpiresInDays"};
  for (const auto& [key, value] : params.items()) {
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
      return "unknown field \"" + key + "\" (allowed: id, kind, decision, reviewer, grantExpiresInDays)";
    }
  }
  const json kind = params.value("kind", json());
  if (kind != "exec" && kind != "plugin" && kind != "system-agent") {
    return "kind " + (kind.is_null() ? std::string("is missing") : kind.dump() + " is not allowed") +
           " (one of exec, plugin, system-agent)";
  }
  const json decision = params.value("decision", json());
  if (decision != "allow-once" && decision != "allow-always" && decision != "deny") {
    return "decision " + (decision.is_null() ? std::string("is missing") : decision.dump() + " is not allowed") +
           " (one of allow-once, allow-always, deny)";
  }
  if (params.contains("grantExpiresInDays")) {
    const json& days = params["grantExpiresInDays"];
    if (!days.is_number_integer() || days.get<int64_t>() < 1 || days.get<int64_t>() > 3650) {
      return "grantExpiresInDays must be an integer 1..3650";
    }
  }
  return "";
}

MethodResult approval_resolve(MethodContext& ctx) {
  const json& params = ctx.request.params;
  if (!params.is_object() || !params.contains("id") || !params["id"].is_string()) return not_found("");
  const std::string id = params["id"].get<std::string>();
  auto* m = approvals(ctx);
  if (!m) return no_runtime();
  const std::string& base = ctx.gateway.settings().control_ui.base_path;
  // Malformed params are the caller's error: the approval stays pending for a proper answer.
  if (const std::string why = invalid_params(params); !why.empty()) {
    return RpcError::invalid("invalid approval.resolve params: " + why);
  }
  // Channel reviewers answer from their chat (channels/chat_approvals), not through this method.
  if (params.contains("reviewer")) return not_found(id);
  json record = well_formed_id(id) ? m->record(id) : json(nullptr);
  if (record.is_null()) return not_found(id);
  if (record.value("status", "") != "pending") return json{{"applied", false}, {"approval", snapshot(record, base)}};
  const auto [kind, by] = resolver_of(ctx.client);
  std::string decision = "deny", reason = "user";
  int64_t ttl_ms = 0;
  if (params["kind"] != "exec") {  // a well-formed answer for another kind of approval: fail closed
    spdlog::warn("approval.resolve of {} by {}: kind {} is not this approval's (exec); denied (malformed-verdict)", id, by,
                 params["kind"].dump());
    reason = "malformed-verdict";
  } else {
    decision = params["decision"].get<std::string>();
    if (decision == "allow-always" && params.contains("grantExpiresInDays")) {
      ttl_ms = params["grantExpiresInDays"].get<int64_t>() * 86'400'000;
    }
  }
  if (auto st = m->resolve(id, decision, "agent", ttl_ms, by, kind, reason); !st) {
    if (st.error().code == "APPROVAL_NOT_FOUND") return not_found(id);
    return RpcError{st.error().code, st.error().message, nullptr, std::nullopt, std::nullopt};
  }
  record = m->record(id);
  if (record.is_null()) return not_found(id);
  return json{{"applied", true}, {"approval", snapshot(record, base)}};
}

/// OpenClaw's approval.history {cursor?, limit? 1..100, kind?} → {items, nextCursor?}: the ended
/// approvals still kept (the last ApprovalManager::kMaxEnded, in memory), newest first, as
/// terminal snapshots; `nextCursor` (the last item's id) asks for the page after it.
MethodResult approval_history(MethodContext& ctx) {
  Params p("approval.history", ctx.request.params);
  if (auto e = p.only({"cursor", "limit", "kind"})) return *e;
  const json& params = ctx.request.params;
  std::string cursor;
  if (auto e = p.string("cursor", cursor, false, true)) return *e;
  int64_t limit = 50;
  if (params.is_object() && params.contains("limit")) {
    const json& l = params["limit"];
    if (!l.is_number_integer() || l.get<int64_t>() < 1 || l.get<int64_t>() > 100) {
      return RpcError::invalid("invalid approval.history params: limit must be an integer 1..100");
    }
    limit = l.get<int64_t>();
  }
  const json kind = params.is_object() ? params.value("kind", json("exec")) : json("exec");
  if (kind != "exec" && kind != "plugin" && kind != "system-agent") {
    return RpcError::invalid("invalid approval.history params: kind " + kind.dump() +
                             " is not allowed (one of exec, plugin, system-agent)");
  }
  auto* m = approvals(ctx);
  if (!m) return no_runtime();
  json items = json::array();
  if (kind != "exec") return json{{"items", items}};  // Pincer's approvals are all exec approvals
  const std::vector<std::string> ids = m->ended_ids();
  auto it = ids.begin();
  if (!cursor.empty()) {
    it = std::find(ids.begin(), ids.end(), cursor);
    if (it == ids.end()) return RpcError::invalid("invalid approval.history params: unknown cursor \"" + cursor + "\"");
    ++it;
  }
  const std::string& base = ctx.gateway.settings().control_ui.base_path;
  for (; it != ids.end() && static_cast<int64_t>(items.size()) < limit; ++it) {
    if (json record = m->record(*it); !record.is_null()) items.push_back(snapshot(record, base));
  }
  json out = {{"items", items}};
  if (it != ids.end() && !items.empty()) out["nextCursor"] = items.back()["id"];
  return out;
}

}  // namespace detail_approval_unified

void register_unified_approval_methods(MethodRegistry& registry) {
  registry.add({"approval.get", detail_approval_unified::approval_get});
  registry.add({"approval.resolve", detail_approval_unified::approval_resolve});
  registry.add({"approval.history", detail_approval_unified::approval_history});
}

}  // namespace pincer::gateway
