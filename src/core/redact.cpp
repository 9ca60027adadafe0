#include "core/redact.h"

#include <algorithm>
#include <mutex>
#include <regex>
#include <shared_mutex>
#include <vector>

namespace pincer::redact {
namespace {

std::shared_mutex g_mutex;
std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

const std::regex& patterns() {
  // Compiled once. ECMAScript flavour; kept deliberately small so that logging stays cheap.
  static const std::regex re(
      R"((Bearer\s+)[A-Za-z0-9._~+/=-]{6,})"                                          // Authorization header
      R"(|\b(sk-[A-Za-z0-9_-]{8,}|xox[abprs]-[A-Za-z0-9-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}))"  // API key shapes
      R"(|((?:"|')?(?:token|password|secret|apiKey|api_key|authorization|deviceToken)(?:"|')?\s*[:=]\s*(?:"|')?(?:Bearer\s+)?)([^"'\s,}&]{3,}))",
      std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  return re;
}

}  // namespace

void add_secret(std::string_view value) {
  if (value.size() < kMinSecretBytes) return;
  std::unique_lock lock(g_mutex);
  auto& s = secrets();
  if (std::find(s.begin(), s.end(), value) == s.end()) s.emplace_back(value);
  // Longest first so that a secret containing another is replaced whole.
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

void clear_secrets() {
  std::unique_lock lock(g_mutex);
  secrets().clear();
}

std::string apply(std::string_view text) {
  std::string out(text);
  {
    std::shared_lock lock(g_mutex);
    for (const auto& secret : secrets()) {
      for (size_t pos = out.find(secret); pos != std::string::npos; pos = out.find(secret, pos + 3)) {
        out.replace(pos, secret.size(), "***");
      }
    }
  }
  std::string result;
  result.reserve(out.size());
  auto begin = std::sregex_iterator(out.begin(), out.end(), patterns());
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    result.append(out, last, static_cast<size_t>(m.position(0)) - last);
    if (m[1].matched) {
      result += m[1].str() + "***";
    } else if (m[2].matched) {
      result += "***";
    } else {
      result += m[3].str() + "***";
    }
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  result.append(out, last, std::string::npos);
  return result;
}

}  // namespace pincer::redact
