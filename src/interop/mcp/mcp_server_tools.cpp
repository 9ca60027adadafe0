#include "interop/mcp/mcp_server_tools.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <vector>

namespace pincer::interop::mcp {

using nlohmann::json;

namespace {

json integer(int64_t min, int64_t max) { return json{{"type", "integer"}, {"minimum", min}, {"maximum", max}}; }
json text(bool non_empty = false) {
  json s = {{"type", "string"}};
  if (non_empty) s["minLength"] = 1;
  return s;
}
json object(json properties, json required = json::array()) {
  json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}
json tool(const char* name, const char* description, json schema) {
  return json{{"name", name}, {"description", description}, {"inputSchema", std::move(schema)}};
}

json build_tools() {
  return json::array({
      tool("conversations_list", "List Pincer conversations (gateway sessions), newest first, with their chat route when they have one.",
           object({{"limit", integer(1, 500)},
                   {"search", text()},
                   {"channel", text()},
                   {"includeDerivedTitles", {{"type", "boolean"}}},
                   {"includeLastMessage", {{"type", "boolean"}}}})),
      tool("conversation_get", "Get one Pincer conversation by session key.",
           object({{"session_key", text(true)}}, {"session_key"})),
      tool("messages_read", "Read recent messages for one Pincer conversation.",
           object({{"session_key", text(true)}, {"limit", integer(1, 200)}}, {"session_key"})),
      tool("events_poll", "Poll queued Pincer conversation events since a cursor.",
           object({{"after_cursor", integer(0, 9007199254740991)}, {"session_key", text()}, {"limit", integer(1, 200)}})),
      tool("events_wait", "Wait for the next queued Pincer conversation event.",
           object({{"after_cursor", integer(0, 9007199254740991)}, {"session_key", text()}, {"timeout_ms", integer(1, 300000)}})),
      tool("messages_send", "Send a message into a Pincer conversation: the agent of that session answers it.",
           object({{"session_key", text(true)}, {"text", text(true)}}, {"session_key", "text"})),
      tool("permissions_list_open", "List open exec approval requests of the Pincer gateway.", object(json::object())),
      tool("permissions_respond", "Allow or deny one pending Pincer exec approval request.",
           object({{"kind", {{"type", "string"}, {"enum", {"exec", "plugin"}}}},
                   {"id", text(true)},
                   {"decision", {{"type", "string"}, {"enum", {"allow-once", "allow-always", "deny"}}}}},
                  {"kind", "id", "decision"})),
  });
}

std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

std::optional<std::string> check_value(const std::string& field, const json& schema, const json& value) {
  const std::string type = schema.value("type", "");
  const std::string got = type_name(value);
  bool type_ok = type == got || (type == "number" && got == "integer");
  // An integral float (5.0) is an integer to JSON Schema.
  if (!type_ok && type == "integer" && value.is_number_float()) {
    const double d = value.get<double>();
    type_ok = std::isfinite(d) && std::floor(d) == d;
  }
  if (!type_ok) return field + ": expected " + type + ", received " + got;
  if (type == "integer" || type == "number") {
    const double d = value.get<double>();
    if (schema.contains("minimum") && d < schema["minimum"].get<double>()) {
      return field + ": must be >= " + schema["minimum"].dump() + " (got " + value.dump() + ")";
    }
    if (schema.contains("maximum") && d > schema["maximum"].get<double>()) {
      return field + ": must be <= " + schema["maximum"].dump() + " (got " + value.dump() + ")";
    }
  }
  if (type == "string") {
    if (schema.contains("minLength") && value.get_ref<const std::string&>().size() < schema["minLength"].get<size_t>()) {
      return field + ": must not be empty";
    }
    if (schema.contains("enum")) {
      bool found = false;
      std::string allowed;
      for (const auto& option : schema["enum"]) {
        found = found || option == value;
        allowed += (allowed.empty() ? "" : " | ") + option.get<std::string>();
      }
      if (!found) return field + ": must be one of " + allowed + " (got " + value.dump() + ")";
    }
  }
  return std::nullopt;
}

std::string lower_ascii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// The channel of a chat session key, agent:<id>:<channel>:direct|group|channel:<peer>…; "" else.
std::string channel_of_key(const std::string& key) {
  std::vector<std::string> parts;
  for (std::size_t b = 0, e; b <= key.size(); b = e + 1) {
    e = key.find(':', b);
    if (e == std::string::npos) e = key.size();
    parts.push_back(key.substr(b, e - b));
  }
  if (parts.size() >= 5 && parts[0] == "agent" && (parts[3] == "direct" || parts[3] == "group" || parts[3] == "channel")) {
    return parts[2];
  }
  return "";
}

/// The first non-empty string among `row[path…]`.
std::string first_text(const json& row, std::initializer_list<std::initializer_list<const char*>> paths) {
  for (const auto& path : paths) {
    const json* at = &row;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key)) {
        at = nullptr;
        break;
      }
      at = &(*at)[key];
    }
    if (at && at->is_string() && !at->get_ref<const std::string&>().empty()) return at->get<std::string>();
  }
  return "";
}

json conversation_from_row(const json& row) {
  json c = {{"sessionKey", row.value("key", "")}};
  const std::string channel = first_text(row, {{"deliveryContext", "channel"}, {"lastChannel"}, {"channel"}, {"origin", "provider"}});
  const std::string to = first_text(row, {{"deliveryContext", "to"}, {"lastTo"}});
  const std::string account = first_text(row, {{"deliveryContext", "accountId"}, {"lastAccountId"}, {"origin", "accountId"}});
  if (!channel.empty()) c["channel"] = lower_ascii(channel);
  else if (std::string from_key = channel_of_key(c["sessionKey"].get<std::string>()); !from_key.empty()) c["channel"] = from_key;
  if (!to.empty()) c["to"] = to;
  if (!account.empty()) c["accountId"] = account;
  for (const char* path : {"deliveryContext", "", "origin"}) {
    const json& src = *path ? (row.contains(path) ? row[path] : json()) : row;
    const char* field = *path ? "threadId" : "lastThreadId";
    if (src.is_object() && src.contains(field) && !src[field].is_null()) {
      c["threadId"] = src[field];
      break;
    }
  }
  for (const char* field : {"label", "displayName", "derivedTitle", "lastMessagePreview"}) {
    if (row.contains(field) && row[field].is_string() && !row[field].get_ref<const std::string&>().empty()) c[field] = row[field];
  }
  c["updatedAt"] = row.contains("updatedAt") && row["updatedAt"].is_number() ? row["updatedAt"] : json(nullptr);
  return c;
}

}  // namespace

json conversation_from_session_row(const json& row) { return conversation_from_row(row); }

const json& server_tool_definitions() {
  static const json tools = build_tools();
  return tools;
}

const json* server_tool_schema(const std::string& name) {
  for (const auto& t : server_tool_definitions()) {
    if (t["name"] == name) return &t["inputSchema"];
  }
  return nullptr;
}

std::optional<std::string> check_tool_arguments(const json& schema, const json& args) {
  if (args.is_null()) return check_tool_arguments(schema, json::object());
  if (!args.is_object()) return "arguments: expected object, received " + type_name(args);
  const json& properties = schema["properties"];
  for (const auto& [key, value] : args.items()) {
    if (!properties.contains(key)) {
      if (schema.value("additionalProperties", true) == false) return key + ": unknown argument";
      continue;
    }
    if (auto problem = check_value(key, properties[key], value)) return problem;
  }
  if (schema.contains("required")) {
    for (const auto& name : schema["required"]) {
      if (!args.contains(name.get<std::string>())) return name.get<std::string>() + ": required";
    }
  }
  return std::nullopt;
}

}  // namespace pincer::interop::mcp
