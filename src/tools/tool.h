// The built-in tool contract (SPEC TL-1). A Tool is a stateless object with a name, a description
// and a JSON Schema for its arguments; the agent loop offers the schemas to the model and calls
// `invoke_tool` with the model's arguments.
//
// Threading: tools run on a worker thread (never the event loop) and may block. A Tool object is
// immutable after construction, so one instance serves concurrent runs; per-run state lives in
// ToolContext. Tools never throw: `invoke_tool` turns a stray exception into an error output.
//
// Memory (LESSONS 7): every tool bounds what it reads or captures by `max_output_chars` while
// reading, never after; the caller may cap the text again.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "tools/cancel_signal.h"
#include "tools/sandbox/sandbox.h"

namespace pincer::tools {

class ProcessTable;
class MemoryBackend;
class CronBackend;
class SessionsBackend;
class SubagentsBackend;
class MessageBackend;

/// The backends of the session tools (TL-1, MA-2, MA-3), owned by the app and the agent runtime;
/// each may be null (its tools then answer that they are unavailable). tools/sessions/*.h.
struct SessionBackends {
  SessionsBackend* sessions = nullptr;    ///< sessions_list, sessions_history, session_status, sessions_send
  SubagentsBackend* subagents = nullptr;  ///< sessions_spawn, subagents
  MessageBackend* messages = nullptr;     ///< message
};

/// Where the run's message came from (the chat a reply would go to); empty channel = a gateway
/// client. The cron tool makes it the default delivery of a job the agent creates.
struct ToolOrigin {
  std::string channel, account_id, chat_id, thread_id;
  std::string message_id;  ///< the inbound message answered ("" = none in chat_id): the react default
};

/// Everything a tool may touch during one call. Owned by the agent run; outlives the call.
struct ToolContext {
  /// The agent's workspace directory; it must exist. File tools are confined to it (TL-6).
  std::filesystem::path workspace;
  /// Set by the run when the user aborts. A tool that waits subscribes (on_cancel) and stops when
  /// woken; quick tools may look at is_cancelled(). May be null (never cancelled).
  CancelSignal* cancelled = nullptr;
  /// Base environment for `exec` children (usually the gateway's own). Secret-looking variables
  /// are dropped before a child sees them (see exec_tool.h).
  std::map<std::string, std::string> env;
  /// Variables the config sets for the run's skills (skills.entries.<key>.env / .apiKey): added
  /// to `exec` children as they are, not scrubbed; the model's own `env` argument goes on top.
  std::map<std::string, std::string> skill_env;
  /// Foreground `exec` timeout when the model gives none, in milliseconds; 0 = no timeout.
  int64_t default_timeout_ms = 10 * 60 * 1000;
  /// Upper bound of one tool's result text, in UTF-8 bytes.
  std::size_t max_output_chars = 100'000;
  /// Background processes of this agent (`exec background`, `process`). May be null: then exec
  /// only runs in the foreground and `process` reports that nothing is running.
  ProcessTable* processes = nullptr;
  /// The agent's memory (memory_search / memory_get; MM-6). May be null: memory disabled.
  MemoryBackend* memory = nullptr;
  /// The agent the run belongs to (memory is per agent, MM-8).
  std::string agent_id;
  /// Most output bytes one `exec` command keeps (tools.exec.maxOutputChars); 0 = max_output_chars.
  std::size_t exec_max_output_chars = 0;
  /// When set, this run is sandboxed (TL-5): exec runs inside bwrap and the file tools follow the
  /// workspaceAccess rule (tools/sandbox/sandbox.h). Null = the host.
  std::shared_ptr<const sandbox::Settings> sandbox;
  /// The configuration document the run started with (tools.web.*, plugins.entries.*); may be null.
  std::shared_ptr<const nlohmann::json> config;
  /// The gateway's cron jobs (the `cron` tool, tools/cron_tool.h). May be null: no scheduler.
  CronBackend* cron = nullptr;
  /// The run's canonical session key and the chat it answers (the cron tool's defaults).
  std::string session_key;
  ToolOrigin origin;
  /// The run that made the call and its global lane ("main", "subagent", "cron", "nested"):
  /// the session tools act on behalf of this run (who spawned a child, who sent a message).
  std::string run_id;
  std::string lane = "main";
  /// The session tools' backends (null members: unavailable).
  SessionBackends session_backends;

  bool is_cancelled() const { return cancelled != nullptr && cancelled->cancelled(); }
  /// Calls `fn` when the run is stopped (at once if it already is), until the returned
  /// subscription is destroyed. See CancelSignal for what `fn` may do.
  [[nodiscard]] CancelSignal::Subscription on_cancel(std::function<void()> fn) const {
    return cancelled != nullptr ? cancelled->subscribe(std::move(fn)) : CancelSignal::Subscription{};
  }
};

/// What a tool call produced. `text` goes to the model (valid UTF-8); `details` is structured
/// data for clients and transcripts (never sent to the model); `is_error` marks a failed call.
struct ToolOutput {
  std::string text;
  nlohmann::json details = nlohmann::json::object();
  bool is_error = false;

  static ToolOutput ok(std::string text, nlohmann::json details = nlohmann::json::object()) {
    return ToolOutput{std::move(text), std::move(details), false};
  }
  static ToolOutput error(std::string text, nlohmann::json details = nlohmann::json::object()) {
    return ToolOutput{std::move(text), std::move(details), true};
  }
  /// The error every tool reports: text "<tool>: <message>", details {code} (e.g. "TOOL_ERROR",
  /// "NOT_FOUND") for the model and the logs.
  static ToolOutput failure(std::string_view tool, const std::string& message, std::string_view code = "TOOL_ERROR") {
    return error(std::string(tool) + ": " + message, {{"code", code}});
  }
};

class Tool {
 public:
  virtual ~Tool() = default;

  /// Identifier the model calls, e.g. "read". Lowercase, [a-z0-9_].
  virtual std::string_view name() const = 0;
  /// One paragraph for the model: what it does, limits, how to continue.
  virtual std::string_view description() const = 0;
  /// JSON Schema object: {"type":"object","properties":{...},"required":[...]}.
  virtual const nlohmann::json& parameters() const = 0;
  /// Policy group without the "group:" prefix, e.g. "fs" or "runtime" (registry.h).
  virtual std::string_view group() const = 0;
  /// Runs with arguments already checked by `validate_arguments`. Blocking; worker thread only.
  virtual ToolOutput run(const nlohmann::json& args, ToolContext& ctx) const = 0;
};

/// Checks `args` against the top level of `tool.parameters()`: it must be an object, every
/// `required` property present and non-null, and every present property of the declared `type`
/// ("string", "integer", "number", "boolean", "array", "object") and in its `enum` if any.
/// Unknown properties are ignored. Error code "TOOL_ARGS_INVALID" with a message such as
/// `read: missing required argument "path"` or `read: argument "offset" must be an integer, got string`.
Status validate_arguments(const Tool& tool, const nlohmann::json& args);

/// Validates, then runs. Validation failures and exceptions become error outputs.
ToolOutput invoke_tool(const Tool& tool, const nlohmann::json& args, ToolContext& ctx);

// ---- helpers shared by the built-in tools ----

/// Replaces invalid UTF-8 sequences with U+FFFD so the text can be serialised as JSON.
std::string sanitize_utf8(std::string_view bytes);

/// `args[key]` as T, or `fallback` when absent or null. Call only after validation.
template <class T>
T arg_or(const nlohmann::json& args, const char* key, T fallback) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return fallback;
  return it->template get<T>();
}

/// True when `args` holds a non-null `key`.
inline bool has_arg(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && !it->is_null();
}

}  // namespace pincer::tools
