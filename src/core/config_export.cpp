// The schema exported: as JSON Schema (draft 2020-12, the `config.schema` gateway method) and as
// the Markdown reference docs/configuration.md. Only reads the tree in config_schema*.cpp.
#include <cstdint>
#include <string>

#include "core/config.h"
#include "core/config_internal.h"
#include "core/config_schema.h"

namespace pincer::config {
namespace detail_config_export {

using nlohmann::json;
using schema::Kind;
using schema::Node;
using detail_config::key_path;

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

}  // namespace detail_config_export

nlohmann::json json_schema() {
  nlohmann::json s = detail_config_export::to_json_schema(schema::root());
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["title"] = "Pincer configuration";
  return s;
}

std::string markdown_reference() {
  std::string out = detail_config_export::kDocsHeader;
  out += "\n## Defaults\n\nThe effective configuration of an empty file:\n\n```json\n" +
         with_defaults(nlohmann::json::object()).dump(2) + "\n```\n";
  for (const auto& f : schema::root().fields()) detail_config_export::document_node(f.node, f.name, 2, out);
  return out;
}

}  // namespace pincer::config
