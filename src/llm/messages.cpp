// pi-format JSON for the shared message model (messages.h). Writing is exact; reading is strict
// about the types of the fields it knows and ignores fields it does not (OpenClaw transcripts carry
// extra keys such as `api`-specific extras, `textSignature` or `thoughtSignature`).
#include "llm/messages.h"

#include "core/json_dump.h"

#include <cmath>
#include <string>
#include <utility>

namespace pincer::llm {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Small model helpers
// ---------------------------------------------------------------------------------------------

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Stop: return "stop";
    case StopReason::Length: return "length";
    case StopReason::ToolUse: return "toolUse";
    case StopReason::Error: return "error";
    case StopReason::Aborted: return "aborted";
  }
  return "stop";
}

std::optional<StopReason> stop_reason_from_string(std::string_view s) {
  if (s == "stop") return StopReason::Stop;
  if (s == "length") return StopReason::Length;
  if (s == "toolUse") return StopReason::ToolUse;
  if (s == "error") return StopReason::Error;
  if (s == "aborted") return StopReason::Aborted;
  return std::nullopt;
}

std::string AssistantMessage::text() const {
  std::string out;
  for (const auto& block : content) {
    if (const auto* t = std::get_if<TextContent>(&block)) out += t->text;
  }
  return out;
}

std::vector<const ToolCall*> AssistantMessage::tool_calls() const {
  std::vector<const ToolCall*> out;
  for (const auto& block : content) {
    if (const auto* call = std::get_if<ToolCall>(&block)) out.push_back(call);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

namespace {

// Objects are built field by field: an initializer list builds each level as a temporary tree
// and copies it into the next, and every recorded message goes through here (the transcript line,
// the cache's parsed entry).
json blocks_to_json(const std::vector<ContentBlock>& blocks) {
  json out = json::array();
  out.get_ref<json::array_t&>().reserve(blocks.size());
  for (const auto& block : blocks) out.push_back(to_json(block));
  return out;
}

json usage_to_json(const Usage& u) {
  json cost = json::object();
  cost["input"] = u.cost.input;
  cost["output"] = u.cost.output;
  cost["cacheRead"] = u.cost.cache_read;
  cost["cacheWrite"] = u.cost.cache_write;
  cost["total"] = u.cost.total;
  json j = json::object();
  j["input"] = u.input;
  j["output"] = u.output;
  j["cacheRead"] = u.cache_read;
  j["cacheWrite"] = u.cache_write;
  j["totalTokens"] = u.total_tokens;
  j["cost"] = std::move(cost);
  return j;
}

json user_to_json(const UserMessage& m) {
  json j = json::object();
  j["role"] = "user";
  const bool as_string = m.content_is_string && m.content.size() == 1 &&
                         std::holds_alternative<TextContent>(m.content.front());
  if (as_string) {
    j["content"] = std::get<TextContent>(m.content.front()).text;
  } else if (m.content_is_string && m.content.empty()) {
    j["content"] = "";
  } else {
    j["content"] = blocks_to_json(m.content);
  }
  j["timestamp"] = m.timestamp;
  return j;
}

json assistant_to_json(const AssistantMessage& m) {
  json j = json::object();
  j["role"] = "assistant";
  j["content"] = blocks_to_json(m.content);
  j["api"] = m.api;
  j["provider"] = m.provider;
  j["model"] = m.model;
  j["usage"] = usage_to_json(m.usage);
  j["stopReason"] = to_string(m.stop_reason);
  if (!m.error_message.empty()) j["errorMessage"] = m.error_message;
  if (!m.response_id.empty()) j["responseId"] = m.response_id;
  j["timestamp"] = m.timestamp;
  return j;
}

json tool_result_to_json(const ToolResultMessage& m) {
  json j = json::object();
  j["role"] = "toolResult";
  j["toolCallId"] = m.tool_call_id;
  j["toolName"] = m.tool_name;
  j["content"] = blocks_to_json(m.content);
  if (!m.details.is_null()) j["details"] = m.details;
  j["isError"] = m.is_error;
  j["timestamp"] = m.timestamp;
  return j;
}

}  // namespace

json to_json(const ContentBlock& block) {
  json j = json::object();
  if (const auto* t = std::get_if<TextContent>(&block)) {
    j["type"] = "text";
    j["text"] = t->text;
    return j;
  }
  if (const auto* th = std::get_if<ThinkingContent>(&block)) {
    j["type"] = "thinking";
    j["thinking"] = th->thinking;
    if (!th->signature.empty()) j["thinkingSignature"] = th->signature;
    if (th->redacted) j["redacted"] = true;
    return j;
  }
  if (const auto* img = std::get_if<ImageContent>(&block)) {
    j["type"] = "image";
    j["mimeType"] = img->mime_type;
    if (!img->ref.empty()) j["ref"] = img->ref;
    else j["data"] = img->data;
    return j;
  }
  const auto& call = std::get<ToolCall>(block);
  j["type"] = "toolCall";
  j["id"] = call.id;
  j["name"] = call.name;
  j["arguments"] = call.arguments;
  return j;
}

json to_json(const Message& message) {
  if (const auto* u = std::get_if<UserMessage>(&message)) return user_to_json(*u);
  if (const auto* a = std::get_if<AssistantMessage>(&message)) return assistant_to_json(*a);
  return tool_result_to_json(std::get<ToolResultMessage>(message));
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

namespace {

Error invalid(const std::string& path, const std::string& what) {
  return Error{"MESSAGE_INVALID", path + ": " + what};
}

/// Reads an optional string field; absent or null gives `fallback`.
Result<std::string> opt_string(const json& obj, const char* key, const std::string& path,
                               std::string fallback = {}) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_string()) return invalid(path + "." + key, "expected a string");
  return it->get<std::string>();
}

Result<std::string> req_string(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) return invalid(path + "." + key, "missing");
  if (!it->is_string()) return invalid(path + "." + key, "expected a string");
  return it->get<std::string>();
}

/// Integral number (an integral double such as 12.0 is accepted); absent or null gives 0.
Result<int64_t> opt_int(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return int64_t{0};
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_unsigned()) return static_cast<int64_t>(it->get<uint64_t>());
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
  }
  return invalid(path + "." + key, "expected an integer");
}

Result<double> opt_double(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return 0.0;
  if (!it->is_number()) return invalid(path + "." + key, "expected a number");
  return it->get<double>();
}

Result<bool> opt_bool(const json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return false;
  if (!it->is_boolean()) return invalid(path + "." + key, "expected a boolean");
  return it->get<bool>();
}

// Sets `out` from a Result or returns its error from the enclosing function.
#define PINCER_TRY_ASSIGN(out, expr)             \
  do {                                           \
    auto _r = (expr);                            \
    if (!_r.ok()) return _r.error();             \
    (out) = std::move(_r).value();               \
  } while (0)

/// Which block types a role accepts.
enum BlockSet : unsigned { kText = 1, kThinking = 2, kImage = 4, kToolCall = 8 };

Result<ContentBlock> block_from_json(const json& j, const std::string& path, unsigned allowed) {
  if (!j.is_object()) return invalid(path, "expected an object");
  std::string type;
  PINCER_TRY_ASSIGN(type, req_string(j, "type", path));
  if (type == "text" && (allowed & kText)) {
    TextContent t;
    PINCER_TRY_ASSIGN(t.text, req_string(j, "text", path));
    return ContentBlock{std::move(t)};
  }
  if (type == "thinking" && (allowed & kThinking)) {
    ThinkingContent t;
    PINCER_TRY_ASSIGN(t.thinking, opt_string(j, "thinking", path));
    PINCER_TRY_ASSIGN(t.signature, opt_string(j, "thinkingSignature", path));
    PINCER_TRY_ASSIGN(t.redacted, opt_bool(j, "redacted", path));
    return ContentBlock{std::move(t)};
  }
  if (type == "image" && (allowed & kImage)) {
    ImageContent img;
    PINCER_TRY_ASSIGN(img.ref, opt_string(j, "ref", path));
    if (img.ref.empty() || j.contains("data")) {
      PINCER_TRY_ASSIGN(img.data, req_string(j, "data", path));
    }
    PINCER_TRY_ASSIGN(img.mime_type, req_string(j, "mimeType", path));
    return ContentBlock{std::move(img)};
  }
  if (type == "toolCall" && (allowed & kToolCall)) {
    ToolCall call;
    PINCER_TRY_ASSIGN(call.id, req_string(j, "id", path));
    PINCER_TRY_ASSIGN(call.name, req_string(j, "name", path));
    auto args = j.find("arguments");
    if (args != j.end() && !args->is_null()) call.arguments = *args;
    return ContentBlock{std::move(call)};
  }
  return invalid(path + ".type", "unexpected block type \"" + type + "\"");
}

Result<std::vector<ContentBlock>> blocks_from_json(const json& obj, const std::string& path,
                                                   unsigned allowed) {
  auto it = obj.find("content");
  if (it == obj.end()) return invalid(path + ".content", "missing");
  if (!it->is_array()) return invalid(path + ".content", "expected an array");
  std::vector<ContentBlock> out;
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    ContentBlock block;
    PINCER_TRY_ASSIGN(block, block_from_json((*it)[i], path + ".content[" + std::to_string(i) + "]", allowed));
    out.push_back(std::move(block));
  }
  return out;
}

Result<Usage> usage_from_json(const json& obj, const std::string& path) {
  Usage u;
  auto it = obj.find("usage");
  if (it == obj.end() || it->is_null()) return u;
  if (!it->is_object()) return invalid(path + ".usage", "expected an object");
  const std::string p = path + ".usage";
  PINCER_TRY_ASSIGN(u.input, opt_int(*it, "input", p));
  PINCER_TRY_ASSIGN(u.output, opt_int(*it, "output", p));
  PINCER_TRY_ASSIGN(u.cache_read, opt_int(*it, "cacheRead", p));
  PINCER_TRY_ASSIGN(u.cache_write, opt_int(*it, "cacheWrite", p));
  PINCER_TRY_ASSIGN(u.total_tokens, opt_int(*it, "totalTokens", p));
  auto cost = it->find("cost");
  if (cost == it->end() || cost->is_null()) return u;
  if (!cost->is_object()) return invalid(p + ".cost", "expected an object");
  const std::string c = p + ".cost";
  PINCER_TRY_ASSIGN(u.cost.input, opt_double(*cost, "input", c));
  PINCER_TRY_ASSIGN(u.cost.output, opt_double(*cost, "output", c));
  PINCER_TRY_ASSIGN(u.cost.cache_read, opt_double(*cost, "cacheRead", c));
  PINCER_TRY_ASSIGN(u.cost.cache_write, opt_double(*cost, "cacheWrite", c));
  PINCER_TRY_ASSIGN(u.cost.total, opt_double(*cost, "total", c));
  return u;
}

Result<Message> user_from_json(const json& j) {
  UserMessage m;
  PINCER_TRY_ASSIGN(m.timestamp, opt_int(j, "timestamp", "message"));
  auto it = j.find("content");
  if (it != j.end() && it->is_string()) {
    m.content_is_string = true;
    m.content.push_back(TextContent{it->get<std::string>()});
    return Message{std::move(m)};
  }
  m.content_is_string = false;
  PINCER_TRY_ASSIGN(m.content, blocks_from_json(j, "message", kText | kImage));
  return Message{std::move(m)};
}

Result<Message> assistant_from_json(const json& j) {
  AssistantMessage m;
  PINCER_TRY_ASSIGN(m.content, blocks_from_json(j, "message", kText | kThinking | kToolCall));
  PINCER_TRY_ASSIGN(m.api, opt_string(j, "api", "message"));
  PINCER_TRY_ASSIGN(m.provider, opt_string(j, "provider", "message"));
  PINCER_TRY_ASSIGN(m.model, opt_string(j, "model", "message"));
  PINCER_TRY_ASSIGN(m.usage, usage_from_json(j, "message"));
  std::string stop;
  PINCER_TRY_ASSIGN(stop, opt_string(j, "stopReason", "message", "stop"));
  const auto reason = stop_reason_from_string(stop);
  if (!reason) return invalid("message.stopReason", "unknown value \"" + stop + "\"");
  m.stop_reason = *reason;
  PINCER_TRY_ASSIGN(m.error_message, opt_string(j, "errorMessage", "message"));
  PINCER_TRY_ASSIGN(m.response_id, opt_string(j, "responseId", "message"));
  PINCER_TRY_ASSIGN(m.timestamp, opt_int(j, "timestamp", "message"));
  return Message{std::move(m)};
}

Result<Message> tool_result_from_json(const json& j) {
  ToolResultMessage m;
  PINCER_TRY_ASSIGN(m.tool_call_id, req_string(j, "toolCallId", "message"));
  PINCER_TRY_ASSIGN(m.tool_name, opt_string(j, "toolName", "message"));
  PINCER_TRY_ASSIGN(m.content, blocks_from_json(j, "message", kText | kImage));
  auto details = j.find("details");
  if (details != j.end()) m.details = *details;
  PINCER_TRY_ASSIGN(m.is_error, opt_bool(j, "isError", "message"));
  PINCER_TRY_ASSIGN(m.timestamp, opt_int(j, "timestamp", "message"));
  return Message{std::move(m)};
}

#undef PINCER_TRY_ASSIGN

}  // namespace

Result<Message> message_from_json(const json& j) {
  if (!j.is_object()) return invalid("message", "expected an object");
  auto role = j.find("role");
  if (role == j.end()) return invalid("message.role", "missing");
  if (!role->is_string()) return invalid("message.role", "expected a string");
  const std::string& r = role->get_ref<const std::string&>();
  if (r == "user") return user_from_json(j);
  if (r == "assistant") return assistant_from_json(j);
  if (r == "toolResult") return tool_result_from_json(j);
  return invalid("message.role", "unsupported role \"" + r + "\"");
}

ToolDefinition::ToolDefinition(std::string name_, std::string description_, nlohmann::json parameters)
    : name(std::move(name_)),
      description(std::move(description_)),
      parameters_([&] {
        auto schema = std::make_shared<Schema>();  // holds a once_flag: built in place, not moved
        schema->value = std::move(parameters);
        return schema;
      }()) {}

const nlohmann::json& ToolDefinition::parameters() const {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  return parameters_ ? parameters_->value : kEmpty;
}

const std::string& ToolDefinition::parameters_json() const {
  static const std::string kEmpty = "{}";
  if (!parameters_) return kEmpty;
  std::call_once(parameters_->once, [s = parameters_.get()] { s->compact = json_dump::compact(s->value); });
  return parameters_->compact;
}

}  // namespace pincer::llm
