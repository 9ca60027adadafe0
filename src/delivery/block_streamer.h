// Block streaming (SPEC CH-4): the model's text stream → blocks sent as separate messages while
// the reply is still being written. Two stages, as in OpenClaw
// (src/agents/pi-embedded-block-chunker.ts, src/auto-reply/reply/block-reply-coalescer.ts,
// src/auto-reply/reply/block-streaming.ts):
//
// 1. Cutting. Text accumulates until it holds min_chars; then a block is cut at the last break of
//    the preferred kind that lies between min_chars and max_chars (paragraph: a blank line, else a
//    line break, else the end of a sentence; newline: a line break; sentence: the end of a
//    sentence), else — once the text reaches max_chars — at the last space, else hard at
//    max_chars. A cut never falls inside a code fence unless the fence alone is longer than
//    max_chars; then the fence is closed at the cut (its marker line) and reopened (its opening
//    line) at the start of the next block, at a line break inside it where possible.
//    With flush_on_paragraph (channels' chunkMode "newline") every finished paragraph is a block
//    at once, whatever its size.
// 2. Coalescing. Cut blocks wait and are joined (with `joiner`) with the blocks that follow while
//    the joined text stays within coalesce_max_chars; a join that would exceed it sends what is
//    waiting first. Waiting text is sent when it reaches coalesce_max_chars, when no new text has
//    come for idle_ms and it holds at least coalesce_min_chars, and by flush().
//
// flush() (end of the reply, or a tool call boundary) sends everything: the rest of the text is cut
// as above with a minimum of 1, and what waits is sent regardless of its size. Whitespace-only
// blocks are never sent; whitespace at a cut is dropped.
//
// Sizes are in `unit` (default UTF-16 code units, the length OpenClaw measures); blocks are
// Markdown and are rendered and chunked to the platform's hard limit afterwards (chunker.h), so
// max_chars is a target, not a platform limit. Cuts fall on code point boundaries.
//
// Time comes from the Clock (steady_ms); the streamer owns no timer: the caller runs poll() at
// next_deadline_ms(). Not thread-safe: owned by the run's event loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "delivery/text_units.h"

namespace pincer::delivery {

enum class BreakPreference { Paragraph, Newline, Sentence };

/// OpenClaw DEFAULT_BLOCK_STREAM_MIN / _MAX / _COALESCE_IDLE_MS.
inline constexpr std::size_t kBlockStreamMinChars = 800;
inline constexpr std::size_t kBlockStreamMaxChars = 1200;
inline constexpr std::int64_t kBlockStreamIdleMs = 1000;

struct BlockStreamerOptions {
  std::size_t min_chars = kBlockStreamMinChars;  ///< >= 1; lowered to max_chars if above it
  std::size_t max_chars = kBlockStreamMaxChars;  ///< clamp to the channel's text limit
  BreakPreference break_preference = BreakPreference::Paragraph;
  bool flush_on_paragraph = false;               ///< chunkMode "newline"
  std::size_t coalesce_min_chars = kBlockStreamMinChars;
  std::size_t coalesce_max_chars = kBlockStreamMaxChars;
  std::int64_t idle_ms = kBlockStreamIdleMs;     ///< 0 = no idle flush
  /// Text between joined blocks; nullopt = by preference: "\n\n", "\n" or " ".
  std::optional<std::string> joiner;
  LengthUnit unit = LengthUnit::Utf16;
};

class BlockStreamer {
 public:
  using Emit = std::function<void(std::string block)>;

  BlockStreamer(const Clock& clock, BlockStreamerOptions options, Emit emit);

  /// A piece of the model's text (any split, even inside a UTF-8 sequence: an incomplete
  /// sequence at the end waits for the next piece).
  void append(std::string_view text);
  /// Sends everything buffered (see above).
  void flush();
  /// Runs the idle flush when due (call at next_deadline_ms(); calling early does nothing).
  void poll();
  /// Steady-clock time (ms) at which poll() has work, or nullopt.
  std::optional<std::int64_t> next_deadline_ms() const;
  /// True while any text waits in either stage.
  bool has_buffered() const { return !buffer_.empty() || !pending_.empty() || !waiting_.empty(); }

 private:
  struct Break {
    std::size_t index = 0;  ///< byte offset; 0 = none
    std::string close_fence;   ///< non-empty: close the fence before the cut…
    std::string reopen_fence;  ///< …and reopen it after
  };

  void drain(bool force);
  void drain_paragraphs();
  Break pick_break(std::size_t min_units) const;
  bool cut(const Break& b);
  std::size_t offset_at_units(std::size_t units, bool round_up) const;
  std::size_t units(std::string_view s) const { return measure(s, options_.unit); }

  void enqueue(std::string block);
  void send_waiting();
  void touch();

  const Clock& clock_;
  BlockStreamerOptions options_;
  Emit emit_;
  std::string pending_;  ///< bytes of an incomplete UTF-8 sequence from the last append
  std::string buffer_;   ///< stage 1: text not yet cut
  std::string waiting_;  ///< stage 2: cut blocks waiting to be joined
  std::optional<std::int64_t> idle_deadline_;
};

}  // namespace pincer::delivery
