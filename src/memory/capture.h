// Auto-capture (SPEC MM-2, MM-3): which user messages are worth a line in today's daily note,
// and in which category. Pure functions, thread-safe.
//
// A message is captured when it passes the safety filter and has a trigger:
//   triggers  "remember", "记住", "记下"; preferences "prefer", "hate", "I like", "I love",
//             "我喜欢", "我偏好" ("like" only as the speaker's verb: "what is it like" is none); decisions "decided", "决定"; importance "always", "never", "important",
//             "重要"; ownership "my X is" / "is my"; a phone number (10+ digits); an e-mail address;
//   filter    10 < length < maxChars (code points); not a question (ends with "?"/"？"/"吗", or
//             opens with an interrogative or auxiliary: "what is my name?", "do I like tea" — but
//             "could you remember that …?" is a request, captured); not a prompt-injection payload ("ignore
//             previous instructions", role tags such as "<system>", "system prompt" …); not text
//             an agent generated (Markdown-heavy: headings, bold lists, code fences; or more than
//             3 emoji).
//   category  preference | decision | entity (phone, e-mail, "is called", ownership) | fact (a
//             plain statement with is/are/has/have) | other.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pincer::memory {

/// `memory.capture` settings.
struct CaptureSettings {
  bool enabled = true;
  std::size_t max_chars = 500;  ///< longer messages are not captured (code points)
};

/// memory.capture from a config (defaults for what is missing).
CaptureSettings capture_settings(const nlohmann::json& config);

/// The category of `text` when it should be captured; nullopt when not (no trigger, filtered:
/// invalid UTF-8, injection-like or generated text, or a credential that redact::apply masks).
std::optional<std::string> capture_category(std::string_view text, std::size_t max_chars);

/// True for text that looks like a prompt-injection payload (part of the filter; exposed for tests).
bool looks_like_injection(std::string_view text);

/// `text` without terminal control sequences: whole ANSI escape sequences (CSI `ESC [ … final`,
/// OSC/DCS `ESC ] … BEL|ESC \`, `ESC x`, their C1 forms), other C0 controls but \n \r \t, DEL and
/// the C1 range U+0080..U+009F. A message from a channel must not reach the owner's terminal (or
/// a later prompt) with codes in it.
std::string strip_terminal_controls(std::string_view text);

/// The note line for a captured message: "- HH:MM [category] text" with the text on one line,
/// its terminal controls stripped (strip_terminal_controls).
std::string capture_line(std::string_view text, std::string_view category, std::string_view hhmm);

}  // namespace pincer::memory
