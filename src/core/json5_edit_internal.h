// Internals of json5_edit (not for use outside src/core/json5_edit*.cpp and json5_path.cpp):
//   json5_path.cpp         paths and their meaning on a parsed document (parse_path, apply_set, …)
//   json5_edit_scan.cpp    the position scanner: where every value, key, comma and comment is
//   json5_edit_layout.cpp  lines and indentation of the text, the document's style, rendering
//   json5_edit.cpp         the edits themselves (insert, replace, remove) and set()/unset()
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json5_edit.h"
#include "core/result.h"

namespace pincer::json5::detail_json5_edit {

inline constexpr std::size_t npos = std::string_view::npos;

/// Error{code, message}.
Error edit_error(const char* code, std::string message);

// ---- paths (json5_path.cpp) -------------------------------------------------------------------

/// The value to insert for the missing tail path[from..]: nested objects/arrays around `value`.
/// Error "PATH_CONFLICT" when an index other than [0] would have to create an array.
Result<nlohmann::json> build_tail(const Path& path, std::size_t from, const nlohmann::json& value);

// ---- positions in the text (json5_edit_scan.cpp) ----------------------------------------------

/// An object member or an array element.
struct Item {
  std::string key;          ///< objects only (decoded)
  std::size_t start = 0;    ///< first byte of the key (objects) or of the value (arrays)
  int value = -1;           ///< index into Tree::nodes
  std::size_t comma = npos; ///< the ',' after the value, if any
};

/// One value of the text.
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

/// Where things are in `text`, which json5::parse has accepted. Error "EDIT_FAILED" when the
/// scanner cannot follow it.
Result<Tree> scan(std::string_view text);

// ---- layout (json5_edit_layout.cpp) ------------------------------------------------------------

/// Start of the line holding `pos`.
std::size_t line_start(std::string_view t, std::size_t pos);
/// The blanks at the start of the line holding `pos` (up to `pos` at most).
std::string line_indent(std::string_view t, std::size_t pos);
/// Only blanks between the start of the line and `pos`.
bool starts_line(std::string_view t, std::size_t pos);
/// Whether the text of `n` holds a line break.
bool spans_lines(std::string_view t, const Node& n);
/// The comment starting exactly at `pos`, or nullptr.
const Comment* comment_at(const Tree& tree, std::size_t pos);
/// Whether a comment lies entirely within [begin, end).
bool has_comment_in(const Tree& tree, std::size_t begin, std::size_t end);
/// From `pos`, skips blanks and comments that stay on the same line; returns the position after
/// the last comment skipped (or `pos` when none).
std::size_t after_same_line_comments(std::string_view t, const Tree& tree, std::size_t pos);
/// Length of the line terminator at `pos` (0 when none).
std::size_t newline_at(std::string_view t, std::size_t pos);

/// How the document writes things (read by detect_style, majority wins).
struct Style {
  std::string indent = "  ";
  std::string newline = "\n";
  bool unquoted_keys = false;
  char quote = '"';
  bool trailing_commas = false;
};

Style detect_style(std::string_view t, const Tree& tree);
/// A key as the style writes it: bare when the style uses bare keys and it is a plain identifier.
std::string render_key(std::string_view key, const Style& s);
/// `v` as JSON5 text. Multi-line containers put their members at `indent` + one step and their
/// closing bracket at `indent`; `inline_mode` writes everything on one line.
std::string render(const nlohmann::json& v, const Style& s, const std::string& indent, bool inline_mode);

}  // namespace pincer::json5::detail_json5_edit
