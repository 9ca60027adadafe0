// Markdown → index chunks (SPEC MM-4). Pure; no I/O; thread-safe.
//
// A chunk is a run of whole lines of about `tokens` tokens (estimated as 4 bytes per token, as
// OpenClaw does), and the next chunk repeats the last ~`overlap` tokens of lines so a fact cut by a
// boundary is whole in one of them. Markdown-aware: a heading starts a new chunk (without overlap)
// once the current one is at least half full, so sections stay together. A single line longer than
// a chunk is split at UTF-8 character boundaries into several chunks of that same line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::memory {

struct ChunkingOptions {
  int tokens = 400;   ///< target chunk size in tokens (MM-4; OpenClaw's default)
  int overlap = 80;   ///< tokens repeated from the end of the previous chunk
  bool operator==(const ChunkingOptions&) const = default;
};

struct Chunk {
  int start_line = 1;  ///< 1-based, inclusive
  int end_line = 1;    ///< 1-based, inclusive
  std::string text;    ///< the lines joined with '\n' (no trailing newline)
};

/// Bytes per estimated token (MM-4).
constexpr std::size_t kBytesPerToken = 4;

/// Splits `text` into chunks. Empty or whitespace-only text gives no chunk. Invalid options are
/// clamped (tokens ≥ 16, 0 ≤ overlap < tokens/2).
std::vector<Chunk> chunk_markdown(std::string_view text, ChunkingOptions options = {});

}  // namespace pincer::memory
