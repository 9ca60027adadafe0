// libFuzzer target for the transcript reader (src/store/transcript.h, parse_transcript).
//
// Checked on every input:
// - parse_transcript, build_context, active_branch and to_llm_messages never crash or throw, and
//   terminate on cyclic parentId chains;
// - every non-blank line is accounted for: it is the header, an entry (with that line number), or
//   the subject of a warning naming that line;
// - every line that parses as a JSON object with a string "type" (and, for version ≥ 2 files, a
//   string "id") is returned — unless it contains a NUL byte, is nested deeper than the reader's
//   limit, or is a second session header — and its entry keeps the line's type;
// - entries are in file order, and the active branch holds only returned entries, without repeats.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/transcript.h"

namespace {

using nlohmann::json;
using pincer::store::TranscriptContents;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

/// Conservative: a line with at most this many brackets cannot exceed the reader's nesting limit.
bool shallow(std::string_view line) {
  std::size_t brackets = 0;
  for (char c : line) brackets += (c == '[' || c == '{');
  return brackets <= 512;
}

/// The line as an object with a string type, per nlohmann itself; null when it is not one.
json typed_object(std::string_view line) {
  if (line.find('\0') != std::string_view::npos || !shallow(line)) return nullptr;
  json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!value.is_object() || !value.contains("type") || !value["type"].is_string()) return nullptr;
  return value;
}

void check_accounting(const std::vector<std::string_view>& lines, const TranscriptContents& t) {
  std::set<std::size_t> entry_lines, warned_lines;
  std::size_t previous = 0;
  for (const auto& entry : t.entries) {
    check(entry.line > previous && entry.line <= lines.size());  // file order, real line numbers
    previous = entry.line;
    entry_lines.insert(entry.line);
    check(entry.raw.is_object());
    (void)entry.raw.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  for (const auto& warning : t.warnings) warned_lines.insert(warning.line);

  bool typed_line_seen = false;  // the header can only be the first typed line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t line_no = i + 1;
    if (blank(lines[i])) continue;
    const json value = typed_object(lines[i]);
    const bool is_header = !value.is_null() && value["type"] == "session";
    const bool first_typed = !value.is_null() && !typed_line_seen;
    typed_line_seen = typed_line_seen || !value.is_null();
    if (is_header && first_typed) {
      check(t.header == value);
      continue;
    }
    check(entry_lines.contains(line_no) || warned_lines.contains(line_no));
    if (value.is_null() || is_header) continue;
    const bool needs_id = t.version >= 2;
    if (needs_id && !(value.contains("id") && value["id"].is_string() && !value["id"].get<std::string>().empty())) {
      continue;
    }
    check(entry_lines.contains(line_no));  // every line that parses is returned
  }
  for (const auto& entry : t.entries) {
    const json value = typed_object(lines[entry.line - 1]);
    check(!value.is_null() && value["type"] == entry.type);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const TranscriptContents t = pincer::store::parse_transcript(text);
    check_accounting(split_lines(text), t);

    const auto branch = pincer::store::active_branch(t.entries);
    check(branch.size() <= t.entries.size());
    check(std::set<const void*>(branch.begin(), branch.end()).size() == branch.size());
    if (!t.entries.empty()) {
      (void)pincer::store::active_branch(t.entries, t.entries.front().id);
    }
    const auto context = pincer::store::build_context(t.entries);
    const auto llm = pincer::store::to_llm_messages(context.messages);
    check(llm.size() <= context.messages.size());
  } catch (...) {
    __builtin_trap();  // the reader must not throw
  }
  return 0;
}
