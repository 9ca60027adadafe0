// libFuzzer target for outbound chunking (src/delivery/chunker.h) and the Markdown renderers
// (src/delivery/markdown_render.h) that feed it.
//
// Input: byte 0-1 → limit (16..1039), byte 2 → unit (UTF-16 / UTF-8 bytes / code points), format
// (plain / Markdown / Telegram HTML) and mode (length / newline); the rest is the text.
//
// Checked on every input:
// - chunk_text succeeds; every chunk is within the limit in the chosen unit, is not blank, and is
//   valid UTF-8 whenever the text is;
// - plain text: the chunks hold exactly the text's non-whitespace bytes, in order;
// - Markdown: each chunk's code fences are balanced whenever the text's fences are chunkable
//   (chunker.h: not degenerate; fence markers only at line starts);
// - the text rendered to Telegram HTML is tag-balanced, and so is every chunk of it; the chunks
//   keep the rendered text (outside tags) in order, whitespace aside;
// - the plain-text rendering has no control characters other than tab and line feed;
// - the Matrix/e-mail HTML rendering (markdown_html.h) is tag-balanced;
// - in the Slack mrkdwn rendering (slack_mrkdwn.h) every '<' opens a link (<http…>, <https…>,
//   <mailto:…>) closed by a '>' before the next '<'.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "delivery/chunk_atoms.h"
#include "delivery/chunker.h"
#include "delivery/fences.h"
#include "delivery/markdown_html.h"
#include "delivery/markdown_render.h"
#include "delivery/slack_mrkdwn.h"
#include "delivery/text_units.h"

namespace {

using namespace pincer::delivery;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

std::string without_space(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!is_space(c)) out += c;
  }
  return out;
}

/// Text outside tags (tags as the chunker recognises them), whitespace removed.
std::string html_text(std::string_view html) {
  std::string out;
  for (std::size_t i = 0; i < html.size();) {
    std::string name;
    bool closing = false;
    if (html[i] == '<') {
      if (const std::size_t len = detail::match_html_tag(html, i, name, closing)) {
        i += len;
        continue;
      }
    }
    if (!is_space(html[i])) out += html[i];
    ++i;
  }
  return out;
}

/// Every fence fits in half the limit and "```"/"~~~" appear only as fence markers at line
/// starts, so no cut can create or hide a fence line.
bool fences_chunkable(std::string_view text, const ChunkOptions& options) {
  for (const FenceSpan& f : parse_fence_spans(text)) {
    const std::size_t overhead = measure(f.open_line, options.unit) + 1 + measure("\n" + f.indent + f.marker, options.unit);
    const std::size_t cost = overhead + measure(text.substr(f.close_line_start, f.end - f.close_line_start), options.unit);
    if (cost > options.limit / 2 || overhead + detail::kAtomReserve > options.limit) return false;
  }
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    const char c = text[i];
    if ((c != '`' && c != '~') || text[i + 1] != c || text[i + 2] != c) continue;
    std::size_t line_start = i;
    while (line_start > 0 && text[line_start - 1] != '\n') --line_start;
    if (i - line_start > 3) return false;
    for (std::size_t k = line_start; k < i; ++k) {
      if (text[k] != ' ') return false;
    }
    while (i + 1 < text.size() && text[i + 1] == c) ++i;  // skip the rest of the run
  }
  return true;
}

/// Every start tag of `html` is closed in order (void elements written "<br/>", "<hr/>").
bool generic_html_balanced(std::string_view html) {
  std::vector<std::string> open;
  for (std::size_t i = html.find('<'); i != std::string_view::npos; i = html.find('<', i + 1)) {
    const std::size_t end = html.find('>', i);
    if (end == std::string_view::npos) return false;
    const std::string_view tag = html.substr(i + 1, end - i - 1);
    if (tag.empty()) return false;
    if (tag.back() == '/') continue;
    const bool closing = tag.front() == '/';
    const std::string_view body = closing ? tag.substr(1) : tag;
    const std::string name(body.substr(0, body.find(' ')));
    if (!closing) {
      open.push_back(name);
    } else if (open.empty() || open.back() != name) {
      return false;
    } else {
      open.pop_back();
    }
  }
  return open.empty();
}

bool slack_links_well_formed(std::string_view mrkdwn) {
  for (std::size_t i = mrkdwn.find('<'); i != std::string_view::npos; i = mrkdwn.find('<', i + 1)) {
    const std::string_view rest = mrkdwn.substr(i + 1);
    if (!rest.starts_with("http://") && !rest.starts_with("https://") && !rest.starts_with("mailto:")) return false;
    const std::size_t close = rest.find('>');
    if (close == std::string_view::npos || rest.substr(0, close).find('<') != std::string_view::npos) return false;
  }
  return true;
}

std::vector<std::string> chunks_of(std::string_view text, const ChunkOptions& options) {
  auto result = chunk_text(text, options);
  check(result.ok());
  const bool valid = is_valid_utf8(text);
  for (const std::string& chunk : *result) {
    check(measure(chunk, options.unit) <= options.limit);
    check(!without_space(chunk).empty());
    if (valid) check(is_valid_utf8(chunk));
  }
  return std::move(*result);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  ChunkOptions options;
  options.limit = kMinChunkLimit + ((static_cast<std::size_t>(data[0]) | (static_cast<std::size_t>(data[1]) << 8)) % 1024);
  options.unit = static_cast<LengthUnit>(data[2] % 3);
  options.format = static_cast<TextFormat>((data[2] / 3) % 3);
  options.mode = (data[2] / 9) % 2 == 0 ? ChunkMode::Length : ChunkMode::Newline;
  const std::string_view text(reinterpret_cast<const char*>(data + 3), size - 3);

  const std::vector<std::string> chunks = chunks_of(text, options);
  std::string joined;
  for (const std::string& c : chunks) joined += c;
  if (options.format == TextFormat::Plain) check(without_space(joined) == without_space(text));
  if (options.format == TextFormat::Markdown && fences_chunkable(text, options)) {
    for (const std::string& c : chunks) check(fences_balanced(c));
  }

  const std::string html = markdown_to_telegram_html(text);
  check(html_tags_balanced(html));
  ChunkOptions html_options = options;
  html_options.format = TextFormat::TelegramHtml;
  const std::vector<std::string> html_chunks = chunks_of(html, html_options);
  std::string html_joined;
  for (const std::string& c : html_chunks) {
    check(html_tags_balanced(c));
    html_joined += c;
  }
  check(html_text(html_joined) == html_text(html));

  for (const char c : markdown_to_plain_text(text)) {
    const auto u = static_cast<unsigned char>(c);
    check(u >= 0x20 || c == '\n' || c == '\t');
  }
  check(generic_html_balanced(markdown_to_matrix_html(text)));
  check(slack_links_well_formed(markdown_to_slack_mrkdwn(text)));
  return 0;
}
