// Pure mappings between ACP (Agent Client Protocol, protocol version 1) and the gateway's shapes for
// `pincer acp` (SPEC IX-3; docs/interop.md "ACP"), as OpenClaw's ACP bridge maps them. Thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::interop::acp {

/// Longest prompt text accepted (bytes, after the working-directory prefix), as OpenClaw's bridge.
inline constexpr std::size_t kMaxPromptBytes = 2 * 1024 * 1024;

/// A prompt's text and images: text blocks, embedded text resources and resource links
/// ("[Resource link (title)] uri") joined by newlines; image blocks become chat.send attachments
/// {type:"image", mimeType, content}. Errors "INVALID_PARAMS" naming the block (not an array, a
/// block without a type) or "PROMPT_TOO_LARGE" past kMaxPromptBytes.
struct PromptInput {
  std::string text;
  nlohmann::json attachments = nlohmann::json::array();
};
Result<PromptInput> read_prompt(const nlohmann::json& prompt);

/// `~/…` for a path under $HOME (`home`), else the path itself.
std::string shorten_home(const std::string& path, const std::string& home);

/// ACP tool call title: "name: key: value, …" (values cut at 100 characters, control characters
/// escaped), or the bare name without arguments.
std::string tool_title(const std::string& name, const nlohmann::json& args);
/// ACP ToolKind guessed from a tool name: read | edit | delete | move | search | execute | fetch | other.
std::string tool_kind(const std::string& name);
/// ACP ToolCallContent[] from a tool result (a string, or an object with text blocks / text /
/// message / error); null when there is no text.
nlohmann::json tool_content(const nlohmann::json& result);

/// The text of a gateway message (its text blocks joined by newlines).
std::string message_text(const nlohmann::json& message);

/// Session meta as OpenClaw reads `_meta`: sessionKey|session|key, sessionLabel|label,
/// resetSession|reset, requireExistingSession|requireExisting, prefixCwd.
struct SessionMeta {
  std::optional<std::string> session_key;
  std::optional<std::string> session_label;
  std::optional<bool> reset;
  std::optional<bool> require_existing;
  std::optional<bool> prefix_cwd;
};
SessionMeta read_session_meta(const nlohmann::json& meta);

/// Streams an assistant reply as agent_message_chunk texts. The gateway's `chat` deltas carry the
/// text of the current model step so far (`message`) and the new part (`deltaText`); after a tool
/// call the next step's text starts afresh (sent after a blank line). next() returns what was not
/// sent yet ("" if nothing).
class ReplyStream {
 public:
  std::string next(const std::string& step_text);
  /// A tool call started: the next text is a new step.
  void new_step() {
    step_sent_.clear();
    started_new_ = any_sent_;
  }

 private:
  std::string step_sent_;
  bool any_sent_ = false;
  bool started_new_ = false;
};

}  // namespace pincer::interop::acp
