#include "agent/auth_profile_pin.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace pincer::agent {

namespace detail_auth_profile_pin {

std::string pin_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

/// `@20250101…`: eight digits, then the end or another '@'.
bool date_suffix(std::string_view rest) {
  if (rest.size() < 8) return false;
  for (std::size_t i = 0; i < 8; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(rest[i]))) return false;
  }
  return rest.size() == 8 || rest[8] == '@';
}

/// `@q4_k_m`, `@iq3`, `@8bit` (OpenClaw's /^(?:i?q\d+(?:_[a-z0-9]+)*|\d+bit)(?:@|$)/i).
bool quant_suffix(std::string_view rest) {
  const std::string_view word = rest.substr(0, rest.find('@'));
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i]))) ++i;
    return i > start;
  };
  if (i < word.size() && lower(word[i]) == 'i') ++i;
  if (i < word.size() && lower(word[i]) == 'q') {
    ++i;
    if (!digits()) return false;
    while (i < word.size() && word[i] == '_') {
      ++i;
      const std::size_t start = i;
      while (i < word.size() && std::isalnum(static_cast<unsigned char>(word[i]))) ++i;
      if (i == start) return false;
    }
    return i == word.size();
  }
  i = 0;
  if (!digits()) return false;
  return word.substr(i).size() == 3 && lower(word[i]) == 'b' && lower(word[i + 1]) == 'i' && lower(word[i + 2]) == 't';
}

}  // namespace detail_auth_profile_pin

using namespace detail_auth_profile_pin;

ModelRefWithProfile split_model_profile(std::string_view raw) {
  const std::string s = pin_trimmed(raw);
  if (s.empty()) return {};
  const std::size_t slash = s.rfind('/');
  std::size_t at = s.find('@', slash == std::string::npos ? 0 : slash + 1);
  if (at == std::string::npos || at == 0) return {s, ""};
  if (date_suffix(std::string_view(s).substr(at + 1))) {
    at = s.find('@', at + 9);
    if (at == std::string::npos) return {s, ""};
  }
  if (quant_suffix(std::string_view(s).substr(at + 1))) {
    at = s.find('@', at + 1);
    if (at == std::string::npos) return {s, ""};
  }
  std::string model = pin_trimmed(std::string_view(s).substr(0, at));
  std::string profile = pin_trimmed(std::string_view(s).substr(at + 1));
  if (model.empty() || profile.empty()) return {s, ""};
  return {std::move(model), std::move(profile)};
}

Status check_pinnable_profile(const llm::auth::AuthProfiles& profiles, std::string_view profile_id,
                              std::string_view provider) {
  // The provider's profiles (names compare case-insensitively, as the order does).
  const std::vector<std::string> ids = profiles.order(provider, 0);
  if (const llm::auth::Credential* c = profiles.find(profile_id)) {
    if (std::find(ids.begin(), ids.end(), c->id) != ids.end()) return Ok{};
    return Error{"INVALID_REQUEST",
                 "auth profile \"" + std::string(profile_id) + "\" is for " + c->provider + ", not " + std::string(provider)};
  }
  std::string known;
  for (const auto& id : ids) known += (known.empty() ? "" : ", ") + id;
  return Error{"INVALID_REQUEST", "auth profile \"" + std::string(profile_id) + "\" not found; " +
                                      (known.empty() ? "provider " + std::string(provider) + " has no auth profiles"
                                                     : "the profiles for " + std::string(provider) + " are " + known) +
                                      " (pincer models auth list)"};
}

}  // namespace pincer::agent
