#include "interop/openai_http/openai_request.h"

#include <algorithm>
#include <cctype>

#include "store/session_keys.h"

namespace pincer::interop::openai_http {

using nlohmann::json;

namespace detail_openai_request {

ApiError bad(std::string message, std::string code = "") {
  return ApiError{400, "invalid_request_error", std::move(code), std::move(message)};
}

std::string trimmed(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// OpenClaw's agent id shape: ^[a-z0-9][a-z0-9_-]{0,63}$, any case.
bool plain_agent_id(std::string_view id) {
  if (id.empty() || id.size() > 64 || !std::isalnum(static_cast<unsigned char>(id[0]))) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

/// One conversation entry of the prompt.
struct Entry {
  std::string role;    // user | assistant | tool
  std::string sender;  // User | Assistant | Tool[:id]
  std::string body;
};

/// The text of a content value: a string, or the text parts of an array (joined by "\n").
/// `where` names the field in errors ("messages[2].content").
Outcome<std::string> content_text(const json& content, const std::string& where) {
  if (content.is_null()) return std::string();
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return bad("`" + where + "` must be a string or an array of content parts");
  std::string out;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!part.is_object()) return bad("`" + at + "` must be an object");
    const std::string type = part.value("type", "");
    if (type == "text" || type == "input_text" || type == "output_text") {
      if (!part.contains("text") || !part["text"].is_string()) return bad("`" + at + ".text` must be a string");
      if (!out.empty()) out += "\n";
      out += part["text"].get<std::string>();
    } else if (type == "refusal") {
      continue;
    } else {
      return bad("`" + at + "` has type \"" + type +
                 "\": only text parts are supported (images, audio and files are not)");
    }
  }
  return out;
}

/// `user`: a string of at most kMaxUserBytes without control characters, trimmed.
std::optional<ApiError> read_user(const json& body, TurnRequest& turn) {
  if (!body.contains("user") || body["user"].is_null()) return std::nullopt;
  if (!body["user"].is_string()) return bad("`user` must be a string");
  turn.user = trimmed(body["user"].get<std::string>());
  if (turn.user.size() > kMaxUserBytes) {
    return bad("`user` is " + std::to_string(turn.user.size()) + " bytes; at most " + std::to_string(kMaxUserBytes));
  }
  for (unsigned char c : turn.user) {
    if (c < 0x20 || c == 0x7f) return bad("`user` must not contain control characters");
  }
  return std::nullopt;
}

/// The fields both endpoints share: model, stream, user.
std::optional<ApiError> read_common(const json& body, TurnRequest& turn) {
  turn.model = std::string(kModelName);
  if (body.contains("model") && !body["model"].is_null()) {
    if (!body["model"].is_string()) return bad("`model` must be a string");
    turn.model = trimmed(body["model"].get<std::string>());
    if (turn.model.empty()) turn.model = std::string(kModelName);
  }
  if (body.contains("stream") && !body["stream"].is_null()) {
    if (!body["stream"].is_boolean()) return bad("`stream` must be a boolean");
    turn.stream = body["stream"].get<bool>();
  }
  return read_user(body, turn);
}

Outcome<json> parse_object(std::string_view text) {
  json body = json::parse(text, nullptr, false);
  if (body.is_discarded()) return bad("the request body is not valid JSON");
  if (!body.is_object()) return bad("the request body must be a JSON object");
  return body;
}

/// OpenClaw's prompt from conversation entries: the last user/tool entry is the current message;
/// the entries before it become the context block.
std::string build_prompt(const std::vector<Entry>& entries) {
  if (entries.empty()) return "";
  std::size_t current = entries.size() - 1;
  for (std::size_t i = entries.size(); i-- > 0;) {
    if (entries[i].role == "user" || entries[i].role == "tool") {
      current = i;
      break;
    }
  }
  if (current == 0) return entries[0].body;
  std::string out = "[Chat messages since your last reply - for context]\n";
  for (std::size_t i = 0; i < current; ++i) out += entries[i].sender + ": " + entries[i].body + "\n";
  out += "\n[Current message - respond to this]\n" + entries[current].sender + ": " + entries[current].body;
  return out;
}

/// One chat message (or Responses message item) into `entries` / `system`.
std::optional<ApiError> add_message(const json& m, const std::string& where, std::vector<Entry>& entries,
                                    std::vector<std::string>& system) {
  if (!m.is_object()) return bad("`" + where + "` must be an object");
  if (!m.contains("role") || !m["role"].is_string()) return bad("`" + where + ".role` must be a string");
  const std::string role = trimmed(m["role"].get<std::string>());
  auto text = content_text(m.contains("content") ? m["content"] : json(), where + ".content");
  if (auto* e = std::get_if<ApiError>(&text)) return *e;
  std::string body = trimmed(std::get<std::string>(text));
  if (role == "system" || role == "developer") {
    if (!body.empty()) system.push_back(std::move(body));
    return std::nullopt;
  }
  if (role != "user" && role != "assistant" && role != "tool" && role != "function") {
    return bad("`" + where + ".role` \"" + role + "\" is not one of system, developer, user, assistant, tool");
  }
  const std::string normal = role == "function" ? "tool" : role;
  std::string sender = normal == "user" ? "User" : normal == "assistant" ? "Assistant" : "Tool";
  if (normal == "tool") {
    const std::string id = m.contains("tool_call_id") && m["tool_call_id"].is_string() ? m["tool_call_id"].get<std::string>()
                           : m.contains("name") && m["name"].is_string()               ? m["name"].get<std::string>()
                                                                                      : "";
    if (!id.empty()) sender += ":" + id;
  }
  if (normal == "assistant" && m.contains("tool_calls") && m["tool_calls"].is_array()) {
    for (const auto& call : m["tool_calls"]) {
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
      const json& fn = call["function"];
      if (!body.empty()) body += "\n";
      body += "[tool call " + fn.value("name", "") + " " +
              (fn.contains("arguments") && fn["arguments"].is_string() ? fn["arguments"].get<std::string>() : "{}") + "]";
    }
  }
  if (body.empty()) return std::nullopt;
  entries.push_back({normal, std::move(sender), std::move(body)});
  return std::nullopt;
}

}  // namespace detail_openai_request

using namespace detail_openai_request;

Outcome<TurnRequest> parse_chat_request(std::string_view text) {
  auto parsed = parse_object(text);
  if (auto* e = std::get_if<ApiError>(&parsed)) return *e;
  const json& body = std::get<json>(parsed);
  TurnRequest turn;
  if (auto e = read_common(body, turn)) return *e;
  if (body.contains("stream_options") && body["stream_options"].is_object()) {
    turn.include_usage = body["stream_options"].value("include_usage", false) == true;
  }
  if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty()) {
    return bad("`messages` must be a non-empty array", "missing_messages");
  }
  std::vector<Entry> entries;
  const json& messages = body["messages"];
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (auto e = add_message(messages[i], "messages[" + std::to_string(i) + "]", entries, turn.system)) return *e;
  }
  turn.message = build_prompt(entries);
  if (turn.message.empty()) return bad("Missing user message in `messages`.", "missing_messages");
  return turn;
}

Outcome<TurnRequest> parse_responses_request(std::string_view text) {
  auto parsed = parse_object(text);
  if (auto* e = std::get_if<ApiError>(&parsed)) return *e;
  const json& body = std::get<json>(parsed);
  TurnRequest turn;
  if (auto e = read_common(body, turn)) return *e;
  if (body.contains("instructions") && !body["instructions"].is_null()) {
    if (!body["instructions"].is_string()) return bad("`instructions` must be a string");
    if (std::string s = trimmed(body["instructions"].get<std::string>()); !s.empty()) turn.system.push_back(std::move(s));
  }
  if (!body.contains("input")) return bad("Missing user message in `input`.", "missing_input");
  const json& input = body["input"];
  std::vector<Entry> entries;
  if (input.is_string()) {
    if (std::string s = trimmed(input.get<std::string>()); !s.empty()) entries.push_back({"user", "User", std::move(s)});
  } else if (input.is_array()) {
    for (std::size_t i = 0; i < input.size(); ++i) {
      const json& item = input[i];
      const std::string where = "input[" + std::to_string(i) + "]";
      if (!item.is_object()) return bad("`" + where + "` must be an object");
      const std::string type = item.value("type", "message");
      if (type == "function_call_output") {
        auto out = content_text(item.contains("output") ? item["output"] : json(), where + ".output");
        if (auto* e = std::get_if<ApiError>(&out)) return *e;
        const std::string id = item.contains("call_id") && item["call_id"].is_string() ? item["call_id"].get<std::string>() : "";
        entries.push_back({"tool", id.empty() ? "Tool" : "Tool:" + id, trimmed(std::get<std::string>(out))});
        continue;
      }
      if (type == "function_call" || type == "reasoning") continue;  // the model's own items: history only
      if (type != "message") return bad("`" + where + ".type` \"" + type + "\" is not supported");
      if (auto e = add_message(item, where, entries, turn.system)) return *e;
    }
  } else {
    return bad("`input` must be a string or an array of items");
  }
  turn.message = build_prompt(entries);
  if (turn.message.empty()) return bad("Missing user message in `input`.", "missing_input");
  return turn;
}

std::optional<std::string> agent_of_model(std::string_view model, std::string_view default_agent) {
  const std::string raw = trimmed(model);
  const std::string low = lowered(raw);
  if (low == "pincer" || low == "pincer/default" || low == "openclaw" || low == "openclaw/default") {
    return std::string(default_agent);
  }
  for (std::string_view prefix : {"pincer/", "pincer:", "openclaw/", "openclaw:", "agent:"}) {
    if (low.size() > prefix.size() && low.compare(0, prefix.size(), prefix) == 0) {
      const std::string id = raw.substr(prefix.size());
      if (!plain_agent_id(id)) return std::nullopt;
      return store::normalize_agent_id(id);
    }
  }
  return std::nullopt;
}

Outcome<SessionChoice> choose_session(const std::map<std::string, std::string>& headers, const TurnRequest& turn,
                                      Endpoint endpoint, std::string_view default_agent,
                                      const std::vector<std::string>& known_agents, const std::string& new_id) {
  auto header = [&headers](const char* a, const char* b) {
    auto it = headers.find(a);
    if (it == headers.end() || trimmed(it->second).empty()) it = headers.find(b);
    return it == headers.end() ? std::string() : trimmed(it->second);
  };
  auto model_agent = agent_of_model(turn.model, default_agent);
  if (!model_agent) {
    return ApiError{404, "invalid_request_error", "model_not_found",
                    "The model `" + turn.model + "` does not exist: use `pincer` (the default agent) or `pincer/<agentId>` "
                    "(GET /v1/models lists them)"};
  }
  SessionChoice out;
  out.agent_id = *model_agent;
  if (std::string id = header("x-pincer-agent-id", "x-openclaw-agent-id"); !id.empty()) {
    if (!plain_agent_id(id)) {
      return ApiError{404, "invalid_request_error", "agent_not_found", "Unknown agent '" + id + "' (x-pincer-agent-id)"};
    }
    out.agent_id = store::normalize_agent_id(id);
  }
  if (std::find(known_agents.begin(), known_agents.end(), out.agent_id) == known_agents.end()) {
    return ApiError{404, "invalid_request_error", turn.model == out.agent_id ? "model_not_found" : "agent_not_found",
                    "Unknown agent '" + out.agent_id + "': it is not in agents.list (GET /v1/models lists the agents)"};
  }
  const std::string prefix = endpoint == Endpoint::ChatCompletions ? "openai" : "openresponses";
  if (std::string key = header("x-pincer-session-key", "x-openclaw-session-key"); !key.empty()) {
    if (auto problem = store::session_key_problem(key)) return bad("x-pincer-session-key: " + *problem);
    if (auto reserved = store::reserved_session_namespace(key)) {
      return bad("x-pincer-session-key cannot use the reserved session namespace `" + *reserved + "`");
    }
    // A key of an agent that is not configured: the same answer as x-pincer-agent-id naming it.
    if (auto parsed = store::parse_agent_session_key(key);
        parsed && std::find(known_agents.begin(), known_agents.end(), parsed->agent_id) == known_agents.end()) {
      return ApiError{404, "invalid_request_error", "agent_not_found",
                      "Unknown agent '" + parsed->agent_id + "' (x-pincer-session-key `" + key +
                          "`): it is not in agents.list (GET /v1/models lists the agents)"};
    }
    out.session_key = key;
    return out;
  }
  if (!turn.user.empty()) {
    out.session_key = "agent:" + out.agent_id + ":" + prefix + "-user:" + turn.user;
    if (auto problem = store::session_key_problem(out.session_key)) return bad("`user`: " + *problem);
    return out;
  }
  out.session_key = "agent:" + out.agent_id + ":" + prefix + ":" + new_id;
  out.fresh = true;
  return out;
}

}  // namespace pincer::interop::openai_http
