// libFuzzer target for the JSON-RPC messages and line framing (src/interop/jsonrpc/jsonrpc.h).
//
// Checked on every input:
// - the framer's lines and overflow count do not depend on chunking (whole, byte at a time,
//   pseudo-random sizes), with the default and a small (24-byte) line limit;
// - no line it delivers is blank, contains LF, or exceeds the limit;
// - parse_message never throws; an accepted message serializes to text that parses back to a
//   message of the same kind, method and id and serializes identically again; a refused one gets a reply that is itself a valid error response.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_chunks.h"
#include "interop/jsonrpc/jsonrpc.h"

namespace {

namespace rpc = pincer::interop::jsonrpc;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

struct Framed {
  std::vector<std::string> lines;
  std::size_t overflows = 0;
  bool operator==(const Framed&) const = default;
};

Framed frame(std::string_view text, const std::vector<std::size_t>& sizes, std::size_t max) {
  Framed out;
  rpc::LineFramer framer(max);
  auto on_line = [&](std::string_view l) { out.lines.emplace_back(l); };
  std::size_t pos = 0, k = 0;
  while (pos < text.size()) {
    std::size_t n = sizes.empty() ? 0 : sizes[k++ % sizes.size()];
    if (n == 0 || n > text.size() - pos) n = text.size() - pos;
    framer.feed(text.substr(pos, n), on_line, [&](std::size_t) { ++out.overflows; });
    pos += n;
  }
  framer.finish(on_line);
  return out;
}

using pincer::fuzz::chunk_sizes;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  try {
    const std::vector<std::size_t> sizes = chunk_sizes(text);
    for (std::size_t max : {rpc::LineFramer::kDefaultMaxLineBytes, std::size_t{24}}) {
      const Framed whole = frame(text, {}, max);
      check(frame(text, {1}, max) == whole);
      check(frame(text, sizes, max) == whole);
      for (const auto& line : whole.lines) {
        check(!line.empty() && line.size() <= max);
        check(line.find('\n') == std::string::npos);
      }
    }
    for (const auto& line : frame(text, {}, rpc::LineFramer::kDefaultMaxLineBytes).lines) {
      auto parsed = rpc::parse_message(line);
      if (parsed.ok()) {
        const std::string again = rpc::serialize(*parsed);
        check(again.find('\n') == std::string::npos);
        // Serializing is idempotent after the first pass (which may replace invalid UTF-8).
        auto reparsed = rpc::parse_message(again);
        check(reparsed.ok());
        check(rpc::serialize(*reparsed) == again);
        check(reparsed->kind == parsed->kind && reparsed->method == parsed->method && reparsed->id == parsed->id);
      } else {
        auto reply = rpc::parse_message(rpc::make_invalid_reply(line, parsed.error()));
        check(reply.ok() && reply->kind == rpc::Message::Kind::Response && reply->error.has_value());
        const int code = reply->error->code;
        check(code == rpc::kParseError || code == rpc::kInvalidRequest);
      }
    }
  } catch (...) {
    __builtin_trap();  // nothing here may throw
  }
  return 0;
}
