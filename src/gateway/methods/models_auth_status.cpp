#include "gateway/methods/models_auth_status.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "llm/auth/auth_profile_status.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

constexpr int64_t kExpiringWithinMs = 24 * 3'600'000LL;  // OpenClaw's warning window

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// OpenClaw's short remaining-time label: "0m", "45m", "5h", "3d".
std::string remaining_label(int64_t ms) {
  if (ms <= 0) return "0m";
  const int64_t minutes = std::max<int64_t>(1, std::llround(static_cast<double>(ms) / 60000.0));
  if (minutes < 60) return std::to_string(minutes) + "m";
  const int64_t hours = std::llround(static_cast<double>(minutes) / 60.0);
  if (hours < 48) return std::to_string(hours) + "h";
  return std::to_string(std::llround(static_cast<double>(hours) / 24.0)) + "d";
}

json expiry(int64_t at, int64_t now) { return json{{"at", at}, {"remainingMs", at - now}, {"label", remaining_label(at - now)}}; }

/// One profile in OpenClaw's shape, with Pincer's state (shared with `pincer models auth list`).
json profile_entry(const llm::auth::AuthProfiles& doc, const llm::auth::Credential& c, int64_t now, bool include_identity) {
  using llm::auth::CredentialType;
  const json row = llm::auth::profile_state(doc, c, now);
  const bool refreshable_oauth = c.type == CredentialType::OAuth && !c.refresh.empty();
  std::string status = "static";
  if (row["state"] == "expired" || (c.type != CredentialType::ApiKey && llm::auth::expired(c, now))) {
    status = "expired";
  } else if (c.type != CredentialType::ApiKey && c.expires_ms > 0) {
    status = !refreshable_oauth && c.expires_ms - now <= kExpiringWithinMs ? "expiring" : "ok";
  }
  json out{{"profileId", c.id}, {"type", row["type"]}, {"status", status}, {"source", "saved"}};
  if (status == "expired") out["reasonCode"] = "expired";
  if (c.type != CredentialType::ApiKey && c.expires_ms > 0) out["expiry"] = expiry(c.expires_ms, now);
  out["logoutSupported"] = true;
  if (include_identity && row.contains("email")) out["email"] = row["email"];
  if (include_identity && row.contains("lastUsed")) out["lastUsedAt"] = row["lastUsed"];
  for (const char* key : {"state", "cooldownUntil", "cooldownReason", "disabledUntil", "disabledReason", "errorCount"}) {
    if (row.contains(key)) out[key] = row[key];
  }
  return out;
}

/// OpenClaw's roll-up of a provider's profiles.
std::string provider_status(const json& profiles, bool config_key) {
  std::set<std::string> refreshable;
  bool api_key = false;
  for (const auto& p : profiles) {
    if (p["type"] == "api_key") {
      api_key = true;
    } else {
      refreshable.insert(p["status"].get<std::string>());
    }
  }
  if (!refreshable.empty()) {
    for (const char* s : {"expired", "missing", "expiring", "ok", "static"}) {
      if (refreshable.count(s)) return s;
    }
  }
  return api_key || config_key ? "static" : "missing";
}

}  // namespace

json models_auth_status_payload(const llm::auth::AuthProfiles& doc, const json& config, int64_t now, bool include_identity) {
  // Providers with a key in the configuration (models.providers.<p>.apiKey), and every provider
  // the configuration names (each may take an API key from the Control UI's form).
  std::set<std::string> config_keys, configured;
  const json providers_cfg = config.is_object() ? config.value("models", json::object()).value("providers", json::object())
                                                : json::object();
  if (providers_cfg.is_object()) {
    for (const auto& [name, entry] : providers_cfg.items()) {
      const std::string id = lowered(name);
      configured.insert(id);
      if (!entry.is_object() || !entry.contains("apiKey")) continue;
      const json& key = entry["apiKey"];
      if ((key.is_string() && !key.get<std::string>().empty()) || key.is_object()) config_keys.insert(id);
    }
  }
  std::map<std::string, json> by_provider;
  for (const auto& c : doc.credentials()) {
    auto [it, added] = by_provider.try_emplace(c.provider, json::array());
    it->second.push_back(profile_entry(doc, c, now, include_identity));
  }
  for (const auto& p : config_keys) by_provider.try_emplace(p, json::array());

  json providers = json::array();
  for (auto& [provider, profiles] : by_provider) {
    std::sort(profiles.begin(), profiles.end(),
              [](const json& a, const json& b) { return a["profileId"].get<std::string>() < b["profileId"].get<std::string>(); });
    json entry{{"provider", provider}, {"authProvider", provider}, {"displayName", provider},
               {"status", provider_status(profiles, config_keys.count(provider) > 0)}};
    int64_t earliest = 0;
    for (const auto& p : profiles) {
      if (p["type"] != "api_key" && p.contains("expiry")) {
        const int64_t at = p["expiry"]["at"].get<int64_t>();
        earliest = earliest == 0 ? at : std::min(earliest, at);
      }
    }
    if (earliest > 0) entry["expiry"] = expiry(earliest, now);
    entry["profiles"] = profiles;
    if (auto order = doc.explicit_order(provider); !order.empty()) {
      entry["profileOrder"] = order;
      entry["profileOrderStored"] = true;
    }
    if (config_keys.count(provider)) entry["apiKey"] = json{{"source", "config"}};
    providers.push_back(std::move(entry));
  }

  std::set<std::string> capable = configured;
  for (const auto& [provider, profiles] : by_provider) capable.insert(provider);
  json capabilities = json::array();
  for (const auto& p : capable) capabilities.push_back({{"provider", p}, {"apiKeySupported", true}, {"quickApiKeySetup", true}});
  return json{{"ts", now}, {"providers", std::move(providers)}, {"providerCapabilities", std::move(capabilities)}};
}

}  // namespace pincer::gateway
