// A validating scan of simple Chat Completions chunks. See the header.
#include "llm/openai_chunk_scan.h"

#include <utility>

namespace pincer::llm::openai_chunk {
namespace {

constexpr int kMaxDepth = 8;
constexpr std::size_t kMaxIntDigits = 15;

/// Recursive-descent scanner; every member returns false when the text is not of the simple
/// shape (the caller then gives up on the whole chunk).
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  bool chunk(Fields& f) {
    ws();
    bool seen_id = false, seen_usage = false, seen_choices = false;
    const bool ok = object(1, [&](std::string_view key) {
      if (key == "error") return false;
      if (key == "id") return once(seen_id) && (peek() == '"' ? string(&f.id) : skip(2));
      if (key == "usage") return once(seen_usage) && (peek() == '{' ? usage(f) : skip(2));
      if (key == "choices") return once(seen_choices) && (peek() == '[' ? choices(f) : skip(2));
      return skip(2);
    });
    if (!ok) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  static bool once(bool& seen) { return !std::exchange(seen, true); }

  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }

  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  /// A string at s_[i_] (its opening quote); decoded into *out unless out is null.
  bool string(std::string* out) {
    if (peek() != '"') return false;
    std::size_t start = ++i_;
    for (;;) {
      if (i_ >= s_.size()) return false;
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') break;
      if (c < 0x20 || c >= 0x7F) return false;
      if (c != '\\') {
        ++i_;
        continue;
      }
      if (out) out->append(s_.data() + start, i_ - start);
      if (i_ + 1 >= s_.size()) return false;
      char decoded;
      switch (s_[i_ + 1]) {
        case '"': decoded = '"'; break;
        case '\\': decoded = '\\'; break;
        case '/': decoded = '/'; break;
        case 'b': decoded = '\b'; break;
        case 'f': decoded = '\f'; break;
        case 'n': decoded = '\n'; break;
        case 'r': decoded = '\r'; break;
        case 't': decoded = '\t'; break;
        default: return false;  // \u and invalid escapes
      }
      if (out) *out += decoded;
      i_ += 2;
      start = i_;
    }
    if (out) out->append(s_.data() + start, i_ - start);
    ++i_;
    return true;
  }

  /// An integer (-?(0|[1-9][0-9]*), at most kMaxIntDigits digits) at s_[i_].
  bool integer(int64_t* out) {
    const bool negative = peek() == '-';
    if (negative) ++i_;
    const std::size_t start = i_;
    if (peek() == '0') {
      ++i_;
    } else {
      if (peek() < '1' || peek() > '9') return false;
      while (peek() >= '0' && peek() <= '9') ++i_;
    }
    if (i_ - start > kMaxIntDigits) return false;
    if (peek() == '.' || peek() == 'e' || peek() == 'E') return false;  // a float: the full parse decides
    if (out) {
      int64_t v = 0;
      for (std::size_t k = start; k < i_; ++k) v = v * 10 + (s_[k] - '0');
      *out = negative ? -v : v;
    }
    return true;
  }

  /// An object at s_[i_]; member(key) consumes each value (at s_[i_], after the colon and spaces).
  template <typename Member>
  bool object(int depth, Member&& member) {
    if (depth > kMaxDepth || peek() != '{') return false;
    ++i_;
    ws();
    if (peek() == '}') {
      ++i_;
      return true;
    }
    std::string key;
    for (;;) {
      key.clear();
      if (!string(&key)) return false;
      ws();
      if (peek() != ':') return false;
      ++i_;
      ws();
      if (!member(std::string_view(key))) return false;
      ws();
      if (peek() == '}') {
        ++i_;
        return true;
      }
      if (peek() != ',') return false;
      ++i_;
      ws();
    }
  }

  /// An array at s_[i_]; element(index) consumes each element.
  template <typename Element>
  bool array(int depth, Element&& element) {
    if (depth > kMaxDepth || peek() != '[') return false;
    ++i_;
    ws();
    if (peek() == ']') {
      ++i_;
      return true;
    }
    for (std::size_t n = 0;; ++n) {
      if (!element(n)) return false;
      ws();
      if (peek() == ']') {
        ++i_;
        return true;
      }
      if (peek() != ',') return false;
      ++i_;
      ws();
    }
  }

  /// Any value at s_[i_], validated and not kept; `depth` is the depth it would open.
  bool skip(int depth) {
    switch (peek()) {
      case '{': return object(depth, [&](std::string_view) { return skip(depth + 1); });
      case '[': return array(depth, [&](std::size_t) { return skip(depth + 1); });
      case '"': return string(nullptr);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return integer(nullptr);
    }
  }

  /// An int_at() field: a number is read, anything else is 0.
  bool int_field(int depth, int64_t& out) {
    if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return integer(&out);
    out = 0;
    return skip(depth);
  }

  bool usage(Fields& f) {
    f.has_usage = true;
    bool seen_prompt = false, seen_completion = false, seen_details = false;
    return object(2, [&](std::string_view key) {
      if (key == "prompt_tokens") return once(seen_prompt) && int_field(3, f.prompt_tokens);
      if (key == "completion_tokens") return once(seen_completion) && int_field(3, f.completion_tokens);
      if (key == "prompt_tokens_details") {
        if (!once(seen_details)) return false;
        if (peek() != '{') return skip(3);
        bool seen_cached = false;
        return object(3, [&](std::string_view k) {
          if (k == "cached_tokens") return once(seen_cached) && int_field(4, f.cached_tokens);
          return skip(4);
        });
      }
      return skip(3);
    });
  }

  bool choices(Fields& f) {
    return array(2, [&](std::size_t n) {
      if (n > 0 || peek() != '{') return skip(3);
      f.has_choice = true;
      bool seen_delta = false, seen_finish = false;
      return object(3, [&](std::string_view key) {
        if (key == "delta") return once(seen_delta) && (peek() == '{' ? delta(f) : skip(4));
        if (key == "finish_reason") {
          if (!once(seen_finish)) return false;
          if (peek() != '"') return skip(4);
          f.finish_reason.emplace();
          return string(&*f.finish_reason);
        }
        return skip(4);
      });
    });
  }

  bool delta(Fields& f) {
    f.has_delta = true;
    bool seen_rc = false, seen_r = false, seen_c = false;
    const auto text = [&](bool& seen, std::string& out) { return once(seen) && (peek() == '"' ? string(&out) : skip(5)); };
    return object(4, [&](std::string_view key) {
      if (key == "tool_calls") return false;
      if (key == "reasoning_content") return text(seen_rc, f.reasoning_content);
      if (key == "reasoning") return text(seen_r, f.reasoning);
      if (key == "content") return text(seen_c, f.content);
      return skip(5);
    });
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<Fields> scan(std::string_view data) {
  Fields f;
  Scanner scanner(data);
  if (!scanner.chunk(f)) return std::nullopt;
  return f;
}

}  // namespace pincer::llm::openai_chunk
