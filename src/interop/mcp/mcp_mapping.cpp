#include "interop/mcp/mcp_mapping.h"

#include <cstdint>
#include <cstdio>
#include <set>

namespace pincer::interop::mcp {

namespace detail_mcp_mapping {

using nlohmann::json;

std::string hash8(std::string_view a, std::string_view b) {
  uint32_t h = 2166136261u;  // FNV-1a over "a\0b"
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
  };
  mix(a);
  mix(std::string_view("\0", 1));
  mix(b);
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}

std::string clean(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    out.push_back(ok ? c : '_');
  }
  return out;
}

std::string with_suffix(std::string name, std::string_view server, std::string_view tool) {
  const std::string suffix = "_" + hash8(server, tool);
  if (name.size() + suffix.size() > kMaxToolNameChars) name.resize(kMaxToolNameChars - suffix.size());
  return name + suffix;
}

std::size_t base64_bytes(const std::string& b64) {
  std::size_t n = b64.size() / 4 * 3;
  if (!b64.empty() && b64.back() == '=') --n;
  if (b64.size() > 1 && b64[b64.size() - 2] == '=') --n;
  return n;
}

std::string cut_utf8(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace detail_mcp_mapping

std::string agent_tool_name(std::string_view server, std::string_view tool) {
  namespace d = detail_mcp_mapping;
  std::string name = d::clean(server) + "__" + d::clean(tool);
  if (name.size() > kMaxToolNameChars) return d::with_suffix(std::move(name), server, tool);
  return name;
}

std::vector<std::string> assign_tool_names(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<std::string> out;
  std::set<std::string> used;
  for (const auto& [server, tool] : pairs) {
    std::string name = agent_tool_name(server, tool);
    if (used.count(name)) name = detail_mcp_mapping::with_suffix(detail_mcp_mapping::clean(server) + "__" + detail_mcp_mapping::clean(tool), server, tool);
    used.insert(name);
    out.push_back(std::move(name));
  }
  return out;
}

tools::ToolOutput map_call_result(const nlohmann::json& result, std::string_view server, std::string_view tool,
                                  std::size_t max_chars) {
  namespace d = detail_mcp_mapping;
  using nlohmann::json;
  const std::string label = agent_tool_name(server, tool);
  if (!result.is_object()) {
    return tools::ToolOutput::failure(label, "the MCP server answered tools/call with a " + std::string(result.type_name()) +
                                                 " instead of a result object", "MCP_BAD_RESULT");
  }
  const auto error_flag = result.find("isError");
  const bool is_error = error_flag != result.end() && error_flag->is_boolean() && error_flag->get<bool>();
  json details = {{"server", server}, {"tool", tool}, {"isError", is_error}, {"blocks", json::array()}};
  std::string text;
  auto add = [&text](const std::string& part) {
    if (!text.empty()) text += "\n\n";
    text += part;
  };
  if (auto content = result.find("content"); content != result.end() && content->is_array()) {
    for (const auto& block : *content) {
      if (!block.is_object()) continue;
      const std::string type = d::str(block, "type");
      json info = {{"type", type}};
      if (type == "text") {
        add(d::str(block, "text"));
      } else if (type == "image" || type == "audio") {
        const std::string mime = d::str(block, "mimeType");
        const std::size_t bytes = d::base64_bytes(d::str(block, "data"));
        info["mimeType"] = mime;
        info["bytes"] = bytes;
        add("[" + type + " " + (mime.empty() ? "?" : mime) + ", " + std::to_string(bytes) + " bytes]");
      } else if (type == "resource") {
        const auto found = block.find("resource");
        const json resource = found != block.end() ? *found : json::object();
        const std::string uri = resource.is_object() ? d::str(resource, "uri") : "";
        info["uri"] = uri;
        if (resource.is_object() && resource.contains("text")) {
          add("[resource " + uri + "]\n" + d::str(resource, "text"));
        } else {
          const std::size_t bytes = resource.is_object() ? d::base64_bytes(d::str(resource, "blob")) : 0;
          const std::string mime = resource.is_object() ? d::str(resource, "mimeType") : "";
          info["bytes"] = bytes;
          add("[resource " + uri + ": " + (mime.empty() ? "binary" : mime) + ", " + std::to_string(bytes) + " bytes]");
        }
      } else if (type == "resource_link") {
        const std::string uri = d::str(block, "uri");
        info["uri"] = uri;
        const std::string name = d::str(block, "name");
        add("[resource link " + (name.empty() ? uri : name + " <" + uri + ">") + "]");
      } else {
        add("[" + (type.empty() ? std::string("unknown") : type) + " content]");
      }
      details["blocks"].push_back(std::move(info));
    }
  }
  if (text.empty()) {
    if (auto sc = result.find("structuredContent"); sc != result.end() && !sc->is_null()) text = sc->dump();
  }
  if (text.size() > max_chars) {
    const std::size_t total = text.size();
    text = d::cut_utf8(text, max_chars) + "\n[cut: " + std::to_string(total) + " bytes in all]";
  }
  text = tools::sanitize_utf8(text);
  if (is_error && text.empty()) text = label + ": the tool reported an error without a message";
  return is_error ? tools::ToolOutput::error(std::move(text), std::move(details))
                  : tools::ToolOutput::ok(std::move(text), std::move(details));
}

}  // namespace pincer::interop::mcp
