// `webSearch.status {agentId?, modelProvider?, modelId?}` (the Control UI's search settings) in
// OpenClaw's WebSearchStatusResult, from Pincer's `web_search` tool settings (TL-5,
// tools/web/web_tools.cpp): tools.web.search.{enabled, provider}, the Brave key
// (plugins.entries.brave.config.webSearch.apiKey or BRAVE_API_KEY) and the SearXNG base URL
// (plugins.entries.searxng.config.webSearch.baseUrl or SEARXNG_BASE_URL):
//
//   {enabled, provider: "brave" | "searxng" | null, agentId, model: {provider, id, runtime: "pincer"},
//    route: {kind: "external" | "disabled" | "unavailable", provider?, label, reason?, testable: false},
//    providers: [{id, pluginId, label, hint, configured, installed: true, available,
//                 requiresCredential, credentialSource: "config" | "env" | "missing" | "none",
//                 credentialPath?, configPath}]}
//
// No secret is returned. Loop thread.
#include <cstdlib>

#include "agent/agent_service.h"
#include "core/json_lookup.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace web_search_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

std::string text_of(const json& node, const char* key) {
  return node.is_object() && node.contains(key) && node[key].is_string() ? node[key].get<std::string>() : "";
}

std::string env_of(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

MethodResult status(MethodContext& ctx) {
  Params p("webSearch.status", ctx.request.params);
  if (auto e = p.only({"agentId", "modelProvider", "modelId"})) return *e;
  std::string agent_id, model_provider, model_id;
  if (auto e = p.string("agentId", agent_id, false)) return *e;
  if (auto e = p.string("modelProvider", model_provider, false)) return *e;
  if (auto e = p.string("modelId", model_id, false)) return *e;
  const json& cfg = ctx.gateway.settings().config;
  const json& search = json_lookup::at_or_null(cfg, {"tools", "web", "search"});
  const bool enabled = !(search.is_object() && search.contains("enabled") && search["enabled"].is_boolean() &&
                         !search["enabled"].get<bool>());
  const json& brave = json_lookup::at_or_null(cfg, {"plugins", "entries", "brave", "config", "webSearch"});
  const json& searx = json_lookup::at_or_null(cfg, {"plugins", "entries", "searxng", "config", "webSearch"});
  const bool brave_config = !text_of(brave, "apiKey").empty(), brave_env = !env_of("BRAVE_API_KEY").empty();
  const bool searx_config = !text_of(searx, "baseUrl").empty(), searx_env = !env_of("SEARXNG_BASE_URL").empty();
  const bool brave_ok = brave_config || brave_env, searx_ok = searx_config || searx_env;
  std::string provider = text_of(search, "provider");
  if (provider.empty()) provider = brave_ok ? "brave" : searx_ok ? "searxng" : "";

  json model = {{"provider", model_provider.empty() ? "none" : model_provider}, {"id", model_id.empty() ? "none" : model_id},
                {"runtime", "pincer"}};
  if (auto* agents = ctx.gateway.agents()) {
    const json d = agents->session_defaults(agent_id);
    if (agent_id.empty()) agent_id = d.value("agentId", "main");
    if (model_provider.empty() && d["modelProvider"].is_string()) model["provider"] = d["modelProvider"];
    if (model_id.empty() && d["model"].is_string()) model["id"] = d["model"];
  }
  if (agent_id.empty()) agent_id = "main";

  const char* brave_label = "Brave Search";
  const char* searx_label = "SearXNG";
  json route;
  if (!enabled) {
    route = {{"kind", "disabled"}, {"label", "Web search is off (tools.web.search.enabled)"}, {"testable", false}};
  } else if (provider == "brave" ? brave_ok : provider == "searxng" ? searx_ok : false) {
    route = {{"kind", "external"}, {"provider", provider}, {"label", provider == "brave" ? brave_label : searx_label},
             {"testable", false}};
  } else {
    route = {{"kind", "unavailable"},
             {"label", "No search provider configured"},
             {"reason", provider.empty() ? "set tools.web.search.provider to brave or searxng"
                                         : provider + " is selected but not configured"},
             {"testable", false}};
  }
  json providers = json::array();
  providers.push_back({{"id", "brave"}, {"pluginId", "brave"}, {"label", brave_label},
                       {"hint", "API key in plugins.entries.brave.config.webSearch.apiKey or BRAVE_API_KEY"},
                       {"configured", brave_ok}, {"installed", true}, {"available", brave_ok}, {"requiresCredential", true},
                       {"credentialSource", brave_config ? "config" : brave_env ? "env" : "missing"},
                       {"credentialPath", "plugins.entries.brave.config.webSearch.apiKey"},
                       {"configPath", {"plugins", "entries", "brave", "config", "webSearch"}}});
  providers.push_back({{"id", "searxng"}, {"pluginId", "searxng"}, {"label", searx_label},
                       {"hint", "base URL in plugins.entries.searxng.config.webSearch.baseUrl or SEARXNG_BASE_URL"},
                       {"configured", searx_ok}, {"installed", true}, {"available", searx_ok}, {"requiresCredential", false},
                       {"credentialSource", "none"},
                       {"configPath", {"plugins", "entries", "searxng", "config", "webSearch"}}});
  return json{{"enabled", enabled},
              {"provider", provider.empty() ? json(nullptr) : json(provider)},
              {"agentId", agent_id},
              {"model", std::move(model)},
              {"route", std::move(route)},
              {"providers", std::move(providers)}};
}

}  // namespace web_search_methods

void register_web_search_methods(MethodRegistry& registry) {
  registry.add({"webSearch.status", web_search_methods::status});
}

}  // namespace pincer::gateway
