// CLI backends: reading what a CLI prints on stdout (issue 17 item 5).
//
//   json   one JSON document (Claude Code `--output-format json`: {"type":"result","subtype":
//          "success","is_error":false,"result":"…","session_id":"…","usage":{…}}; gemini
//          `{"response":"…","stats":…}`). Text: "result", else "response", else the text of
//          "message"/"content"/"text". When stdout is not one JSON value, its last line that is a
//          JSON object is used, and failing that stdout itself is the reply.
//   jsonl  one JSON object per line, text reported as it comes:
//          Claude Code `--output-format stream-json` — "stream_event" content_block_delta
//          text_delta (with --include-partial-messages), "assistant" messages' text blocks,
//          the final "result" (its text is the reply; is_error marks a failure);
//          codex `exec --json` — "thread.started" {thread_id}, "item.completed" with an
//          item of type "agent_message" {text}, "turn.completed" {usage}, "turn.failed"
//          {error:{message}} and "error" {message} (failures).
//          The reply is the final result's text, else the last assistant message's.
//   text   stdout (trailing whitespace trimmed) is the reply.
// The CLI session id is the first of `sessionIdFields` found as a string at the top level of a
// JSON object (the last such object wins in jsonl).
//
// Not thread-safe: one parser per call.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/cli_backend_config.h"
#include "llm/messages.h"

namespace pincer::agent {

struct CliReply {
  std::string text;                  ///< the reply
  std::string session_id;            ///< "" when the output named none
  llm::Usage usage;                  ///< when the CLI reported it (else zeros)
  std::optional<std::string> error;  ///< the CLI reported a failure (its message)
};

class CliOutputParser {
 public:
  /// `delta`: new text; `text`: the current assistant message's text so far (a new message starts
  /// again from its own first delta).
  using DeltaSink = std::function<void(const std::string& delta, const std::string& text)>;
  CliOutputParser(CliOutput mode, std::vector<std::string> session_id_fields, DeltaSink sink = {});

  /// Consumes stdout bytes split anywhere (jsonl lines are handled as they complete).
  void feed(std::string_view bytes);
  /// End of output: the reply.
  CliReply finish();

 private:
  void line(std::string_view text);
  void event(const nlohmann::json& e);
  void take_session(const nlohmann::json& e);
  void new_message(const std::string& text);
  void append(const std::string& delta);

  CliOutput mode_;
  std::vector<std::string> fields_;
  DeltaSink sink_;
  std::string buffer_;
  CliReply reply_;
  std::string current_;            ///< the current assistant message (jsonl)
  std::string result_;             ///< a "result" event's text (jsonl)
  std::string last_message_id_;    ///< Claude "assistant" message id
  bool partial_seen_ = false;      ///< stream_event deltas arrived for the current message
};

}  // namespace pincer::agent
