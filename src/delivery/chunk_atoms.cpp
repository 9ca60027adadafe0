#include "delivery/chunk_atoms.h"

#include "delivery/fences.h"

namespace pincer::delivery::detail {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

constexpr std::size_t kMaxTagBytes = 4096;

bool starts_with_ci(std::string_view s, std::size_t i, std::string_view prefix) {
  if (s.size() - i < prefix.size()) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k) {
    if (lower(s[i + k]) != prefix[k]) return false;
  }
  return true;
}

class Builder {
 public:
  Builder(std::string_view text, const ChunkOptions& options) : text_(text), options_(options) {
    out_.nodes.push_back(Node{});
  }

  Atoms take() { return std::move(out_); }

  std::size_t units_of(std::string_view s) const { return measure(s, options_.unit); }

  /// Pushes a formatting node; drops it (not emitted) when reopening + closing it on top of what
  /// is already open would leave less than kAtomReserve units for text.
  std::uint32_t push(std::string name, std::string reopen, std::string close, bool protect, bool code) {
    const Node& parent = out_.nodes[current_];
    Node node;
    node.parent = current_;
    node.name = std::move(name);
    node.protect = parent.protect || protect;
    node.code = parent.code || code;
    const std::size_t reopen_units = units_of(reopen);
    const std::size_t close_units = units_of(close);
    const std::size_t overhead = parent.reopen_total + parent.close_total + reopen_units + close_units;
    node.emitted = overhead + kAtomReserve <= options_.limit;
    node.reopen_total = parent.reopen_total + (node.emitted ? reopen_units : 0);
    node.close_total = parent.close_total + (node.emitted ? close_units : 0);
    node.reopen = std::move(reopen);
    node.close = std::move(close);
    out_.nodes.push_back(std::move(node));
    current_ = static_cast<std::uint32_t>(out_.nodes.size() - 1);
    return current_;
  }

  void add(std::size_t begin, std::size_t end, AtomKind kind, bool emitted = true) {
    Atom a;
    a.begin = begin;
    a.end = end;
    a.kind = kind;
    a.emitted = emitted;
    a.units = emitted ? units_of(text_.substr(begin, end - begin)) : 0;
    a.node_after = current_;
    a.region = region_;
    out_.atoms.push_back(a);
  }

  /// One code point (or an invalid byte) at i; returns its length.
  std::size_t add_code_point(std::size_t i) {
    const char c = text_[i];
    if (c == '\n') {
      add(i, i + 1, AtomKind::Newline);
      return 1;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      add(i, i + 1, AtomKind::Space);
      return 1;
    }
    const std::size_t len = code_point_length(text_, i);
    add(i, i + len, AtomKind::Text);
    return len;
  }

  /// A bare URL starting at i ("http://" or "https://" not preceded by a letter or digit): its
  /// length up to whitespace (or '<' in HTML), else 0.
  std::size_t url_length(std::size_t i, bool html) const {
    if (i > 0 && (is_alpha(text_[i - 1]) || is_digit(text_[i - 1]))) return 0;
    if (!starts_with_ci(text_, i, "http://") && !starts_with_ci(text_, i, "https://")) return 0;
    std::size_t j = i;
    while (j < text_.size() && text_[j] != ' ' && text_[j] != '\n' && text_[j] != '\t' && text_[j] != '\r' &&
           !(html && text_[j] == '<')) {
      ++j;
    }
    return j - i;
  }

  void begin_region(std::size_t end) {
    region_ = ++regions_;
    region_end_ = end;
  }
  void maybe_end_region(std::size_t i) {
    if (region_ != 0 && i >= region_end_) region_ = 0;
  }

  // ---- formats ------------------------------------------------------------------------------

  void plain(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to;) {
      maybe_end_region(i);
      if (region_ == 0) {
        if (const std::size_t url = url_length(i, false)) begin_region(i + url);
      }
      i += add_code_point(i);
    }
    maybe_end_region(to);
  }

  void html() {
    for (std::size_t i = 0; i < text_.size();) {
      maybe_end_region(i);
      const char c = text_[i];
      if (c == '<') {
        std::string name;
        bool closing = false;
        if (const std::size_t len = match_html_tag(text_, i, name, closing)) {
          if (!closing) {
            region_ = 0;
            const std::string_view tag = text_.substr(i, len);
            const bool code = name == "pre";
            const bool protect = code || name == "code" || name == "a";
            push(name, std::string(tag), "</" + name + ">", protect, code);
            add(i, i + len, AtomKind::OpenTag, out_.nodes[current_].emitted);
            i += len;
            continue;
          }
          if (current_ != 0 && out_.nodes[current_].name == name) {
            region_ = 0;
            const bool emitted = out_.nodes[current_].emitted;
            current_ = out_.nodes[current_].parent;
            add(i, i + len, AtomKind::CloseTag, emitted);
            i += len;
            continue;
          }
        }
      } else if (c == '&') {
        if (const std::size_t len = match_html_entity(text_, i)) {
          add(i, i + len, AtomKind::Text);
          i += len;
          continue;
        }
      }
      if (region_ == 0) {
        if (const std::size_t url = url_length(i, true)) begin_region(i + url);
      }
      i += add_code_point(i);
    }
  }

  void markdown() {
    const std::vector<FenceSpan> fences = parse_fence_spans(text_);
    std::size_t pos = 0;
    for (const FenceSpan& fence : fences) {
      const std::string close = "\n" + fence.indent + fence.marker;
      const std::size_t overhead = units_of(fence.open_line) + 1 + units_of(close);
      const std::size_t cost =
          overhead + units_of(text_.substr(fence.close_line_start, fence.end - fence.close_line_start));
      // Degenerate (chunker.h): text. Otherwise push() below always keeps the node.
      if (cost > options_.limit / 2 || overhead + kAtomReserve > options_.limit) continue;
      markdown_inline(pos, fence.start);
      push("```", fence.open_line + "\n", close, true, true);
      add(fence.start, fence.open_line_end, AtomKind::FenceOpen);
      const std::uint32_t inside = current_;
      for (std::size_t i = fence.open_line_end; i < fence.close_line_start;) i += add_code_point(i);
      if (fence.closed) {
        current_ = out_.nodes[inside].parent;
        add(fence.close_line_start, fence.end, AtomKind::FenceClose);
      }
      pos = fence.end;
    }
    markdown_inline(pos, text_.size());
  }

  /// Markdown outside fences: inline code `…`, links [text](url) and bare URLs are protected.
  void markdown_inline(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to;) {
      maybe_end_region(i);
      if (region_ == 0) {
        std::size_t len = 0;
        if (text_[i] == '`') {
          len = inline_code_length(i, to);
        } else if (text_[i] == '[') {
          len = link_length(i, to);
        } else {
          len = url_length(i, false);
        }
        if (len > 0) begin_region(i + len);
      }
      i += add_code_point(i);
    }
    maybe_end_region(to);
  }

  /// `code` with a matching backtick run before a blank line (searching at most 2000 bytes).
  std::size_t inline_code_length(std::size_t i, std::size_t to) const {
    std::size_t run = 0;
    while (i + run < to && text_[i + run] == '`') ++run;
    const std::size_t limit = std::min(to, i + run + 2000);
    for (std::size_t j = i + run; j < limit;) {
      if (text_[j] == '\n' && j + 1 < limit && text_[j + 1] == '\n') return 0;
      if (text_[j] != '`') {
        ++j;
        continue;
      }
      std::size_t r = 0;
      while (j + r < to && text_[j + r] == '`') ++r;
      if (r == run) return j + r - i;
      j += r;
    }
    return 0;
  }

  /// [text](url) on one line, parentheses in the url balanced.
  std::size_t link_length(std::size_t i, std::size_t to) const {
    std::size_t j = i + 1;
    while (j < to && text_[j] != ']' && text_[j] != '\n') ++j;
    if (j + 1 >= to || text_[j] != ']' || text_[j + 1] != '(') return 0;
    int depth = 0;
    for (std::size_t k = j + 1; k < to && text_[k] != '\n'; ++k) {
      if (text_[k] == '(') ++depth;
      if (text_[k] == ')' && --depth == 0) return k + 1 - i;
    }
    return 0;
  }

 private:
  std::string_view text_;
  const ChunkOptions& options_;
  Atoms out_;
  std::uint32_t current_ = 0;
  std::uint32_t region_ = 0;
  std::uint32_t regions_ = 0;
  std::size_t region_end_ = 0;
};

}  // namespace

std::size_t match_html_tag(std::string_view text, std::size_t i, std::string& name, bool& closing) {
  std::size_t j = i + 1;
  closing = j < text.size() && text[j] == '/';
  if (closing) ++j;
  const std::size_t name_start = j;
  if (j >= text.size() || !is_alpha(text[j])) return 0;
  while (j < text.size() && (is_alpha(text[j]) || is_digit(text[j]) || text[j] == '-') && j - name_start < 32) ++j;
  name.clear();
  for (std::size_t k = name_start; k < j; ++k) name += lower(text[k]);
  if (closing) {
    while (j < text.size() && text[j] == ' ') ++j;
    return j < text.size() && text[j] == '>' ? j + 1 - i : 0;
  }
  if (j < text.size() && text[j] == '>') return j + 1 - i;
  if (j >= text.size() || text[j] != ' ') return 0;
  for (; j < text.size() && j - i < kMaxTagBytes; ++j) {
    const char c = text[j];
    if (c == '<' || c == '\n') return 0;
    if (c == '>') return text[j - 1] == '/' ? 0 : j + 1 - i;
  }
  return 0;
}

std::size_t match_html_entity(std::string_view text, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= text.size()) return 0;
  std::size_t count = 0;
  if (text[j] == '#') {
    ++j;
    const bool hex = j < text.size() && (text[j] == 'x' || text[j] == 'X');
    if (hex) ++j;
    const std::size_t max = hex ? 6 : 7;
    while (j < text.size() && (hex ? is_hex(text[j]) : is_digit(text[j])) && count < max) {
      ++j;
      ++count;
    }
  } else if (is_alpha(text[j])) {
    while (j < text.size() && (is_alpha(text[j]) || is_digit(text[j])) && count < 10) {
      ++j;
      ++count;
    }
  }
  if (count == 0 || j >= text.size() || text[j] != ';') return 0;
  return j + 1 - i;
}

Atoms atomize(std::string_view text, const ChunkOptions& options) {
  Builder b(text, options);
  switch (options.format) {
    case TextFormat::Plain: b.plain(0, text.size()); break;
    case TextFormat::Markdown:
    case TextFormat::SlackMrkdwn: b.markdown(); break;
    case TextFormat::TelegramHtml: b.html(); break;
  }
  return b.take();
}

}  // namespace pincer::delivery::detail
