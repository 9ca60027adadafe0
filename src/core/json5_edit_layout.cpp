// Layout and style for json5_edit (json5_edit_internal.h): where lines start and how they are
// indented, comments on a line, the style the document is written in, and values rendered in it.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/json5_edit_internal.h"

namespace pincer::json5::detail_json5_edit {
namespace {

using nlohmann::json;

bool is_newline_byte(char c) { return c == '\n' || c == '\r'; }

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

}  // namespace

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

}  // namespace pincer::json5::detail_json5_edit
