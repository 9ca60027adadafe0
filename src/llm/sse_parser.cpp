// Incremental SSE parser; see sse_parser.h for the rules it follows.
#include "llm/sse_parser.h"

#include <cstring>
#include <limits>

namespace pincer::llm {

namespace {
constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::size_t kBomDone = 3;
}  // namespace

SseParser::SseParser(std::size_t max_event_bytes) : max_(max_event_bytes) {}

Status SseParser::too_large() {
  failed_ = true;
  line_.clear();
  data_.clear();
  return Error{"SSE_EVENT_TOO_LARGE",
               "server-sent event larger than " + std::to_string(max_) + " bytes"};
}

Status SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  if (failed_) return Error{"SSE_EVENT_TOO_LARGE", "SSE stream already failed (event too large)"};
  // Skip a UTF-8 BOM at the very start, even when split across feeds. A partial match that turns
  // out not to be a BOM is fed back as ordinary bytes.
  while (bom_checked_ < kBomDone && !bytes.empty()) {
    if (bytes.front() != kBom[bom_checked_]) {
      const std::string matched(kBom.substr(0, bom_checked_));
      bom_checked_ = kBomDone;
      if (auto s = take_line_bytes(matched, out); !s.ok()) return s;
      break;
    }
    ++bom_checked_;
    bytes.remove_prefix(1);
  }
  return take_line_bytes(bytes, out);
}

namespace {

/// The first CR or LF at or after `from` (npos: none). Two memchr scans instead of
/// find_first_of's per-byte search of the set: a reply streams every byte through here.
std::size_t sse_line_end(std::string_view bytes, std::size_t from) {
  const char* begin = bytes.data() + from;
  const std::size_t n = bytes.size() - from;
  const auto* lf = static_cast<const char*>(std::memchr(begin, '\n', n));
  const std::size_t until = lf ? static_cast<std::size_t>(lf - begin) : n;
  const auto* cr = static_cast<const char*>(std::memchr(begin, '\r', until));
  if (cr) return from + static_cast<std::size_t>(cr - begin);
  return lf ? from + until : std::string_view::npos;
}

}  // namespace

Status SseParser::take_line_bytes(std::string_view bytes, std::vector<SseEvent>& out) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (after_cr_) {
      after_cr_ = false;
      if (bytes[i] == '\n') {
        ++i;
        continue;
      }
    }
    const std::size_t end = sse_line_end(bytes, i);
    const std::string_view piece = bytes.substr(i, end == std::string_view::npos ? bytes.npos : end - i);
    if (line_.size() + piece.size() > max_) return too_large();
    if (end == std::string_view::npos) {
      line_.append(piece);
      break;
    }
    if (line_.empty()) {
      process_line(piece, out);
    } else {
      line_.append(piece);
      process_line(line_, out);
      line_.clear();
    }
    if (data_.size() > max_) return too_large();
    after_cr_ = bytes[end] == '\r';
    i = end + 1;
  }
  return Ok{};
}

void SseParser::process_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    dispatch(out);
    return;
  }
  if (line.front() == ':') return;  // comment
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    process_field(line, {});
    return;
  }
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  process_field(line.substr(0, colon), value);
}

void SseParser::process_field(std::string_view name, std::string_view value) {
  if (name == "event") {
    type_.assign(value);
  } else if (name == "data") {
    data_.append(value);
    data_.push_back('\n');
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (name == "retry") {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos) return;
    int64_t ms = 0;
    for (char c : value) {
      if (ms > (std::numeric_limits<int64_t>::max() - 9) / 10) return;  // absurd: ignore
      ms = ms * 10 + (c - '0');
    }
    retry_ms_ = ms;
  }
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  if (data_.empty()) {
    type_.clear();
    return;
  }
  data_.pop_back();  // the LF added after the last data line
  SseEvent event;
  if (!type_.empty()) event.type = std::move(type_);
  event.data = std::move(data_);
  event.id = last_event_id_;
  out.push_back(std::move(event));
  data_.clear();
  type_.clear();
}

bool SseParser::finish() {
  if (failed_) return false;
  std::vector<SseEvent> ignored;
  if (!line_.empty()) {
    process_line(line_, ignored);
    line_.clear();
  }
  const bool discarded = !data_.empty();
  data_.clear();
  type_.clear();
  after_cr_ = false;
  return discarded;
}

void SseParser::flush(std::vector<SseEvent>& out) {
  if (failed_) return;
  if (!line_.empty()) {
    process_line(line_, out);
    line_.clear();
  }
  dispatch(out);
  after_cr_ = false;
}

}  // namespace pincer::llm
