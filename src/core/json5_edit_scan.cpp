// The position scanner of json5_edit: the byte span of every value, each member's key and comma,
// and every comment of a text json5::parse has accepted (json5_edit_internal.h). It trusts that
// acceptance; any disagreement shows up in json5_edit's final check, never as a broken file.
#include <algorithm>
#include <string>
#include <utility>

#include "core/json5.h"
#include "core/json5_edit_internal.h"
#include "core/utf8.h"

namespace pincer::json5::detail_json5_edit {
namespace {

using utf8::CodePoint;
using utf8::decode_at;

class Scanner {
 public:
  Scanner(std::string_view text, Tree& tree) : t_(text), tree_(tree) {}

  bool run() {
    skip_space();
    tree_.root = value();
    skip_space();
    return ok_ && p_ == t_.size();
  }

 private:
  bool at(char c, std::size_t ahead = 0) const { return p_ + ahead < t_.size() && t_[p_ + ahead] == c; }

  void skip_space() {
    while (p_ < t_.size()) {
      if (at('/') && at('/', 1)) {
        const std::size_t start = p_;
        p_ += 2;
        while (p_ < t_.size()) {
          const CodePoint c = decode_at(t_, p_);
          if (is_line_terminator(c.cp)) break;
          p_ += c.len;
        }
        tree_.comments.push_back({start, p_});
      } else if (at('/') && at('*', 1)) {
        const std::size_t start = p_;
        const std::size_t end = t_.find("*/", p_ + 2);
        if (end == npos) {
          ok_ = false;
          p_ = t_.size();
          return;
        }
        p_ = end + 2;
        tree_.comments.push_back({start, p_});
      } else {
        const CodePoint c = decode_at(t_, p_);
        if (!is_space(c.cp)) return;
        p_ += c.len;
      }
    }
  }

  void skip_string() {
    const char quote = t_[p_++];
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == '\\') {
        ++p_;
        if (at('\r') && at('\n', 1)) p_ += 2;
        else if (p_ < t_.size()) p_ += decode_at(t_, p_).len;
      } else if (c == quote) {
        ++p_;
        return;
      } else {
        ++p_;
      }
    }
    ok_ = false;
  }

  /// A bare word or number: everything up to whitespace or punctuation.
  void skip_word() {
    while (p_ < t_.size()) {
      const CodePoint c = decode_at(t_, p_);
      if (is_space(c.cp) || c.cp == ',' || c.cp == ']' || c.cp == '}' || c.cp == ':' || c.cp == '/' || c.cp == '[' ||
          c.cp == '{' || c.cp == '"' || c.cp == '\'') {
        return;
      }
      p_ += c.len;
    }
  }

  std::string key() {
    const std::size_t start = p_;
    if (at('"') || at('\'')) skip_string();
    else skip_word();
    const std::string_view raw = t_.substr(start, p_ - start);
    if (raw.empty()) {
      ok_ = false;
      return {};
    }
    const bool quoted = raw[0] == '"' || raw[0] == '\'';
    if (raw.find('\\') == npos) return std::string(quoted ? raw.substr(1, raw.size() - 2) : raw);
    // Escapes: let the real parser decode the key.
    auto parsed = parse("{" + std::string(raw) + ":0}");
    if (!parsed || !parsed->is_object() || parsed->size() != 1) {
      ok_ = false;
      return {};
    }
    return parsed->begin().key();
  }

  int value() {
    if (!ok_ || p_ >= t_.size()) {
      ok_ = false;
      return -1;
    }
    const int index = static_cast<int>(tree_.nodes.size());
    tree_.nodes.push_back(Node{});
    tree_.nodes[index].begin = p_;
    const char open = t_[p_];
    if (open == '{' || open == '[') {
      tree_.nodes[index].kind = open;
      const char close = open == '{' ? '}' : ']';
      ++p_;
      while (ok_) {
        skip_space();
        if (p_ >= t_.size()) {
          ok_ = false;
          break;
        }
        if (t_[p_] == close) break;
        Item item;
        item.start = p_;
        if (open == '{') {
          item.key = key();
          skip_space();
          if (!at(':')) {
            ok_ = false;
            break;
          }
          ++p_;
          skip_space();
        }
        item.value = value();
        skip_space();
        if (at(',')) item.comma = p_++;
        else if (!at(close)) ok_ = false;
        tree_.nodes[index].items.push_back(std::move(item));
      }
      ++p_;
    } else if (open == '"' || open == '\'') {
      skip_string();
    } else {
      skip_word();
      if (p_ == tree_.nodes[index].begin) ok_ = false;
    }
    tree_.nodes[index].end = std::min(p_, t_.size());
    return index;
  }

  std::string_view t_;
  Tree& tree_;
  std::size_t p_ = 0;
  bool ok_ = true;
};

}  // namespace

Result<Tree> scan(std::string_view text) {
  Tree tree;
  Scanner scanner(text, tree);
  if (!scanner.run() || tree.root < 0) return edit_error("EDIT_FAILED", "cannot locate the values in the text");
  return tree;
}

}  // namespace pincer::json5::detail_json5_edit
