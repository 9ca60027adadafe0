#include "core/ascii_fold.h"

#include "core/utf8.h"

namespace pincer::ascii_fold {
namespace {

/// U+00C0..U+00FF: the ASCII letter for each, "" for × and ÷; multi-letter entries spelled out.
constexpr const char* kAsciiFoldLatin1[64] = {
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",   // C0..CF
    "D", "N", "O", "O", "O", "O", "O",  "",  "O", "U", "U", "U", "U", "Y", "TH", "ss",  // D0..DF
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",   // E0..EF
    "d", "n", "o", "o", "o", "o", "o",  "",  "o", "u", "u", "u", "u", "y", "th", "y",  // F0..FF
};

/// U+0100..U+017F, one letter per code point ('?' = spelled out in extended_a below).
constexpr std::string_view kAsciiFoldExtendedA =
    "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIi??JjKkkLlLlLlLlLlNnNnNn?NnOoOoOo??RrRrRrSsSsSsSsTtTtTt"
    "UuUuUuUuUuUuWwYyYZzZzZzs";
static_assert(kAsciiFoldExtendedA.size() == 0x80);

std::string_view ascii_fold_extended_a(char32_t cp) {
  switch (cp) {
    case 0x132: return "IJ";
    case 0x133: return "ij";
    case 0x149: return "n";  // ŉ
    case 0x152: return "OE";
    case 0x153: return "oe";
    default: return kAsciiFoldExtendedA.substr(cp - 0x100, 1);
  }
}

std::string_view ascii_fold_one(char32_t cp) {
  if (cp >= 0xC0 && cp <= 0xFF) return kAsciiFoldLatin1[cp - 0xC0];
  if (cp >= 0x100 && cp <= 0x17F) return ascii_fold_extended_a(cp);
  switch (cp) {
    case 0x218: return "S";  // Ș
    case 0x219: return "s";
    case 0x21A: return "T";  // Ț
    case 0x21B: return "t";
    case 0x1E9E: return "SS";  // ẞ
    default: return "";      // combining accents, other scripts, symbols
  }
}

}  // namespace

std::string to_ascii(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t len = utf8::sequence_length(text, i);
    if (len == 0) {  // not well-formed: drop the byte
      ++i;
      continue;
    }
    out += ascii_fold_one(utf8::decode_at(text, i).cp);
    i += len;
  }
  return out;
}

}  // namespace pincer::ascii_fold
