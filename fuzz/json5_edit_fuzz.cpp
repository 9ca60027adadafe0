// libFuzzer target for comment-preserving JSON5 edits (src/core/json5_edit.h).
//
// Input layout: "<op><path>\n<value>\n<document>", where <op> is 's' (set) or 'u' (unset),
// <path> uses the json5_edit path syntax and <value> is JSON5 (or, when it does not parse, taken
// as a plain string).
//
// Checked for every document that json5::parse accepts:
// - set/unset never crash or throw, and never answer EDIT_FAILED;
// - when the edit is possible (by the independent reference below), the returned text parses to
//   exactly the reference document (number kinds included, NaN == NaN); editing the result again
//   with the same set gives the same document;
// - when it is not, the error is PATH_CONFLICT (set) or PATH_NOT_FOUND (unset);
// - an unparsable path is PATH_INVALID.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json5.h"
#include "core/json5_edit.h"

namespace {

using nlohmann::json;
using pincer::json5::Path;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
  }
  if (a.is_structured()) {
    if (a.size() != b.size()) return false;
    if (a.is_array()) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same(a[i], b[i])) return false;
      }
      return true;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto jt = b.find(it.key());
      if (jt == b.end() || !same(*it, *jt)) return false;
    }
    return true;
  }
  return a == b;
}

/// The value created for a missing path[from..]: objects for keys, one-element arrays for [0].
std::optional<json> ref_tail(const Path& path, std::size_t from, const json& value) {
  json built = value;
  for (std::size_t k = path.size(); k-- > from;) {
    if (const auto* key = std::get_if<std::string>(&path[k])) built = json::object({{*key, built}});
    else if (std::get<std::size_t>(path[k]) == 0) built = json::array({built});
    else return std::nullopt;
  }
  return built;
}

/// Reference set: nullopt when the path goes through a wrong kind or past an array's end.
std::optional<json> ref_set(json v, const Path& path, std::size_t i, const json& value) {
  if (i == path.size()) return value;
  if (const auto* key = std::get_if<std::string>(&path[i])) {
    if (!v.is_object()) return std::nullopt;
    auto child = v.contains(*key) ? ref_set(v[*key], path, i + 1, value) : ref_tail(path, i + 1, value);
    if (!child) return std::nullopt;
    v[*key] = *child;
    return v;
  }
  const std::size_t index = std::get<std::size_t>(path[i]);
  if (!v.is_array() || index > v.size()) return std::nullopt;
  auto child = index < v.size() ? ref_set(v[index], path, i + 1, value) : ref_tail(path, i + 1, value);
  if (!child) return std::nullopt;
  if (index < v.size()) v[index] = *child;
  else v.push_back(*child);
  return v;
}

/// Reference unset: nullopt when nothing is at the path.
std::optional<json> ref_unset(json v, const Path& path, std::size_t i) {
  if (const auto* key = std::get_if<std::string>(&path[i])) {
    if (!v.is_object() || !v.contains(*key)) return std::nullopt;
    if (i + 1 == path.size()) {
      v.erase(*key);
      return v;
    }
    auto replaced = ref_unset(v[*key], path, i + 1);
    if (!replaced) return std::nullopt;
    v[*key] = *replaced;
    return v;
  }
  const std::size_t index = std::get<std::size_t>(path[i]);
  if (!v.is_array() || index >= v.size()) return std::nullopt;
  if (i + 1 == path.size()) {
    v.erase(index);
    return v;
  }
  auto replaced = ref_unset(v[index], path, i + 1);
  if (!replaced) return std::nullopt;
  v[index] = *replaced;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const bool is_set = input[0] != 'u';
  input.remove_prefix(1);
  const std::size_t nl1 = input.find('\n');
  if (nl1 == std::string_view::npos) return 0;
  const std::size_t nl2 = input.find('\n', nl1 + 1);
  if (nl2 == std::string_view::npos) return 0;
  const std::string_view path_text = input.substr(0, nl1);
  const std::string_view value_text = input.substr(nl1 + 1, nl2 - nl1 - 1);
  const std::string_view text = input.substr(nl2 + 1);
  try {
    auto doc = pincer::json5::parse(text);
    if (!doc) return 0;
    auto path = pincer::json5::parse_path(path_text);
    if (!path) {
      auto r = pincer::json5::set(text, path_text, json(1));
      check(!r && r.error().code == "PATH_INVALID");
      return 0;
    }
    if (is_set) {
      auto parsed_value = pincer::json5::parse(value_text);
      json value;
      if (parsed_value) {
        value = *parsed_value;
      } else {
        // Not JSON5: the value as a string; set must refuse it when it is not valid UTF-8.
        value = std::string(value_text);
        try {
          (void)value.dump();
        } catch (const json::exception&) {
          auto r = pincer::json5::set(text, *path, value);
          check(!r && r.error().code == "INVALID_VALUE");
          return 0;
        }
      }
      const auto expected = ref_set(*doc, *path, 0, value);
      auto r = pincer::json5::set(text, *path, value);
      if (!expected) {
        check(!r && r.error().code == "PATH_CONFLICT");
        return 0;
      }
      check(r.ok());
      auto reparsed = pincer::json5::parse(*r);
      check(reparsed.ok() && same(*reparsed, *expected));
      auto again = pincer::json5::set(*r, *path, value);
      check(again.ok());
      auto reparsed_again = pincer::json5::parse(*again);
      check(reparsed_again.ok() && same(*reparsed_again, *expected));
    } else {
      const auto expected = ref_unset(*doc, *path, 0);
      auto r = pincer::json5::unset(text, *path);
      if (!expected) {
        check(!r && r.error().code == "PATH_NOT_FOUND");
        return 0;
      }
      check(r.ok());
      auto reparsed = pincer::json5::parse(*r);
      check(reparsed.ok() && same(*reparsed, *expected));
    }
  } catch (...) {
    __builtin_trap();
  }
  return 0;
}
