#include "delivery/text_units.h"

#include <cstdint>

namespace pincer::delivery {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::size_t code_point_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 1;  // continuation byte, C0/C1 overlong lead, or F5..FF
  }
  if (i + len > s.size()) return 1;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (!is_continuation(b)) return 1;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 1;  // overlong/too big
  if (cp >= 0xD800 && cp <= 0xDFFF) return 1;  // UTF-8-encoded surrogate
  return len;
}

std::size_t code_point_units(std::size_t bytes, LengthUnit unit) {
  switch (unit) {
    case LengthUnit::Utf8Bytes: return bytes;
    case LengthUnit::CodePoints: return 1;
    case LengthUnit::Utf16: return bytes == 4 ? 2 : 1;
  }
  return bytes;
}

std::size_t measure(std::string_view s, LengthUnit unit) {
  if (unit == LengthUnit::Utf8Bytes) return s.size();
  std::size_t total = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = code_point_length(s, i);
    total += code_point_units(len, unit);
    i += len;
  }
  return total;
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = code_point_length(s, i);
    if (len == 1 && static_cast<unsigned char>(s[i]) >= 0x80) return false;
    i += len;
  }
  return true;
}

}  // namespace pincer::delivery
