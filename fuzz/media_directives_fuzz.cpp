// libFuzzer target for the `MEDIA:` directives of a reply (src/delivery/media_directives.h): the
// whole input is the reply's Markdown.
//
// Checked on every input:
// - at most kMaxMediaDirectives references, each non-empty, within kMaxMediaReferenceBytes, on
//   one line (no line feed);
// - the kept text is never longer than the reply, and every line of it is a line of the reply
//   (directive lines are removed, nothing is rewritten);
// - splitting the kept text again finds no reference (no directive survives outside code).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "delivery/media_directives.h"

namespace {

using namespace pincer::delivery;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

std::set<std::string_view> media_fuzz_lines(std::string_view text) {
  std::set<std::string_view> lines;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    lines.insert(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ReplyMediaSplit split = split_media_directives(text);
  check(split.references.size() <= kMaxMediaDirectives);
  for (const std::string& r : split.references) {
    check(!r.empty() && r.size() <= kMaxMediaReferenceBytes);
    check(r.find('\n') == std::string::npos);
  }
  check(split.text.size() <= text.size());
  const std::set<std::string_view> original = media_fuzz_lines(text);
  for (std::string_view line : media_fuzz_lines(split.text)) {
    // The last kept line may have lost trailing blanks (the trim after a removed directive).
    bool found = original.count(line) > 0;
    for (auto it = original.lower_bound(line); !found && it != original.end() && it->starts_with(line); ++it) found = true;
    check(found);
  }
  check(split_media_directives(split.text).references.empty());
  return 0;
}
