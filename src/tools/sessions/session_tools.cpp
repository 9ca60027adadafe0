#include "tools/sessions/session_tools.h"

#include <algorithm>
#include <string>

#include "tools/sessions/message_backend.h"
#include "tools/sessions/sessions_backend.h"

namespace pincer::tools {
namespace session_tools_detail {  // named: the unity build joins several files into one unit

using nlohmann::json;

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

Error invalid(std::string_view tool, const std::string& message) {
  return Error{"TOOL_ARGS_INVALID", std::string(tool) + ": " + message};
}

/// An optional integer argument within [lo, hi]; validate_arguments already checked its type.
Status in_range(std::string_view tool, const json& args, const char* key, int64_t lo, int64_t hi) {
  if (!has_arg(args, key)) return Ok{};
  const int64_t v = args[key].get<int64_t>();
  if (v < lo || v > hi)
    return invalid(tool, "argument \"" + std::string(key) + "\" must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi) + ", got " + std::to_string(v));
  return Ok{};
}

Status non_blank(std::string_view tool, const json& args, const char* key) {
  if (has_arg(args, key) && blank(args[key].get<std::string>()))
    return invalid(tool, "argument \"" + std::string(key) + "\" is empty");
  return Ok{};
}

json prop(const char* type, const char* description) { return {{"type", type}, {"description", description}}; }

/// Runs `tool` through `backend` (null: unavailable); a refusal JSON becomes an error output.
template <class Backend>
ToolOutput through(std::string_view tool, Backend* backend, const json& args, const ToolContext& ctx,
                   const char* missing) {
  if (auto st = check_session_tool_args(tool, args); !st) return ToolOutput::error(st.error().message, {{"code", st.error().code}});
  if (backend == nullptr) return ToolOutput::failure(tool, missing, "UNAVAILABLE");
  auto answer = backend->call(tool, args, ctx);
  if (!answer) return ToolOutput::failure(tool, answer.error().message, answer.error().code);
  const std::string status = answer->is_object() ? answer->value("status", "") : "";
  if (status == "error" || status == "forbidden") return ToolOutput::error(answer->dump(2), *answer);
  return ToolOutput::ok(answer->dump(2), *answer);
}

constexpr const char* kNoSessions = "the session tools are not available here (no gateway runtime)";

class SessionsListTool : public Tool {
 public:
  std::string_view name() const override { return "sessions_list"; }
  std::string_view description() const override {
    return "List sessions, newest first. Those you may see: yours; other agents' when agent-to-agent access allows it. "
           "Filters: kinds (main, group, cron, hook, node, other), activeMinutes, label, agentId, search (in key, "
           "label, name). messageLimit > 0 adds each session's last messages.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"limit", prop("integer", "Most sessions returned (1-200, default 50).")},
          {"activeMinutes", prop("integer", "Only sessions updated within this many minutes.")},
          {"messageLimit", prop("integer", "Last messages included per session (0-20, default 0).")},
          {"kinds", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", {"main", "group", "cron", "hook", "node", "other"}}}},
                     {"description", "Only sessions of these kinds."}}},
          {"label", prop("string", "Only the session with this label.")},
          {"agentId", prop("string", "Only this agent's sessions.")},
          {"search", prop("string", "Text searched in key, label and display name (any case).")}}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    return through(name(), ctx.session_backends.sessions, args, ctx, kNoSessions);
  }
};

class SessionsHistoryTool : public Tool {
 public:
  std::string_view name() const override { return "sessions_history"; }
  std::string_view description() const override {
    return "Read a session's recent messages. Any session you may see (sessionKey from sessions_list); tool calls and "
           "results are left out unless includeTools; long texts are cut.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"sessionKey", prop("string", "The session, e.g. agent:work:main or main.")},
          {"limit", prop("integer", "Most recent messages returned (1-1000, default 50).")},
          {"includeTools", prop("boolean", "Also tool calls and tool results (default false).")}}},
        {"required", {"sessionKey"}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    return through(name(), ctx.session_backends.sessions, args, ctx, kNoSessions);
  }
};

class SessionStatusTool : public Tool {
 public:
  std::string_view name() const override { return "session_status"; }
  std::string_view description() const override {
    return "Status of a session. This one (or another you may see): model, thinking level, messages, whether a run is "
           "going on. model sets this session's model (\"provider/id\" or an alias; \"default\" = the agent's).";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"sessionKey", prop("string", "The session (default: this one).")},
          {"model", prop("string", "Set the session's model; \"default\" clears the override.")}}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    return through(name(), ctx.session_backends.sessions, args, ctx, kNoSessions);
  }
};

class SessionsSendTool : public Tool {
 public:
  std::string_view name() const override { return "sessions_send"; }
  std::string_view description() const override {
    return "Message another session and wait for its reply. Another agent's too, when agent-to-agent access "
           "allows it; the wait is up to timeoutSeconds (default 30; 0 = do not wait). Target by sessionKey, by label, or "
           "by agentId (that agent's main session). After the reply the two sessions may exchange a few more "
           "turns; reply exactly REPLY_SKIP to stop that exchange.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"sessionKey", prop("string", "The target session key.")},
          {"label", prop("string", "The target session's label (instead of sessionKey).")},
          {"agentId", prop("string", "With label: the agent whose session it is; alone: that agent's main session.")},
          {"message", prop("string", "What to send.")},
          {"timeoutSeconds", prop("integer", "Seconds to wait for the reply (default 30; 0 = fire and forget).")}}},
        {"required", {"message"}}};
    return schema;
  }
  std::string_view group() const override { return "sessions"; }
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    return through(name(), ctx.session_backends.sessions, args, ctx, kNoSessions);
  }
};

/// `message`: send, and — in a run from a channel that can react (CH-8) — react.
class MessageTool : public Tool {
 public:
  explicit MessageTool(bool reactions) : schema_(make_schema(reactions)), reactions_(reactions) {}
  std::string_view name() const override { return "message"; }
  std::string_view description() const override {
    return reactions_ ? "Send a message to a chat on a configured channel (telegram, discord, slack, matrix, irc, "
                        "webhook …), or react to a message. action send (default): without channel and target it goes "
                        "to the chat this conversation came from. action react: adds the emoji reaction `emoji` "
                        "(remove: true takes it away) to a message of this chat, by default the one you are answering "
                        "(messageId for another)."
                      : "Send a message to a chat on a configured channel (telegram, discord, slack, matrix, irc, "
                        "webhook …). Without channel and target it goes to the chat this conversation came from. "
                        "action: send (the only one here).";
  }
  const json& parameters() const override { return schema_; }
  std::string_view group() const override { return "messaging"; }
  // A react call to the send-only variant never gets here: the schema's action enum refuses it.
  ToolOutput run(const json& args, ToolContext& ctx) const override {
    return through(name(), ctx.session_backends.messages, args, ctx,
                   "sending messages is not available here (no channels runtime)");
  }

 private:
  static json make_schema(bool reactions) {
    json properties = {
        {"action", {{"type", "string"},
                    {"enum", reactions ? json{"send", "react"} : json{"send"}},
                    {"description", reactions ? "send (default) or react." : "send (default)."}}},
        {"message", prop("string", "send: the text (Markdown).")},
        {"channel", prop("string", "Channel id (telegram, discord, slack, matrix, irc, webhook …); default: this "
                                   "conversation's.")},
        {"target", prop("string", "The chat / recipient id on that channel; default: this conversation's chat.")},
        {"to", prop("string", "Same as target.")},
        {"accountId", prop("string", "The channel account (default: this conversation's, else the first running).")},
        {"threadId", prop("string", "Thread / topic id within the chat.")}};
    if (reactions) {
      properties["emoji"] = prop("string", "react: the emoji, e.g. 👍 (the platform decides which it allows).");
      properties["remove"] = prop("boolean", "react: take the reaction away instead (default false).");
      properties["messageId"] = prop("string", "react: the message; default: the one this turn answers.");
      properties["message_id"] = prop("string", "Same as messageId.");
    }
    return {{"type", "object"}, {"properties", std::move(properties)}};
  }
  json schema_;
  bool reactions_;
};

}  // namespace session_tools_detail

Status check_session_tool_args(std::string_view tool, const nlohmann::json& args) {
  using namespace session_tools_detail;
  if (!args.is_object()) return invalid(tool, "arguments must be an object");
  if (tool == "sessions_list") {
    if (auto st = in_range(tool, args, "limit", 1, 200); !st) return st;
    if (auto st = in_range(tool, args, "activeMinutes", 1, 5256000); !st) return st;
    if (auto st = in_range(tool, args, "messageLimit", 0, 20); !st) return st;
    if (has_arg(args, "kinds")) {
      static const std::vector<std::string> kinds = {"main", "group", "cron", "hook", "node", "other"};
      for (const auto& k : args["kinds"]) {
        if (!k.is_string() || std::find(kinds.begin(), kinds.end(), k.get<std::string>()) == kinds.end())
          return invalid(tool, "argument \"kinds\" has " + k.dump() + " (expected main, group, cron, hook, node or other)");
      }
    }
    for (const char* key : {"label", "agentId", "search"})
      if (auto st = non_blank(tool, args, key); !st) return st;
    return Ok{};
  }
  if (tool == "sessions_history") {
    if (!has_arg(args, "sessionKey") || !args["sessionKey"].is_string() || blank(args["sessionKey"].get<std::string>()))
      return invalid(tool, "missing required argument \"sessionKey\"");
    return in_range(tool, args, "limit", 1, 1000);
  }
  if (tool == "session_status") {
    for (const char* key : {"sessionKey", "model"})
      if (auto st = non_blank(tool, args, key); !st) return st;
    return Ok{};
  }
  if (tool == "sessions_send") {
    if (!has_arg(args, "message") || !args["message"].is_string() || blank(args["message"].get<std::string>()))
      return invalid(tool, "argument \"message\" is missing or empty");
    for (const char* key : {"sessionKey", "label", "agentId"})
      if (auto st = non_blank(tool, args, key); !st) return st;
    if (has_arg(args, "sessionKey") && has_arg(args, "label"))
      return invalid(tool, "give either sessionKey or label, not both");
    if (!has_arg(args, "sessionKey") && !has_arg(args, "label") && !has_arg(args, "agentId"))
      return invalid(tool, "give sessionKey, label or agentId (the target)");
    return in_range(tool, args, "timeoutSeconds", 0, 3600);
  }
  if (tool == "message") {
    const bool react = has_arg(args, "action") && args["action"] == "react";
    if (has_arg(args, "action") && args["action"] != "send" && !react)
      return invalid(tool, "action " + args["action"].dump() + " is not supported (send or react)");
    if (react) {
      if (!has_arg(args, "emoji") || !args["emoji"].is_string() || blank(args["emoji"].get<std::string>()))
        return invalid(tool, "react: argument \"emoji\" is missing or empty");
      for (const char* key : {"messageId", "message_id"})
        if (auto st = non_blank(tool, args, key); !st) return st;
      if (has_arg(args, "messageId") && has_arg(args, "message_id") && args["messageId"] != args["message_id"])
        return invalid(tool, "messageId and message_id name different messages");
    } else if (!has_arg(args, "message") || !args["message"].is_string() || blank(args["message"].get<std::string>())) {
      return invalid(tool, "argument \"message\" is missing or empty");
    }
    for (const char* key : {"channel", "target", "to", "accountId", "threadId"})
      if (auto st = non_blank(tool, args, key); !st) return st;
    if (has_arg(args, "target") && has_arg(args, "to") && args["target"] != args["to"])
      return invalid(tool, "target and to name different recipients");
    return Ok{};
  }
  return invalid(tool, "not a session tool");
}

std::vector<std::unique_ptr<Tool>> make_session_tools() {
  using namespace session_tools_detail;
  std::vector<std::unique_ptr<Tool>> out;
  out.push_back(std::make_unique<SessionsListTool>());
  out.push_back(std::make_unique<SessionsHistoryTool>());
  out.push_back(std::make_unique<SessionStatusTool>());
  out.push_back(std::make_unique<SessionsSendTool>());
  return out;
}

std::unique_ptr<Tool> make_message_tool() { return std::make_unique<session_tools_detail::MessageTool>(false); }

void offer_message_reactions(std::vector<const Tool*>& tools) {
  static const session_tools_detail::MessageTool with_reactions(true);
  for (auto& t : tools) {
    if (t->name() == "message") t = &with_reactions;
  }
}

}  // namespace pincer::tools
