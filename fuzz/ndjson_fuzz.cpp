// libFuzzer target for the incremental NDJSON parser (src/llm/ndjson_parser.h).
//
// Checked on every input:
// - the values, the error (code and message) and the finish() result do not depend on how the
//   bytes are chunked (whole, byte at a time, pseudo-random chunk sizes derived from the input),
//   also with a small line guard (32 bytes) so NDJSON_LINE_TOO_LARGE is exercised;
// - with the default guard the values equal a whole-input reference (split at LF, drop one CR,
//   skip blank lines, parse each line), and the parser fails exactly when the reference does;
// - error messages are one line starting with "line <n>: ".
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_chunks.h"
#include "llm/ndjson_parser.h"

namespace {

using nlohmann::json;
using pincer::llm::NdjsonParser;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

struct Run {
  std::vector<json> values;
  std::string error_code, error_message;

  bool operator==(const Run&) const = default;
};

Run feed(std::string_view text, const std::vector<std::size_t>& sizes, std::size_t max) {
  Run run;
  NdjsonParser parser(max);
  std::size_t pos = 0, k = 0;
  auto fail = [&](const pincer::Error& e) {
    run.error_code = e.code;
    run.error_message = e.message;
    return run;
  };
  while (pos < text.size()) {
    std::size_t n = sizes.empty() ? 0 : sizes[k++ % sizes.size()];
    if (n == 0 || n > text.size() - pos) n = text.size() - pos;
    if (auto s = parser.feed(text.substr(pos, n), run.values); !s.ok()) return fail(s.error());
    pos += n;
  }
  if (auto s = parser.finish(run.values); !s.ok()) return fail(s.error());
  return run;
}

int depth_of(const json& j) {
  int deepest = 0;
  if (j.is_structured()) {
    for (const auto& child : j) deepest = std::max(deepest, depth_of(child));
    return deepest + 1;
  }
  return 0;
}

/// Reference over the whole input; nullopt when some line is not JSON or nests too deep.
std::optional<std::vector<json>> reference(std::string_view text) {
  std::vector<json> out;
  while (!text.empty()) {
    const std::size_t lf = text.find('\n');
    std::string_view line = text.substr(0, lf);
    text.remove_prefix(lf == std::string_view::npos ? text.size() : lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) continue;
    json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded() || depth_of(value) > pincer::llm::kMaxJsonDepth) return std::nullopt;
    out.push_back(std::move(value));
  }
  return out;
}

using pincer::fuzz::chunk_sizes;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  const std::vector<std::size_t> random_sizes = chunk_sizes(text);
  try {
    for (std::size_t max : {NdjsonParser::kDefaultMaxLineBytes, std::size_t{32}}) {
      const Run whole = feed(text, {}, max);
      check(feed(text, {1}, max) == whole);
      check(feed(text, random_sizes, max) == whole);
      if (!whole.error_code.empty()) {
        check(whole.error_message.rfind("line ", 0) == 0);
        check(whole.error_message.find(": ") != std::string::npos);
        check(whole.error_message.find('\n') == std::string::npos);
      }
      if (max == NdjsonParser::kDefaultMaxLineBytes) {
        const auto want = reference(text);
        check(want.has_value() == whole.error_code.empty());
        if (want) check(*want == whole.values);
      }
    }
  } catch (...) {
    __builtin_trap();  // the parser must not throw
  }
  return 0;
}
