#include "core/json_dump.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pincer::json_dump {
namespace {

using nlohmann::json;

// Byte classes: 0 copied as-is (ASCII that needs no escape), 1 escaped, 2 starts a multi-byte
// UTF-8 sequence (validated), 3 never valid in UTF-8 (0x80..0xC1, 0xF5..0xFF as a lead byte).
constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> c{};
  for (int i = 0; i < 0x20; ++i) c[i] = 1;
  c['"'] = 1;
  c['\\'] = 1;
  for (int i = 0x80; i < 0x100; ++i) c[i] = 3;
  for (int i = 0xC2; i <= 0xF4; ++i) c[i] = 2;
  return c;
}
constexpr std::array<std::uint8_t, 256> kClass = make_classes();

/// Length of the valid UTF-8 sequence starting at s[i] (lead byte 0xC2..0xF4), or 0 if it is not
/// valid (Unicode Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char lead = b(0);
  if (lead <= 0xDF) return cont(1) ? 2 : 0;
  if (lead <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (lead == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (lead == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (!cont(1) || !cont(2) || !cont(3)) return 0;
  if (lead == 0xF0 && b(1) < 0x90) return 0;  // overlong
  if (lead == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
  return 4;
}

/// Escape of an ASCII byte of class 1, as nlohmann writes it.
std::string_view escape_of(unsigned char c, char (&buf)[8]) {
  switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\f': return "\\f";
    case '\r': return "\\r";
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      buf[0] = '\\'; buf[1] = 'u'; buf[2] = '0'; buf[3] = '0';
      buf[4] = kHex[c >> 4]; buf[5] = kHex[c & 0xF];
      return {buf, 6};
    }
  }
}

/// Walks `s` once; for each run of bytes copied as-is calls run(begin, length), for each escape
/// calls esc(text). Returns false (having emitted a prefix) if `s` is not valid UTF-8.
/// Whether the 8 bytes at `p` are all of class 0 (no byte below 0x20 or from 0x80, no '"' or
/// '\\'): the bit tricks of "Bit Twiddling Hacks" (haszero/hasless), exact as booleans.
bool plain8(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const std::uint64_t below_space = (w - 0x20 * kOnes) & ~w & kHigh;
  return ((w & kHigh) | below_space | has_zero(w ^ ('"' * kOnes)) | has_zero(w ^ ('\\' * kOnes))) == 0;
}

/// `from`: bytes before it are known to need no escape (a caller's quick pre-scan).
template <typename Run, typename Esc>
bool scan_string(std::string_view s, Run&& run, Esc&& esc, std::size_t from = 0) {
  std::size_t i = from, start = 0;
  char buf[8];
  while (i < s.size()) {
    while (i + 8 <= s.size() && plain8(s.data() + i)) i += 8;  // most text needs no escape
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    switch (kClass[c]) {
      case 0: ++i; break;
      case 1:
        if (i > start) run(start, i - start);
        esc(escape_of(c, buf));
        start = ++i;
        break;
      case 2: {
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) return false;
        i += n;
        break;
      }
      default: return false;
    }
  }
  if (i > start) run(start, i - start);
  return true;
}

std::string nlohmann_dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::size_t string_size(std::string_view s) {
  std::size_t n = 2;
  const bool ok = scan_string(s, [&](std::size_t, std::size_t k) { n += k; }, [&](std::string_view e) { n += e.size(); });
  return ok ? n : nlohmann_dump(json(std::string(s))).size();
}

template <typename Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

template <typename Int>
std::size_t int_size(Int v) {
  char buf[24];
  return static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}

}  // namespace

void append_string(std::string& out, std::string_view s) {
  // Short plain strings (keys, roles, ids): quoted in a local buffer, one append.
  if (constexpr std::size_t kShort = 64; s.size() <= kShort) {
    char buf[kShort + 2];
    std::size_t n = 0;
    while (n < s.size() && kClass[static_cast<unsigned char>(s[n])] == 0) {
      buf[1 + n] = s[n];
      ++n;
    }
    if (n == s.size()) {
      buf[0] = '"';
      buf[n + 1] = '"';
      out.append(buf, n + 2);
      return;
    }
  }
  // Most strings (keys, plain text) need no escape at all: one copy between the quotes.
  std::size_t plain = 0;
  while (plain + 8 <= s.size() && plain8(s.data() + plain)) plain += 8;
  while (plain < s.size() && kClass[static_cast<unsigned char>(s[plain])] == 0) ++plain;
  if (plain == s.size()) {
    out.reserve(out.size() + s.size() + 2);
    out += '"';
    out.append(s.data(), s.size());
    out += '"';
    return;
  }
  const std::size_t mark = out.size();
  out += '"';
  const bool ok = scan_string(
      s, [&](std::size_t from, std::size_t n) { out.append(s.data() + from, n); }, [&](std::string_view e) { out += e; },
      plain);
  if (!ok) {
    out.resize(mark);
    out += nlohmann_dump(json(std::string(s)));
    return;
  }
  out += '"';
}

void append_compact(std::string& out, const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        append_string(out, key);
        out += ':';
        append_compact(out, value);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& value : j) {
        if (!first) out += ',';
        first = false;
        append_compact(out, value);
      }
      out += ']';
      return;
    }
    case json::value_t::string: append_string(out, j.get_ref<const std::string&>()); return;
    case json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case json::value_t::null: out += "null"; return;
    case json::value_t::number_integer: append_int(out, j.get<std::int64_t>()); return;
    case json::value_t::number_unsigned: append_int(out, j.get<std::uint64_t>()); return;
    default: out += nlohmann_dump(j); return;  // float, binary, discarded
  }
}

namespace {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size()) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {  // eight ASCII bytes
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (kClass[c] != 2) return false;
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool as_parsed_at(json& j, std::size_t depth, std::size_t max_depth) {
  switch (j.type()) {
    case json::value_t::object:
      if (depth + 1 > max_depth) return false;
      for (auto& [key, value] : j.items()) {
        if (!valid_utf8(key) || !as_parsed_at(value, depth + 1, max_depth)) return false;
      }
      return true;
    case json::value_t::array:
      if (depth + 1 > max_depth) return false;
      for (auto& value : j) {
        if (!as_parsed_at(value, depth + 1, max_depth)) return false;
      }
      return true;
    case json::value_t::string: return valid_utf8(j.get_ref<const std::string&>());
    case json::value_t::number_integer: {
      const auto v = j.get<std::int64_t>();
      if (v >= 0) j = static_cast<std::uint64_t>(v);
      return true;
    }
    case json::value_t::number_float: return std::isfinite(j.get<double>());
    case json::value_t::binary:
    case json::value_t::discarded: return false;
    default: return true;  // null, boolean, number_unsigned
  }
}

}  // namespace

bool as_parsed(json& j, std::size_t max_depth) { return as_parsed_at(j, 0, max_depth); }

std::string compact(const json& j) {
  std::string out;
  append_compact(out, j);
  return out;
}

std::size_t compact_size(const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      std::size_t n = 2 + (j.empty() ? 0 : j.size() - 1);  // braces, commas
      for (const auto& [key, value] : j.get_ref<const json::object_t&>()) n += string_size(key) + 1 + compact_size(value);
      return n;
    }
    case json::value_t::array: {
      std::size_t n = 2 + (j.empty() ? 0 : j.size() - 1);
      for (const auto& value : j) n += compact_size(value);
      return n;
    }
    case json::value_t::string: return string_size(j.get_ref<const std::string&>());
    case json::value_t::boolean: return j.get<bool>() ? 4 : 5;
    case json::value_t::null: return 4;
    case json::value_t::number_integer: return int_size(j.get<std::int64_t>());
    case json::value_t::number_unsigned: return int_size(j.get<std::uint64_t>());
    default: return nlohmann_dump(j).size();
  }
}

void Writer::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

Writer& Writer::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

Writer& Writer::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

Writer& Writer::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

Writer& Writer::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

Writer& Writer::key(std::string_view k) {
  before_value();
  append_string(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

Writer& Writer::string(std::string_view s) {
  before_value();
  append_string(out_, s);
  return *this;
}

Writer& Writer::integer(std::int64_t v) {
  before_value();
  append_int(out_, v);
  return *this;
}

Writer& Writer::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

Writer& Writer::null() {
  before_value();
  out_ += "null";
  return *this;
}

Writer& Writer::value(const json& j) {
  before_value();
  append_compact(out_, j);
  return *this;
}

const std::string& StringMemo::literal(std::string_view s) {
  if (!valid_ || s != text_) {
    text_.assign(s);
    literal_.clear();
    append_string(literal_, s);
    valid_ = true;
  }
  return literal_;
}

Writer& Writer::raw(std::string_view json_text) {
  before_value();
  out_.append(json_text);
  return *this;
}

}  // namespace pincer::json_dump
