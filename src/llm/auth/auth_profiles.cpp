#include "llm/auth/auth_profiles.h"

#include <algorithm>
#include <cctype>

namespace pincer::llm::auth {

using json = nlohmann::json;

namespace detail_auth_profiles {

bool same_provider(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

int64_t int_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return 0;
  if (it->is_number_float()) return static_cast<int64_t>(it->get<double>());
  return it->get<int64_t>();
}

std::string string_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int type_rank(CredentialType t) {  // PV-3: oauth > token > api_key
  switch (t) {
    case CredentialType::OAuth: return 0;
    case CredentialType::Token: return 1;
    case CredentialType::ApiKey: return 2;
  }
  return 3;
}

/// Failures that say something about the credential itself disable it for hours.
bool disables(FailoverReason r) { return r == FailoverReason::Billing || r == FailoverReason::AuthPermanent; }

/// Failures that say nothing about the credential.
bool credential_neutral(FailoverReason r) {
  return r == FailoverReason::ContextOverflow || r == FailoverReason::ModelNotFound ||
         r == FailoverReason::SessionExpired || r == FailoverReason::Format;
}

}  // namespace detail_auth_profiles

using namespace detail_auth_profiles;

std::string_view to_string(CredentialType type) {
  switch (type) {
    case CredentialType::ApiKey: return "api_key";
    case CredentialType::Token: return "token";
    case CredentialType::OAuth: return "oauth";
  }
  return "api_key";
}

std::optional<CredentialType> credential_type_from_string(std::string_view s) {
  if (s == "api_key") return CredentialType::ApiKey;
  if (s == "token") return CredentialType::Token;
  if (s == "oauth") return CredentialType::OAuth;
  return std::nullopt;
}

bool expired(const Credential& c, int64_t now_ms) {
  // An OAuth credential with a refresh token is renewed before use (agent/oauth_refresher.h).
  if (c.type == CredentialType::OAuth && !c.refresh.empty()) return false;
  return c.type != CredentialType::ApiKey && c.expires_ms > 0 && c.expires_ms <= now_ms;
}

bool model_scoped_reason(std::string_view reason) {
  return reason == "rate_limit" || reason == "timeout" || reason == "network" || reason == "model_not_found";
}

bool UsageStats::cooldown_is_model_scoped() const { return !cooldown_model.empty() && model_scoped_reason(cooldown_reason); }

int64_t UsageStats::unusable_until(std::string_view for_model) const {
  const bool other_model = !for_model.empty() && cooldown_is_model_scoped() && cooldown_model != for_model;
  return std::max(other_model ? 0 : cooldown_until, disabled_until);
}

int64_t cooldown_ms(int error_count) {
  constexpr int steps = static_cast<int>(std::size(kCooldownStepsMs));
  const int i = std::clamp(error_count, 1, steps) - 1;
  return kCooldownStepsMs[i];
}

int64_t disable_ms(int count) {
  int64_t ms = kBillingBackoffMs;
  for (int i = 1; i < count && ms < kBillingBackoffMaxMs; ++i) ms *= 2;
  return std::min(ms, kBillingBackoffMaxMs);
}

Result<AuthProfiles> AuthProfiles::from_json(const json& doc) {
  auto invalid = [](std::string what) { return Error{"AUTH_PROFILES_INVALID", std::move(what)}; };
  if (!doc.is_object()) return invalid("the document must be a JSON object");
  for (const char* key : {"profiles", "order", "lastGood", "usageStats"}) {
    if (doc.contains(key) && !doc[key].is_object()) return invalid(std::string(key) + " must be an object");
  }
  if (doc.contains("version") && !doc["version"].is_number_integer()) return invalid("version must be an integer");
  AuthProfiles p;
  p.doc_ = doc;
  if (!p.doc_.contains("version")) p.doc_["version"] = 1;
  if (!p.doc_.contains("profiles")) p.doc_["profiles"] = json::object();
  if (p.doc_.contains("order")) {
    for (auto& [provider, ids] : p.doc_["order"].items()) {
      if (!ids.is_array()) return invalid("order." + provider + " must be an array of profile ids");
      for (const auto& v : ids) {
        if (!v.is_string()) return invalid("order." + provider + " must be an array of profile ids");
      }
    }
  }
  p.reparse();
  return p;
}

void AuthProfiles::reparse() {
  credentials_.clear();
  warnings_.clear();
  for (const auto& [id, profile] : doc_["profiles"].items()) {
    // One bad profile is reported and skipped; the others stay usable.
    if (!profile.is_object()) {
      warnings_.push_back("profile " + id + " is not an object: ignored");
      continue;
    }
    const auto type = credential_type_from_string(string_member(profile, "type"));
    if (!type) {
      warnings_.push_back("profile " + id + ": type must be api_key, token or oauth (got \"" + string_member(profile, "type") +
                          "\"): ignored");
      continue;
    }
    Credential c;
    c.id = id;
    c.provider = string_member(profile, "provider");
    c.type = *type;
    switch (c.type) {
      case CredentialType::ApiKey: c.secret = string_member(profile, "key"); break;
      case CredentialType::Token: c.secret = string_member(profile, "token"); break;
      case CredentialType::OAuth:
        c.secret = string_member(profile, "access");
        c.refresh = string_member(profile, "refresh");
        break;
    }
    c.expires_ms = int_member(profile, "expires");
    c.email = string_member(profile, "email");
    if (c.provider.empty()) {
      warnings_.push_back("profile " + id + " has no provider: ignored");
      continue;
    }
    if (c.secret.empty()) {
      warnings_.push_back("profile " + id + " has no " +
                          std::string(c.type == CredentialType::ApiKey ? "key" : c.type == CredentialType::Token ? "token" : "access token") +
                          ": ignored");
      continue;
    }
    if (!secret_is_sendable(c.secret)) {
      warnings_.push_back("profile " + id + ": its secret contains a control character (a line break?) or is longer than " +
                          std::to_string(kMaxSecretBytes) + " bytes: ignored");
      continue;
    }
    credentials_.push_back(std::move(c));
  }
}

bool secret_is_sendable(std::string_view secret) {
  if (secret.size() > kMaxSecretBytes) return false;
  return std::none_of(secret.begin(), secret.end(), [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return u < 0x20 || u == 0x7f;
  });
}

json AuthProfiles::to_json() const { return doc_; }

const Credential* AuthProfiles::find(std::string_view id) const {
  for (const auto& c : credentials_) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

UsageStats AuthProfiles::stats(std::string_view id) const {
  UsageStats s;
  auto all = doc_.find("usageStats");
  if (all == doc_.end() || !all->is_object()) return s;
  auto it = all->find(std::string(id));
  if (it == all->end() || !it->is_object()) return s;
  const json& o = *it;
  s.last_used = int_member(o, "lastUsed");
  s.cooldown_until = int_member(o, "cooldownUntil");
  s.cooldown_reason = string_member(o, "cooldownReason");
  s.disabled_until = int_member(o, "disabledUntil");
  s.disabled_reason = string_member(o, "disabledReason");
  s.error_count = static_cast<int>(int_member(o, "errorCount"));
  s.last_failure_at = int_member(o, "lastFailureAt");
  s.cooldown_model = string_member(o, "cooldownModel");
  if (auto f = o.find("failureCounts"); f != o.end() && f->is_object()) {
    for (const auto& [reason, n] : f->items()) {
      if (n.is_number_integer()) s.failure_counts[reason] = n.get<int>();
    }
  }
  return s;
}

bool AuthProfiles::usable(std::string_view id, int64_t now_ms, std::string_view for_model) const {
  const Credential* c = find(id);
  if (!c) return false;
  if (expired(*c, now_ms)) return false;
  return stats(id).unusable_until(for_model) <= now_ms;
}

std::vector<std::string> AuthProfiles::explicit_order(std::string_view provider) const {
  std::vector<std::string> out;
  auto order = doc_.find("order");
  if (order == doc_.end() || !order->is_object()) return out;
  for (const auto& [name, ids] : order->items()) {
    if (!same_provider(name, provider) || !ids.is_array()) continue;
    for (const auto& v : ids) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

std::vector<std::string> AuthProfiles::order(std::string_view provider, int64_t now_ms, std::string_view preferred,
                                             std::string_view for_model) const {
  struct Row {
    const Credential* c;
    int explicit_rank;  // position in the explicit order, or INT_MAX
    int64_t available_at;  // 0 = usable now
    int64_t last_used;
  };
  const std::vector<std::string> explicit_ids = explicit_order(provider);
  std::vector<Row> rows;
  for (const auto& c : credentials_) {
    if (!same_provider(c.provider, provider)) continue;
    Row r{&c, INT32_MAX, 0, 0};
    if (auto it = std::find(explicit_ids.begin(), explicit_ids.end(), c.id); it != explicit_ids.end()) {
      r.explicit_rank = static_cast<int>(it - explicit_ids.begin());
    }
    const UsageStats s = stats(c.id);
    r.last_used = s.last_used;
    if (!usable(c.id, now_ms, for_model)) {
      r.available_at = expired(c, now_ms) ? INT64_MAX : s.unusable_until(for_model);
    }
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const bool a_ok = a.available_at == 0, b_ok = b.available_at == 0;
    if (a_ok != b_ok) return a_ok;
    if (!a_ok) return a.available_at < b.available_at;  // cooling: soonest available first
    if (a.c->id == preferred || b.c->id == preferred) return a.c->id == preferred && b.c->id != preferred;
    if (a.explicit_rank != b.explicit_rank) return a.explicit_rank < b.explicit_rank;
    if (type_rank(a.c->type) != type_rank(b.c->type)) return type_rank(a.c->type) < type_rank(b.c->type);
    return a.last_used < b.last_used;  // least recently used first
  });
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.c->id);
  return out;
}

json& AuthProfiles::stats_json(std::string_view id) {
  if (!doc_.contains("usageStats") || !doc_["usageStats"].is_object()) doc_["usageStats"] = json::object();
  json& s = doc_["usageStats"][std::string(id)];
  if (!s.is_object()) s = json::object();
  return s;
}

bool AuthProfiles::mark_failure(std::string_view id, FailoverReason reason, int64_t now_ms, std::string_view model_id) {
  if (credential_neutral(reason)) return false;
  json& s = stats_json(id);
  // A quiet day resets the counters (OpenClaw's failureWindowHours).
  if (int_member(s, "lastFailureAt") > 0 && now_ms - int_member(s, "lastFailureAt") > kFailureWindowMs) {
    s["errorCount"] = 0;
    s["failureCounts"] = json::object();
  }
  const std::string name(llm::to_string(reason));
  const int errors = static_cast<int>(int_member(s, "errorCount")) + 1;
  s["errorCount"] = errors;
  if (!s.contains("failureCounts") || !s["failureCounts"].is_object()) s["failureCounts"] = json::object();
  const int of_reason = static_cast<int>(int_member(s["failureCounts"], name.c_str())) + 1;
  s["failureCounts"][name] = of_reason;
  s["lastFailureAt"] = now_ms;
  if (disables(reason)) {
    int disabling = 0;
    for (const char* r : {"billing", "auth_permanent"}) disabling += static_cast<int>(int_member(s["failureCounts"], r));
    // A window already running is kept (OpenClaw's keepActiveWindowOrRecompute): runs that fail
    // on the same credential at once (e.g. waiting on one refresh) must not lengthen it.
    if (int_member(s, "disabledUntil") <= now_ms) s["disabledUntil"] = now_ms + disable_ms(disabling);
    s["disabledReason"] = name;
  } else {
    // OpenClaw's cooldownModel rule (file comment): one model while only that model failed.
    const bool scoped = model_scoped_reason(name);
    const std::string existing_model = string_member(s, "cooldownModel");
    std::string model;
    if (int_member(s, "cooldownUntil") > now_ms) {  // a cooldown is running
      if (scoped && !model_id.empty() && !existing_model.empty() && existing_model == model_id) model = existing_model;
    } else if (scoped) {
      model = std::string(model_id);
    }
    if (int_member(s, "cooldownUntil") <= now_ms) s["cooldownUntil"] = now_ms + cooldown_ms(errors);
    s["cooldownReason"] = name;
    if (model.empty()) s.erase("cooldownModel");
    else s["cooldownModel"] = model;
  }
  return true;
}

void AuthProfiles::mark_good(std::string_view id, int64_t now_ms, std::string_view model_id) {
  const UsageStats before = stats(id);
  json& s = stats_json(id);
  s["lastUsed"] = now_ms;
  const bool other_model_cooling = !model_id.empty() && before.cooldown_is_model_scoped() &&
                                   before.cooldown_model != model_id && before.cooldown_until > now_ms;
  if (other_model_cooling) {
    s.erase("disabledUntil");
    s.erase("disabledReason");
  } else {
    s["errorCount"] = 0;
    for (const char* key : {"cooldownUntil", "cooldownReason", "cooldownModel", "disabledUntil", "disabledReason", "failureCounts"}) {
      s.erase(key);
    }
  }
  if (const Credential* c = find(id)) {
    if (!doc_.contains("lastGood") || !doc_["lastGood"].is_object()) doc_["lastGood"] = json::object();
    doc_["lastGood"][c->provider] = std::string(id);
  }
}

void AuthProfiles::put(const Credential& c) {
  // A new secret starts clean: the old one's cooldown or disable says nothing about it.
  if (const Credential* old = find(c.id); old && old->secret != c.secret && doc_.contains("usageStats") &&
                                          doc_["usageStats"].is_object()) {
    doc_["usageStats"].erase(c.id);
  }
  json p = json::object();
  p["type"] = std::string(to_string(c.type));
  p["provider"] = c.provider;
  switch (c.type) {
    case CredentialType::ApiKey: p["key"] = c.secret; break;
    case CredentialType::Token: p["token"] = c.secret; break;
    case CredentialType::OAuth:
      p["access"] = c.secret;
      if (!c.refresh.empty()) p["refresh"] = c.refresh;
      break;
  }
  if (c.expires_ms > 0) p["expires"] = c.expires_ms;
  if (!c.email.empty()) p["email"] = c.email;
  doc_["profiles"][c.id] = std::move(p);
  reparse();
}

bool AuthProfiles::set_oauth_tokens(std::string_view id, const std::string& access, const std::string& refresh,
                                    int64_t expires_ms) {
  const Credential* c = find(id);
  if (!c || c->type != CredentialType::OAuth) return false;
  json& p = doc_["profiles"][std::string(id)];
  p["access"] = access;
  if (!refresh.empty()) p["refresh"] = refresh;
  p["expires"] = expires_ms;
  reparse();
  return true;
}

bool AuthProfiles::remove(std::string_view id) {
  const std::string key(id);
  if (!doc_["profiles"].contains(key)) return false;
  doc_["profiles"].erase(key);
  if (doc_.contains("usageStats") && doc_["usageStats"].is_object()) doc_["usageStats"].erase(key);
  if (doc_.contains("order") && doc_["order"].is_object()) {
    for (auto& [provider, ids] : doc_["order"].items()) {
      if (!ids.is_array()) continue;
      json kept = json::array();
      for (const auto& v : ids) {
        if (!(v.is_string() && v.get<std::string>() == key)) kept.push_back(v);
      }
      ids = std::move(kept);
    }
  }
  if (doc_.contains("lastGood") && doc_["lastGood"].is_object()) {
    for (auto it = doc_["lastGood"].begin(); it != doc_["lastGood"].end();) {
      if (it->is_string() && it->get<std::string>() == key) it = doc_["lastGood"].erase(it);
      else ++it;
    }
  }
  reparse();
  return true;
}

void AuthProfiles::set_order(std::string_view provider, const std::vector<std::string>& ids) {
  if (!doc_.contains("order") || !doc_["order"].is_object()) doc_["order"] = json::object();
  // One spelling per provider: drop other-case duplicates.
  for (auto it = doc_["order"].begin(); it != doc_["order"].end();) {
    if (same_provider(it.key(), provider)) it = doc_["order"].erase(it);
    else ++it;
  }
  if (!ids.empty()) doc_["order"][std::string(provider)] = ids;
  if (doc_["order"].empty()) doc_.erase("order");
}

}  // namespace pincer::llm::auth
