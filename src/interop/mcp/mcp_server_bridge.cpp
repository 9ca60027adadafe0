// The tools of `pincer mcp serve` over the gateway's methods (SPEC IX-1): sessions.list →
// conversations_list, sessions.describe → conversation_get, chat.history → messages_read,
// chat.send → messages_send, exec.approval.list / exec.approval.resolve → permissions_*; the event
// queue behind events_poll / events_wait.
#include <algorithm>
#include <cctype>

#include "core/ids.h"
#include "store/session_keys.h"
#include "interop/mcp/mcp_server.h"
#include "interop/mcp/mcp_server_tools.h"

namespace pincer::interop::mcp {

using nlohmann::json;

namespace detail_mcp_bridge {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

json to_conversation(const json& row) { return conversation_from_session_row(row); }

/// The text of a message (string content, or its text blocks joined by newlines); "" if none.
std::string message_text(const json& message) {
  if (!message.is_object() || !message.contains("content")) return "";
  const json& c = message["content"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array()) {
    for (const auto& block : c) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
        if (!out.empty()) out += "\n";
        out += block["text"].get<std::string>();
      }
    }
  }
  return out;
}

int64_t int_arg(const json& args, const char* name, int64_t fallback) {
  return args.contains(name) && args[name].is_number() ? static_cast<int64_t>(args[name].get<double>()) : fallback;
}

}  // namespace detail_mcp_bridge

using namespace detail_mcp_bridge;

void McpServer::conversations_list(const json& id, const json& args) {
  const int64_t limit = int_arg(args, "limit", 50);
  const std::string search = lowercase(args.value("search", ""));
  const std::string channel = lowercase(args.value("channel", ""));
  // Pincer's sessions.list has no search: the filter is applied here, over every session.
  gateway_tool(id, "sessions.list", json::object(), [limit, search, channel](json payload) {
    json conversations = json::array();
    if (!payload.contains("sessions") || !payload["sessions"].is_array()) return json{{"conversations", conversations}};
    for (const auto& row : payload["sessions"]) {
      if (!row.is_object()) continue;
      json c = to_conversation(row);
      if (!channel.empty() && lowercase(c.value("channel", "")) != channel) continue;
      if (!search.empty()) {
        bool hit = false;
        for (const char* f : {"sessionKey", "label", "displayName", "derivedTitle", "lastMessagePreview", "to"}) {
          hit = hit || (c.contains(f) && c[f].is_string() && lowercase(c[f].get<std::string>()).find(search) != std::string::npos);
        }
        if (!hit) continue;
      }
      conversations.push_back(std::move(c));
      if (static_cast<int64_t>(conversations.size()) >= limit) break;
    }
    return json{{"conversations", conversations}};
  });
}

void McpServer::conversation_get(const json& id, const json& args) {
  const std::string key = args.value("session_key", "");
  gateway_tool(id, "sessions.describe", json{{"key", key}}, [key](json payload) {
    if (!payload.contains("session") || !payload["session"].is_object()) return json{{"__error", "conversation not found: " + key}};
    return json{{"conversation", to_conversation(payload["session"])}};
  });
}

void McpServer::messages_read(const json& id, const json& args) {
  const std::string key = args.value("session_key", "");
  const int64_t limit = int_arg(args, "limit", 20);
  gateway_tool(id, "chat.history", json{{"sessionKey", key}, {"limit", limit}}, [](json payload) {
    json messages = payload.contains("messages") && payload["messages"].is_array() ? payload["messages"] : json::array();
    return json{{"messages", std::move(messages)}};
  });
}

void McpServer::messages_send(const json& id, const json& args) {
  // OpenClaw's messages_send posts the text to the chat the session is routed to; Pincer's gateway
  // has no such method, so the text goes to the session's agent (chat.send), whose answer follows as
  // a `message` event and in messages_read.
  const std::string key = args.value("session_key", "");
  if (auto reserved = store::reserved_session_namespace(key)) {
    return tool_error(id, "session_key " + key + " is in the reserved namespace `" + *reserved +
                              "` (the gateway's own sessions); choose another key");
  }
  json params = {{"sessionKey", key}, {"message", args.value("text", "")}, {"idempotencyKey", ids::uuid_v4()}};
  gateway_tool(id, "chat.send", params, [key](json payload) {
    json result = std::move(payload);
    if (result.is_object()) result["sessionKey"] = key;
    return json{{"result", std::move(result)}};
  });
}

void McpServer::permissions_list_open(const json& id) {
  gateway_tool(id, "exec.approval.list", json::object(), [](json payload) {
    json approvals = json::array();
    if (payload.is_array()) {
      for (auto& row : payload) {
        if (!row.is_object()) continue;
        json a = {{"kind", "exec"}, {"id", row.value("id", "")}};
        for (const char* f : {"request", "createdAtMs", "expiresAtMs", "code"}) {
          if (row.contains(f)) a[f] = row[f];
        }
        approvals.push_back(std::move(a));
      }
    }
    return json{{"approvals", approvals}};
  });
}

void McpServer::permissions_respond(const json& id, const json& args) {
  const std::string approval = args.value("id", "");
  if (args.value("kind", "") != "exec") {
    tool_error(id, "no pending plugin approval " + approval + " (Pincer has exec approvals only)");
    return;
  }
  gateway_tool(id, "exec.approval.resolve", json{{"id", approval}, {"decision", args.value("decision", "")}},
               [](json payload) { return json{{"result", std::move(payload)}}; });
}

// ---- the event queue ---------------------------------------------------------------------------

bool McpServer::matches(const json& event, int64_t after_cursor, const std::string& session_key) const {
  if (event.value("cursor", int64_t{0}) <= after_cursor) return false;
  return session_key.empty() || event.value("sessionKey", "") == session_key;
}

void McpServer::on_gateway_event(const std::string& event, const json& payload) {
  if (event == "session.message") {
    if (!payload.is_object() || !payload.contains("sessionKey") || !payload["sessionKey"].is_string()) return;
    const json message = payload.contains("message") ? payload["message"] : json();
    json e = {{"type", "message"}, {"sessionKey", payload["sessionKey"]}, {"raw", payload}};
    json route = {{"key", payload["sessionKey"]}};
    for (const char* f : {"lastChannel", "lastTo", "lastAccountId", "lastThreadId"}) {
      if (payload.contains(f)) route[f] = payload[f];
    }
    if (json c = to_conversation(route); c.contains("channel") && c.contains("to")) e["conversation"] = c;
    if (payload.contains("messageId")) e["messageId"] = payload["messageId"];
    if (payload.contains("messageSeq")) e["messageSeq"] = payload["messageSeq"];
    if (message.is_object() && message.contains("role")) e["role"] = message["role"];
    if (const std::string text = message_text(message); !text.empty()) e["text"] = text;
    enqueue(std::move(e));
  } else if (event == "exec.approval.requested" || event == "exec.approval.resolved") {
    enqueue(json{{"type", event == "exec.approval.requested" ? "exec_approval_requested" : "exec_approval_resolved"},
                 {"raw", payload}});
  }
}

void McpServer::enqueue(json event) {
  event["cursor"] = ++cursor_;
  queue_.push_back(event);
  while (queue_.size() > kQueueLimit) queue_.pop_front();
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    Waiter& w = it->second;
    if (!matches(event, w.after_cursor, w.session_key)) {
      ++it;
      continue;
    }
    loop_.cancel(w.timer);
    const json id = w.request_id;
    it = waiters_.erase(it);
    tool_result(id, json{{"event", event}});
  }
}

void McpServer::events_poll(const json& id, const json& args) {
  const int64_t after = int_arg(args, "after_cursor", 0);
  const int64_t limit = int_arg(args, "limit", 20);
  const std::string key = args.value("session_key", "");
  json events = json::array();
  for (const auto& e : queue_) {
    if (static_cast<int64_t>(events.size()) >= limit) break;
    if (matches(e, after, key)) events.push_back(e);
  }
  const int64_t next = events.empty() ? after : events.back()["cursor"].get<int64_t>();
  tool_result(id, json{{"events", events}, {"next_cursor", next}});
}

void McpServer::events_wait(const json& id, const json& args) {
  const int64_t after = int_arg(args, "after_cursor", 0);
  const std::string key = args.value("session_key", "");
  for (const auto& e : queue_) {
    if (matches(e, after, key)) return tool_result(id, json{{"event", e}});
  }
  const int64_t timeout = int_arg(args, "timeout_ms", 30'000);
  const std::string k = id.dump();
  Waiter w{id, after, key, 0};
  w.timer = loop_.after(timeout, [this, k] {
    auto it = waiters_.find(k);
    if (it == waiters_.end()) return;
    const json request_id = it->second.request_id;
    waiters_.erase(it);
    tool_result(request_id, json{{"event", nullptr}});
  });
  waiters_[k] = std::move(w);
}

}  // namespace pincer::interop::mcp
