// The terminal chat's view of a run (UI-2): turns the gateway's `agent` and `chat` events into
// text for a terminal — the reply streamed as it arrives, tool calls one compact line each, and a
// closing marker for aborted or failed runs. Pure logic over an std::ostream, so it is unit-tested
// without a terminal. Not thread-safe: the caller serialises calls (the chat command holds a mutex).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::cli {

/// `text` without terminal control sequences: C0 controls other than \n and \t, DEL and the C1
/// range (U+0080..U+009F) are dropped, so model output cannot move the cursor, retitle the window
/// or forge the prompt. Invalid UTF-8 bytes pass through unchanged (the terminal shows U+FFFD).
std::string terminal_safe(const std::string& text);

/// One line for a tool call: `⚙ name arg-summary` (args JSON shortened to `max_chars` chars).
std::string tool_call_line(const std::string& name, const nlohmann::json& args, std::size_t max_chars = 80);

/// A slash command typed at the prompt: "/model openai/gpt" → {"model", "openai/gpt"}.
struct SlashCommand {
  std::string name;  ///< without the slash, lower-cased; "" when the line is not a command
  std::string arg;   ///< the rest, trimmed
};
SlashCommand parse_slash(const std::string& line);

class ChatRenderer {
 public:
  explicit ChatRenderer(std::ostream& out) : out_(out) {}

  /// Starts following `run_id` (the chat.send idempotencyKey); events of other runs are ignored.
  void begin_run(const std::string& run_id);
  /// Feeds one gateway event. Returns true when it ended the followed run (final, aborted, error).
  /// While held (hold()), the event is kept instead, and false is returned.
  bool on_event(const std::string& event, const nlohmann::json& payload);
  /// Keeps the events fed from now on instead of showing them: pincer chat asking a restarted
  /// gateway whether the resumed run is still going gets that run's events before the answer,
  /// and shows them only when the answer is "still running" (else the history has the reply).
  void hold();
  /// Ends hold(). `show`: the kept events are fed in order, as if they came now (returns true when
  /// one ended the followed run); else they are dropped. Without a hold(), does nothing.
  bool release(bool show);
  bool running() const { return !run_id_.empty(); }
  /// How the last run ended: "final", "aborted", "error" ("" while running or before any run).
  const std::string& outcome() const { return outcome_; }
  /// Whether anything of the followed run (reply text, a tool line) has been printed since
  /// begin_run: a run cut off after this left a partial reply on the screen.
  bool printed() const { return printed_; }

 private:
  void print_text(const std::string& text);
  void end_line();

  std::ostream& out_;
  std::string run_id_;
  std::string step_text_;  ///< assistant text printed in the current model step
  std::string outcome_;
  bool at_line_start_ = true;
  bool printed_ = false;  ///< see printed()
  std::optional<std::vector<std::pair<std::string, nlohmann::json>>> held_;  ///< see hold()
};

}  // namespace pincer::cli
