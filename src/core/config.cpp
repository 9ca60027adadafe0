// Config loading (read → JSON5 → $include → ${ENV} → validate → defaults) and the schema walkers
// (validation, defaults, JSON Schema, Markdown, redaction). The walkers only read the tree in
// config_schema.cpp; they know no key names.
#include "core/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include <sodium.h>

#include "core/config_schema.h"
#include "core/json5.h"
#include "core/json_dump.h"

namespace pincer::config {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using schema::Kind;
using schema::Node;

constexpr const char* kErrorCode = "CONFIG_INVALID";

Error invalid(std::string message) { return Error{kErrorCode, std::move(message)}; }

// ---- JSON paths ("gateway.auth.token", "a.b[2]", `x["odd key"]`) --------------------------------

bool is_plain_key(const std::string& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '$';
  });
}

std::string key_path(const std::string& parent, const std::string& key) {
  if (!is_plain_key(key)) return parent + "[" + json_dump::compact(json(key)) + "]";
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

// The root has no path of its own; name it so messages never start with ": ".
std::string shown(const std::string& path) { return path.empty() ? "(root)" : path; }

// ---- rendering values in messages --------------------------------------------------------------

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

// ---- validation ---------------------------------------------------------------------------------

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

// The alternative of a union that speaks for `v`: the first whose JSON type fits, or nullptr.
const Node* alternative_for(const Node& node, const json& v) {
  for (const Node& alt : node.alternatives()) {
    if (accepts_type(alt, v)) return &alt;
  }
  return nullptr;
}

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
      out.push_back(child_path + ": unknown key (" +
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

// ---- defaults -----------------------------------------------------------------------------------

json fill_defaults(const Node& node, json v);

// The value an absent key takes: its default, or — for an object without one — an object holding
// its children's defaults (omitted when none has any, so optional sections stay absent).
std::optional<json> absent_value(const Node& node) {
  if (node.default_value()) return fill_defaults(node, *node.default_value());
  if (node.kind() != Kind::kObject) return std::nullopt;
  json filled = fill_defaults(node, json::object());
  if (filled.empty()) return std::nullopt;
  return filled;
}

json fill_defaults(const Node& node, json v) {
  switch (node.kind()) {
    case Kind::kUnion: {
      const Node* alt = alternative_for(node, v);
      return alt == nullptr ? v : fill_defaults(*alt, std::move(v));
    }
    case Kind::kObject:
      if (!v.is_object()) return v;
      for (const auto& f : node.fields()) {
        auto it = v.find(f.name);
        if (it != v.end()) {
          *it = fill_defaults(f.node, std::move(*it));
        } else if (auto value = absent_value(f.node)) {
          v[f.name] = std::move(*value);
        }
      }
      return v;
    case Kind::kMap:
    case Kind::kArray:
      if (!v.is_object() && !v.is_array()) return v;
      for (auto& child : v) child = fill_defaults(node.item(), std::move(child));
      return v;
    default:
      return v;
  }
}

// ---- redaction ----------------------------------------------------------------------------------

json redact_node(const Node& node, json v) {
  if (node.is_sensitive()) return v.is_null() ? v : json(kRedacted);
  switch (node.kind()) {
    case Kind::kUnion: {
      const Node* alt = alternative_for(node, v);
      return alt == nullptr ? v : redact_node(*alt, std::move(v));
    }
    case Kind::kObject:
      if (!v.is_object()) return v;
      for (auto& [key, child] : v.items()) {
        if (const schema::Field* f = node.find(key)) child = redact_node(f->node, std::move(child));
      }
      return v;
    case Kind::kMap:
    case Kind::kArray:
      if (!v.is_object() && !v.is_array()) return v;
      for (auto& child : v) child = redact_node(node.item(), std::move(child));
      return v;
    default:
      return v;
  }
}

// ---- JSON Schema export -------------------------------------------------------------------------

json bound_json(double v, Kind kind) {
  if (kind == Kind::kInteger) return static_cast<std::int64_t>(v);
  return v;
}

json to_json_schema(const Node& node) {
  json s = json::object();
  switch (node.kind()) {
    case Kind::kObject: {
      s["type"] = "object";
      s["properties"] = json::object();
      json required = json::array();
      for (const auto& f : node.fields()) {
        s["properties"][f.name] = to_json_schema(f.node);
        if (f.node.is_required()) required.push_back(f.name);
      }
      if (!required.empty()) s["required"] = required;
      s["additionalProperties"] = false;
      break;
    }
    case Kind::kMap:
      s["type"] = "object";
      s["additionalProperties"] = to_json_schema(node.item());
      break;
    case Kind::kArray:
      s["type"] = "array";
      s["items"] = to_json_schema(node.item());
      break;
    case Kind::kString:
      s["type"] = "string";
      // Pincer's own formats as patterns, so that any JSON Schema validator checks them too.
      if (node.string_format() == "text-line") s["pattern"] = "^[^\\u0000-\\u001F\\u007F]*$";
      else if (node.string_format() == "origin") s["pattern"] = "^(\\*|[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+)$";
      else if (!node.string_format().empty()) s["format"] = node.string_format() == "http-url" ? "uri" : node.string_format();
      if (!node.string_pattern().empty()) s["pattern"] = node.string_pattern();
      break;
    case Kind::kInteger:
    case Kind::kNumber:
      s["type"] = node.kind() == Kind::kInteger ? "integer" : "number";
      if (node.minimum()) s["minimum"] = bound_json(*node.minimum(), node.kind());
      if (node.maximum()) s["maximum"] = bound_json(*node.maximum(), node.kind());
      break;
    case Kind::kBoolean:
      s["type"] = "boolean";
      break;
    case Kind::kEnum:
      s["type"] = "string";
      s["enum"] = node.enum_values();
      break;
    case Kind::kAny:
      break;
    case Kind::kUnion:
      s["anyOf"] = json::array();
      for (const Node& alt : node.alternatives()) s["anyOf"].push_back(to_json_schema(alt));
      break;
  }
  if (!node.description().empty()) s["description"] = node.description();
  if (node.default_value()) s["default"] = *node.default_value();
  if (node.is_sensitive()) s["x-sensitive"] = true;  // UIs mask it; config.get redacts it
  return s;
}

// ---- Markdown reference -------------------------------------------------------------------------

constexpr const char* kDocsHeader = R"(# Configuration reference

<!-- Generated from src/core/config_schema.cpp by pincer::config::markdown_reference(); do not edit.
     Regenerate: PINCER_UPDATE_DOCS=1 ./build/tests/pincer_unit_tests --gtest_filter=ConfigDocs.* -->

Pincer reads one file, `$PINCER_HOME/pincer.json`. When it is missing, every default below applies.
The gateway loads it in this order:

1. **Read** the file (at most 2 MiB) and parse it as [JSON5](https://json5.org): comments, trailing
   commas, unquoted keys and single-quoted strings are fine.
2. **`$include`**: any object may contain `"$include": "file.json5"` or `"$include": ["a.json5",
   "b.json5"]`. A single file replaces the object; several are deep-merged in order; the object's
   other keys are then merged on top (the included value must be an object for that). Deep merge:
   objects merge key by key, **arrays concatenate**, other values are replaced. Paths are relative
   to the including file and must stay inside the directory of `pincer.json`; includes nest at most
   10 deep and must not form a cycle.
3. **Environment variables**: `"${NAME}"` inside any string is replaced by the variable's value
   (also mid-string, e.g. `"Bearer ${API_TOKEN}"`); NAME must match `[A-Z_][A-Z0-9_]*`, other
   text is left alone. A missing or empty variable is an error. Write `$${NAME}` for a literal
   `${NAME}`.
4. **Validation** is strict: an unknown key, a wrong type or a value out of range is an error that
   names its path, e.g. `gateway.auth.mode: expected one of none|token|password|trusted-proxy, got
   "tokn"`. All errors are reported at once.
5. **Defaults** fill in every key left out.

Values marked *sensitive* are shown as `__PINCER_REDACTED__` by `config.get` and in logs.
The same schema is served as JSON Schema by the gateway method `config.schema`.
)";

// The "Type:" line of the reference: the error-message wording, with enum values as code.
std::string type_text(const Node& node) {
  if (node.kind() == Kind::kEnum) {
    std::string text;
    for (const auto& v : node.enum_values()) text += (text.empty() ? "one of `" : ", `") + v + "`";
    return text;
  }
  std::string text = node.expectation();
  return node.string_format().empty() ? text : text + " (string)";
}

void document_node(const Node& node, const std::string& path, int level, std::string& out);

// Children documented below a node: object fields, and the fields of object elements/values.
void document_children(const Node& node, const std::string& path, std::string& out) {
  if (node.kind() == Kind::kObject) {
    for (const auto& f : node.fields()) document_node(f.node, key_path(path, f.name), 3, out);
  } else if (node.kind() == Kind::kUnion) {
    for (const Node& alt : node.alternatives()) document_children(alt, path, out);
  } else if (node.kind() == Kind::kArray || node.kind() == Kind::kMap) {
    const Node& item = node.item();
    if (item.kind() == Kind::kObject || item.kind() == Kind::kArray || item.kind() == Kind::kMap) {
      document_children(item, path + (node.kind() == Kind::kArray ? "[]" : ".<name>"), out);
    }
  }
}

void document_node(const Node& node, const std::string& path, int level, std::string& out) {
  out += "\n" + std::string(static_cast<std::size_t>(level), '#') + " `" + path + "`\n\n";
  out += "- Type: " + type_text(node) + "\n";
  if (node.default_value()) out += "- Default: `" + node.default_value()->dump() + "`\n";
  if (!node.default_note().empty()) out += "- Default: " + node.default_note() + "\n";
  if (node.is_required()) out += "- Required (when its parent is present)\n";
  if (node.is_sensitive()) out += "- Sensitive: redacted by `config.get` and in logs\n";
  if (!node.description().empty()) out += "\n" + node.description() + "\n";
  document_children(node, path, out);
}

// ---- environment substitution -------------------------------------------------------------------

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

// Every reference replaced; every missing variable named, one line each (not only the first:
// a user fixes them all in one go).
Status substitute_env(json& v, const EnvLookup& env, const std::string& path) {
  std::vector<std::string> missing;
  substitute_env_in(v, env, path, missing);
  if (missing.empty()) return Ok{};
  std::string message;
  for (const auto& line : missing) message += (message.empty() ? "" : "\n") + line;
  return invalid(message);
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

// ---- files --------------------------------------------------------------------------------------

// Reads a whole config file. On failure the error message is only the reason ("file not found");
// callers prefix the file they name.
Result<std::string> read_file(const fs::path& p) {
  std::error_code ec;
  fs::file_status st = fs::status(p, ec);
  if (st.type() == fs::file_type::not_found) return invalid("file not found");
  if (ec) return invalid(ec.message());
  if (!fs::is_regular_file(st)) return invalid("not a regular file");
  std::ifstream in(p, std::ios::binary);
  if (!in) return invalid("cannot open file");
  // Read in chunks and stop one chunk past the limit: the check holds even if the file grows.
  std::string data;
  char chunk[64 * 1024];
  while (data.size() <= kMaxFileBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    data.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return invalid("read error");
  if (data.size() > kMaxFileBytes) return invalid("file is larger than 2 MiB");
  return data;
}

Result<json> parse_file(const std::string& text, const fs::path& display) {
  auto parsed = json5::parse(text, display.string());
  if (!parsed) return invalid(parsed.error().message);  // already "<file>:<line>:<col>: <what>"
  return std::move(parsed).value();
}

std::string sha256_hex(const std::string& bytes) {
  static const bool sodium_ready = sodium_init() >= 0;
  (void)sodium_ready;
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

// ---- $include -----------------------------------------------------------------------------------

constexpr const char* kIncludeKey = "$include";

// OpenClaw's deepMerge: objects recurse, arrays concatenate, anything else is replaced.
json deep_merge(json target, json source) {
  if (target.is_array() && source.is_array()) {
    for (auto& item : source) target.push_back(std::move(item));
    return target;
  }
  if (target.is_object() && source.is_object()) {
    for (auto& [key, value] : source.items()) {
      auto it = target.find(key);
      if (it == target.end()) {
        target[key] = std::move(value);
      } else {
        *it = deep_merge(std::move(*it), std::move(value));
      }
    }
    return target;
  }
  return source;
}

// A file whose JSON is being resolved.
struct Source {
  fs::path display;              // as written in messages: lexical, relative to how the top was named
  std::vector<fs::path> chain;   // canonical paths from the top-level file down to this one
};

class IncludeResolver {
 public:
  explicit IncludeResolver(fs::path root_dir) : root_dir_(std::move(root_dir)) {}

  // `value` with every "$include" below it resolved; `path` is its JSON path inside `src`.
  Result<json> resolve(const json& value, const Source& src, const std::string& path) const {
    if (value.is_array()) {
      json out = json::array();
      for (std::size_t i = 0; i < value.size(); ++i) {
        auto item = resolve(value[i], src, index_path(path, i));
        if (!item) return item;
        out.push_back(std::move(*item));
      }
      return out;
    }
    if (!value.is_object()) return value;
    if (value.contains(kIncludeKey)) return resolve_include(value, src, path);
    return resolve_members(value, src, path, /*skip=*/"");
  }

 private:
  Result<json> resolve_members(const json& obj, const Source& src, const std::string& path,
                               const std::string& skip) const {
    json out = json::object();
    for (const auto& [key, child] : obj.items()) {
      if (key == skip) continue;
      auto resolved = resolve(child, src, key_path(path, key));
      if (!resolved) return resolved;
      out[key] = std::move(*resolved);
    }
    return out;
  }

  // An object with "$include": the included value(s), with the sibling keys merged on top.
  Result<json> resolve_include(const json& obj, const Source& src, const std::string& path) const {
    const json& spec = obj.at(kIncludeKey);
    std::string where = key_path(path, kIncludeKey);
    Result<json> included = json::object();
    if (spec.is_string()) {
      included = load(spec.get<std::string>(), src, where);
    } else if (spec.is_array()) {
      json merged = json::object();
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (!spec[i].is_string()) {
          return error(src, index_path(where, i), "expected string, got " + describe_value(spec[i], false));
        }
        auto one = load(spec[i].get<std::string>(), src, where);
        if (!one) return one;
        merged = deep_merge(std::move(merged), std::move(*one));
      }
      included = std::move(merged);
    } else {
      return error(src, where, "expected string or array of strings, got " + describe_value(spec, false));
    }
    if (!included || obj.size() == 1) return included;
    if (!included->is_object()) {
      return error(src, where, "sibling keys need the included value to be an object, got " +
                                   std::string(type_name(*included)));
    }
    auto siblings = resolve_members(obj, src, path, kIncludeKey);
    if (!siblings) return siblings;
    return deep_merge(std::move(*included), std::move(*siblings));
  }

  // Reads, parses and resolves the file named `target` by an "$include" of `src`.
  Result<json> load(const std::string& target, const Source& src, const std::string& where) const {
    fs::path display = (src.display.parent_path() / target).lexically_normal();
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(display), ec);
    if (ec) return error(src, where, "cannot resolve \"" + target + "\": " + ec.message());
    fs::path relative = canonical.lexically_relative(root_dir_);
    if (relative.empty() || *relative.begin() == "..") {
      return error(src, where, "\"" + target + "\" is outside the config directory " + root_dir_.string());
    }
    if (std::find(src.chain.begin(), src.chain.end(), canonical) != src.chain.end()) {
      return error(src, where, "circular $include: " + describe_chain(src.chain, canonical));
    }
    if (static_cast<int>(src.chain.size()) > kMaxIncludeDepth) {
      return error(src, where, "\"" + target + "\" exceeds the maximum include depth (" +
                                   std::to_string(kMaxIncludeDepth) + ")");
    }
    auto text = read_file(canonical);
    if (!text) {
      return error(src, where, "cannot read \"" + target + "\" (" + display.string() + "): " +
                                   text.error().message);
    }
    auto parsed = parse_file(*text, display);
    if (!parsed) return parsed;
    Source nested{display, src.chain};
    nested.chain.push_back(canonical);
    return resolve(*parsed, nested, "");
  }

  std::string describe_chain(const std::vector<fs::path>& chain, const fs::path& again) const {
    std::string out;
    for (const auto& p : chain) out += p.lexically_relative(root_dir_).generic_string() + " -> ";
    return out + again.lexically_relative(root_dir_).generic_string();
  }

  static Error error(const Source& src, const std::string& where, const std::string& what) {
    return invalid(src.display.string() + ": " + where + ": " + what);
  }

  fs::path root_dir_;  // canonical directory of the top-level file; includes stay below it
};

// Prefixes every line of `message` with "<file>: ".
std::string prefix_lines(const std::string& file, const std::string& message) {
  std::string out;
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    out += (out.empty() ? "" : "\n") + file + ": " + line;
  }
  return out;
}

// JSON5 text of `file` → "$include"s resolved → env references per `refs`. Error messages name
// the file as given (see load()).
// The file's own `env` section fills in what the environment leaves unset (as OpenClaw's).
EnvLookup with_env_section(const EnvLookup& env, const json& doc) {
  if (!doc.is_object() || !doc.contains("env") || !doc["env"].is_object()) return env;
  return [env, vars = doc["env"]](const std::string& name) -> std::optional<std::string> {
    if (auto v = env ? env(name) : std::nullopt; v && !v->empty()) return v;
    if (auto it = vars.find(name); it != vars.end() && it->is_string()) return it->get<std::string>();
    return std::nullopt;
  };
}

Result<json> resolve_text(const std::string& text, const fs::path& file, const EnvLookup& env, EnvRefs refs) {
  auto parsed = parse_file(text, file);
  if (!parsed) return parsed.error();

  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(fs::absolute(file), ec);
  if (ec) return invalid(file.string() + ": " + ec.message());
  IncludeResolver includes(canonical.parent_path());
  auto resolved = includes.resolve(*parsed, Source{file, {canonical}}, "");
  if (!resolved) return resolved.error();

  if (refs == EnvRefs::kSubstitute) {
    if (auto st = substitute_env(*resolved, with_env_section(env, *resolved), ""); !st) {
      return invalid(prefix_lines(file.string(), st.error().message));
    }
  }
  return resolved;
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------------

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Result<LoadedConfig> load(const std::filesystem::path& file, const EnvLookup& env) {
  LoadedConfig config;
  config.path = file;
  const std::string shown_file = file.string();

  std::error_code ec;
  if (fs::status(file, ec).type() == fs::file_type::not_found) {
    config.resolved = json::object();
    config.effective = with_defaults(config.resolved);
    return config;
  }
  auto text = read_file(file);
  if (!text) return invalid(shown_file + ": " + text.error().message);
  config.exists = true;
  config.hash = sha256_hex(*text);

  auto written = resolve_text(*text, file, env, EnvRefs::kKeep);
  if (!written) return written.error();
  json resolved = *written;
  if (auto st = substitute_env(resolved, with_env_section(env, resolved), ""); !st) {
    return invalid(prefix_lines(shown_file, st.error().message));
  }
  if (auto st = validate(resolved); !st) {
    return invalid(prefix_lines(shown_file, st.error().message));
  }
  config.written = std::move(*written);
  config.resolved = std::move(resolved);
  config.effective = with_defaults(config.resolved);
  return config;
}

std::string file_sha256(const std::filesystem::path& file) {
  auto text = read_file(file);
  return text ? sha256_hex(*text) : "";
}

Result<nlohmann::json> resolve_file(const std::filesystem::path& file, const EnvLookup& env, EnvRefs refs) {
  auto text = read_file(file);
  if (!text) return invalid(file.string() + ": " + text.error().message);
  return resolve_text(*text, file, env, refs);
}

std::vector<EnvReference> env_references(const nlohmann::json& doc) {
  std::vector<EnvReference> out;
  collect_env_references(doc, "", out);
  return out;
}

Status validate(const nlohmann::json& doc) {
  std::vector<std::string> found = violations(doc);
  if (found.empty()) return Ok{};
  std::string message;
  for (const auto& line : found) message += (message.empty() ? "" : "\n") + line;
  return invalid(std::move(message));
}

nlohmann::json with_defaults(const nlohmann::json& doc) {
  return fill_defaults(schema::root(), doc);
}

nlohmann::json json_schema() {
  json s = to_json_schema(schema::root());
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["title"] = "Pincer configuration";
  return s;
}

std::string markdown_reference() {
  std::string out = kDocsHeader;
  out += "\n## Defaults\n\nThe effective configuration of an empty file:\n\n```json\n" +
         with_defaults(json::object()).dump(2) + "\n```\n";
  for (const auto& f : schema::root().fields()) document_node(f.node, f.name, 2, out);
  return out;
}

nlohmann::json redact(const nlohmann::json& doc) { return redact_node(schema::root(), doc); }

}  // namespace pincer::config
