// "${NAME}" references in config strings: substitution at load ("$${NAME}" is a literal "${NAME}",
// a missing or empty variable is an error) and env_references() (config.h).
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/config_internal.h"

namespace pincer::config {
namespace detail_config_env {

using nlohmann::json;
using detail_config::index_path;
using detail_config::key_path;
using detail_config::shown;

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The NAME of a "${NAME}" starting at `open` (the index of '{'), and the index of its '}'.
std::optional<std::pair<std::string, std::size_t>> env_reference(const std::string& s,
                                                                  std::size_t open) {
  if (open >= s.size() || s[open] != '{') return std::nullopt;
  std::size_t close = s.find('}', open + 1);
  if (close == std::string::npos) return std::nullopt;
  std::string name = s.substr(open + 1, close - open - 1);
  if (!is_env_name(name)) return std::nullopt;
  return std::make_pair(std::move(name), close);
}

// One left-to-right pass (as OpenClaw's substituteString): substituted text is never re-scanned.
// A missing or empty variable adds one line to `missing` (and stays as written).
std::string substitute_string(const std::string& s, const EnvLookup& env, const std::string& path,
                              std::vector<std::string>& missing) {
  if (s.find('$') == std::string::npos) return s;
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$') {
      out += s[i];
      continue;
    }
    bool escaped = i + 1 < s.size() && s[i + 1] == '$';
    if (auto ref = env_reference(s, i + (escaped ? 2 : 1))) {
      const auto& [name, close] = *ref;
      if (escaped) {
        out += "${" + name + "}";
      } else {
        std::optional<std::string> value = env ? env(name) : std::nullopt;
        if (!value || value->empty()) {
          missing.push_back("missing env var \"" + name + "\" referenced at config path " + shown(path));
          out += "${" + name + "}";
        } else {
          out += *value;
        }
      }
      i = close;
      continue;
    }
    out += s[i];
  }
  return out;
}

void substitute_env_in(json& v, const EnvLookup& env, const std::string& path, std::vector<std::string>& missing) {
  if (v.is_string()) {
    v = substitute_string(v.get_ref<const std::string&>(), env, path, missing);
  } else if (v.is_object()) {
    for (auto& [key, child] : v.items()) substitute_env_in(child, env, key_path(path, key), missing);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) substitute_env_in(v[i], env, index_path(path, i), missing);
  }
}

// Every unescaped "${NAME}" in the strings below `v`, scanned as substitute_string() does.
void collect_env_references(const json& v, const std::string& path, std::vector<EnvReference>& out) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '$') continue;
      bool escaped = i + 1 < s.size() && s[i + 1] == '$';
      if (auto ref = env_reference(s, i + (escaped ? 2 : 1))) {
        if (!escaped) out.push_back(EnvReference{ref->first, shown(path)});
        i = ref->second;
      }
    }
  } else if (v.is_object()) {
    for (const auto& [key, child] : v.items()) collect_env_references(child, key_path(path, key), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) collect_env_references(v[i], index_path(path, i), out);
  }
}

}  // namespace detail_config_env

namespace detail_config {

// Every reference replaced; every missing variable named, one line each (not only the first:
// a user fixes them all in one go).
Status substitute_env(nlohmann::json& v, const EnvLookup& env, const std::string& path) {
  std::vector<std::string> missing;
  detail_config_env::substitute_env_in(v, env, path, missing);
  if (missing.empty()) return Ok{};
  std::string message;
  for (const auto& line : missing) message += (message.empty() ? "" : "\n") + line;
  return invalid(message);
}

}  // namespace detail_config

std::vector<EnvReference> env_references(const nlohmann::json& doc) {
  std::vector<EnvReference> out;
  detail_config_env::collect_env_references(doc, "", out);
  return out;
}

}  // namespace pincer::config
