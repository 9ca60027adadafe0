#include "core/redact.h"

#include <algorithm>
#include <cctype>
#include <cstring>
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

// Every quantifier is bounded: libstdc++'s regex executor recurses once per repetition, so an
// unbounded one over a long run (a 100 KB "sk-aaaa…" in a log line) overflows the stack. A
// credential longer than the bound (256) is masked to its end by extend() below.

const std::regex& patterns() {
  // Compiled once. ECMAScript flavour; kept deliberately small so that logging stays cheap.
  static const std::regex re(
      R"((Bearer\s{1,16})[A-Za-z0-9._~+/=-]{6,256})"                                          // Authorization header
      R"(|\b(sk-[A-Za-z0-9_-]{8,256}|xox[abprs]-[A-Za-z0-9-]{8,256}|gh[pousr]_[A-Za-z0-9]{16,256}))"  // API key shapes
      R"(|((?:"|')?(?:token|password|secret|apiKey|api_key|authorization|deviceToken)(?:"|')?\s{0,16}[:=]\s{0,16}(?:"|')?(?:Bearer\s{1,16})?)([^"'\s,}&]{3,256}))",
      std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  return re;
}

bool bearer_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._~+/=-", c) != nullptr; }
bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
bool value_char(char c) {
  return !std::isspace(static_cast<unsigned char>(c)) && c != '\0' && std::strchr("\"',}&", c) == nullptr;
}

/// The end of a credential whose match stopped at `pos` (the pattern's bound): past the rest of
/// its characters.
std::size_t extend(const std::string& s, std::size_t pos, bool (*in_run)(char)) {
  while (pos < s.size() && in_run(s[pos])) ++pos;
  return pos;
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

// `token: required` in an error message is prose, not a credential: an unquoted value after a
// colon is masked only when it looks like one (a digit or one of _ - . / + =, or 12+ characters).
// `token=word` and quoted `"token":"word"` are machine forms and always masked.
namespace {
bool reads_as_prose(const std::string& key_part, const std::string& value) {
  if (key_part.find(':') == std::string::npos || key_part.find_first_of("\"'") != std::string::npos) return false;
  if (value.size() >= 12) return false;
  return value.find_first_of("0123456789_-./+=") == std::string::npos;
}
}  // namespace

namespace {

/// Where a credential pattern can begin: every alternative of patterns() starts with one of
/// these words (any case), or with a quote right before a field name. Running the regex only at
/// these places (anchored) instead of letting regex_search try every position of every log line
/// keeps logging cheap; the result is the same because no match can start anywhere else.
constexpr std::string_view kAnchors[] = {"bearer", "sk-", "xox", "gh", "token", "password",
                                         "secret", "apikey", "api_key", "authorization", "devicetoken"};

bool quote(char c) { return c == '"' || c == '\''; }

bool starts_with_icase(std::string_view s, std::size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(s[at + k])) != word[k]) return false;
  }
  return true;
}

bool regex_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/// Whether what follows the anchor word `word` at `after` can continue a match of patterns():
/// each alternative needs a particular next character (the Bearer scheme a space, `sk-` a key
/// character, `xox`/`gh` their type letter and separator, a field name an optional quote, spaces
/// and `:` or `=`). "tokens" in "3494 in, 6 out tokens" is no credential, and the regex is not run.
bool can_continue(std::string_view s, std::size_t after, std::string_view word) {
  const auto at = [&](std::size_t k) { return k < s.size() ? static_cast<char>(std::tolower(static_cast<unsigned char>(s[k]))) : '\0'; };
  if (word == "bearer") return regex_space(at(after));
  if (word == "sk-") return std::isalnum(static_cast<unsigned char>(at(after))) || at(after) == '_' || at(after) == '-';
  if (word == "xox") return at(after) != '\0' && std::strchr("abprs", at(after)) != nullptr && at(after + 1) == '-';
  if (word == "gh") return at(after) != '\0' && std::strchr("pousr", at(after)) != nullptr && at(after + 1) == '_';
  std::size_t k = after;
  if (quote(at(k))) ++k;
  for (int n = 0; n < 16 && regex_space(at(k)); ++n) ++k;
  return at(k) == ':' || at(k) == '=';
}

/// Whether an anchor word starts at `at` and can begin a match there (a cheap filter before the
/// regex runs; a necessary condition, so the result is the same as without it).
bool anchor_at(std::string_view s, std::size_t at) {
  const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[at])));
  if (std::strchr("bsxgtpad", c) == nullptr) return false;
  for (std::string_view word : kAnchors) {
    if (word[0] == c && starts_with_icase(s, at, word) && can_continue(s, at + word.size(), word)) return true;
  }
  return false;
}

}  // namespace

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
  // Searched from where the last mask ended (a mask may extend past its match, and a credential
  // right after it must still be found). At each anchor the regex runs anchored, first from a
  // quote just before it (part of a quoted field name), then from the anchor itself.
  std::size_t pos = 0;
  std::smatch m;
  const auto match_at = [&](std::size_t at) {
    auto flags = std::regex_constants::match_continuous;
    if (at > 0) flags |= std::regex_constants::match_prev_avail;  // \b sees the character before
    return std::regex_search(out.cbegin() + static_cast<std::ptrdiff_t>(at), out.cend(), m, patterns(), flags);
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!anchor_at(out, i)) continue;
    std::size_t start = i;
    if (!(i > pos && quote(out[i - 1]) && match_at(start = i - 1)) && !match_at(start = i)) continue;
    std::size_t end = start + static_cast<std::size_t>(m.length(0));
    if (result.empty()) result.reserve(out.size());
    result.append(out, pos, start - pos);
    if (m[1].matched) {
      result += m[1].str() + "***";
      end = extend(out, end, bearer_char);
    } else if (m[2].matched) {
      result += "***";
      end = extend(out, end, key_char);
    } else if (reads_as_prose(m[3].str(), m[4].str())) {
      result += m[0].str();  // "gateway.auth.token: gateway token is 5 characters" stays readable
    } else {
      result += m[3].str() + "***";
      end = extend(out, end, value_char);
    }
    pos = end;
    i = end - 1;  // the loop's ++i resumes at `end`
  }
  if (pos == 0) return out;
  if (pos < out.size()) result.append(out, pos, std::string::npos);
  return result;
}

}  // namespace pincer::redact
