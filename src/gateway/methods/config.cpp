// Config methods (GW-7 "config"): config.get, config.schema, config.schema.lookup here; the
// writes (config.set|patch|apply) in config_write.cpp. Secrets never leave the gateway:
// config.get answers the effective config with sensitive values redacted, values that came from
// "${NAME}" shown as written and URL userinfo masked (config::redact_for_clients).
#include <chrono>

#include "core/config.h"
#include "gateway/config_reload.h"
#include "gateway/gateway.h"
#include "gateway/methods/params.h"
#include "gateway/methods/registry.h"

namespace pincer::gateway {
namespace config_methods {  // named: the unity build joins several files into one unit

using nlohmann::json;

/// `config.get` → `{path, exists, valid, hash, config, issues}` (config = effective, redacted;
/// operator.read is enough, so nothing substituted from the environment is shown). `hash` is the
/// SHA-256 of the file's text now — the baseHash a write must name (OpenClaw's rule); it differs
/// from the running config's only while a change of the file is being applied.
MethodResult config_get(MethodContext& ctx) {
  const auto& s = ctx.gateway.settings();
  const std::string file_hash = s.config_path.empty() ? "" : config::file_sha256(s.config_path);
  return json{{"path", s.config_path.string()},
              {"exists", s.config_exists},
              {"valid", true},
              {"hash", file_hash.empty() ? s.config_hash : file_hash},
              {"config", config::redact_for_clients(s.config, s.config_written)},
              {"issues", json::array()}};
}

/// OpenClaw's uiHints from the JSON Schema: per dotted path (`*` for a map's values, `[]`… not
/// walked) its help text and whether it is secret.
void collect_hints(const json& node, const std::string& path, json& hints) {
  if (!node.is_object()) return;
  if (!path.empty()) {
    json hint = json::object();
    if (node.contains("description") && node["description"].is_string()) hint["help"] = node["description"];
    if (node.value("x-sensitive", false)) hint["sensitive"] = true;
    if (!hint.empty()) hints[path] = std::move(hint);
  }
  if (node.contains("properties") && node["properties"].is_object()) {
    for (const auto& [key, child] : node["properties"].items()) collect_hints(child, path.empty() ? key : path + "." + key, hints);
  }
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) {
    collect_hints(node["additionalProperties"], path.empty() ? "*" : path + ".*", hints);
  }
}

const json& schema_response() {
  static const json response = [] {
    json schema = config::json_schema();
    json hints = json::object();
    collect_hints(schema, "", hints);
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return json{{"schema", std::move(schema)}, {"uiHints", std::move(hints)}, {"version", PINCER_VERSION}, {"generatedAt", buf}};
  }();
  return response;
}

/// `config.schema` → OpenClaw's ConfigSchemaResponse `{schema, uiHints, version, generatedAt}`:
/// the JSON Schema generated from the one declarative schema (generatedAt: first asked).
MethodResult config_schema(MethodContext&) {
  static const std::string payload = schema_response().dump();
  return RawJson{payload};
}

bool has_children(const json& node) {
  return node.is_object() && ((node.contains("properties") && !node["properties"].empty()) ||
                              (node.contains("additionalProperties") && node["additionalProperties"].is_object()) ||
                              node.contains("items"));
}

/// The schema below `node` for one path segment: a property, a map's value (any key or `*`), an
/// array's items (`*` or an index), or the first alternative of anyOf/oneOf that has it.
const json* child_schema(const json& node, const std::string& segment) {
  if (!node.is_object()) return nullptr;
  if (node.contains("properties") && node["properties"].contains(segment)) return &node["properties"][segment];
  const bool index = !segment.empty() && segment.find_first_not_of("0123456789") == std::string::npos;
  if ((segment == "*" || index) && node.contains("items") && node["items"].is_object()) return &node["items"];
  for (const char* key : {"anyOf", "oneOf", "allOf"}) {
    if (!node.contains(key) || !node[key].is_array()) continue;
    for (const auto& alt : node[key]) {
      if (const json* found = child_schema(alt, segment)) return found;
    }
  }
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) return &node["additionalProperties"];
  return nullptr;
}

/// The node without its subtrees (OpenClaw strips a looked-up schema to its own keywords).
json shallow(const json& node) {
  json out = json::object();
  for (const auto& [key, value] : node.items()) {
    if (key == "properties" || key == "items" || key == "additionalProperties" || key == "anyOf" || key == "oneOf" ||
        key == "allOf" || key == "$defs")
      continue;
    out[key] = value;
  }
  return out;
}

std::string reload_kind(const std::string& path) {
  switch (change_kind(path)) {
    case ChangeKind::Hot: return "hot";
    case ChangeKind::Restart: return "restart";
    default: return "none";
  }
}

/// `config.schema.lookup {path}` → `{path, schema, reloadKind, hint?, hintPath?, children:[{key,
/// path, type?, required, hasChildren, reloadKind, hint?, hintPath?}]}` (OpenClaw's
/// ConfigSchemaLookupResult); "." is the root. A path the schema does not have: INVALID_REQUEST
/// "config schema path not found" (OpenClaw's answer).
MethodResult config_schema_lookup(MethodContext& ctx) {
  Params p("config.schema.lookup", ctx.request.params);
  if (auto e = p.only({"path"})) return *e;
  std::string path;
  if (auto e = p.string("path", path, true, true)) return *e;
  const json& response = schema_response();
  const json* node = &response["schema"];
  const bool root = path == ".";
  std::vector<std::string> segments;
  if (!root) {
    for (size_t start = 0;;) {
      const size_t dot = path.find('.', start);
      segments.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  for (const auto& segment : segments) {
    node = segment.empty() ? nullptr : child_schema(*node, segment);
    if (!node) return RpcError::invalid("config schema path not found");
  }
  const json& hints = response["uiHints"];
  auto hint_for = [&](const std::string& at, json& out) {
    if (hints.contains(at)) {
      out["hint"] = hints[at];
      out["hintPath"] = at;
    }
  };
  json out = {{"path", root ? "." : path}, {"schema", shallow(*node)}, {"children", json::array()}};
  if (!root) {
    out["reloadKind"] = reload_kind(path);
    hint_for(path, out);
  }
  const std::string prefix = root ? "" : path + ".";
  json required = node->value("required", json::array());
  auto push_child = [&](const std::string& key, const json& child, bool is_required) {
    json entry = {{"key", key}, {"path", prefix + key}, {"required", is_required}, {"hasChildren", has_children(child)},
                  {"reloadKind", reload_kind(prefix + key)}};
    if (child.contains("type") && (child["type"].is_string() || child["type"].is_array())) entry["type"] = child["type"];
    hint_for(prefix + key, entry);
    out["children"].push_back(std::move(entry));
  };
  if (node->contains("properties") && (*node)["properties"].is_object()) {
    for (const auto& [key, child] : (*node)["properties"].items()) {
      const bool req = std::find(required.begin(), required.end(), json(key)) != required.end();
      push_child(key, child, req);
    }
  }
  if (node->contains("additionalProperties") && (*node)["additionalProperties"].is_object()) {
    push_child("*", (*node)["additionalProperties"], false);
  } else if (node->contains("items") && (*node)["items"].is_object()) {
    push_child("*", (*node)["items"], false);
  }
  return out;
}

}  // namespace config_methods

void register_config_methods(MethodRegistry& registry) {
  registry.add({"config.get", config_methods::config_get});
  registry.add({"config.schema", config_methods::config_schema});
  registry.add({"config.schema.lookup", config_methods::config_schema_lookup});
  register_config_write_methods(registry);
}

}  // namespace pincer::gateway
