// Positions in JSON5 text as messages show them (contracts in json5_internal.h): byte offsets
// turned into 1-based line:col, for parse errors and for repeated keys (json5.h DuplicateKey).
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json5.h"
#include "core/json5_internal.h"

namespace pincer::json5::detail_json5 {

namespace {

struct Json5LineCol {
  std::size_t line = 1;
  std::size_t col = 1;
};

/// 1-based line and column (in code points) of byte `offset`, counting on from `from` (the
/// position of byte `from_offset` <= offset; 0 and {1, 1} = from the start). Line breaks are LF,
/// CR, CRLF, U+2028 and U+2029, as in ECMAScript. Only the bytes before `offset` are read, and
/// those are well-formed UTF-8 (validation stops at the first bad byte), so counting lead bytes
/// counts code points.
Json5LineCol json5_line_col(std::string_view text, std::size_t offset, std::size_t from_offset = 0, Json5LineCol from = {}) {
  Json5LineCol at = from;
  for (std::size_t i = from_offset; i < offset && i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const bool cr = b == '\r' && !(i + 1 < text.size() && text[i + 1] == '\n');
    const bool separator = b == 0xE2 && i + 2 < text.size() && text[i + 1] == '\x80' &&
                           (text[i + 2] == '\xA8' || text[i + 2] == '\xA9');
    if (b == '\n' || cr || separator) {
      ++at.line;
      at.col = 1;
      if (separator) i += 2;
    } else if ((b & 0xC0) != 0x80) {
      ++at.col;
    }
  }
  return at;
}

/// The repeats as DuplicateKeys: every offset turned into line:col in one pass over the text.
}  // namespace

std::vector<DuplicateKey> duplicate_keys(std::string_view text, const std::vector<KeyRepeat>& repeats) {
  std::vector<std::size_t> offsets;
  for (const auto& r : repeats) {
    offsets.push_back(r.offset);
    offsets.push_back(r.first_offset);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::vector<Json5LineCol> at(offsets.size());
  std::size_t previous = 0;
  Json5LineCol running;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    running = json5_line_col(text, offsets[i], previous, running);
    previous = offsets[i];
    at[i] = running;
  }
  const auto position = [&](std::size_t offset) {
    return at[static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end(), offset) - offsets.begin())];
  };
  std::vector<DuplicateKey> out;
  for (const auto& r : repeats) {
    const Json5LineCol here = position(r.offset);
    const Json5LineCol first = position(r.first_offset);
    out.push_back(DuplicateKey{r.key, here.line, here.col, first.line, first.col});
  }
  return out;
}

Error make_error(std::string_view text, std::string_view source, std::size_t offset,
                 const std::string& what) {
  const Json5LineCol at = json5_line_col(text, offset);
  std::string message;
  if (!source.empty()) message.append(source).append(":");
  message += std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + what;
  return Error{"JSON5_PARSE", std::move(message)};
}

}  // namespace pincer::json5::detail_json5
