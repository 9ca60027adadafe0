// `pincer acp` (SPEC IX-3; docs/interop.md "ACP"): an Agent Client Protocol agent (protocol version
// 1, JSON-RPC on stdio) for editors such as Zed, backed by the running gateway as OpenClaw's
// `openclaw acp` bridge is: every prompt is a gateway chat.send, so it goes through the gateway like
// any other inbound message.
//
// Methods: initialize, authenticate (no methods: {}), session/new, session/load, session/prompt;
// the notification session/cancel. Session keys as OpenClaw maps them: `_meta.sessionKey` /
// `_meta.sessionLabel` (or --session / --session-label), else a new session gets its own
// `acp-bridge:<sessionId>` key (stored as agent:<default agent>:acp-bridge:<sessionId>);
// session/load of an id this process has not seen uses the id itself when it is a session key
// (has a ':'), else `acp-bridge:<id>` — so a session made by an earlier `pincer acp` comes back
// with its history, replayed from chat.history as user_message_chunk / agent_message_chunk.
//
// A prompt streams session/update notifications from the run's gateway events: the reply's text as
// agent_message_chunk, tools as tool_call (in_progress) and tool_call_update (completed | failed);
// An exec approval the run asks for is relayed to the editor as session/request_permission
// (options allow-once, allow-always, deny; a cancelled or failed request denies) and answered with
// exec.approval.resolve — the first answer anywhere wins. Then the answer {stopReason}: end_turn, max_tokens (the model hit its length limit), cancelled
// (session/cancel, or the run was aborted); a run that fails answers a JSON-RPC error (-32603 with
// the gateway's message). The prompt text is prefixed with "[Working directory: <cwd>]" unless
// --no-prefix-cwd or `_meta.prefixCwd: false`, or it is a chat command ("/status"). After
// session/new and session/load, an available_commands_update lists Pincer's chat commands.
//
// Thread affinity: everything runs on the EventLoop thread.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "interop/acp/acp_mapping.h"
#include "interop/gateway_link.h"
#include "interop/stdio_server.h"

namespace pincer::interop::acp {

/// The command line's defaults (`pincer acp --session … --session-label … --require-existing
/// --reset-session --no-prefix-cwd`); `_meta` of a request overrides them.
struct AcpOptions {
  std::string version;
  std::optional<std::string> session_key;
  std::optional<std::string> session_label;
  bool require_existing = false;
  bool reset_session = false;
  bool prefix_cwd = true;
  std::string home;  ///< $HOME, to show the working directory as ~/…
};

class AcpServer : public BridgeServer {
 public:
  AcpServer(StdioServer& rpc, GatewayLink& gateway, AcpOptions options);

  void on_message(const jsonrpc::Message& message) override;
  void on_gateway_event(const std::string& event, const nlohmann::json& payload) override;
  void on_gateway_closed(const std::string& why) override;

 private:
  struct Session {
    std::string key;
    std::string cwd;
  };
  struct Prompt {
    nlohmann::json request_id;
    std::string session_id;
    std::string key;
    std::string run_id;
    ReplyStream stream;
    std::map<std::string, std::string> open_tools;  ///< toolCallId → tool name, until its result
    std::string last_exec_call;                     ///< the toolCallId of the latest `exec` started
  };
  /// A session/request_permission this agent sent for a gateway exec approval.
  struct PermissionAsk {
    std::string approval_id;
    std::string session_id;
    std::string run_id;
  };
  using KeyDone = std::function<void(Result<std::string>)>;

  void on_request(const jsonrpc::Message& m);
  void initialize(const jsonrpc::Message& m);
  void new_session(const jsonrpc::Message& m);
  void load_session(const jsonrpc::Message& m);
  void prompt(const jsonrpc::Message& m);
  void cancel(const std::string& session_id);

  /// The session key of `meta` / the options, else `fallback`; then the reset if asked.
  void resolve_key(const SessionMeta& meta, const std::string& fallback, KeyDone done);
  void replay_history(const nlohmann::json& request_id, const std::string& session_id, const std::string& key);

  void on_chat_event(const nlohmann::json& payload);
  /// exec.approval.requested of a prompt's run → session/request_permission to the client.
  void on_approval_requested(const nlohmann::json& payload);
  /// The client's answer to a session/request_permission → exec.approval.resolve.
  void on_permission_answer(const jsonrpc::Message& m);
  void on_tool_event(const nlohmann::json& payload);
  Prompt* prompt_of_run(const std::string& run_id);
  void send_chunk(Prompt& p, const std::string& text);
  void update(const std::string& session_id, nlohmann::json update);
  /// Answers the prompt and forgets it.
  void finish(const std::string& session_id, const std::string& stop_reason);
  void fail(const std::string& session_id, int code, const std::string& message);

  StdioServer& rpc_;
  GatewayLink& gateway_;
  AcpOptions options_;
  std::map<std::string, Session> sessions_;  ///< by ACP session id
  std::map<std::string, Prompt> prompts_;    ///< the running prompt of each session, by session id
  std::map<std::string, PermissionAsk> asks_;  ///< by the JSON text of our request's id
  int64_t next_request_id_ = 1;
};

}  // namespace pincer::interop::acp
