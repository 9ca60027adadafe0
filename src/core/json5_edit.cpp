// Editing JSON5 text in place (contract in json5_edit.h).
//
// How it works: the text is parsed twice — by json5::parse for its meaning (and to reject invalid
// input), and by a small Scanner below that records only *where* things are: the byte span of
// every value, each member's key and comma, and every comment. The edit is computed on the parsed
// document first (apply_set / apply_unset: the expected result), then made as a few byte-range
// replacements on the text, and finally the new text is parsed again and compared with the
// expected document. The Scanner trusts that json5::parse accepted the text; any disagreement
// between the two shows up in that final check, never as a broken file.
#include "core/json5_edit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "core/json5.h"
#include "core/utf8.h"
#include "core/json_dump.h"

namespace pincer::json5 {
namespace {

using nlohmann::json;
constexpr std::size_t npos = std::string_view::npos;

Error error(const char* code, std::string message) { return Error{code, std::move(message)}; }

// ---- UTF-8 and character classes (as core/json5.cpp) ---------------------------------------------

using utf8::CodePoint;
using utf8::decode_at;

/// Plain JSON (no binary or discarded values) with valid UTF-8 strings and keys.
bool valid_value(const json& v) {
  if (v.is_binary() || v.is_discarded()) return false;
  if (v.is_string()) return utf8::is_valid(v.get_ref<const std::string&>());
  if (v.is_object()) {
    for (const auto& [key, child] : v.items()) {
      if (!utf8::is_valid(key) || !valid_value(child)) return false;
    }
  } else if (v.is_array()) {
    for (const auto& child : v) {
      if (!valid_value(child)) return false;
    }
  }
  return true;
}

/// Unsigned integers that fit int64 become signed, as json5::parse would read them back.
json normalized(json v) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return json(static_cast<std::int64_t>(v.get<std::uint64_t>()));
  }
  if (v.is_structured()) {
    for (auto& child : v) child = normalized(std::move(child));
  }
  return v;
}

// ---- paths ---------------------------------------------------------------------------------------

std::string prefix_text(const Path& path, std::size_t count) {
  return count == 0 ? std::string("the document") : format_path(Path(path.begin(), path.begin() + count));
}

std::string kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

Error conflict(const Path& path, const std::string& what) {
  return error("PATH_CONFLICT", format_path(path) + ": " + what);
}

/// The value to insert for the missing tail path[from..]: nested objects/arrays around `value`.
Result<json> build_tail(const Path& path, std::size_t from, const json& value) {
  if (from == path.size()) return value;
  auto inner = build_tail(path, from + 1, value);
  if (!inner) return inner;
  if (const auto* key = std::get_if<std::string>(&path[from])) return json::object({{*key, std::move(*inner)}});
  const std::size_t index = std::get<std::size_t>(path[from]);
  if (index != 0) {
    return conflict(path, prefix_text(path, from) + " does not exist, so it can only be created with index [0], not [" +
                                    std::to_string(index) + "]");
  }
  return json::array({std::move(*inner)});
}

// ---- the position scanner ------------------------------------------------------------------------

/// An object member or an array element.
struct Item {
  std::string key;          ///< objects only (decoded)
  std::size_t start = 0;    ///< first byte of the key (objects) or of the value (arrays)
  int value = -1;           ///< index into Tree::nodes
  std::size_t comma = npos; ///< the ',' after the value, if any
};

struct Node {
  char kind = 's';  ///< '{', '[' or 's' (scalar)
  std::size_t begin = 0, end = 0;  ///< [begin, end) of the value's text
  std::vector<Item> items;
};

struct Comment {
  std::size_t begin, end;  ///< [begin, end); a line comment ends before its line terminator
};

struct Tree {
  std::vector<Node> nodes;
  std::vector<Comment> comments;  ///< in text order
  int root = -1;
};

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

// ---- layout helpers ------------------------------------------------------------------------------

bool is_newline_byte(char c) { return c == '\n' || c == '\r'; }

std::size_t line_start(std::string_view t, std::size_t pos) {
  while (pos > 0 && !is_newline_byte(t[pos - 1])) --pos;
  return pos;
}

/// The blanks at the start of the line holding `pos` (up to `pos` at most).
std::string line_indent(std::string_view t, std::size_t pos) {
  std::size_t s = line_start(t, pos), e = s;
  while (e < pos && (t[e] == ' ' || t[e] == '\t')) ++e;
  return std::string(t.substr(s, e - s));
}

/// Only blanks between the start of the line and `pos`.
bool starts_line(std::string_view t, std::size_t pos) {
  for (std::size_t i = line_start(t, pos); i < pos; ++i) {
    if (t[i] != ' ' && t[i] != '\t') return false;
  }
  return true;
}

bool spans_lines(std::string_view t, const Node& n) {
  return t.substr(n.begin, n.end - n.begin).find_first_of("\r\n") != npos;
}

const Comment* comment_at(const Tree& tree, std::size_t pos) {
  auto it = std::lower_bound(tree.comments.begin(), tree.comments.end(), pos,
                             [](const Comment& c, std::size_t p) { return c.begin < p; });
  return it != tree.comments.end() && it->begin == pos ? &*it : nullptr;
}

bool has_comment_in(const Tree& tree, std::size_t begin, std::size_t end) {
  return std::any_of(tree.comments.begin(), tree.comments.end(),
                     [&](const Comment& c) { return c.begin >= begin && c.end <= end; });
}

/// From `pos`, skips blanks and comments that stay on the same line; returns the position after
/// the last comment skipped (or `pos` when none).
std::size_t after_same_line_comments(std::string_view t, const Tree& tree, std::size_t pos) {
  std::size_t result = pos;
  std::size_t q = pos;
  while (true) {
    while (q < t.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
    const Comment* c = comment_at(tree, q);
    if (c == nullptr) return result;
    if (t[q + 1] == '/') return c->end;  // a line comment runs to the end of the line
    if (t.substr(c->begin, c->end - c->begin).find_first_of("\r\n") != npos) return result;
    q = result = c->end;
  }
}

/// Length of the line terminator at `pos` (0 when none).
std::size_t newline_at(std::string_view t, std::size_t pos) {
  if (pos >= t.size()) return 0;
  if (t[pos] == '\r') return pos + 1 < t.size() && t[pos + 1] == '\n' ? 2 : 1;
  return t[pos] == '\n' ? 1 : 0;
}

// ---- style and rendering -------------------------------------------------------------------------

struct Style {
  std::string indent = "  ";
  std::string newline = "\n";
  bool unquoted_keys = false;
  char quote = '"';
  bool trailing_commas = false;
};

Style detect_style(std::string_view t, const Tree& tree) {
  Style s;
  if (t.find("\r\n") != npos) s.newline = "\r\n";
  int quoted_keys = 0, bare_keys = 0, single = 0, dbl = 0, with_comma = 0, without_comma = 0;
  bool indent_found = false;
  for (const Node& n : tree.nodes) {
    if (n.kind == 's') {
      if (t[n.begin] == '\'') ++single;
      if (t[n.begin] == '"') ++dbl;
      continue;
    }
    for (const Item& item : n.items) {
      if (n.kind != '{') break;
      (t[item.start] == '"' || t[item.start] == '\'' ? quoted_keys : bare_keys)++;
    }
    if (n.items.empty() || !spans_lines(t, n)) continue;
    (n.items.back().comma != npos ? with_comma : without_comma)++;
    if (!indent_found && starts_line(t, n.items.front().start)) {
      const std::string outer = line_indent(t, n.begin), inner = line_indent(t, n.items.front().start);
      if (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0) {
        s.indent = inner.substr(outer.size());
        indent_found = true;
      }
    }
  }
  // No majority: JSON style for a plain JSON file, JSON5 style once the file has comments.
  s.unquoted_keys = bare_keys > quoted_keys || (bare_keys == quoted_keys && !tree.comments.empty());
  s.quote = single > dbl ? '\'' : '"';
  s.trailing_commas = with_comma > without_comma;
  return s;
}

std::string quote_string(std::string_view s, char quote) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, quote);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += quote;
        } else if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
          out += s[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // line separators, kept visible
          i += 2;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + quote;
}

bool is_plain_identifier(std::string_view key) {
  if (key.empty()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
    if (!(letter || (i > 0 && c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::string render_key(std::string_view key, const Style& s) {
  return s.unquoted_keys && is_plain_identifier(key) ? std::string(key) : quote_string(key, s.quote);
}

/// `v` as JSON5 text. Multi-line containers put their members at `indent` + one step and their
/// closing bracket at `indent`; `inline_mode` writes everything on one line.
std::string render(const json& v, const Style& s, const std::string& indent, bool inline_mode) {
  switch (v.type()) {
    case json::value_t::string: return quote_string(v.get_ref<const std::string&>(), s.quote);
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return v.dump();
    }
    case json::value_t::array: {
      if (v.empty()) return "[]";
      const bool scalars = std::none_of(v.begin(), v.end(), [](const json& e) { return e.is_structured(); });
      if (inline_mode || scalars) {
        std::string out = "[";
        for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + render(v[i], s, indent, true);
        return out + "]";
      }
      std::string out = "[" + s.newline;
      const std::string inner = indent + s.indent;
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += inner + render(v[i], s, inner, false) + (i + 1 < v.size() || s.trailing_commas ? "," : "") + s.newline;
      }
      return out + indent + "]";
    }
    case json::value_t::object: {
      if (v.empty()) return "{}";
      if (inline_mode) {
        std::string out = "{ ";
        bool first = true;
        for (const auto& [key, child] : v.items()) {
          out += (first ? "" : ", ") + render_key(key, s) + ": " + render(child, s, indent, true);
          first = false;
        }
        return out + " }";
      }
      std::string out = "{" + s.newline;
      const std::string inner = indent + s.indent;
      std::size_t i = 0;
      for (const auto& [key, child] : v.items()) {
        out += inner + render_key(key, s) + ": " + render(child, s, inner, false) +
               (++i < v.size() || s.trailing_commas ? "," : "") + s.newline;
      }
      return out + indent + "}";
    }
    default: return v.dump();
  }
}

// ---- text edits ----------------------------------------------------------------------------------

struct Edit {
  std::size_t begin, end;
  std::string text;
};

/// Applies non-overlapping edits; insertions at the same position keep their listed order.
std::string apply_edits(std::string_view t, std::vector<Edit> edits) {
  std::reverse(edits.begin(), edits.end());
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string out(t);
  for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

/// Inserts a member (`key` set) or an element (`key` null) holding `value` at the end of
/// container `c`.
std::string insert_item(std::string_view t, const Tree& tree, int c, const std::string* key, const json& value,
                        const Style& s) {
  const Node& n = tree.nodes[static_cast<std::size_t>(c)];
  const std::string head = key ? render_key(*key, s) + ": " : "";
  const std::string outer = line_indent(t, n.begin);
  if (n.items.empty()) {
    const std::size_t close = n.end - 1;
    if (!has_comment_in(tree, n.begin, n.end)) {
      if (!key && !value.is_structured()) return apply_edits(t, {{n.begin + 1, close, render(value, s, outer, true)}});
      const std::string inner = outer + s.indent;
      return apply_edits(t, {{n.begin + 1, close,
                              s.newline + inner + head + render(value, s, inner, false) + (s.trailing_commas ? "," : "") +
                                  s.newline + outer}});
    }
    // Comments inside: keep them above the new member.
    if (starts_line(t, close)) {
      const std::string inner = outer + s.indent;
      return apply_edits(t, {{line_start(t, close), line_start(t, close),
                              inner + head + render(value, s, inner, false) + (s.trailing_commas ? "," : "") + s.newline}});
    }
    return apply_edits(t, {{close, close, " " + head + render(value, s, outer, true) + " "}});
  }

  const Item& last = n.items.back();
  const Node& last_value = tree.nodes[static_cast<std::size_t>(last.value)];
  const bool had_comma = last.comma != npos;
  std::vector<Edit> edits;
  if (!spans_lines(t, n)) {
    if (had_comma) edits.push_back({last.comma + 1, last.comma + 1, " " + head + render(value, s, outer, true) + ","});
    else edits.push_back({last_value.end, last_value.end, ", " + head + render(value, s, outer, true)});
    return apply_edits(t, std::move(edits));
  }
  std::string indent;
  if (starts_line(t, last.start)) indent = line_indent(t, last.start);
  else if (starts_line(t, n.items.front().start)) indent = line_indent(t, n.items.front().start);
  else indent = outer + s.indent;
  const std::size_t at = after_same_line_comments(t, tree, had_comma ? last.comma + 1 : last_value.end);
  if (!had_comma) edits.push_back({last_value.end, last_value.end, ","});
  edits.push_back({at, at, s.newline + indent + head + render(value, s, indent, false) + (had_comma ? "," : "")});
  return apply_edits(t, std::move(edits));
}

/// Removes item `k` of container `c`.
std::string remove_item(std::string_view t, const Tree& tree, int c, std::size_t k) {
  const Node& n = tree.nodes[static_cast<std::size_t>(c)];
  const Item& item = n.items[k];
  const Node& v = tree.nodes[static_cast<std::size_t>(item.value)];
  const std::size_t item_end = item.comma != npos ? item.comma + 1 : v.end;
  const bool is_last = k + 1 == n.items.size();
  const std::size_t lower = k > 0 ? (n.items[k - 1].comma != npos ? n.items[k - 1].comma + 1
                                                                  : tree.nodes[static_cast<std::size_t>(n.items[k - 1].value)].end)
                                  : n.begin + 1;
  std::vector<Edit> edits;
  std::size_t begin = 0, end = 0;

  const std::size_t line_rest = after_same_line_comments(t, tree, item_end);
  std::size_t eol = line_rest;
  while (eol < t.size() && (t[eol] == ' ' || t[eol] == '\t')) ++eol;
  const bool own_line = spans_lines(t, n) && starts_line(t, item.start) && item.start > lower &&
                        (eol == t.size() || newline_at(t, eol) > 0);
  if (own_line) {
    begin = line_start(t, item.start);
    end = eol + newline_at(t, eol);
    // Comment lines directly above belong to the member.
    while (begin > lower) {
      std::size_t prev_end = begin - 1;
      if (prev_end > 0 && t[prev_end] == '\n' && t[prev_end - 1] == '\r') --prev_end;
      const std::size_t prev_start = line_start(t, prev_end);
      std::size_t first = prev_start;
      while (first < prev_end && (t[first] == ' ' || t[first] == '\t')) ++first;
      const Comment* comment = first < prev_end && first >= lower ? comment_at(tree, first) : nullptr;
      if (comment == nullptr || comment->end > prev_end) break;
      std::size_t rest = comment->end;
      while (rest < prev_end && (t[rest] == ' ' || t[rest] == '\t')) ++rest;
      if (rest != prev_end) break;
      begin = prev_start;
    }
    if (is_last && item.comma == npos && k > 0) edits.push_back({n.items[k - 1].comma, n.items[k - 1].comma + 1, ""});
  } else if (!is_last) {
    begin = item.start;
    end = n.items[k + 1].start;
  } else if (k > 0) {
    begin = tree.nodes[static_cast<std::size_t>(n.items[k - 1].value)].end;
    end = v.end;
    if (item.comma == npos) end = item_end;
  } else {
    begin = item.start;
    end = item_end;
  }
  // The only item gone and no comment left: close the container up ("{}").
  if (n.items.size() == 1) {
    bool other_comments = false;
    for (const Comment& cm : tree.comments) {
      if (cm.begin > n.begin && cm.end < n.end && (cm.begin < begin || cm.end > end)) other_comments = true;
    }
    if (!other_comments) {
      begin = n.begin + 1;
      end = n.end - 1;
      edits.clear();
    }
  }
  edits.push_back({begin, end, ""});
  return apply_edits(t, std::move(edits));
}

/// Index of the last item of object `n` named `key`, or npos.
std::size_t find_member(const Node& n, const std::string& key) {
  for (std::size_t i = n.items.size(); i-- > 0;) {
    if (n.items[i].key == key) return i;
  }
  return npos;
}

Result<Tree> scan(std::string_view text) {
  Tree tree;
  Scanner scanner(text, tree);
  if (!scanner.run() || tree.root < 0) return error("EDIT_FAILED", "cannot locate the values in the text");
  return tree;
}

Error edit_failed(const Path& path) {
  return error("EDIT_FAILED", format_path(path) +
                                  ": the edit could not be made without disturbing the rest of the file "
                                  "(please edit it by hand)");
}

/// Checks the guarantee: `out` parses to exactly `expected`.
Result<std::string> verified(std::string out, const json& expected, const Path& path) {
  auto reparsed = parse(out);
  if (!reparsed || !same_json(*reparsed, expected)) return edit_failed(path);
  return out;
}

/// Keys must be valid UTF-8 to be written into the text.
bool valid_path(const Path& path) {
  return std::all_of(path.begin(), path.end(), [](const PathSegment& seg) {
    const auto* key = std::get_if<std::string>(&seg);
    return key == nullptr || utf8::is_valid(*key);
  });
}

Result<std::string> set_impl(std::string_view text, const Path& path, const json& raw_value) {
  if (path.empty()) return error("PATH_INVALID", "empty path");
  if (!valid_path(path)) return error("PATH_INVALID", "the path is not valid UTF-8");
  if (!valid_value(raw_value)) return error("INVALID_VALUE", format_path(path) + ": the value is not valid UTF-8 JSON");
  const json value = normalized(raw_value);
  auto doc = parse(text);
  if (!doc) return doc.error();
  auto expected = apply_set(std::move(*doc), path, value);
  if (!expected) return expected.error();
  auto tree = scan(text);
  if (!tree) return edit_failed(path);
  const Style style = detect_style(text, *tree);

  int cur = tree->root, parent = -1;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Node& n = tree->nodes[static_cast<std::size_t>(cur)];
    std::size_t index = npos;
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (n.kind != '{') return edit_failed(path);
      index = find_member(n, *key);
      if (index == npos) {
        auto tail = build_tail(path, i + 1, value);
        if (!tail) return tail.error();
        return verified(insert_item(text, *tree, cur, key, *tail, style), *expected, path);
      }
    } else {
      index = std::get<std::size_t>(path[i]);
      if (n.kind != '[' || index > n.items.size()) return edit_failed(path);
      if (index == n.items.size()) {
        auto tail = build_tail(path, i + 1, value);
        if (!tail) return tail.error();
        return verified(insert_item(text, *tree, cur, nullptr, *tail, style), *expected, path);
      }
    }
    parent = cur;
    cur = n.items[index].value;
  }
  const Node& target = tree->nodes[static_cast<std::size_t>(cur)];
  const bool inline_mode = parent >= 0 && !spans_lines(text, tree->nodes[static_cast<std::size_t>(parent)]);
  std::string out = apply_edits(text, {{target.begin, target.end,
                                        render(value, style, line_indent(text, target.begin), inline_mode)}});
  return verified(std::move(out), *expected, path);
}

/// Removes one occurrence (the last) of the value at `path`; false when there is none.
Result<bool> unset_once(std::string& text, const Path& path) {
  auto tree = scan(text);
  if (!tree) return edit_failed(path);
  int cur = tree->root;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Node& n = tree->nodes[static_cast<std::size_t>(cur)];
    std::size_t index = npos;
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      index = n.kind == '{' ? find_member(n, *key) : npos;
    } else {
      index = std::get<std::size_t>(path[i]);
      if (n.kind != '[' || index >= n.items.size()) index = npos;
    }
    if (index == npos) return false;
    if (i + 1 == path.size()) {
      text = remove_item(text, *tree, cur, index);
      return true;
    }
    cur = n.items[index].value;
  }
  return false;
}

Result<std::string> unset_impl(std::string_view text, const Path& path) {
  if (path.empty()) return error("PATH_INVALID", "empty path");
  auto doc = parse(text);
  if (!doc) return doc.error();
  auto expected = apply_unset(std::move(*doc), path);
  if (!expected) return expected.error();
  std::string out(text);
  // Duplicate keys: remove every occurrence, last first (each removal re-locates the rest). An
  // index names one element only.
  const bool by_key = std::holds_alternative<std::string>(path.back());
  for (std::size_t round = 0; round < 1000; ++round) {
    auto removed = unset_once(out, path);
    if (!removed) return removed.error();
    if (!*removed || !by_key) break;
    auto now = parse(out);
    if (!now) return edit_failed(path);
    if (find(*now, path) == nullptr) break;
  }
  return verified(std::move(out), *expected, path);
}

template <class F>
auto guarded(const Path& path, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception&) {
    return edit_failed(path);
  }
}

}  // namespace

// ---- public API ----------------------------------------------------------------------------------

Result<Path> parse_path(std::string_view text) {
  const auto bad = [&](const std::string& why, std::size_t at) {
    return error("PATH_INVALID", std::string(text) + ": " + why + " at offset " + std::to_string(at));
  };
  if (text.empty()) return error("PATH_INVALID", "empty path");
  if (!utf8::is_valid(text)) return error("PATH_INVALID", "the path is not valid UTF-8");
  Path out;
  std::size_t i = 0;
  const auto read_key = [&]() -> std::string {
    const std::size_t start = i;
    while (i < text.size() && text[i] != '.' && text[i] != '[' && text[i] != ']') ++i;
    return std::string(text.substr(start, i - start));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '[') {
      const std::size_t open = i++;
      if (i < text.size() && (text[i] == '"' || text[i] == '\'')) {
        const char quote = text[i];
        std::size_t k = i + 1;
        while (k < text.size() && text[k] != quote) k += text[k] == '\\' ? 2 : 1;
        if (k >= text.size()) return bad("unterminated quoted key", i);
        auto key = parse(text.substr(i, k + 1 - i));
        if (!key || !key->is_string()) return bad("invalid quoted key", i);
        out.emplace_back(key->get<std::string>());
        i = k + 1;
      } else {
        const std::size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        const std::string_view digits = text.substr(start, i - start);
        if (digits.empty()) return bad("expected an index or a quoted key after '['", open);
        if (digits.size() > 1 && digits[0] == '0') return bad("index with a leading zero", start);
        if (digits.size() > 9) return bad("index too large", start);
        out.emplace_back(static_cast<std::size_t>(std::stoul(std::string(digits))));
      }
      if (i >= text.size() || text[i] != ']') return bad("expected ']'", i);
      ++i;
    } else if (c == '.') {
      if (out.empty()) return bad("empty key", i);
      ++i;
      std::string key = read_key();
      if (key.empty()) return bad("empty key", i);
      out.emplace_back(std::move(key));
    } else if (c == ']') {
      return bad("unexpected ']'", i);
    } else {
      if (!out.empty()) return bad("expected '.' or '['", i);
      out.emplace_back(read_key());
    }
  }
  return out;
}

std::string format_path(const Path& path) {
  std::string out;
  for (const auto& seg : path) {
    if (const auto* key = std::get_if<std::string>(&seg)) {
      if (key->empty() || key->find_first_of(".[]") != std::string::npos) {
        out += "[" + json_dump::compact(json(*key)) + "]";
      } else {
        out += (out.empty() ? "" : ".") + *key;
      }
    } else {
      out += "[" + std::to_string(std::get<std::size_t>(seg)) + "]";
    }
  }
  return out;
}

const nlohmann::json* find(const nlohmann::json& doc, const Path& path) {
  const json* cur = &doc;
  for (const auto& seg : path) {
    if (const auto* key = std::get_if<std::string>(&seg)) {
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(*key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(seg);
      if (!cur->is_array() || index >= cur->size()) return nullptr;
      cur = &(*cur)[index];
    }
  }
  return cur;
}

Result<nlohmann::json> apply_set(nlohmann::json doc, const Path& path, const nlohmann::json& value) {
  if (path.empty()) return error("PATH_INVALID", "empty path");
  json* cur = &doc;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!cur->is_object()) return conflict(path, prefix_text(path, i) + " is " + kind_of(*cur) + ", not an object");
      auto it = cur->find(*key);
      if (it == cur->end()) {
        auto tail = build_tail(path, i + 1, value);
        if (!tail) return tail.error();
        (*cur)[*key] = std::move(*tail);
        return doc;
      }
      if (last) {
        *it = value;
        return doc;
      }
      cur = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(path[i]);
      if (!cur->is_array()) return conflict(path, prefix_text(path, i) + " is " + kind_of(*cur) + ", not an array");
      if (index > cur->size()) {
        return conflict(path, "index " + std::to_string(index) + " is past the end of " + prefix_text(path, i) +
                                     " (" + std::to_string(cur->size()) + " elements; use [" +
                                     std::to_string(cur->size()) + "] to append)");
      }
      if (index == cur->size()) {
        auto tail = build_tail(path, i + 1, value);
        if (!tail) return tail.error();
        cur->push_back(std::move(*tail));
        return doc;
      }
      if (last) {
        (*cur)[index] = value;
        return doc;
      }
      cur = &(*cur)[index];
    }
  }
  return doc;
}

Result<nlohmann::json> apply_unset(nlohmann::json doc, const Path& path) {
  if (path.empty()) return error("PATH_INVALID", "empty path");
  json* p = &doc;
  for (std::size_t i = 0; p != nullptr && i + 1 < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      auto it = p->is_object() ? p->find(*key) : p->end();
      p = p->is_object() && it != p->end() ? &*it : nullptr;
    } else {
      const std::size_t index = std::get<std::size_t>(path[i]);
      p = p->is_array() && index < p->size() ? &(*p)[index] : nullptr;
    }
  }
  const auto not_found = [&] { return error("PATH_NOT_FOUND", format_path(path) + ": not set"); };
  if (p == nullptr) return not_found();
  if (const auto* key = std::get_if<std::string>(&path.back())) {
    if (!p->is_object() || p->erase(*key) == 0) return not_found();
  } else {
    const std::size_t index = std::get<std::size_t>(path.back());
    if (!p->is_array() || index >= p->size()) return not_found();
    p->erase(index);
  }
  return doc;
}

Result<std::string> set(std::string_view text, const Path& path, const nlohmann::json& value) {
  return guarded(path, [&] { return set_impl(text, path, value); });
}

Result<std::string> set(std::string_view text, std::string_view path, const nlohmann::json& value) {
  auto parsed = parse_path(path);
  if (!parsed) return parsed.error();
  return set(text, *parsed, value);
}

Result<std::string> unset(std::string_view text, const Path& path) {
  return guarded(path, [&] { return unset_impl(text, path); });
}

Result<std::string> unset(std::string_view text, std::string_view path) {
  auto parsed = parse_path(path);
  if (!parsed) return parsed.error();
  return unset(text, *parsed);
}

bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_json(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if (it.key() != jt.key() || !same_json(it.value(), jt.value())) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace pincer::json5
