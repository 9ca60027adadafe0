#include "delivery/entities.h"
#include "core/utf8.h"

#include <array>
#include <utility>

namespace pincer::delivery::detail {

std::string encode_utf8(std::uint32_t cp) {
  std::string out;
  utf8::append(out, cp);
  return out;
}

std::optional<std::string> decode_entity(std::string_view entity) {
  if (entity.size() < 3 || entity.front() != '&' || entity.back() != ';') return std::nullopt;
  const std::string_view body = entity.substr(1, entity.size() - 2);
  if (body.front() == '#') {
    const bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
    std::uint32_t cp = 0;
    const std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 8) return std::nullopt;
    for (const char c : digits) {
      std::uint32_t d = 0;
      if (c >= '0' && c <= '9') {
        d = static_cast<std::uint32_t>(c - '0');
      } else if (hex && c >= 'a' && c <= 'f') {
        d = static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (hex && c >= 'A' && c <= 'F') {
        d = static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        return std::nullopt;
      }
      cp = cp * (hex ? 16 : 10) + d;
    }
    return encode_utf8(cp);
  }
  static constexpr std::array<std::pair<std::string_view, std::uint32_t>, 40> kNamed{{
      {"amp", '&'},      {"lt", '<'},        {"gt", '>'},        {"quot", '"'},      {"apos", '\''},
      {"nbsp", 0xA0},    {"copy", 0xA9},     {"reg", 0xAE},      {"trade", 0x2122},  {"hellip", 0x2026},
      {"mdash", 0x2014}, {"ndash", 0x2013},  {"laquo", 0xAB},    {"raquo", 0xBB},    {"lsquo", 0x2018},
      {"rsquo", 0x2019}, {"ldquo", 0x201C},  {"rdquo", 0x201D},  {"bull", 0x2022},   {"middot", 0xB7},
      {"deg", 0xB0},     {"times", 0xD7},    {"divide", 0xF7},   {"euro", 0x20AC},   {"pound", 0xA3},
      {"yen", 0xA5},     {"cent", 0xA2},     {"sect", 0xA7},     {"para", 0xB6},     {"plusmn", 0xB1},
      {"larr", 0x2190},  {"rarr", 0x2192},   {"uarr", 0x2191},   {"darr", 0x2193},   {"harr", 0x2194},
      {"hearts", 0x2665}, {"check", 0x2713}, {"shy", 0xAD},      {"iexcl", 0xA1},    {"iquest", 0xBF},
  }};
  for (const auto& [name, cp] : kNamed) {
    if (name == body) return encode_utf8(cp);
  }
  return std::nullopt;
}

}  // namespace pincer::delivery::detail
