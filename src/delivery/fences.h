// Markdown code fences as the chunker and the block streamer see them (OpenClaw
// src/markdown/fences.ts parseFenceSpans): a line of up to 3 spaces, then 3+ backticks or 3+
// tildes, then anything (the info string) opens a fence; a later line of the same character with
// at least as many of it closes it (anything may follow). A fence still open at the end of the
// text runs to the end. Offsets are bytes. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::delivery {

struct FenceSpan {
  std::size_t start = 0;       ///< offset of the opening line
  std::size_t end = 0;         ///< end of the closing line (before its "\n"), or text size if open
  std::size_t open_line_end = 0;   ///< end of the opening line (before its "\n")
  std::size_t close_line_start = 0;  ///< start of the closing line; == end when unclosed
  bool closed = false;
  std::string open_line;       ///< e.g. "```python"
  std::string indent;          ///< 0-3 spaces before the marker
  std::string marker;          ///< e.g. "```" or "~~~~"
};

/// All fences of `text`, in order.
std::vector<FenceSpan> parse_fence_spans(std::string_view text);

/// The fence whose inside holds offset `index` (start < index < end), or nullptr. A break at such
/// an index would split the fence.
const FenceSpan* fence_at(const std::vector<FenceSpan>& spans, std::size_t index);

/// True when every fence in `text` is closed (used by tests and the fuzzer: each chunk must be).
bool fences_balanced(std::string_view text);

}  // namespace pincer::delivery
