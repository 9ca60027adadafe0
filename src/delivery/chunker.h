// Splitting rendered text into messages a platform accepts (SPEC CH-4; LESSONS.md 6 "Long replies
// vanish"). Chunking happens *after* rendering and escaping (markdown_render.h), on the exact
// bytes that will be sent, measured in the platform's own units (text_units.h), so "message too
// long" cannot happen: every chunk is at most `limit` units, always, whatever the input.
//
// Formats (what the chunker knows about the text's structure):
//   Plain         IRC and other plain-text targets: no markup.
//   Markdown      Markdown source (OpenClaw's default for most channels): code fences, inline
//                 code and links [text](url) are structure.
//   TelegramHtml  Telegram HTML as produced by markdown_render.h: tags <b> <i> <s> <u> <code>
//                 <pre> <a> <blockquote> <tg-spoiler> …, entities &amp; &lt; &gt; &quot; &#…;.
//
// Guarantees (checked by tests/unit/chunker_test.cpp and fuzz/chunker_fuzz.cpp):
//   * measure(chunk, unit) <= limit for every chunk.
//   * Every chunk is valid UTF-8 when the input is: a cut never splits a UTF-8 sequence, so
//     never a surrogate pair once the text is UTF-16 on the platform.
//   * A cut never falls inside an HTML tag or entity.
//   * Formatting is balanced per chunk: at a cut the chunker closes what is open (HTML tags in
//     reverse order; a code fence with its marker) and reopens it at the start of the next chunk
//     (the same opening tags with their attributes; the fence's opening line). The choice
//     "close and reopen" (rather than "cut only where nothing is open") keeps long code blocks
//     and long quotes splittable. What was never closed in the input is closed at the end.
//   * Nothing but whitespace is lost: dropping the markup the chunker adds, the chunks hold the
//     input's text in order; only whitespace at a cut is dropped (except inside code, where only
//     the newline the cut replaces is), and degenerate markup (below).
//   * Chunks are never empty or whitespace-only.
//
// Where to cut, best first (the last such place that fits wins; OpenClaw src/auto-reply/chunk.ts
// chunkMarkdownText and src/agents/pi-embedded-block-chunker.ts use the same order):
//   1 paragraph break (blank line)   2 line break   3 after a sentence (. ! ? then a space)
//   4 any other space   5 a line break inside a code block (fence/<pre> closed and reopened)
//   6 between any two characters outside protected spans   7 inside a protected span
// Protected spans — cut only when nothing else fits — are code (fences, <pre>, inline code), link
// text (<a>…</a>, [text](url)) and bare URLs. With ChunkMode::Newline every paragraph break
// outside code is also a cut (OpenClaw chunkMode "newline": one paragraph per message).
//
// Degenerate input: an opening tag whose reopen + close cost would leave no room for text (e.g.
// <a href="…"> with an href near the limit) is dropped together with its closing tag, keeping its
// text; a code fence whose opening and closing lines take more than half the limit, or whose
// reopen + close cost leaves less than 12 units for text, is treated as text. Unknown or unmatched
// tags and a '<' or '&' that does not start a tag or entity are text. Invalid UTF-8 bytes are
// single characters.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "delivery/text_units.h"

namespace pincer::delivery {

/// What send_text() takes: plain text, Markdown (Discord), Telegram HTML, Slack mrkdwn
/// (slack_mrkdwn.h; chunked as Markdown: its ``` code blocks are closed and reopened at cuts).
enum class TextFormat { Plain, Markdown, TelegramHtml, SlackMrkdwn };

/// `channels.<id>.chunkMode` (OpenClaw src/auto-reply/chunk.ts): "length" splits only when over
/// the limit; "newline" also starts a new message at every paragraph break.
enum class ChunkMode { Length, Newline };

/// The smallest `limit` accepted, in any unit: an entity (up to 12 units) plus the markup around
/// it must fit.
inline constexpr std::size_t kMinChunkLimit = 16;

/// OpenClaw's text limits (research/openclaw-protocol.md §8), in UTF-16 units. Telegram's API
/// allows 4096 after entity parsing; OpenClaw sends at most 4000. IRC's budget is bytes and
/// depends on the target and prefix, so the IRC channel computes it.
inline constexpr std::size_t kDefaultTextChunkLimit = 4000;
inline constexpr std::size_t kTelegramMessageLimit = 4096;
inline constexpr std::size_t kDiscordMessageLimit = 2000;

struct ChunkOptions {
  std::size_t limit = kDefaultTextChunkLimit;  ///< in `unit`; >= kMinChunkLimit
  LengthUnit unit = LengthUnit::Utf16;
  TextFormat format = TextFormat::Plain;
  ChunkMode mode = ChunkMode::Length;
};

/// Splits `text` into chunks (see the guarantees above). Empty or whitespace-only text gives no
/// chunks; text that fits (and, in Newline mode, has no paragraph break) gives itself.
/// Error "CHUNK_LIMIT_TOO_SMALL" when options.limit < kMinChunkLimit.
Result<std::vector<std::string>> chunk_text(std::string_view text, const ChunkOptions& options);

/// True when the Telegram-HTML tags of `html` are properly nested and all closed, and no '<' or
/// '&' starts a cut-off tag or entity. For tests and the fuzzer.
bool html_tags_balanced(std::string_view html);

}  // namespace pincer::delivery
