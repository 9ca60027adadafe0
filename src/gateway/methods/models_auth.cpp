// OpenClaw's model-auth write methods (its server-methods/models-auth-status.ts and
// models-auth-order.ts), over an agent's auth profiles (agents/<id>/agent/auth-profiles.json,
// llm/auth). Every edit goes through llm/auth/auth_profile_edits — the same functions as
// `pincer models auth add|remove|order` — so the file is written locked, atomically, 0600, and a
// running turn's next model call sees the change. No answer, error or log line holds a secret.
// The three edits need operator.admin (protocol/scopes.cpp: not in the table) and count against the
// control-plane write budget, as in OpenClaw.
//
//   models.authSetApiKey {provider, apiKey, agentId?}   (other members ignored, as OpenClaw's schema allows)
//       → {provider, profileId}   provider lower-cased; the key trimmed of line breaks and
//         whitespace; it goes to the provider's first API-key profile in the order that applies
//         now, else to a new `<provider>:manual`.
//   models.authLogout {provider, profileIds?, credentialType?: "api_key", agentId?}
//       → {provider, removedProfiles, abortedRunIds: [], warning?}   every profile of the
//         provider, only its API-key profiles, or exactly profileIds (each must be the
//         provider's). Runs in progress are not aborted (abortedRunIds is always empty): their
//         next model call uses what is left. `warning` says when models.providers.<p>.apiKey in
//         the config still authenticates the provider.
//   models.authStatus {refresh?, agentId?}   (operator.read)
//       → OpenClaw's {ts, providers, providerCapabilities} from the agent's profiles
//         (models_auth_status.h); `refresh` changes nothing (the file is read on each call).
//   models.authOrderSet {provider, profileIds?, agentId?}
//       → {provider, profileIds | null}   profileIds (unique, non-empty) must name every profile
//         of the provider; absent clears the explicit order.
//
// agentId absent or "" = the default agent; an unknown one is INVALID_REQUEST
// `unknown agent id "X"` with details {code: "UNKNOWN_AGENT_ID", agentId}. Bad params are
// INVALID_REQUEST naming the field; a file that cannot be read or written is UNAVAILABLE.
//
// Blocking file I/O on the loop: one small file, rare admin calls.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "core/config.h"
#include "gateway/gateway.h"
#include "gateway/methods/models_auth_status.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"
#include "gateway/protocol/scopes.h"
#include "llm/auth/auth_profile_edits.h"
#include "llm/auth/auth_profile_file.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

struct AuthTarget {
  std::string agent_id;
  std::unique_ptr<llm::auth::AuthProfileFile> file;
};

/// The agent's auth-profiles file, or the error to answer.
std::variant<AuthTarget, RpcError> auth_target(MethodContext& ctx, const std::string& method) {
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  const json* raw = ctx.request.params.is_object() && ctx.request.params.contains("agentId") ? &ctx.request.params["agentId"]
                                                                                             : nullptr;
  if (raw && !raw->is_string()) return invalid_params(method, "/agentId must be string");
  const std::string requested = raw ? raw->get<std::string>() : "";
  auto agents = agent::resolve_agents(service->effective_config(), service->state_directory(), config::process_env());
  if (!agents) return RpcError::unavailable(agents.error().message);
  const agent::AgentSettings* spec = nullptr;
  if (requested.empty()) {
    spec = &agents->default_agent();
  } else {
    spec = agents->find(store::normalize_agent_id(requested));
    if (!spec) {
      return RpcError::invalid("unknown agent id \"" + requested + "\"", json{{"code", "UNKNOWN_AGENT_ID"}, {"agentId", requested}});
    }
  }
  return AuthTarget{spec->id, std::make_unique<llm::auth::AuthProfileFile>(
                                  llm::auth::auth_profiles_path(service->state_directory(), spec->id))};
}

/// An edit's error as the answer: bad input → INVALID_REQUEST naming the field, else UNAVAILABLE.
RpcError edit_error(const std::string& method, const Error& e) {
  if (e.code == "INVALID_INPUT" || e.code == "AUTH_PROFILE_UNKNOWN" || e.code == "AUTH_PROFILE_CONFLICT") {
    return invalid_params(method, e.message);
  }
  return RpcError::unavailable(method + ": " + e.message);
}

/// A non-empty array of non-empty strings at `key` (absent = nullopt), else the error.
std::variant<std::optional<std::vector<std::string>>, RpcError> id_list(const std::string& method, const json& params,
                                                                         const char* key) {
  if (!params.is_object() || !params.contains(key)) return std::optional<std::vector<std::string>>{};
  const json& v = params[key];
  if (!v.is_array() || v.empty()) return invalid_params(method, "/" + std::string(key) + " must be a non-empty array of profile ids");
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty()) {
      return invalid_params(method, "/" + std::string(key) + "/" + std::to_string(i) + " must be a non-empty string");
    }
    ids.push_back(v[i].get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(ids));
}

MethodResult set_api_key(MethodContext& ctx) {
  const std::string method = "models.authSetApiKey";
  Params p(method, ctx.request.params);
  if (!ctx.request.params.is_object()) return invalid_params(method, "must be object");
  std::string provider, api_key;
  if (auto e = p.string("provider", provider, true)) return *e;
  if (auto e = p.string("apiKey", api_key, true)) return *e;
  auto target = auth_target(ctx, method);
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  auto& t = std::get<AuthTarget>(target);
  auto saved = llm::auth::save_api_key(*t.file, provider, api_key, ctx.gateway.clock().wall_ms());
  if (!saved) return edit_error(method, saved.error());
  return json{{"provider", saved->provider}, {"profileId", saved->profile_id}};
}

MethodResult logout(MethodContext& ctx) {
  const std::string method = "models.authLogout";
  Params p(method, ctx.request.params);
  if (!ctx.request.params.is_object()) return invalid_params(method, "must be object");
  if (auto e = p.only({"provider", "profileIds", "credentialType", "agentId"})) return *e;
  std::string provider_raw, credential_type;
  if (auto e = p.string("provider", provider_raw, true, true)) return *e;
  if (auto e = p.string("credentialType", credential_type, false)) return *e;
  const bool has_type = ctx.request.params.contains("credentialType");
  if (has_type && credential_type != "api_key") return invalid_params(method, "/credentialType must be \"api_key\"");
  auto ids = id_list(method, ctx.request.params, "profileIds");
  if (auto* e = std::get_if<RpcError>(&ids)) return *e;
  auto& selected = std::get<std::optional<std::vector<std::string>>>(ids);
  if (has_type && selected) return invalid_params(method, "give either credentialType or profileIds, not both");
  auto provider = llm::auth::normalize_provider(provider_raw, "provider");
  if (!provider) return edit_error(method, provider.error());
  auto target = auth_target(ctx, method);
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  auto& t = std::get<AuthTarget>(target);
  auto removed = llm::auth::remove_profiles(*t.file, {.provider = *provider, .ids = selected, .api_keys_only = has_type});
  if (!removed) return edit_error(method, removed.error());
  json out{{"provider", *provider}, {"removedProfiles", *removed}, {"abortedRunIds", json::array()}};
  // The configured key still answers for the provider when no profile is left.
  const json& cfg = ctx.gateway.agents()->effective_config();
  const json providers = cfg.value("models", json::object()).value("providers", json::object());
  for (const auto& [name, entry] : providers.items()) {
    std::string lowered = name;
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lowered == *provider && entry.is_object() && entry.contains("apiKey") && !entry["apiKey"].is_null()) {
      out["warning"] = "models.providers." + name + ".apiKey in the config still authenticates this provider; "
                       "remove it there to sign out completely.";
    }
  }
  return out;
}

MethodResult order_set(MethodContext& ctx) {
  const std::string method = "models.authOrderSet";
  Params p(method, ctx.request.params);
  if (!ctx.request.params.is_object()) return invalid_params(method, "must be object");
  if (auto e = p.only({"provider", "profileIds", "agentId"})) return *e;
  std::string provider_raw;
  if (auto e = p.string("provider", provider_raw, true, true)) return *e;
  auto ids = id_list(method, ctx.request.params, "profileIds");
  if (auto* e = std::get_if<RpcError>(&ids)) return *e;
  auto& selected = std::get<std::optional<std::vector<std::string>>>(ids);
  auto provider = llm::auth::normalize_provider(provider_raw, "provider");
  if (!provider) return edit_error(method, provider.error());
  auto target = auth_target(ctx, method);
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  auto& t = std::get<AuthTarget>(target);
  auto st = llm::auth::set_provider_order(*t.file, *provider, selected.value_or(std::vector<std::string>{}), true);
  if (!st) return edit_error(method, st.error());
  return json{{"provider", provider_raw}, {"profileIds", selected ? json(*selected) : json(nullptr)}};
}

MethodResult auth_status(MethodContext& ctx) {
  const std::string method = "models.authStatus";
  Params p(method, ctx.request.params);
  if (auto e = p.only({"refresh", "agentId"})) return *e;
  if (ctx.request.params.is_object() && ctx.request.params.contains("refresh") && !ctx.request.params["refresh"].is_boolean()) {
    return invalid_params(method, "/refresh must be boolean");
  }
  auto target = auth_target(ctx, method);
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  auto& t = std::get<AuthTarget>(target);
  auto doc = t.file->load();
  if (!doc) return RpcError::unavailable(method + ": " + doc.error().message);
  return models_auth_status_payload(*doc, ctx.gateway.agents()->effective_config(), ctx.gateway.clock().wall_ms(),
                                    operator_scope_allows(ctx.client.scopes, kScopeAdmin));
}

}  // namespace

void register_models_auth_methods(MethodRegistry& registry) {
  registry.add({"models.authSetApiKey", set_api_key, false, true});
  registry.add({"models.authLogout", logout, false, true});
  registry.add({"models.authOrderSet", order_set, false, true});
  registry.add({"models.authStatus", auth_status});
}

}  // namespace pincer::gateway
