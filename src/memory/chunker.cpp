#include "memory/chunker.h"

#include <algorithm>

namespace pincer::memory {
namespace {

struct Line {
  std::string_view text;
  int number;
};

bool is_heading(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 6 && line[i] == '#') ++i;
  return i > 0 && i < line.size() && line[i] == ' ';
}

bool is_fence(std::string_view line) {
  const auto b = line.find_first_not_of(' ');
  return b != std::string_view::npos && b < 4 && (line.substr(b, 3) == "```" || line.substr(b, 3) == "~~~");
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

/// Largest cut ≤ max that does not split a UTF-8 sequence.
std::size_t utf8_cut(std::string_view s, std::size_t max) {
  if (max >= s.size()) return s.size();
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return cut == 0 ? max : cut;
}

}  // namespace

std::vector<Chunk> chunk_markdown(std::string_view text, ChunkingOptions options) {
  const int tokens = std::max(16, options.tokens);
  const int overlap = std::clamp(options.overlap, 0, tokens / 2 - 1);
  const std::size_t max_bytes = static_cast<std::size_t>(tokens) * kBytesPerToken;
  const std::size_t overlap_bytes = static_cast<std::size_t>(overlap) * kBytesPerToken;

  // Lines, with over-long ones split into pieces that keep their line number.
  std::vector<Line> lines;
  int number = 1;
  for (std::size_t pos = 0; pos <= text.size();) {
    auto nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (line.size() > max_bytes) {
      const std::size_t cut = utf8_cut(line, max_bytes);
      lines.push_back({line.substr(0, cut), number});
      line.remove_prefix(cut);
    }
    lines.push_back({line, number});
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++number;
  }

  std::vector<Chunk> out;
  std::vector<Line> current;
  std::size_t bytes = 0;
  auto flush = [&](bool keep_overlap) {
    // Trim blank lines at both ends; a chunk of only blank lines is dropped.
    std::size_t b = 0, e = current.size();
    while (b < e && blank(current[b].text)) ++b;
    while (e > b && blank(current[e - 1].text)) --e;
    if (b < e) {
      Chunk c;
      c.start_line = current[b].number;
      c.end_line = current[e - 1].number;
      for (std::size_t i = b; i < e; ++i) {
        if (i > b && current[i].number != current[i - 1].number) c.text += '\n';  // pieces of one line join
        c.text += current[i].text;
      }
      out.push_back(std::move(c));
    }
    std::vector<Line> tail;
    std::size_t tail_bytes = 0;
    if (keep_overlap && overlap_bytes > 0) {
      for (std::size_t i = current.size(); i-- > 1;) {  // never the whole chunk again
        if (tail_bytes + current[i].text.size() + 1 > overlap_bytes) break;
        tail_bytes += current[i].text.size() + 1;
        tail.insert(tail.begin(), current[i]);
      }
    }
    current = std::move(tail);
    bytes = tail_bytes;
  };

  bool in_fence = false;
  std::size_t own_bytes = 0;  // bytes added since the last flush (not counting overlap)
  for (const Line& line : lines) {
    const std::size_t add = line.text.size() + 1;
    if (!in_fence && is_heading(line.text) && own_bytes >= max_bytes / 2) {
      flush(false);
      own_bytes = 0;
    } else if (bytes + add > max_bytes && own_bytes > 0) {
      flush(true);
      own_bytes = 0;
    }
    if (is_fence(line.text)) in_fence = !in_fence;
    current.push_back(line);
    bytes += add;
    own_bytes += add;
  }
  if (own_bytes > 0) flush(false);
  return out;
}

}  // namespace pincer::memory
