// The chunker's view of a text (internal to chunker.cpp; see chunker.h for the rules): a sequence
// of atoms that are never split (a code point, an HTML entity, a tag, a fence line) and a tree of
// the formatting that is open after each atom (HTML tags, a code fence), with the cost of
// reopening and closing it at a cut. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "delivery/chunker.h"

namespace pincer::delivery::detail {

/// Largest atom that is not markup: an entity such as "&#x10FFFF;" or "&abcdefghij;" (12 units).
inline constexpr std::size_t kAtomReserve = 12;

enum class AtomKind : std::uint8_t {
  Text,        ///< one code point or one entity
  Space,       ///< ' ', '\t' or '\r'
  Newline,     ///< '\n'
  OpenTag,     ///< <b>, <a href="…">, …: pushes a node
  CloseTag,    ///< </b>: pops the node it matches
  FenceOpen,   ///< the opening line of a code fence (without its '\n'): pushes a node
  FenceClose,  ///< the closing line of a code fence: pops it
};

struct Atom {
  std::size_t begin = 0;  ///< byte range in the text
  std::size_t end = 0;
  std::size_t units = 0;  ///< size in the chunk's unit when emitted (0 when not emitted)
  AtomKind kind = AtomKind::Text;
  bool emitted = true;    ///< false: markup dropped as degenerate (chunker.h)
  std::uint32_t node_after = 0;  ///< formatting open after this atom (index into nodes)
  std::uint32_t region = 0;      ///< inline protected span (link, inline code, URL); 0 = none
};

/// Open formatting: node 0 is "nothing open"; every other node is one tag or fence inside its
/// parent. Totals include the node's ancestors and skip dropped (not emitted) nodes.
struct Node {
  std::uint32_t parent = 0;
  std::string name;          ///< lowercase tag name, or "```" for a fence
  std::string reopen;        ///< text that reopens it at the start of a chunk
  std::string close;         ///< text that closes it at the end of a chunk
  bool emitted = true;
  bool protect = false;      ///< a cut inside is a last resort (code, links), inherited
  bool code = false;         ///< inside a code block (line breaks are tier 5), inherited
  std::size_t reopen_total = 0;
  std::size_t close_total = 0;
};

struct Atoms {
  std::vector<Atom> atoms;
  std::vector<Node> nodes;  ///< nodes[0] is the root
};

/// Splits `text` into atoms for the given options (format, unit, limit).
Atoms atomize(std::string_view text, const ChunkOptions& options);

/// Length of the HTML tag starting at text[i] == '<' (through '>'), or 0 when none starts there.
/// Sets `name` (lowercase) and `closing`; self-closing tags ("<br/>") return 0 (text).
std::size_t match_html_tag(std::string_view text, std::size_t i, std::string& name, bool& closing);
/// Length of the entity starting at text[i] == '&' (through ';'), or 0: "&name;" with 1..10
/// letters/digits starting with a letter, "&#" 1..7 digits ";", "&#x" 1..6 hex digits ";".
std::size_t match_html_entity(std::string_view text, std::size_t i);

}  // namespace pincer::delivery::detail
