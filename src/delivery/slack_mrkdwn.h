// The agent's Markdown as Slack mrkdwn (SPEC CH-5; https://api.slack.com/reference/surfaces/formatting),
// parsed with md4c like markdown_render.h:
//   **bold** *b*   *italic* _i_   ~~strike~~ ~s~   `code` `code`   [text](url) <url|text> (<url> when
//   the text is the URL)   fenced/indented code ```\n…\n``` (no language)   > quote "> " per line
//   headings  *heading* (bold line)   lists "• item" / "1. item", nested levels indented by two
//   spaces   tables  a ``` block with "| a | b |" rows   thematic break "───"   images  their alt text
// Every other character is text, with Slack's three control characters escaped: & &amp;, < &lt;,
// > &gt; (also inside code). Links whose URL is not http(s) or mailto lose the link and keep their
// text; "www." links get "http://". C0 controls other than tab and line feed are dropped. Blocks
// are separated by a blank line; the result has no trailing whitespace.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pincer::delivery {

/// Markdown → Slack mrkdwn (see above).
std::string markdown_to_slack_mrkdwn(std::string_view markdown);

/// Escapes text for mrkdwn: & < > → &amp; &lt; &gt;.
std::string escape_slack_mrkdwn(std::string_view text);

}  // namespace pincer::delivery
