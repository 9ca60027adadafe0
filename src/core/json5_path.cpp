// Paths of json5_edit (contract in json5_edit.h): their syntax (parse_path, format_path) and their
// meaning on a parsed document (find, apply_set, apply_unset — the result an edit of the text
// must produce), and the equality that result is checked with (same_json).
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <variant>

#include "core/json5.h"
#include "core/json5_edit.h"
#include "core/json5_edit_internal.h"
#include "core/json_dump.h"
#include "core/json_lookup.h"
#include "core/utf8.h"

namespace pincer::json5 {
namespace detail_json5_path {

using nlohmann::json;
using detail_json5_edit::edit_error;

std::string prefix_text(const Path& path, std::size_t count) {
  return count == 0 ? std::string("the document") : format_path(Path(path.begin(), path.begin() + count));
}

Error conflict(const Path& path, const std::string& what) {
  return edit_error("PATH_CONFLICT", format_path(path) + ": " + what);
}

/// The value to insert for the missing tail path[from..]: nested objects/arrays around `value`.
Result<json> build_tail_impl(const Path& path, std::size_t from, const json& value) {
  if (from == path.size()) return value;
  auto inner = build_tail_impl(path, from + 1, value);
  if (!inner) return inner;
  if (const auto* key = std::get_if<std::string>(&path[from])) return json::object({{*key, std::move(*inner)}});
  const std::size_t index = std::get<std::size_t>(path[from]);
  if (index != 0) {
    return conflict(path, prefix_text(path, from) + " does not exist, so it can only be created with index [0], not [" +
                                    std::to_string(index) + "]");
  }
  return json::array({std::move(*inner)});
}

}  // namespace detail_json5_path

namespace detail_json5_edit {

Error edit_error(const char* code, std::string message) { return Error{code, std::move(message)}; }

Result<nlohmann::json> build_tail(const Path& path, std::size_t from, const nlohmann::json& value) {
  return detail_json5_path::build_tail_impl(path, from, value);
}

}  // namespace detail_json5_edit

using nlohmann::json;
using detail_json5_edit::edit_error;
using detail_json5_path::build_tail_impl;
using detail_json5_path::conflict;
using json_lookup::kind_of;
using detail_json5_path::prefix_text;

Result<Path> parse_path(std::string_view text) {
  const auto bad = [&](const std::string& why, std::size_t at) {
    return edit_error("PATH_INVALID", std::string(text) + ": " + why + " at offset " + std::to_string(at));
  };
  if (text.empty()) return edit_error("PATH_INVALID", "empty path");
  if (!utf8::is_valid(text)) return edit_error("PATH_INVALID", "the path is not valid UTF-8");
  Path out;
  std::size_t i = 0;
  const auto read_key = [&]() -> std::string {
    const std::size_t start = i;
    while (i < text.size() && text[i] != '.' && text[i] != '[' && text[i] != ']') ++i;
    return std::string(text.substr(start, i - start));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '[') {
      const std::size_t open = i++;
      if (i < text.size() && (text[i] == '"' || text[i] == '\'')) {
        const char quote = text[i];
        std::size_t k = i + 1;
        while (k < text.size() && text[k] != quote) k += text[k] == '\\' ? 2 : 1;
        if (k >= text.size()) return bad("unterminated quoted key", i);
        auto key = parse(text.substr(i, k + 1 - i));
        if (!key || !key->is_string()) return bad("invalid quoted key", i);
        out.emplace_back(key->get<std::string>());
        i = k + 1;
      } else {
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        const std::string_view digits = text.substr(start, i - start);
        if (digits.empty()) return bad("expected an index or a quoted key after '['", open);
        if (digits.size() > 1 && digits[0] == '0') return bad("index with a leading zero", start);
        if (digits.size() > 9) return bad("index too large", start);
        out.emplace_back(static_cast<std::size_t>(std::stoul(std::string(digits))));
      }
      if (i >= text.size() || text[i] != ']') return bad("expected ']'", i);
      ++i;
    } else if (c == '.') {
      if (out.empty()) return bad("empty key", i);
      ++i;
      std::string key = read_key();
      if (key.empty()) return bad("empty key", i);
      out.emplace_back(std::move(key));
    } else if (c == ']') {
      return bad("unexpected ']'", i);
    } else {
      if (!out.empty()) return bad("expected '.' or '['", i);
      out.emplace_back(read_key());
    }
  }
  return out;
}

std::string format_path(const Path& path) {
  std::string out;
  for (const auto& seg : path) {
    if (const auto* key = std::get_if<std::string>(&seg)) {
      if (key->empty() || key->find_first_of(".[]") != std::string::npos) {
        out += "[" + json_dump::compact(json(*key)) + "]";
      } else {
        out += (out.empty() ? "" : ".") + *key;
      }
    } else {
      out += "[" + std::to_string(std::get<std::size_t>(seg)) + "]";
    }
  }
  return out;
}

const nlohmann::json* find(const nlohmann::json& doc, const Path& path) {
  const json* cur = &doc;
  for (const auto& seg : path) {
    if (const auto* key = std::get_if<std::string>(&seg)) {
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(*key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(seg);
      if (!cur->is_array() || index >= cur->size()) return nullptr;
      cur = &(*cur)[index];
    }
  }
  return cur;
}

Result<nlohmann::json> apply_set(nlohmann::json doc, const Path& path, const nlohmann::json& value) {
  if (path.empty()) return edit_error("PATH_INVALID", "empty path");
  json* cur = &doc;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!cur->is_object()) return conflict(path, prefix_text(path, i) + " is " + kind_of(*cur) + ", not an object");
      auto it = cur->find(*key);
      if (it == cur->end()) {
        auto tail = build_tail_impl(path, i + 1, value);
        if (!tail) return tail.error();
        (*cur)[*key] = std::move(*tail);
        return doc;
      }
      if (last) {
        *it = value;
        return doc;
      }
      cur = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(path[i]);
      if (!cur->is_array()) return conflict(path, prefix_text(path, i) + " is " + kind_of(*cur) + ", not an array");
      if (index > cur->size()) {
        return conflict(path, "index " + std::to_string(index) + " is past the end of " + prefix_text(path, i) +
                                     " (" + std::to_string(cur->size()) + " elements; use [" +
                                     std::to_string(cur->size()) + "] to append)");
      }
      if (index == cur->size()) {
        auto tail = build_tail_impl(path, i + 1, value);
        if (!tail) return tail.error();
        cur->push_back(std::move(*tail));
        return doc;
      }
      if (last) {
        (*cur)[index] = value;
        return doc;
      }
      cur = &(*cur)[index];
    }
  }
  return doc;
}

Result<nlohmann::json> apply_unset(nlohmann::json doc, const Path& path) {
  if (path.empty()) return edit_error("PATH_INVALID", "empty path");
  json* p = &doc;
  for (std::size_t i = 0; p != nullptr && i + 1 < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      auto it = p->is_object() ? p->find(*key) : p->end();
      p = p->is_object() && it != p->end() ? &*it : nullptr;
    } else {
      const std::size_t index = std::get<std::size_t>(path[i]);
      p = p->is_array() && index < p->size() ? &(*p)[index] : nullptr;
    }
  }
  const auto not_found = [&] { return edit_error("PATH_NOT_FOUND", format_path(path) + ": not set"); };
  if (p == nullptr) return not_found();
  if (const auto* key = std::get_if<std::string>(&path.back())) {
    if (!p->is_object() || p->erase(*key) == 0) return not_found();
  } else {
    const std::size_t index = std::get<std::size_t>(path.back());
    if (!p->is_array() || index >= p->size()) return not_found();
    p->erase(index);
  }
  return doc;
}

bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_json(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if (it.key() != jt.key() || !same_json(it.value(), jt.value())) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace pincer::json5
