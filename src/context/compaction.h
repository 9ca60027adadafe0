// The pure parts of compaction (SPEC CX-9): where to cut, what the summariser is asked, how a
// long part is split for a small summariser window, and the identifier check of the summary.
// The LLM calls are in summarizer.h; the engine that ties them together in default_engine.h.
//
// No I/O, no threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llm/messages.h"

namespace pincer::context {

/// CX-9: keepRecentTokens of OpenClaw and pi.
inline constexpr int64_t kDefaultKeepRecentTokens = 20'000;
/// pi's reserveTokens: room kept free for the reply (and the compaction's own call).
inline constexpr int64_t kDefaultReserveTokens = 16'384;
/// A tool result is cut to this many chars in the text given to the summariser (pi does the same).
inline constexpr std::size_t kSummaryToolResultChars = 2'000;
/// At most this many identifiers are checked and, when missing, appended to a summary.
inline constexpr std::size_t kMaxIdentifiers = 80;

/// CX-9 cut point. `tokens[i]` is the estimate of message i of `messages`. Walks back from the
/// newest message summing tokens until `keep_recent` is reached; the cut moves back to the start
/// of that turn (a user message), so no turn is split and every tool call keeps its result. When
/// that would keep everything, the cut moves forward to the next turn start instead, never past
/// the start of the latest turn (the latest user instruction and anything after it always stay).
/// Returns the index of the first kept message; nullopt when nothing can be cut (one turn only).
std::optional<std::size_t> find_cut(const std::vector<llm::Message>& messages, const std::vector<int64_t>& tokens,
                                    int64_t keep_recent);

/// One message as text for the summariser: "[User]: …", "[Assistant]: …", "[Assistant tool call]:
/// name({json})", "[Tool result name]: …" (cut to kSummaryToolResultChars); thinking is left out.
std::string serialize_for_summary(const llm::Message& message);

/// The identifiers of `text` that a summary must keep (CX-9): URLs, file paths and file names,
/// ISO dates, amounts ($12.50, 40 %), function and symbol names (name(), snake_case, camelCase,
/// a::b), ids (words of ≥ 6 chars mixing letters and digits: hex ids, UUIDs, INV-2024-0042, #123).
/// Distinct, in order of first appearance, at most kMaxIdentifiers.
std::vector<std::string> extract_identifiers(const std::string& text);

/// `summary` with every identifier of `identifiers` it does not contain appended verbatim under a
/// "Identifiers kept verbatim" heading, the appended part at most `max_added_chars`. `missing`
/// (optional) receives how many were appended.
std::string ensure_identifiers(std::string summary, const std::vector<std::string>& identifiers,
                               std::size_t max_added_chars, std::size_t* missing = nullptr);

/// The system prompt of the summariser's calls.
std::string summary_system_prompt();
/// The user message of one summariser call: the conversation part, the previous summary to
/// update (when not empty), the structure asked for, and the user's own `instructions`
/// (/compact …, may be empty).
std::string summary_request(const std::string& conversation, const std::string& previous_summary,
                            const std::string& instructions);

/// Splits the serialised messages into pieces of at most `max_chars` each, at message
/// boundaries; a message longer than that is cut into several pieces (at character boundaries).
/// `max_chars` 0 is taken as 1.
std::vector<std::string> split_for_summary(const std::vector<std::string>& serialized, std::size_t max_chars);

}  // namespace pincer::context
