// Incremental NDJSON parser; see ndjson_parser.h.
#include "llm/ndjson_parser.h"

namespace pincer::llm {

namespace {

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

/// nlohmann's what() starts with "[json.exception.parse_error.101] "; keep the readable part.
std::string short_reason(const char* what) {
  std::string_view s(what);
  if (s.rfind("[json.exception.", 0) == 0) {
    const auto close = s.find("] ");
    if (close != std::string_view::npos) s.remove_prefix(close + 2);
  }
  // "; last read: '<raw bytes>'" may hold invalid UTF-8 and adds little: drop it.
  const auto last_read = s.find("; last read:");
  if (last_read != std::string_view::npos) s = s.substr(0, last_read);
  return std::string(s);
}

}  // namespace

bool json_nesting_exceeds(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

NdjsonParser::NdjsonParser(std::size_t max_line_bytes) : max_(max_line_bytes) {}

Status NdjsonParser::fail(Error error) {
  failed_ = true;
  error_ = error;
  line_.clear();
  return error;
}

Status NdjsonParser::feed(std::string_view bytes, std::vector<nlohmann::json>& out) {
  if (failed_) return error_;
  while (!bytes.empty()) {
    const std::size_t lf = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, lf);
    if (line_.size() + piece.size() > max_) {
      return fail({"NDJSON_LINE_TOO_LARGE", "line " + std::to_string(line_no_ + 1) +
                                                ": longer than " + std::to_string(max_) + " bytes"});
    }
    if (lf == std::string_view::npos) {
      line_.append(piece);
      break;
    }
    Status s = Ok{};
    if (line_.empty()) {
      s = parse_line(piece, out);
    } else {
      line_.append(piece);
      s = parse_line(line_, out);
      line_.clear();
    }
    if (!s.ok()) return s;
    bytes.remove_prefix(lf + 1);
  }
  return Ok{};
}

Status NdjsonParser::finish(std::vector<nlohmann::json>& out) {
  if (failed_) return error_;
  if (line_.empty()) return Ok{};
  const std::string last = std::move(line_);
  line_.clear();
  return parse_line(last, out);
}

Status NdjsonParser::parse_line(std::string_view line, std::vector<nlohmann::json>& out) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (blank(line)) return Ok{};
  if (json_nesting_exceeds(line)) {
    return fail({"NDJSON_PARSE", "line " + std::to_string(line_no_) + ": nesting deeper than " +
                                     std::to_string(kMaxJsonDepth)});
  }
  try {
    out.push_back(nlohmann::json::parse(line));
  } catch (const nlohmann::json::exception& e) {
    return fail({"NDJSON_PARSE", "line " + std::to_string(line_no_) + ": " + short_reason(e.what())});
  }
  return Ok{};
}

}  // namespace pincer::llm
