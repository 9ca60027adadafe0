// libFuzzer target for the incremental SSE parser (src/llm/sse_parser.h).
//
// Checked on every input:
// - the events do not depend on how the bytes are chunked: the input fed whole, byte at a time and
//   in pseudo-random chunks (sizes derived from the input) gives the same events, the same error
//   and the same finish() result — also with a small size guard (64 bytes), so the
//   SSE_EVENT_TOO_LARGE path is exercised;
// - the events equal those of a straightforward whole-input reference implementation of the
//   WHATWG rules written independently below;
// - event types and ids never contain CR or LF, ids never contain NUL, data never contains CR.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_chunks.h"
#include "llm/sse_parser.h"

namespace {

using pincer::llm::SseEvent;
using pincer::llm::SseParser;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

struct Run {
  std::vector<SseEvent> events;
  bool failed = false;
  bool discarded = false;
  std::vector<SseEvent> flushed;  ///< what flush() would add (run on a copy)

  bool operator==(const Run&) const = default;
};

/// Feeds `text` in chunks whose sizes come from `sizes` (cycled; 0 means "the rest").
Run feed(std::string_view text, const std::vector<std::size_t>& sizes, std::size_t max) {
  Run run;
  SseParser parser(max);
  std::size_t pos = 0, k = 0;
  while (pos < text.size()) {
    std::size_t n = sizes.empty() ? 0 : sizes[k++ % sizes.size()];
    if (n == 0 || n > text.size() - pos) n = text.size() - pos;
    if (!parser.feed(text.substr(pos, n), run.events).ok()) {
      run.failed = true;
      return run;
    }
    pos += n;
  }
  SseParser copy = parser;
  copy.flush(run.flushed);
  run.discarded = parser.finish();
  return run;
}

/// Reference: the spec's algorithm over the whole input at once.
std::vector<SseEvent> reference(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<SseEvent> out;
  std::string data, type, last_id;
  std::size_t i = 0;
  while (true) {
    const std::size_t end = text.find_first_of("\r\n", i);
    if (end == std::string_view::npos) break;  // an unterminated last line is never processed
    const std::string_view line = text.substr(i, end - i);
    i = end + 1;
    if (text[end] == '\r' && i < text.size() && text[i] == '\n') ++i;
    if (line.empty()) {
      if (!data.empty()) {
        data.pop_back();
        out.push_back(SseEvent{type.empty() ? "message" : type, data, last_id});
      }
      data.clear();
      type.clear();
      continue;
    }
    if (line[0] == ':') continue;
    const std::size_t colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    if (field == "event") type = std::string(value);
    else if (field == "data") data += std::string(value) + "\n";
    else if (field == "id" && value.find('\0') == std::string_view::npos) last_id = std::string(value);
  }
  return out;
}

using pincer::fuzz::chunk_sizes;

void check_event(const SseEvent& e) {
  check(!e.type.empty());
  check(e.type.find_first_of("\r\n") == std::string::npos);
  check(e.id.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
  check(e.data.find('\r') == std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  const std::vector<std::size_t> random_sizes = chunk_sizes(text);
  for (std::size_t max : {SseParser::kDefaultMaxEventBytes, std::size_t{64}}) {
    const Run whole = feed(text, {}, max);
    check(feed(text, {1}, max) == whole);
    check(feed(text, random_sizes, max) == whole);
    for (const auto& e : whole.events) check_event(e);
    if (max == SseParser::kDefaultMaxEventBytes) {
      check(!whole.failed);
      check(whole.events == reference(text));
    }
  }
  return 0;
}
