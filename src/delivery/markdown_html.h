// The agent's Markdown as the HTML subset Matrix clients render (SPEC CH-5): the `formatted_body`
// of an `m.room.message` with `format: "org.matrix.custom.html"` (Matrix client-server spec,
// "m.room.message msgtypes", the recommended tag list), parsed with md4c like markdown_render.h
// (CommonMark plus GitHub tables, strikethrough and bare-URL autolinks; raw HTML in the Markdown
// is never markup, it is shown as text).
//
//   **bold** <strong>   *italic* <em>   ~~strike~~ <del>   `code` <code>   [text](url) <a href="url">
//   paragraphs <p>   line breaks <br/>   headings <h1>…<h6>   > quote <blockquote>
//   fenced/indented code  <pre><code class="language-x">…</code></pre> (class only with a language)
//   lists <ul>/<ol start="n"> with <li>   tables <table><thead>/<tbody><tr><th>/<td>
//   thematic break <hr/>   images  their alt text (Matrix images are mxc:// uploads, not URLs)
// Only these tags are produced; every other character is text: & < > " are escaped. Links whose
// URL is not http(s) or mailto (e.g. javascript:) or holds a control character keep their text
// without the link; "www." links get "https://". C0 control characters other than tab and line
// feed are dropped, NUL becomes U+FFFD. No trailing whitespace.
//
// Pure; thread-safe (md4c keeps no global state).
#pragma once

#include <string>
#include <string_view>

namespace pincer::delivery {

/// Markdown → Matrix's HTML (see above).
std::string markdown_to_matrix_html(std::string_view markdown);

/// Escapes text for HTML element content and attribute values: & < > ".
std::string escape_html(std::string_view text);

}  // namespace pincer::delivery
