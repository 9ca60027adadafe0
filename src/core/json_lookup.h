// Optional values read out of a JSON document by a path of object keys, with a fallback: for
// settings resolved from an already validated config (the schema has checked the types; a value
// of another type still yields the fallback rather than an exception). Header-only; pure;
// thread-safe.
#pragma once

#include <initializer_list>

#include <nlohmann/json.hpp>

namespace pincer::json_lookup {

/// The value at `path` (object keys, outermost first) below `j`, or nullptr when a key is missing
/// or a step on the way is not an object. An empty path is `j` itself.
inline const nlohmann::json* find_path(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

/// The value at `path`, or a null value (static, never modified) when find_path finds nothing: for
/// chained reads such as `at_or_null(cfg, {"tools", "web"}).value("enabled", true)`.
inline const nlohmann::json& at_or_null(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json null_value;
  const nlohmann::json* v = find_path(j, path);
  return v ? *v : null_value;
}

/// The value at `path` converted to T, or `fallback` when it is absent, null or not convertible
/// to T (nlohmann's get<T>: numbers convert between kinds, a string is not a number).
template <class T>
T value_or(const nlohmann::json& j, std::initializer_list<const char*> path, T fallback) {
  const nlohmann::json* v = find_path(j, path);
  if (!v || v->is_null()) return fallback;
  try {
    return v->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

/// The kind of `v` for a message ("expected a string, got an array"): "an object", "an array",
/// "a string", "a boolean", "null" or "a number".
inline const char* kind_of(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::null: return "null";
    default: return "a number";
  }
}

}  // namespace pincer::json_lookup
