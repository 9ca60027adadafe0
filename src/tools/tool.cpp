#include "tools/tool.h"

#include <cmath>
#include <exception>

namespace pincer::tools {
namespace {

using nlohmann::json;

std::string json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "value";
  }
}

bool is_integral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d;
}

bool has_type(const json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return is_integral(v);
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return true;  // unknown or absent type: accept
}

std::string article(std::string_view type) {
  return (type == "integer" || type == "array" || type == "object") ? "an " : "a ";
}

Error invalid(const Tool& tool, std::string message) {
  return Error{"TOOL_ARGS_INVALID", std::string(tool.name()) + ": " + message};
}

Status check_property(const Tool& tool, const std::string& key, const json& schema, const json& value) {
  if (auto t = schema.find("type"); t != schema.end() && t->is_string()) {
    const auto type = t->get<std::string>();
    if (!has_type(value, type)) {
      return invalid(tool,
                     "argument \"" + key + "\" must be " + article(type) + type + ", got " + json_type_name(value));
    }
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const auto& option : *e) found = found || option == value;
    if (!found) {
      std::string options;
      for (const auto& option : *e) options += (options.empty() ? "" : ", ") + option.dump();
      return invalid(tool, "argument \"" + key + "\" must be one of " + options + ", got " + value.dump());
    }
  }
  return Ok{};
}

}  // namespace

Status validate_arguments(const Tool& tool, const json& args) {
  if (!args.is_object()) return invalid(tool, "arguments must be a JSON object, got " + json_type_name(args));
  const json& schema = tool.parameters();
  if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
    for (const auto& key : *req) {
      const auto name = key.get<std::string>();
      if (!has_arg(args, name.c_str())) return invalid(tool, "missing required argument \"" + name + "\"");
    }
  }
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return Ok{};
  for (const auto& [key, value] : args.items()) {
    if (value.is_null()) continue;  // an explicit null means "not given"
    auto prop = props->find(key);
    if (prop == props->end()) continue;
    if (auto st = check_property(tool, key, *prop, value); !st) return st;
  }
  return Ok{};
}

ToolOutput invoke_tool(const Tool& tool, const json& args, ToolContext& ctx) {
  if (auto st = validate_arguments(tool, args); !st) {
    return ToolOutput::error(st.error().message, {{"code", st.error().code}});
  }
  if (ctx.sandbox) {  // TL-5: the file tools see what the sandbox would; no backend, no tool
    const std::string refusal = sandbox::file_tool_refusal(*ctx.sandbox, tool.name());
    if (!refusal.empty()) return ToolOutput::error(refusal, {{"code", "SANDBOX_DENIED"}});
    if (tool.group() == "fs") {  // exec checks it itself (it needs the binary)
      if (auto st = sandbox::check_backend(*ctx.sandbox); !st) {
        return ToolOutput::error(std::string(tool.name()) + ": " + st.error().message, {{"code", st.error().code}});
      }
    }
  }
  try {
    ToolOutput out = tool.run(args, ctx);
    out.text = sanitize_utf8(out.text);
    return out;
  } catch (const std::exception& e) {
    return ToolOutput::error(std::string(tool.name()) + ": internal error: " + e.what(), {{"code", "TOOL_INTERNAL"}});
  }
}

std::string sanitize_utf8(std::string_view s) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len != 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (valid && len > 1) {
      // Reject overlong forms, UTF-16 surrogates and code points above U+10FFFF.
      uint32_t cp = c & (0x7F >> len);
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (valid) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

}  // namespace pincer::tools
