// What the three md4c renderers share (markdown_render: Telegram HTML and plain text;
// markdown_html: Matrix/e-mail HTML; slack_mrkdwn): running md4c over a text with a renderer's
// callbacks, keeping its spans balanced, and decoding an attribute. Pure; any thread.
#pragma once

#include <md4c.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::delivery::detail {

/// Runs md4c over `markdown` with `flags` (MD_FLAG_*), calling the renderer's
///   int enter_block(MD_BLOCKTYPE, void* detail), int leave_block(MD_BLOCKTYPE, void* detail),
///   int enter_span(MD_SPANTYPE, void* detail),  int leave_span(MD_SPANTYPE, void* detail),
///   int text(MD_TEXTTYPE, std::string_view)
/// (a non-zero return stops the parse). Returns md_parse's result: 0, or non-zero when md4c
/// failed — only on allocation failure — or a callback stopped it; the caller then falls back to
/// its escaped source. md4c 0.4.8 may read one byte past the end (e.g. md_is_inline_link_spec on a
/// text ending inside "[x](y"; found by fuzz/chunker_fuzz.cpp), so it is handed a NUL-terminated copy.
template <class Renderer>
int md_walk(std::string_view markdown, unsigned flags, Renderer& renderer) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = flags;
  parser.enter_block = [](MD_BLOCKTYPE t, void* d, void* u) { return static_cast<Renderer*>(u)->enter_block(t, d); };
  parser.leave_block = [](MD_BLOCKTYPE t, void* d, void* u) { return static_cast<Renderer*>(u)->leave_block(t, d); };
  parser.enter_span = [](MD_SPANTYPE t, void* d, void* u) { return static_cast<Renderer*>(u)->enter_span(t, d); };
  parser.leave_span = [](MD_SPANTYPE t, void* d, void* u) { return static_cast<Renderer*>(u)->leave_span(t, d); };
  parser.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* u) {
    return static_cast<Renderer*>(u)->text(t, std::string_view(s, n));
  };
  const std::string source(markdown);
  return md_parse(source.c_str(), static_cast<MD_SIZE>(source.size()), &parser, &renderer);
}

/// The spans entered and not yet left, innermost last. md4c 0.4.8 can report a span's start
/// without its end (e.g. "**a [y](*`v) b": the closing '*' sits in a link destination), and in
/// principle an end without a start: a renderer that opens markup on enter and closes it on leave
/// would then emit unbalanced markup (or pop an empty stack). With this stack an end closes the
/// spans opened after its start too, an unknown end is ignored, and the end of a leaf block closes
/// whatever is still open.
class SpanStack {
 public:
  void open(MD_SPANTYPE type) { open_.push_back(type); }
  /// The end of `type`: calls `close(t)` for it and every span opened after it, innermost first;
  /// nothing when `type` is not open.
  template <class Close>
  void close(MD_SPANTYPE type, Close&& close) {
    const auto it = std::find(open_.rbegin(), open_.rend(), type);
    if (it == open_.rend()) return;
    const std::size_t keep = static_cast<std::size_t>(open_.rend() - it) - 1;
    while (open_.size() > keep) pop(close);
  }
  /// Calls `close(t)` for every open span, innermost first.
  template <class Close>
  void close_all(Close&& close) {
    while (!open_.empty()) pop(close);
  }

 private:
  template <class Close>
  void pop(Close& close) {
    const MD_SPANTYPE type = open_.back();
    open_.pop_back();
    close(type);
  }
  std::vector<MD_SPANTYPE> open_;
};

/// An md4c attribute (a link's href, a code block's language) as text: entities decoded, NUL
/// characters as U+FFFD.
std::string md_attribute_text(const MD_ATTRIBUTE& attr);

}  // namespace pincer::delivery::detail
