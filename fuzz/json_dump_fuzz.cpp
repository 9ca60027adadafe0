// libFuzzer target for the fast compact JSON serializer (src/core/json_dump.h), differential:
// its output must equal nlohmann's dump(-1, ' ', false, replace) byte for byte, and
// compact_size() must equal the output's length. Checked on every input for:
// - the input parsed as JSON (when it parses), including floats, escapes and nesting;
// - the raw bytes as a string value, as an object key and inside an array (invalid UTF-8 and
//   control bytes reach the serializer this way; the parser would refuse them).
// And json_dump::as_parsed: whenever it accepts a tree, parsing the dump gives that tree back.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_dump.h"

namespace {

using nlohmann::json;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void compare(const json& j) {
  const std::string expected = j.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string got = pincer::json_dump::compact(j);
  check(got == expected);
  check(pincer::json_dump::compact_size(j) == expected.size());
  std::string appended = "x";
  pincer::json_dump::append_compact(appended, j);
  check(appended == "x" + expected);
  // as_parsed: when it accepts, the tree is what parsing the dump gives, types included.
  json converted = j;
  if (pincer::json_dump::as_parsed(converted)) {
    const json reparsed = json::parse(expected, nullptr, false);
    check(!reparsed.is_discarded() && reparsed == converted && reparsed.dump() == converted.dump());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string raw(reinterpret_cast<const char*>(data), size);
  json parsed = json::parse(raw, nullptr, false);
  if (!parsed.is_discarded()) compare(parsed);
  compare(json(raw));
  compare(json{{raw, raw}, {"n", -12}, {"u", 42u}, {"b", true}, {"z", nullptr}});
  compare(json::array({raw, 1.5, json::object(), json::array()}));
  return 0;
}
