#include "store/transcript.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/civil_date.h"
#include "core/ids.h"
#include "core/percent_encoding.h"
#include "store/atomic_file.h"
#include "store/file_util.h"
#include "store/session_keys.h"

namespace pincer::store {
namespace {

constexpr std::size_t kMaxTranscriptBytes = std::size_t{1} << 30;

// ---------------------------------------------------------------------------------------------
// Civil time (proleptic Gregorian, UTC) without the C library's time zone state.
// ---------------------------------------------------------------------------------------------

using civil::civil_from_days;
using civil::days_from_civil;
using Civil = civil::Date;

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `n` digits at `pos`.
std::optional<int> read_digits(std::string_view s, std::size_t& pos, std::size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_digit(s[pos + i])) return std::nullopt;
    value = value * 10 + (s[pos + i] - '0');
  }
  pos += n;
  return value;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Parsing helpers
// ---------------------------------------------------------------------------------------------

/// Deepest [ / { nesting outside strings; stops counting once over the limit.
std::size_t nesting_depth(std::string_view line) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : line) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    if (deepest > kMaxJsonNesting) break;
  }
  return deepest;
}

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}


/// One parsed line, or the reason it could not be.
struct LineValue {
  Json value;
  std::string error;  ///< non-empty when the line is not valid JSON
};

LineValue parse_line(std::string_view line) {
  // nlohmann stops at a NUL byte as if the input ended there; JSON.parse (pi) rejects the line.
  // Zero-filled tails are what a power loss often leaves, so they must not read as valid.
  if (line.find('\0') != std::string_view::npos) return {nullptr, "NUL byte in line"};
  if (nesting_depth(line) > kMaxJsonNesting) return {nullptr, "nesting too deep"};
  try {
    return {Json::parse(line), {}};
  } catch (const Json::exception& e) {
    return {nullptr, short_parse_error(e.what())};
  }
}

std::string hex8(std::size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08zx", n);
  return buf;
}

/// v1 → v2: ids and parentIds in file order; compaction firstKeptEntryIndex → firstKeptEntryId.
/// pi's index counts the header as element 0 of its list.
void migrate_v1(TranscriptContents& out) {
  for (std::size_t i = 0; i < out.entries.size(); ++i) {
    auto& entry = out.entries[i];
    entry.id = hex8(i + 1);
    entry.parent_id = i == 0 ? std::nullopt : std::optional<std::string>(hex8(i));
    entry.raw["id"] = entry.id;
    entry.raw["parentId"] = entry.parent_id ? Json(*entry.parent_id) : Json(nullptr);
  }
  const std::size_t offset = out.header.is_null() ? 0 : 1;
  for (auto& entry : out.entries) {
    auto it = entry.raw.find("firstKeptEntryIndex");
    if (entry.type != "compaction" || it == entry.raw.end() || !it->is_number_unsigned()) continue;
    const auto index = it->get<std::size_t>();
    if (index >= offset && index - offset < out.entries.size()) {
      entry.raw["firstKeptEntryId"] = out.entries[index - offset].id;
    }
    entry.raw.erase("firstKeptEntryIndex");
  }
}

/// v2 → v3: the "hookMessage" role is now "custom".
void migrate_v2(TranscriptContents& out) {
  for (auto& entry : out.entries) {
    if (entry.type != "message") continue;
    auto message = entry.raw.find("message");
    if (message == entry.raw.end() || !message->is_object()) continue;
    auto role = message->find("role");
    if (role != message->end() && *role == "hookMessage") *role = "custom";
  }
}

/// Adds `value` (one parsed line) to `out` as the header or an entry; returns "" on success, else
/// why the line was skipped. Entry ids are checked later (the rule depends on the header's version).
std::string accept_line(Json value, std::size_t line_no, TranscriptContents& out) {
  if (!value.is_object()) return "not a JSON object";
  auto type = value.find("type");
  if (type == value.end() || !type->is_string()) return "no string \"type\"";
  if (*type == "session") {
    if (!out.header.is_null() || !out.entries.empty()) return "extra session header ignored";
    out.header = std::move(value);
    auto version = out.header.find("version");
    if (version != out.header.end() && version->is_number_integer()) {
      out.version = static_cast<int>(std::clamp<int64_t>(version->get<int64_t>(), 0, 1000));
    }
    return {};
  }
  TranscriptEntry entry;
  entry.type = type->get<std::string>();
  if (auto id = value.find("id"); id != value.end() && id->is_string()) entry.id = id->get<std::string>();
  if (auto parent = value.find("parentId"); parent != value.end() && parent->is_string()) {
    entry.parent_id = parent->get<std::string>();
  }
  if (auto ts = value.find("timestamp"); ts != value.end() && ts->is_string()) entry.timestamp = ts->get<std::string>();
  entry.raw = std::move(value);
  entry.line = line_no;
  out.entries.push_back(std::move(entry));
  return {};
}

/// For version ≥ 2: drops entries without an id and reports duplicate ids.
void check_ids(TranscriptContents& out) {
  std::unordered_map<std::string, std::size_t> seen;  // id → line
  std::vector<TranscriptEntry> kept;
  kept.reserve(out.entries.size());
  for (auto& entry : out.entries) {
    if (entry.id.empty()) {
      out.warnings.push_back({entry.line, "entry without a string \"id\" skipped"});
      continue;
    }
    if (auto [it, inserted] = seen.emplace(entry.id, entry.line); !inserted) {
      out.warnings.push_back({entry.line, "duplicate entry id \"" + entry.id + "\" (first on line " +
                                              std::to_string(it->second) + "); the later entry wins"});
      it->second = entry.line;
    }
    kept.push_back(std::move(entry));
  }
  out.entries = std::move(kept);
  std::stable_sort(out.warnings.begin(), out.warnings.end(),
            [](const TranscriptWarning& a, const TranscriptWarning& b) { return a.line < b.line; });
}

// ---------------------------------------------------------------------------------------------
// File helpers (the writer is in transcript_writer.cpp)
// ---------------------------------------------------------------------------------------------


/// encodeURIComponent: keeps A-Z a-z 0-9 - _ . ! ~ * ' ( ), percent-encodes every other byte.
std::string encode_uri_component(std::string_view s) { return percent_encode(s, "!*'()"); }

}  // namespace

// =============================================================================================
// Timestamps
// =============================================================================================

std::string iso_timestamp(int64_t unix_ms) {
  const int64_t days = floor_div(unix_ms, 86'400'000);
  const int64_t ms_of_day = unix_ms - days * 86'400'000;
  const Civil date = civil_from_days(days);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<long long>(date.year),
                date.month, date.day, static_cast<int>(ms_of_day / 3'600'000),
                static_cast<int>(ms_of_day / 60'000 % 60), static_cast<int>(ms_of_day / 1000 % 60),
                static_cast<int>(ms_of_day % 1000));
  return buf;
}

std::optional<int64_t> parse_iso_timestamp(std::string_view s) {
  std::size_t pos = 0;
  auto year = read_digits(s, pos, 4);
  if (!year || !expect(s, pos, '-')) return std::nullopt;
  auto month = read_digits(s, pos, 2);
  if (!month || !expect(s, pos, '-')) return std::nullopt;
  auto day = read_digits(s, pos, 2);
  if (!day || !expect(s, pos, 'T')) return std::nullopt;
  auto hour = read_digits(s, pos, 2);
  if (!hour || !expect(s, pos, ':')) return std::nullopt;
  auto minute = read_digits(s, pos, 2);
  if (!minute || !expect(s, pos, ':')) return std::nullopt;
  auto second = read_digits(s, pos, 2);
  if (!second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  int millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    int scale = 100;
    for (; pos < s.size() && is_digit(s[pos]); ++pos, scale /= 10) millis += (s[pos] - '0') * scale;
    if (pos == start) return std::nullopt;
  }
  int64_t offset_ms = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos++] == '-' ? -1 : 1;
    auto oh = read_digits(s, pos, 2);
    if (!oh || !expect(s, pos, ':')) return std::nullopt;
    auto om = read_digits(s, pos, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset_ms = sign * (int64_t{*oh} * 3'600'000 + int64_t{*om} * 60'000);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  return days * 86'400'000 + int64_t{*hour} * 3'600'000 + int64_t{*minute} * 60'000 + int64_t{*second} * 1000 +
         millis - offset_ms;
}

std::string archive_timestamp(int64_t unix_ms) {
  std::string ts = iso_timestamp(unix_ms);
  std::replace(ts.begin(), ts.end(), ':', '-');
  return ts;
}

bool is_archive_timestamp(std::string_view s) {
  // ^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z$
  static constexpr std::string_view kShape = "dddd-dd-ddTdd-dd-dd";
  if (s.size() != kShape.size() + 1 && s.size() != kShape.size() + 5) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    if (kShape[i] == 'd' ? !is_digit(s[i]) : s[i] != kShape[i]) return false;
  }
  std::string_view tail = s.substr(kShape.size());
  if (tail.size() == 5) {
    if (tail[0] != '.' || !is_digit(tail[1]) || !is_digit(tail[2]) || !is_digit(tail[3])) return false;
    tail.remove_prefix(4);
  }
  return tail == "Z";
}

// =============================================================================================
// Paths and archives
// =============================================================================================

Result<std::filesystem::path> transcript_path(const std::filesystem::path& sessions_dir, std::string_view session_id,
                                              std::optional<std::string_view> topic) {
  if (!is_valid_session_id(session_id)) {
    return Error{"SESSION_ID_INVALID", "invalid session id \"" + std::string(session_id) +
                                           "\" (expected ^[a-z0-9][a-z0-9._-]{0,127}$)"};
  }
  std::string name(session_id);
  if (topic) name += "-topic-" + encode_uri_component(*topic);
  return sessions_dir / (name + ".jsonl");
}

std::string_view to_string(ArchiveReason reason) {
  switch (reason) {
    case ArchiveReason::Reset: return "reset";
    case ArchiveReason::Deleted: return "deleted";
    case ArchiveReason::Bak: return "bak";
  }
  return "bak";
}

Result<std::filesystem::path> archive_transcript(const std::filesystem::path& file, ArchiveReason reason,
                                                 int64_t now_ms) {
  return archive_file(file, to_string(reason), now_ms);
}

Result<std::filesystem::path> archive_file(const std::filesystem::path& file, std::string_view reason,
                                           int64_t now_ms) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return Error{"NOT_FOUND", file.string() + ": no such file"};
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::filesystem::path target = file;
    target += "." + std::string(reason) + "." + archive_timestamp(now_ms + attempt);
    // RENAME_NOREPLACE: never clobber an earlier archive that happens to share the millisecond.
    if (::renameat2(AT_FDCWD, file.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) {
      fsync_dir(file.parent_path().empty() ? "." : file.parent_path());
      return target;
    }
    if (errno == EEXIST) continue;
    if (errno != EINVAL && errno != ENOSYS) return io_error(file, "cannot archive");
    // The filesystem lacks RENAME_NOREPLACE: check, then rename (racy only against ourselves).
    if (std::filesystem::exists(target, ec)) continue;
    if (::rename(file.c_str(), target.c_str()) != 0) return io_error(file, "cannot archive");
    return target;
  }
  return Error{"IO_ERROR", "cannot archive " + file.string() + ": every candidate name exists"};
}

std::optional<ArchiveName> parse_archive_name(std::string_view name) {
  for (ArchiveReason reason : {ArchiveReason::Reset, ArchiveReason::Deleted, ArchiveReason::Bak}) {
    const std::string marker = "." + std::string(to_string(reason)) + ".";
    const auto pos = name.rfind(marker);
    if (pos == std::string_view::npos || pos == 0) continue;
    const std::string_view ts = name.substr(pos + marker.size());
    if (is_archive_timestamp(ts)) return ArchiveName{std::string(name.substr(0, pos)), reason, std::string(ts)};
  }
  return std::nullopt;
}

// =============================================================================================
// Reading
// =============================================================================================

std::string TranscriptContents::session_id() const { return header.is_object() ? string_field(header, "id") : ""; }

std::optional<std::size_t> TranscriptContents::find(std::string_view id) const {
  for (std::size_t i = entries.size(); i-- > 0;) {
    if (entries[i].id == id) return i;
  }
  return std::nullopt;
}

TranscriptContents parse_transcript(std::string_view bytes) {
  TranscriptContents out;
  out.missing_final_newline = !bytes.empty() && bytes.back() != '\n';
  std::size_t line_no = 0;
  while (!bytes.empty()) {
    ++line_no;
    const auto end = bytes.find('\n');
    const bool last_unterminated = end == std::string_view::npos;
    const std::string_view line = bytes.substr(0, end);
    bytes.remove_prefix(last_unterminated ? bytes.size() : end + 1);
    if (is_blank(line)) continue;

    LineValue parsed = parse_line(line);
    std::string problem = parsed.error.empty() ? accept_line(std::move(parsed.value), line_no, out)
                                               : "invalid JSON: " + parsed.error;
    if (problem.empty()) continue;
    if (last_unterminated) problem = "torn last line (no trailing newline) skipped: " + problem;
    out.warnings.push_back({line_no, std::move(problem)});
  }
  if (out.header.is_null()) {
    out.version = kTranscriptVersion;  // no header to say otherwise; entries must carry ids
    out.warnings.insert(out.warnings.begin(), {1, "no session header"});
  }
  if (out.version < 2) migrate_v1(out);
  else check_ids(out);
  if (out.version < 3) migrate_v2(out);
  return out;
}

bool append_transcript_tail(TranscriptContents& contents, std::string_view tail, std::size_t lines_before) {
  // Only the plain case is incremental: a current-version file that ended cleanly and a tail of
  // whole, valid entry lines with new ids. Anything else is what a full parse exists for.
  if (contents.header.is_null() || contents.version < kTranscriptVersion || contents.missing_final_newline ||
      tail.empty() || tail.back() != '\n') {
    return false;
  }
  TranscriptContents added;
  added.header = Json::object();  // so accept_line takes no line as a header
  std::size_t line_no = lines_before;
  std::unordered_set<std::string> new_ids;
  while (!tail.empty()) {
    ++line_no;
    const auto end = tail.find('\n');
    const std::string_view line = tail.substr(0, end);
    tail.remove_prefix(end + 1);
    if (is_blank(line)) continue;
    LineValue parsed = parse_line(line);
    if (!parsed.error.empty() || !accept_line(std::move(parsed.value), line_no, added).empty()) return false;
    const TranscriptEntry& entry = added.entries.back();
    if (entry.id.empty() || contents.find(entry.id) || !new_ids.insert(entry.id).second) return false;
  }
  for (auto& entry : added.entries) contents.entries.push_back(std::move(entry));
  return true;
}

bool append_transcript_value(TranscriptContents& contents, Json value, std::size_t line_no) {
  if (contents.header.is_null() || contents.version < kTranscriptVersion || contents.missing_final_newline) return false;
  TranscriptContents added;
  added.header = Json::object();  // so accept_line takes no line as a header
  if (!accept_line(std::move(value), line_no, added).empty()) return false;
  TranscriptEntry& entry = added.entries.back();
  if (entry.id.empty() || contents.find(entry.id)) return false;
  contents.entries.push_back(std::move(entry));
  return true;
}

Result<TranscriptContents> read_transcript(const std::filesystem::path& file) {
  auto bytes = read_file(file, kMaxTranscriptBytes);
  if (!bytes) return bytes.error();
  return parse_transcript(*bytes);
}

}  // namespace pincer::store
