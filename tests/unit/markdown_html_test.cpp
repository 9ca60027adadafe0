// The agent's Markdown as Matrix's HTML (src/delivery/markdown_html.h, the formatted_body of
// org.matrix.custom.html messages), including hostile input.
#include <gtest/gtest.h>

#include "delivery/markdown_html.h"

namespace pincer::delivery {
namespace {

TEST(MarkdownMatrixHtml, Mapping) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"**bold** *it* ~~del~~ `code`", "<p><strong>bold</strong> <em>it</em> <del>del</del> <code>code</code></p>"},
      {"# Title\n\ntext", "<h1>Title</h1>\n<p>text</p>"},
      {"> quoted", "<blockquote>\n<p>quoted</p>\n</blockquote>"},
      {"- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"},
      {"3. c\n4. d", "<ol start=\"3\">\n<li>c</li>\n<li>d</li>\n</ol>"},
      {"```js\nlet x = 1 < 2;\n```", "<pre><code class=\"language-js\">let x = 1 &lt; 2;\n</code></pre>"},
      {"[site](https://example.org/?a=1&b=\"2\")", "<p><a href=\"https://example.org/?a=1&amp;b=&quot;2&quot;\">site</a></p>"},
      {"| a | b |\n|---|---|\n| 1 | 2 |",
       "<table>\n<thead>\n<tr><th>a</th><th>b</th></tr>\n</thead>\n<tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody>\n</table>"},
      {"---", "<hr/>"},
      {"line one  \nline two", "<p>line one<br/>\nline two</p>"},
  };
  for (const auto& [markdown, html] : cases) EXPECT_EQ(markdown_to_matrix_html(markdown), html) << markdown;
}

TEST(MarkdownMatrixHtml, HostileInputStaysText) {
  EXPECT_EQ(markdown_to_matrix_html("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  EXPECT_EQ(markdown_to_matrix_html("[x](javascript:alert(1))"), "<p>x</p>");
  EXPECT_EQ(markdown_to_matrix_html("![alt](https://img.example/x.png)"), "<p>alt</p>");
  EXPECT_EQ(markdown_to_matrix_html("a\x01" "b"), "<p>ab</p>");
  // Unbalanced spans still give balanced tags.
  const std::string html = markdown_to_matrix_html("**a [y](*`v) b");
  EXPECT_EQ(std::count(html.begin(), html.end(), '<'), std::count(html.begin(), html.end(), '>'));
}

}  // namespace
}  // namespace pincer::delivery
