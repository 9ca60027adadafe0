#include "core/utf8.h"

#include <cstdint>
#include <cstdio>

namespace pincer::utf8 {

std::size_t sequence_length(std::string_view s, std::size_t i) {
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
    return 0;  // a continuation byte, C0/C1 (overlong lead) or F5..FF
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return len;
}

namespace {

void escape_pointer_token(std::string& out, std::string_view token) {
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
}

std::optional<InvalidString> find_in(const nlohmann::json& value, std::string& path) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (auto problem = describe_invalid(s); !problem.empty()) return InvalidString{path, std::move(problem)};
    return std::nullopt;
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::size_t size = path.size();
      path += "/" + std::to_string(i);
      if (auto bad = find_in(value[i], path)) return bad;
      path.resize(size);
    }
  } else if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const std::size_t size = path.size();
      path += "/";
      // A bad key cannot be shown as it is: name it by its valid prefix.
      if (auto problem = describe_invalid(key); !problem.empty()) {
        escape_pointer_token(path, replace_invalid(key));
        return InvalidString{path, "key: " + problem};
      }
      escape_pointer_token(path, key);
      if (auto bad = find_in(child, path)) return bad;
      path.resize(size);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> first_invalid(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t len = sequence_length(bytes, i);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

std::string replace_invalid(std::string_view bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t len = sequence_length(bytes, i);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string describe_invalid(std::string_view bytes) {
  const auto bad = first_invalid(bytes);
  if (!bad) return {};
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(bytes[*bad]));
  return "invalid UTF-8 at byte " + std::to_string(*bad) + " (" + hex + ")";
}

std::optional<InvalidString> find_invalid(const nlohmann::json& value) {
  std::string path;
  return find_in(value, path);
}

CodePoint decode_at(std::string_view bytes, std::size_t pos) {
  const std::size_t len = sequence_length(bytes, pos);
  const auto b = [&](std::size_t i) -> char32_t { return static_cast<unsigned char>(bytes[pos + i]); };
  switch (len) {
    case 2: return {((b(0) & 0x1F) << 6) | (b(1) & 0x3F), 2};
    case 3: return {((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F), 3};
    case 4: return {((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F), 4};
    default: return {b(0), 1};  // ASCII, or a byte that begins no well-formed sequence
  }
}

void append(std::string& out, char32_t cp) {
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  append_unchecked(out, cp);
}

void append_unchecked(std::string& out, char32_t cp) {
  const auto put = [&](char32_t bits) { out.push_back(static_cast<char>(bits)); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
}

}  // namespace pincer::utf8
