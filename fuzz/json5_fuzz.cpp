// libFuzzer target for the JSON5 parser (src/core/json5.h).
//
// Checked on every input:
// - parse() never crashes or throws, and a failure is a JSON5_PARSE error of the documented form
//   "<line>:<col>: <what>" on a single line;
// - a parsed value without NaN/Infinity survives dump() -> json5::parse unchanged (types included:
//   int64 stays int64, uint64 stays uint64, double stays double);
// - every input that strict JSON (nlohmann) accepts is accepted by json5::parse with an equal value
//   (JSON5 is a superset of JSON), unless it only fails our nesting limit or contains a NUL byte;
// - parse() listing repeated keys gives the same result, lists nothing on failure, and places
//   every repeat after its first occurrence.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json5.h"

namespace {

using nlohmann::json;

bool has_non_finite(const json& value) {
  if (value.is_number_float()) return !std::isfinite(value.get<double>());
  if (value.is_structured()) {
    for (const auto& child : value) {
      if (has_non_finite(child)) return true;
    }
  }
  return false;
}

/// Deep equality that also compares number types (json's == treats 1 and 1.0 as equal).
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if (it.key() != jt.key() || !same(it.value(), jt.value())) return false;
    }
    return true;
  }
  return a == b;
}

/// "<digits>:<digits>: <something>" with no line break.
bool well_formed_message(std::string_view message) {
  std::size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    const std::size_t start = i;
    while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
    if (i == start || i >= message.size() || message[i] != ':') return false;
    ++i;
  }
  return message.substr(i).size() > 1 && message[i] == ' ' &&
         message.find_first_of("\r\n") == std::string_view::npos;
}

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const pincer::Result<json> result = pincer::json5::parse(text);
    if (!result.ok()) {
      check(result.error().code == "JSON5_PARSE");
      check(well_formed_message(result.error().message));
    } else if (!has_non_finite(result.value())) {
      const std::string dumped = result.value().dump();
      const pincer::Result<json> again = pincer::json5::parse(dumped);
      check(again.ok() && same(again.value(), result.value()));
    }

    std::vector<pincer::json5::DuplicateKey> repeats;
    const pincer::Result<json> listing = pincer::json5::parse(text, "", &repeats);
    check(listing.ok() == result.ok());
    if (!result.ok()) {
      check(repeats.empty() && listing.error().message == result.error().message);
    } else {
      check(has_non_finite(result.value()) || same(listing.value(), result.value()));
      for (const auto& r : repeats) {
        check(r.first_line >= 1 && r.first_col >= 1);
        check(r.line > r.first_line || (r.line == r.first_line && r.col > r.first_col));
      }
    }

    // Strict JSON must be accepted with the same value (nlohmann reads non-negative integers as
    // unsigned, so compare with ==, which is numeric across integer types). nlohmann's lexer takes
    // a NUL byte as the end of input, so such inputs are not comparable.
    const bool has_nul = text.find('\0') != std::string_view::npos;
    const json strict = has_nul ? json(json::value_t::discarded)
                                : json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!strict.is_discarded()) {
      const bool too_deep = !result.ok() &&
                            result.error().message.find("nesting too deep") != std::string::npos;
      check(too_deep || (result.ok() && result.value() == strict));
    }
  } catch (...) {
    __builtin_trap();  // json5::parse must not throw, and dump() must not meet invalid UTF-8
  }
  return 0;
}
