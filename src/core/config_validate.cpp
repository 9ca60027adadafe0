// Strict validation of a resolved config document against the schema (config_schema.h): unknown
// keys, types, bounds, string formats and patterns, required keys, unions. Only reads the tree;
// knows no key names.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/config_internal.h"
#include "core/config_schema.h"

namespace pincer::config {
namespace detail_config_validate {

using nlohmann::json;
using schema::Kind;
using schema::Node;
using namespace detail_config;

// Dotted-quad IPv4 without leading zeros ("127.0.0.1"), as inet_pton(AF_INET) accepts.
// An absolute http:// or https:// URL with a host (and a valid port when one is given), no
// whitespace. A value still holding a "${NAME}" reference (`config set` validates before
// substitution) is checked once substituted, at load.
bool is_http_url(const std::string& s) {
  if (s.find("${") != std::string::npos) return true;
  if (s.find_first_of(" \t\r\n") != std::string::npos) return false;
  std::string lower_s = s.substr(0, 8);
  std::transform(lower_s.begin(), lower_s.end(), lower_s.begin(), [](unsigned char c) { return std::tolower(c); });
  std::size_t start = lower_s.rfind("https://", 0) == 0 ? 8 : lower_s.rfind("http://", 0) == 0 ? 7 : 0;
  if (start == 0) return false;
  std::string authority = s.substr(start, s.find_first_of("/?#", start) - start);
  if (auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  std::string host = authority, port;
  if (!authority.empty() && authority[0] == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return false;
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return false;
      port = authority.substr(close + 2);
      if (port.empty()) return false;
    }
  } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return false;
  }
  if (host.empty() || host == "[]") return false;
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); })) return false;
    const int n = std::stoi(port);
    if (n < 1 || n > 65535) return false;
  }
  return true;
}

// A browser origin as gateway.controlUi.allowedOrigins lists it: `*`, or http(s)://host[:port] with
// nothing after the authority (no path, query, fragment or user info) — what a browser sends in
// its Origin header. "null" (sandboxed frames, file:// pages) is no origin anyone can be trusted by.
bool is_origin(const std::string& s) {
  if (s == "*" || s.find("${") != std::string::npos) return true;
  if (!is_http_url(s)) return false;
  const std::size_t authority = s.find("://") + 3;
  return s.find_first_of("/?#@", authority) == std::string::npos;
}

// No control characters (newline, tab, NUL, DEL …): a value that must stay one line, e.g. a token
// sent in a header or a directory name.
bool is_text_line(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

bool is_ipv4(const std::string& s) {
  int parts = 0;
  std::size_t i = 0;
  while (true) {
    std::size_t start = i;
    int value = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 4) {
      value = value * 10 + (s[i] - '0');
      ++i;
    }
    std::size_t digits = i - start;
    if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s[start] == '0')) return false;
    if (++parts == 4) return i == s.size();
    if (i >= s.size() || s[i] != '.') return false;
    ++i;
  }
}

bool matches_number(const Node& node, const json& v) {
  if (!v.is_number()) return false;
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d)) return false;
    if (node.kind() == Kind::kInteger && std::trunc(d) != d) return false;
  }
  double d = v.get<double>();
  if (node.kind() == Kind::kInteger && std::fabs(d) > schema::kMaxSafeInteger) return false;
  if (node.minimum() && d < *node.minimum()) return false;
  if (node.maximum() && d > *node.maximum()) return false;
  return true;
}

// Whether the whole string matches the node's pattern (ECMAScript syntax; none = always).
bool matches_pattern(const Node& node, const std::string& s) {
  if (node.string_pattern().empty()) return true;
  return std::regex_match(s, std::regex(node.string_pattern(), std::regex::ECMAScript));
}

// Whether a non-container value has the kind (and bounds/format) the node asks for.
bool matches_scalar(const Node& node, const json& v) {
  switch (node.kind()) {
    case Kind::kString:
      return v.is_string() && (node.string_format() != "ipv4" || is_ipv4(v.get<std::string>())) &&
             (node.string_format() != "http-url" || is_http_url(v.get<std::string>())) &&
             (node.string_format() != "origin" || (is_origin(v.get<std::string>()) && is_text_line(v.get<std::string>()))) &&
             (node.string_format() != "text-line" || is_text_line(v.get<std::string>())) &&
             matches_pattern(node, v.get<std::string>());
    case Kind::kEnum: {
      if (!v.is_string()) return false;
      const auto& values = node.enum_values();
      return std::find(values.begin(), values.end(), v.get<std::string>()) != values.end();
    }
    case Kind::kBoolean: return v.is_boolean();
    case Kind::kInteger:
    case Kind::kNumber: return matches_number(node, v);
    default: return true;
  }
}

// Whether `v` has the JSON type a node is about (ignoring bounds, formats and contents).
bool accepts_type(const Node& node, const json& v) {
  switch (node.kind()) {
    case Kind::kObject:
    case Kind::kMap: return v.is_object();
    case Kind::kArray: return v.is_array();
    case Kind::kString:
    case Kind::kEnum: return v.is_string();
    case Kind::kInteger:
    case Kind::kNumber: return v.is_number();
    case Kind::kBoolean: return v.is_boolean();
    case Kind::kAny: return true;
    case Kind::kUnion:
      return std::any_of(node.alternatives().begin(), node.alternatives().end(),
                         [&](const Node& alt) { return accepts_type(alt, v); });
  }
  return false;
}

}  // namespace detail_config_validate

namespace detail_config {

// The alternative of a union that speaks for `v`: the first whose JSON type fits, or nullptr.
const schema::Node* alternative_for(const schema::Node& node, const nlohmann::json& v) {
  for (const schema::Node& alt : node.alternatives()) {
    if (detail_config_validate::accepts_type(alt, v)) return &alt;
  }
  return nullptr;
}

}  // namespace detail_config

namespace detail_config_validate {

std::string field_names(const Node& node) {
  std::string names;
  for (const auto& f : node.fields()) names += (names.empty() ? "" : "|") + f.name;
  return names;
}

void check(const Node& node, const json& v, const std::string& path, std::vector<std::string>& out);

void check_object(const Node& node, const json& v, const std::string& path,
                  std::vector<std::string>& out) {
  for (const auto& [key, child] : v.items()) {
    std::string child_path = key_path(path, key);
    const schema::Field* f = node.find(key);
    if (f == nullptr) {
      std::string names = field_names(node);
      const std::string suggestion = schema::suggested_key(node, key);
      out.push_back(child_path + ": unknown key" + (suggestion.empty() ? "" : ", did you mean `" + suggestion + "`?") + " (" +
                    (names.empty() ? std::string("no keys allowed here") : "expected one of " + names) + ")");
      continue;
    }
    check(f->node, child, child_path, out);
  }
  for (const auto& f : node.fields()) {
    if (f.node.is_required() && !v.contains(f.name)) {
      out.push_back(key_path(path, f.name) + ": missing required key (expected " +
                    f.node.expectation() + ")");
    }
  }
}

void check(const Node& node, const json& v, const std::string& path, std::vector<std::string>& out) {
  auto mismatch = [&] {
    out.push_back(shown(path) + ": expected " + node.expectation() + ", got " +
                  describe_value(v, node.is_sensitive()));
  };
  switch (node.kind()) {
    case Kind::kAny: return;
    case Kind::kUnion: {
      // Valid when any alternative accepts it; otherwise the errors of the alternative of the
      // value's JSON type are the useful ones ("model.primary: expected string, got 5").
      for (const Node& alt : node.alternatives()) {
        std::vector<std::string> errors;
        check(alt, v, path, errors);
        if (errors.empty()) return;
      }
      const Node* alt = alternative_for(node, v);
      if (alt == nullptr) return mismatch();
      return check(*alt, v, path, out);
    }
    case Kind::kObject:
      if (!v.is_object()) return mismatch();
      return check_object(node, v, path, out);
    case Kind::kMap:
      if (!v.is_object()) return mismatch();
      for (const auto& [key, child] : v.items()) check(node.item(), child, key_path(path, key), out);
      return;
    case Kind::kArray:
      if (!v.is_array()) return mismatch();
      for (std::size_t i = 0; i < v.size(); ++i) check(node.item(), v[i], index_path(path, i), out);
      return;
    default:
      if (!matches_scalar(node, v)) mismatch();
      return;
  }
}

std::vector<std::string> violations(const json& doc) {
  std::vector<std::string> out;
  check(schema::root(), doc, "", out);
  return out;
}

}  // namespace detail_config_validate

Status validate(const nlohmann::json& doc) {
  std::vector<std::string> found = detail_config_validate::violations(doc);
  if (found.empty()) return Ok{};
  std::string message;
  for (const auto& line : found) message += (message.empty() ? "" : "\n") + line;
  return detail_config::invalid(std::move(message));
}

}  // namespace pincer::config
