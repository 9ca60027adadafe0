// Silent replies (SPEC CX-10; OpenClaw's src/auto-reply/tokens.ts and normalize-reply.ts): an
// answer that is only `NO_REPLY` (or the heartbeat's `HEARTBEAT_OK`) is never shown to anyone —
// no chat message, no `chat` event message, no `agent` payload, no line from `pincer agent`. The
// transcript keeps the answer as the model wrote it; only what users see is filtered here.
//
// Two layers, both pure and usable by any front end (the heartbeat runner too):
//   - text functions: is_silent_reply() (the whole text is the token), visible_reply_text() (what
//     a finished reply shows: "" when silent, else the text without a stray trailing/leading
//     token), visible_stream_text() (the part of a reply still being written that is safe to show:
//     a tail that may still become a token is held back until it is known);
//   - without_silent_replies(): a RunEventSink wrapper that applies them to a run's events, so
//     each consumer (gateway chat events, channels, `pincer agent --local`, cron delivery) sees
//     only visible text: AssistantDelta events carry the visible text so far (each an extension
//     of the previous one within a model step), End/Aborted carry visible_reply_text().
#pragma once

#include <string>
#include <string_view>

#include "agent/run_events.h"

namespace pincer::agent {

/// OpenClaw's silent-reply token (SILENT_REPLY_TOKEN).
inline constexpr std::string_view kSilentReplyToken = "NO_REPLY";
/// OpenClaw's heartbeat acknowledgement (HEARTBEAT_TOKEN): silent in every chat as well.
inline constexpr std::string_view kHeartbeatToken = "HEARTBEAT_OK";

/// True when `text` is only `token` — repeated, with surrounding whitespace or edge punctuation
/// ("NO_REPLY.", "**NO_REPLY**"), any case (OpenClaw's isSilentReplyText).
bool is_token_only_text(std::string_view text, std::string_view token);

/// True when `text` is only the silent token (is_token_only_text with kSilentReplyToken) or one of
/// the JSON forms `"NO_REPLY"` and `{"action":"NO_REPLY"}` (OpenClaw's isSilentReplyPayloadText
/// without the reasoning-prefixed forms).
bool is_silent_reply(std::string_view text);

/// What a finished reply shows to users: "" when it is silent (is_silent_reply, or only
/// HEARTBEAT_OK); else `text` with a leading token line ("NO_REPLY\n…") and a trailing run of
/// tokens ("Done. NO_REPLY") removed and the rest trimmed; else `text` unchanged, byte for byte.
std::string visible_reply_text(std::string_view text);

/// The part of `text` — a reply still being streamed — that can be shown now: as
/// visible_reply_text, but a trailing word that may still grow into a token ("N", "NO_RE",
/// "HEARTBEAT") and trailing whitespace are held back, and so is the whole text while it may still
/// become a silent reply (`{"action":` …). Monotonic: for a text that only grows, each result
/// extends the previous one, and visible_reply_text of the complete text extends the last one.
std::string visible_stream_text(std::string_view text);

/// Wraps `sink` so that it sees a run's events with silent replies removed (see the file comment).
/// Per run state: wrap once per run. Events other than AssistantDelta/ToolStart/End/Aborted pass
/// unchanged; a model step's held-back text is released (as one AssistantDelta) before its
/// ToolStart unless the step was silent. Event-loop thread, as the sink.
RunEventSink without_silent_replies(RunEventSink sink);

}  // namespace pincer::agent
