// JSON paths and values as config error messages show them (see config_internal.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "core/config_internal.h"
#include "core/json_dump.h"

namespace pincer::config::detail_config {
namespace {

using nlohmann::json;

bool is_plain_key(const std::string& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '$';
  });
}

}  // namespace

Error invalid(std::string message) { return Error{kErrorCode, std::move(message)}; }

std::string key_path(const std::string& parent, const std::string& key) {
  if (!is_plain_key(key)) return parent + "[" + json_dump::compact(json(key)) + "]";
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

// The root has no path of its own; name it so messages never start with ": ".
std::string shown(const std::string& path) { return path.empty() ? "(root)" : path; }

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::string: return "string";
    case json::value_t::boolean: return "boolean";
    case json::value_t::binary: return "binary";
    case json::value_t::discarded: return "nothing";
    default: return "number";
  }
}

// What an error message shows after "got": short literals, a type name for containers, and only
// the type for sensitive values (a mistyped token must not end up in a log).
std::string describe_value(const json& v, bool sensitive) {
  if (v.is_object() || v.is_array() || v.is_null() || sensitive) return type_name(v);
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  }
  constexpr std::size_t kMaxShown = 64;
  if (v.is_string() && v.get_ref<const std::string&>().size() > kMaxShown) {
    return json(v.get_ref<const std::string&>().substr(0, kMaxShown))
               .dump(-1, ' ', false, json::error_handler_t::replace) + "…";
  }
  return json_dump::compact(v);
}

}  // namespace pincer::config::detail_config
