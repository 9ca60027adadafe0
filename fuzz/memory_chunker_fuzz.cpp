// libFuzzer target for the memory chunker (src/memory/chunker.h).
//
// Input: byte 0 → tokens (16..271), byte 1 → overlap (0..255, clamped by the chunker); the rest is
// the Markdown text. Checked on every input: chunks are in line order with 1 ≤ start ≤ end ≤ the
// text's line count; each chunk's text is its source lines (pieces at the ends when a line was
// longer than a chunk) and no larger than tokens + overlap tokens; every non-blank line is in some chunk.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "memory/chunker.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pincer::memory;
  if (size < 2) return 0;
  ChunkingOptions o;
  o.tokens = 16 + data[0];
  o.overlap = data[1];
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0;;) {
    auto nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  const auto chunks = chunk_markdown(text, o);
  const std::size_t max_bytes = static_cast<std::size_t>(o.tokens) * 2 * kBytesPerToken;
  std::vector<bool> covered(lines.size() + 1, false);
  int prev_start = 0;
  for (const auto& c : chunks) {
    if (c.start_line < 1 || c.end_line < c.start_line || c.end_line > static_cast<int>(lines.size())) std::abort();
    if (c.start_line < prev_start) std::abort();
    prev_start = c.start_line;
    if (c.text.size() > max_bytes + 1) std::abort();
    if (c.start_line == c.end_line) {
      // A whole line, or a piece of an over-long one.
      if (lines[static_cast<std::size_t>(c.start_line - 1)].find(c.text) == std::string_view::npos) std::abort();
    } else {
      std::string expect;
      for (int l = c.start_line; l <= c.end_line; ++l) {
        if (l > c.start_line) expect += '\n';
        expect += lines[static_cast<std::size_t>(l - 1)];
      }
      // Whole lines, except that the first/last may be a piece of an over-long line.
      if (expect.find(c.text) == std::string::npos) std::abort();
    }
    for (int l = c.start_line; l <= c.end_line; ++l) covered[static_cast<std::size_t>(l)] = true;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t\r") != std::string_view::npos && !covered[i + 1]) std::abort();
  }
  return 0;
}
