#include "gateway/protocol/frame_fast_path.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

/// A cursor over the frame text; every method returns false when unsure.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool at_end() {
    skip_ws();
    return i_ == s_.size();
  }
  /// A string without escapes or control characters (anything else: unsure). UTF-8 validity is
  /// left to the strict path: non-ASCII bytes make us unsure.
  bool plain_string(std::string_view& out) {
    if (!eat('"')) return false;
    const size_t start = i_;
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        out = s_.substr(start, i_ - start);
        ++i_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++i_;
    }
    return false;
  }
  /// The span of one value (balanced brackets, strings skipped); its validity is checked by the
  /// caller's strict parse of the span.
  bool value_span(std::string_view& out) {
    skip_ws();
    const size_t start = i_;
    int depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
          if (s_[i_] == '\\') ++i_;
        }
        if (i_ >= s_.size()) return false;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) break;  // end of the enclosing frame object
        if (--depth == 0) {
          ++i_;
          break;
        }
      } else if (c == ',' && depth == 0) {
        break;
      }
      ++i_;
    }
    if (depth != 0) return false;
    out = s_.substr(start, i_ - start);
    while (!out.empty() && (out.back() == ' ' || out.back() == '\t' || out.back() == '\n' || out.back() == '\r')) {
      out.remove_suffix(1);
    }
    return !out.empty();
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool is_empty_object(std::string_view v) {
  if (v.size() < 2 || v.front() != '{' || v.back() != '}') return false;
  for (char c : v.substr(1, v.size() - 2)) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

}  // namespace

std::optional<RequestFrame> try_parse_simple_request(std::string_view text) {
  Scanner in(text);
  if (!in.eat('{')) return std::nullopt;
  bool seen_type = false, seen_id = false, seen_method = false, seen_params = false;
  RequestFrame frame;
  std::string_view params;
  do {
    std::string_view key;
    if (!in.plain_string(key) || !in.eat(':')) return std::nullopt;
    std::string_view value;
    if (key == "type" && !seen_type) {
      if (!in.plain_string(value) || value != "req") return std::nullopt;
      seen_type = true;
    } else if (key == "id" && !seen_id) {
      if (!in.plain_string(value) || value.empty()) return std::nullopt;
      frame.id = std::string(value);
      seen_id = true;
    } else if (key == "method" && !seen_method) {
      if (!in.plain_string(value) || value.empty()) return std::nullopt;
      frame.method = std::string(value);
      seen_method = true;
    } else if (key == "params" && !seen_params) {
      if (!in.value_span(params)) return std::nullopt;
      seen_params = true;
    } else {
      return std::nullopt;  // unknown or repeated key: the strict path decides
    }
  } while (in.eat(','));
  if (!in.eat('}') || !in.at_end() || !seen_type || !seen_id || !seen_method) return std::nullopt;

  if (seen_params && !is_empty_object(params)) {
    frame.params = json::parse(params, nullptr, /*allow_exceptions=*/false);
    if (frame.params.is_discarded()) return std::nullopt;
  } else if (seen_params) {
    frame.params = json::object();
  }
  return frame;
}

}  // namespace pincer::gateway
