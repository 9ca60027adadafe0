// Editing JSON5 text in place (contract in json5_edit.h).
//
// How it works: the text is parsed twice — by json5::parse for its meaning (and to reject invalid
// input), and by a small Scanner (json5_edit_scan.cpp) that records only *where* things are: the byte span of
// every value, each member's key and comma, and every comment. The edit is computed on the parsed
// document first (apply_set / apply_unset: the expected result), then made as a few byte-range
// replacements on the text, and finally the new text is parsed again and compared with the
// expected document. The Scanner trusts that json5::parse accepted the text; any disagreement
// between the two shows up in that final check, never as a broken file.
// Files: json5_path.cpp (paths, apply_set/apply_unset), json5_edit_scan.cpp (the Scanner),
// json5_edit_layout.cpp (lines, style, rendering); this file makes and checks the edits.
#include "core/json5_edit.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/json5.h"
#include "core/json5_edit_internal.h"
#include "core/utf8.h"

namespace pincer::json5 {
namespace detail_json5_apply {

using nlohmann::json;
using namespace detail_json5_edit;

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

Error edit_failed(const Path& path) {
  return edit_error("EDIT_FAILED", format_path(path) +
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
  if (path.empty()) return edit_error("PATH_INVALID", "empty path");
  if (!valid_path(path)) return edit_error("PATH_INVALID", "the path is not valid UTF-8");
  if (!valid_value(raw_value)) return edit_error("INVALID_VALUE", format_path(path) + ": the value is not valid UTF-8 JSON");
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

/// 1-based line of the value at `path` in `text` (of its key, for an object member; the last
/// occurrence of a repeated key, the one parse() keeps), or 0.
std::size_t line_of_impl(std::string_view text, const Path& path) {
  auto tree = scan(text);
  if (!tree) return 0;
  int cur = tree->root;
  std::size_t at = cur >= 0 ? tree->nodes[static_cast<std::size_t>(cur)].begin : npos;
  for (const auto& step : path) {
    const Node& n = tree->nodes[static_cast<std::size_t>(cur)];
    std::size_t index = npos;
    if (const auto* key = std::get_if<std::string>(&step)) {
      index = n.kind == '{' ? find_member(n, *key) : npos;
    } else {
      index = std::get<std::size_t>(step);
      if (n.kind != '[' || index >= n.items.size()) index = npos;
    }
    if (index == npos) return 0;
    at = n.items[index].start;
    cur = n.items[index].value;
  }
  if (at == npos) return 0;
  std::size_t line = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && !(i + 1 < text.size() && text[i + 1] == '\n'))) ++line;
  }
  return line;
}

Result<std::string> unset_impl(std::string_view text, const Path& path) {
  if (path.empty()) return edit_error("PATH_INVALID", "empty path");
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

}  // namespace detail_json5_apply

using detail_json5_apply::guarded;
using detail_json5_apply::set_impl;
using detail_json5_apply::unset_impl;

std::size_t line_of(std::string_view text, const Path& path) {
  try {
    return detail_json5_apply::line_of_impl(text, path);
  } catch (const std::exception&) {
    return 0;
  }
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

}  // namespace pincer::json5
