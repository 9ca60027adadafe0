#include "llm/auth/auth_profile_edits.h"

#include <algorithm>
#include <cctype>

#include "core/redact.h"

namespace pincer::llm::auth {

namespace detail_auth_profile_edits {

Error input_error(std::string message) { return Error{"INVALID_INPUT", std::move(message)}; }

std::string quoted_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "\"" : ", \"") + id + "\"";
  return out;
}

bool edit_provider_matches(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// Runs `check` on the file as it is (no write when it fails), then `check` and `change` under the
/// file's lock (another process may have changed it in between).
template <typename Check, typename Change>
Status checked_update(AuthProfileFile& file, Check check, Change change) {
  auto before = file.load();
  if (!before) return before.error();
  if (auto e = check(*before)) return *e;
  std::optional<Error> failed;
  auto st = file.update([&](AuthProfiles& doc) {
    failed = check(doc);
    if (!failed) change(doc);
  });
  if (!st) return st;
  if (failed) return *failed;
  return Ok{};
}

/// sk- followed by at least 8 of [A-Za-z0-9_-].
bool looks_like_openai_key(std::string_view key) {
  if (key.substr(0, 3) != "sk-" || key.size() < 11) return false;
  return std::all_of(key.begin() + 3, key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace detail_auth_profile_edits

using namespace detail_auth_profile_edits;

Result<std::string> clean_secret(std::string_view raw, std::string_view field) {
  std::string s;
  s.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r' || raw[i] == '\n') continue;
    // U+2028 / U+2029 (line and paragraph separators) in UTF-8.
    if (raw.substr(i, 3) == "\xE2\x80\xA8" || raw.substr(i, 3) == "\xE2\x80\xA9") {
      i += 2;
      continue;
    }
    s.push_back(raw[i]);
  }
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.back())) s.pop_back();
  std::size_t lead = 0;
  while (lead < s.size() && blank(s[lead])) ++lead;
  s.erase(0, lead);
  if (s.empty()) return input_error(std::string(field) + " is empty");
  if (!secret_is_sendable(s)) {
    return input_error(std::string(field) + " contains a control character (a tab?) or is longer than " +
                   std::to_string(kMaxSecretBytes) + " bytes: it cannot be sent in an HTTP header");
  }
  return s;
}

Result<std::string> normalize_provider(std::string_view raw, std::string_view field) {
  std::string s(raw);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t lead = 0;
  while (lead < s.size() && std::isspace(static_cast<unsigned char>(s[lead]))) ++lead;
  s.erase(0, lead);
  if (s.empty()) return input_error(std::string(field) + " is empty");
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) || u < 0x20 || u == 0x7f || c == '/') {
      return input_error(std::string(field) + " \"" + std::string(raw) + "\" must not contain whitespace, control characters or '/'");
    }
    c = static_cast<char>(std::tolower(u));
  }
  return s;
}

Result<bool> put_credential(AuthProfileFile& file, const Credential& c) {
  if (c.provider.empty() || c.provider.find_first_of(" \t\r\n/") != std::string::npos) {
    return input_error("the provider must be non-empty, without spaces, tabs, line breaks or '/'");
  }
  if (c.id.empty() || c.id.find_first_of(std::string_view("\t\r\n\0", 4)) != std::string::npos) {
    return input_error("the profile id must be non-empty, without tabs or line breaks");
  }
  if (c.secret.empty() || !secret_is_sendable(c.secret)) {
    return input_error("the secret is empty, contains a control character or is longer than " +
                   std::to_string(kMaxSecretBytes) + " bytes");
  }
  redact::add_secret(c.secret);  // AU-5: registered before it is stored
  redact::add_secret(c.refresh);
  bool replaced = false;
  auto st = file.update([&](AuthProfiles& doc) {
    replaced = doc.find(c.id) != nullptr;
    doc.put(c);
  });
  if (!st) return st.error();
  return replaced;
}

Result<SavedApiKey> save_api_key(AuthProfileFile& file, std::string_view provider_in, std::string_view api_key_in,
                                 int64_t now_ms) {
  auto provider = normalize_provider(provider_in, "provider");
  if (!provider) return provider.error();
  auto key = clean_secret(api_key_in, "apiKey");
  if (!key) return key.error();
  // OpenClaw refuses what is plainly not an OpenAI API key (a token or OAuth JSON pasted instead).
  if (*provider == "openai" && !looks_like_openai_key(*key)) {
    return input_error("apiKey does not look like an OpenAI API key (sk-…)");
  }
  redact::add_secret(*key);  // AU-5: registered before it is stored
  SavedApiKey out;
  out.provider = *provider;
  std::optional<Error> conflict;
  auto st = file.update([&](AuthProfiles& doc) {
    // The provider's first API-key profile in the order that applies now, else <provider>:manual.
    std::string id;
    for (const auto& candidate : doc.order(out.provider, now_ms)) {
      const Credential* c = doc.find(candidate);
      if (c && c->type == CredentialType::ApiKey) {
        id = candidate;
        break;
      }
    }
    if (id.empty()) id = out.provider + ":manual";
    if (const Credential* existing = doc.find(id); existing && existing->type != CredentialType::ApiKey) {
      conflict = Error{"AUTH_PROFILE_CONFLICT", "profile " + id + " holds a " + std::string(to_string(existing->type)) +
                                                    " credential, not an API key: remove it first"};
      return;
    }
    Credential c;
    c.id = id;
    c.provider = out.provider;
    c.type = CredentialType::ApiKey;
    c.secret = *key;
    if (const Credential* existing = doc.find(id)) {
      c.provider = existing->provider;  // keep the file's spelling
      c.email = existing->email;
      out.replaced = true;
    }
    doc.put(c);
    out.profile_id = id;
  });
  if (!st) return st.error();
  if (conflict) return *conflict;
  return out;
}

Result<std::vector<std::string>> remove_profiles(AuthProfileFile& file, const RemoveSelection& sel) {
  std::vector<std::string> removed;
  // Without a provider, named ids may be profiles the file holds but cannot use (a broken one the
  // operator wants gone): they count as existing.
  auto stored = [&](const AuthProfiles& doc, const std::string& id) {
    const auto all = doc.to_json();
    return sel.provider.empty() && all.contains("profiles") && all["profiles"].is_object() && all["profiles"].contains(id);
  };
  auto selected = [&](const AuthProfiles& doc) {
    std::vector<std::string> ids;
    if (sel.ids) {
      const auto all = doc.to_json();  // held: items() refers into it
      if (!all.contains("profiles") || !all["profiles"].is_object()) return ids;
      for (const auto& [id, profile] : all["profiles"].items()) {
        if (std::find(sel.ids->begin(), sel.ids->end(), id) != sel.ids->end()) ids.push_back(id);
      }
      return ids;
    }
    for (const auto& c : doc.credentials()) {
      if (edit_provider_matches(c.provider, sel.provider) && (!sel.api_keys_only || c.type == CredentialType::ApiKey)) {
        ids.push_back(c.id);
      }
    }
    return ids;
  };
  auto check = [&](const AuthProfiles& doc) -> std::optional<Error> {
    if (!sel.ids) return std::nullopt;
    std::vector<std::string> unknown;
    for (const auto& id : *sel.ids) {
      const Credential* c = doc.find(id);
      const bool known = c ? (sel.provider.empty() || edit_provider_matches(c->provider, sel.provider)) : stored(doc, id);
      if (!known) {
        if (std::find(unknown.begin(), unknown.end(), id) == unknown.end()) unknown.push_back(id);
      }
    }
    if (unknown.empty()) return std::nullopt;
    return Error{"AUTH_PROFILE_UNKNOWN", "no auth profile " + quoted_ids(unknown) +
                                             (sel.provider.empty() ? "" : " of provider " + sel.provider)};
  };
  // Nothing to remove: no write (an absent file stays absent).
  auto before = file.load();
  if (!before) return before.error();
  if (auto e = check(*before)) return *e;
  if (selected(*before).empty()) return removed;
  auto st = checked_update(file, check, [&](AuthProfiles& doc) {
    removed = selected(doc);
    for (const auto& id : removed) doc.remove(id);
  });
  if (!st) return st.error();
  return removed;
}

Status set_provider_order(AuthProfileFile& file, std::string_view provider, const std::vector<std::string>& ids,
                          bool require_every_profile) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(i), ids[i]) != ids.begin() + static_cast<std::ptrdiff_t>(i)) {
      return input_error("profile id \"" + ids[i] + "\" is given twice");
    }
  }
  const std::string p(provider);
  auto check = [&](const AuthProfiles& doc) -> std::optional<Error> {
    std::vector<std::string> unknown, missing;
    for (const auto& id : ids) {
      const Credential* c = doc.find(id);
      if (!c || !edit_provider_matches(c->provider, p)) unknown.push_back(id);
    }
    if (!unknown.empty()) return Error{"AUTH_PROFILE_UNKNOWN", "no auth profile " + quoted_ids(unknown) + " of provider " + p};
    if (require_every_profile && !ids.empty()) {
      for (const auto& c : doc.credentials()) {
        if (edit_provider_matches(c.provider, p) && std::find(ids.begin(), ids.end(), c.id) == ids.end()) missing.push_back(c.id);
      }
      if (!missing.empty()) {
        return input_error("the order must name every profile of provider " + p + "; missing " + quoted_ids(missing));
      }
    }
    return std::nullopt;
  };
  return checked_update(file, check, [&](AuthProfiles& doc) { doc.set_order(p, ids); });
}

}  // namespace pincer::llm::auth
