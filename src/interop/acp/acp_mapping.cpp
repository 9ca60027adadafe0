#include "interop/acp/acp_mapping.h"
#include "core/json_dump.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace pincer::interop::acp {

using nlohmann::json;

namespace detail_acp_mapping {

/// Control characters as visible escapes (\n, \t, \xNN): a title is one line.
std::string escape_controls(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

/// At most `n` code points of UTF-8 `s`.
std::string cut_code_points(const std::string& s, std::size_t n, bool* cut) {
  std::size_t count = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (count == n) break;
      ++count;
    }
  }
  *cut = i < s.size();
  return s.substr(0, i);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace detail_acp_mapping

using namespace detail_acp_mapping;


/// A syntax check of an image's base64 as lenient as the gateway's decoder (whitespace skipped,
/// the URL-safe alphabet and missing padding accepted), so that garbage is refused here naming
/// the prompt field; what passes here and still fails there gets the gateway's message.
bool looks_like_base64(std::string_view data) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {  // padding: only at the end
      if (data.find_first_not_of("= \n\r\t", i) != std::string_view::npos) return false;
      break;
    }
    if (!std::isalnum(c) && c != '+' && c != '/' && c != '-' && c != '_') return false;
    ++n;
  }
  return n > 0 && n % 4 != 1;
}

Result<PromptInput> read_prompt(const json& prompt) {
  if (!prompt.is_array()) return Error{"INVALID_PARAMS", "prompt: expected an array of content blocks"};
  PromptInput out;
  std::size_t bytes = 0;
  bool first = true;
  for (std::size_t i = 0; i < prompt.size(); ++i) {
    const json& block = prompt[i];
    const std::string where = "prompt[" + std::to_string(i) + "]";
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      return Error{"INVALID_PARAMS", where + ": expected a content block with a type"};
    }
    const std::string type = block["type"].get<std::string>();
    std::optional<std::string> text;
    if (type == "text") {
      if (!block.contains("text") || !block["text"].is_string()) return Error{"INVALID_PARAMS", where + ".text: expected a string"};
      text = block["text"].get<std::string>();
    } else if (type == "resource") {
      const json& r = block.contains("resource") ? block["resource"] : json();
      if (r.is_object() && r.contains("text") && r["text"].is_string()) text = r["text"].get<std::string>();
    } else if (type == "resource_link") {
      const std::string title = block.contains("title") && block["title"].is_string() ? block["title"].get<std::string>() : "";
      const std::string uri = block.contains("uri") && block["uri"].is_string() ? block["uri"].get<std::string>() : "";
      text = "[Resource link" + (title.empty() ? "" : " (" + escape_controls(title) + ")") + "]" +
             (uri.empty() ? "" : " " + escape_controls(uri));
    } else if (type == "image") {
      if (!block.contains("data") || !block["data"].is_string()) return Error{"INVALID_PARAMS", where + ".data: expected a base64 string"};
      if (!block.contains("mimeType") || !block["mimeType"].is_string()) {
        return Error{"INVALID_PARAMS", where + ".mimeType: expected a string"};
      }
      if (!looks_like_base64(block["data"].get_ref<const std::string&>())) {
        return Error{"INVALID_PARAMS", where + ".data: not valid base64"};
      }
      out.attachments.push_back({{"type", "image"}, {"mimeType", block["mimeType"]}, {"content", block["data"]}});
    }
    if (!text) continue;
    bytes += (first ? 0 : 1) + text->size();
    if (bytes > kMaxPromptBytes) {
      return Error{"PROMPT_TOO_LARGE", "prompt exceeds the maximum allowed size of " + std::to_string(kMaxPromptBytes) + " bytes"};
    }
    if (!first) out.text += "\n";
    out.text += *text;
    first = false;
  }
  return out;
}

std::string shorten_home(const std::string& path, const std::string& home) {
  if (home.empty() || home == "/") return path;
  if (path == home) return "~";
  if (path.size() > home.size() && path.compare(0, home.size(), home) == 0 && path[home.size()] == '/') {
    return "~" + path.substr(home.size());
  }
  return path;
}

std::string tool_title(const std::string& name, const json& args) {
  const std::string base = name.empty() ? "tool" : name;
  if (!args.is_object() || args.empty()) return escape_controls(base);
  std::string parts;
  for (const auto& [key, value] : args.items()) {
    const std::string raw = value.is_string() ? value.get<std::string>() : json_dump::compact(value);
    bool cut = false;
    const std::string safe = cut_code_points(raw, 100, &cut);
    parts += (parts.empty() ? "" : ", ") + key + ": " + safe + (cut ? "..." : "");
  }
  return escape_controls(base + ": " + parts);
}

std::string tool_kind(const std::string& name) {
  const std::string n = lower(name);
  auto has = [&n](const char* s) { return n.find(s) != std::string::npos; };
  if (n.empty()) return "other";
  if (has("read")) return "read";
  if (has("write") || has("edit")) return "edit";
  if (has("delete") || has("remove")) return "delete";
  if (has("move") || has("rename")) return "move";
  if (has("search") || has("find")) return "search";
  if (has("exec") || has("run") || has("bash")) return "execute";
  if (has("fetch") || has("http")) return "fetch";
  return "other";
}

json tool_content(const json& result) {
  auto one = [](const std::string& text) {
    return json::array({{{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}}});
  };
  if (result.is_string()) {
    const std::string s = result.get<std::string>();
    return s.find_first_not_of(" \t\r\n") == std::string::npos ? json(nullptr) : one(s);
  }
  if (!result.is_object()) return nullptr;
  json out = json::array();
  if (result.contains("content") && result["content"].is_array()) {
    for (const auto& b : result["content"]) {
      if (b.is_object() && b.value("type", "") == "text" && b.contains("text") && b["text"].is_string() &&
          !b["text"].get_ref<const std::string&>().empty()) {
        out.push_back({{"type", "content"}, {"content", {{"type", "text"}, {"text", b["text"]}}}});
      }
    }
  }
  if (!out.empty()) return out;
  for (const char* f : {"text", "message", "error"}) {
    if (result.contains(f) && result[f].is_string() && !result[f].get_ref<const std::string&>().empty()) {
      return one(result[f].get<std::string>());
    }
  }
  return nullptr;
}

std::string message_text(const json& message) {
  if (!message.is_object() || !message.contains("content")) return "";
  const json& c = message["content"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (!c.is_array()) return out;
  for (const auto& b : c) {
    if (b.is_object() && b.value("type", "") == "text" && b.contains("text") && b["text"].is_string()) {
      if (!out.empty()) out += "\n";
      out += b["text"].get<std::string>();
    }
  }
  return out;
}

SessionMeta read_session_meta(const json& meta) {
  SessionMeta m;
  if (!meta.is_object()) return m;
  auto text = [&meta](std::initializer_list<const char*> keys) -> std::optional<std::string> {
    for (const char* k : keys) {
      if (meta.contains(k) && meta[k].is_string()) {
        std::string v = meta[k].get<std::string>();
        const auto a = v.find_first_not_of(" \t\r\n");
        if (a == std::string::npos) continue;
        v = v.substr(a, v.find_last_not_of(" \t\r\n") - a + 1);
        return v;
      }
    }
    return std::nullopt;
  };
  auto flag = [&meta](std::initializer_list<const char*> keys) -> std::optional<bool> {
    for (const char* k : keys) {
      if (meta.contains(k) && meta[k].is_boolean()) return meta[k].get<bool>();
    }
    return std::nullopt;
  };
  m.session_key = text({"sessionKey", "session", "key"});
  m.session_label = text({"sessionLabel", "label"});
  m.reset = flag({"resetSession", "reset"});
  m.require_existing = flag({"requireExistingSession", "requireExisting"});
  m.prefix_cwd = flag({"prefixCwd"});
  return m;
}

std::string ReplyStream::next(const std::string& step_text) {
  std::string out;
  if (step_text.size() > step_sent_.size() && step_text.compare(0, step_sent_.size(), step_sent_) == 0) {
    out = step_text.substr(step_sent_.size());
  } else if (step_text != step_sent_ && !step_text.empty()) {
    // Not a continuation of what was sent (a rewritten snapshot): send the new text as it is.
    out = step_text;
  }
  step_sent_ = step_text.empty() ? step_sent_ : step_text;
  if (out.empty()) return out;
  if (started_new_) {
    out = "\n\n" + out;
    started_new_ = false;
  }
  any_sent_ = true;
  return out;
}

}  // namespace pincer::interop::acp
