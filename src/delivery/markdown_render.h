// The agent's Markdown in each platform's dialect (SPEC CH-5), parsed with md4c (CommonMark plus
// GitHub tables, strikethrough and bare-URL autolinks; raw HTML in the Markdown is never markup,
// it is shown as text). Render first, then chunk (chunker.h) the exact text that will be sent.
//
// Telegram HTML (parse_mode "HTML"; https://core.telegram.org/bots/api#html-style) — the mapping
// follows OpenClaw src/telegram/format.ts + src/markdown/ir.ts:
//   **bold** <b>   *italic* <i>   ~~strike~~ <s>   `code` <code>   [text](url) <a href="url">
//   fenced/indented code  <pre><code class="language-x">…</code></pre> (class only with a language)
//   > quote  <blockquote>…</blockquote>
//   headings  plain text (OpenClaw headingStyle "none")
//   lists  "• item" / "1. item", nested levels indented by two spaces
//   tables  a monospace block (<pre><code>) with "| a | b |" rows (OpenClaw tableMode "code")
//   thematic break  "───"   images  their alt text
// Every other character is text: & < > are escaped as &amp; &lt; &gt; (and " as &quot; inside
// attributes); only these tags are ever produced. Links whose URL is not http(s), mailto or tg
// (e.g. javascript:) or holds a control character lose the link and keep their text; "www."
// links get "http://".
// Blocks are separated by a blank line; the result has no trailing whitespace.
//
// Plain text (IRC): the same layout without markup: emphasis markers dropped, code blocks as
// their lines (no fences), inline code as its text, links as "text (url)" (just the URL when the
// text is the URL), quotes with "> " before each line, tables as the same "| a | b |" rows.
//
// Both: NUL becomes U+FFFD, other C0 control characters except tab and line feed are dropped
// (an IRC client would act on \x01 or \x03), "\r" is dropped. Entities in the Markdown
// (&copy; &#169; …) are decoded for a common set of names; unknown ones stay as written.
//
// Pure; thread-safe (md4c keeps no global state).
#pragma once

#include <string>
#include <string_view>

namespace pincer::delivery {

/// Markdown → Telegram HTML (see above).
std::string markdown_to_telegram_html(std::string_view markdown);

/// Markdown → plain text (see above).
std::string markdown_to_plain_text(std::string_view markdown);

/// Escapes text for Telegram HTML: & < > (and " when `attribute`).
std::string escape_telegram_html(std::string_view text, bool attribute = false);

}  // namespace pincer::delivery
