#include "delivery/text_units.h"

#include "core/utf8.h"

namespace pincer::delivery {

std::size_t code_point_length(std::string_view s, std::size_t i) {
  const std::size_t len = utf8::sequence_length(s, i);
  return len == 0 ? 1 : len;  // a byte that begins no well-formed sequence is one unit of its own
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

bool is_valid_utf8(std::string_view s) { return utf8::is_valid(s); }

}  // namespace pincer::delivery
