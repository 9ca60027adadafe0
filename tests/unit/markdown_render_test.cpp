// The agent's Markdown in Telegram HTML and in plain text (SPEC CH-5; OpenClaw
// src/telegram/format.ts and src/markdown/ir.ts for the mapping), including hostile input.
#include <gtest/gtest.h>

#include "delivery/chunker.h"
#include "delivery/markdown_render.h"

namespace pincer::delivery {
namespace {

struct Case {
  const char* name;
  std::string markdown;
  std::string expected;
};

TEST(MarkdownTelegram, Mapping) {
  const std::vector<Case> cases = {
      {"bold", "**bold**", "<b>bold</b>"},
      {"italic both ways", "*it* and _it_", "<i>it</i> and <i>it</i>"},
      {"strike", "~~gone~~", "<s>gone</s>"},
      {"nested", "**bold *and it***", "<b>bold <i>and it</i></b>"},
      {"inline code escaped", "`a<b && c`", "<code>a&lt;b &amp;&amp; c</code>"},
      {"code block with language", "```py\nx = 1 < 2\n```", "<pre><code class=\"language-py\">x = 1 &lt; 2</code></pre>"},
      {"code block without language", "```\nline1\n  line2\n```", "<pre><code>line1\n  line2</code></pre>"},
      {"odd language dropped", "```py\"><b>\nx\n```", "<pre><code>x</code></pre>"},
      {"link", "[docs](https://e.com/?a=1&b=2)", "<a href=\"https://e.com/?a=1&amp;b=2\">docs</a>"},
      {"link with quote in url", "[q](https://e.com/\"x)", "<a href=\"https://e.com/&quot;x\">q</a>"},
      {"bare url", "see https://example.com/x now",
       "see <a href=\"https://example.com/x\">https://example.com/x</a> now"},
      {"www link", "www.example.com", "<a href=\"http://www.example.com\">www.example.com</a>"},
      {"javascript link loses the link", "[x](javascript:alert(1))", "x"},
      {"relative link loses the link", "[x](/etc/passwd)", "x"},
      {"heading is plain", "# Title\n\ntext", "Title\n\ntext"},
      {"paragraphs", "one\ntwo\n\nthree", "one\ntwo\n\nthree"},
      {"bullets", "- a\n- b", "\xE2\x80\xA2 a\n\xE2\x80\xA2 b"},
      {"ordered from start", "3. a\n4. b", "3. a\n4. b"},
      {"nested lists", "- a\n  - b\n    1. c\n- d",
       "\xE2\x80\xA2 a\n  \xE2\x80\xA2 b\n    1. c\n\xE2\x80\xA2 d"},
      {"list then paragraph", "- a\n\nafter", "\xE2\x80\xA2 a\n\nafter"},
      {"quote", "> quoted\n> more", "<blockquote>quoted\nmore</blockquote>"},
      {"rule", "a\n\n---\n\nb", "a\n\n\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80\n\nb"},
      {"image alt", "![a cat](http://i/c.png)", "a cat"},
      {"entities", "&copy; &#169; &#x1F600; &bogus;", "\xC2\xA9 \xC2\xA9 \xF0\x9F\x98\x80 &amp;bogus;"},
      {"table as monospace", "| a | b |\n|---|---|\n| 1 | **22** |",
       "<pre><code>| a   | b   |\n| --- | --- |\n| 1   | 22  |</code></pre>"},
      {"table cells escaped", "| <x> |\n|---|\n| & |", "<pre><code>| &lt;x&gt; |\n| --- |\n| &amp;   |</code></pre>"},
  };
  for (const Case& c : cases) {
    const std::string html = markdown_to_telegram_html(c.markdown);
    EXPECT_EQ(html, c.expected) << c.name;
    EXPECT_TRUE(html_tags_balanced(html)) << c.name << ": " << html;
  }
}

TEST(MarkdownTelegram, HostileInputIsEscapedAndBalanced) {
  const std::vector<Case> cases = {
      {"script", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
      {"html block", "<div onclick=\"x\">\nhi\n</div>", "&lt;div onclick=\"x\"&gt;\nhi\n&lt;/div&gt;"},
      {"bare specials", "a & b > c < d", "a &amp; b &gt; c &lt; d"},
      {"unbalanced bold", "**unbalanced", "**unbalanced"},
      {"unbalanced mix (CommonMark's reading)", "**a *b** c*", "<i><i>a <i>b</i></i> c</i>"},
      {"telegram tag in text", "<b>not bold</b> <tg-spoiler>x</tg-spoiler>",
       "&lt;b&gt;not bold&lt;/b&gt; &lt;tg-spoiler&gt;x&lt;/tg-spoiler&gt;"},
      {"control characters", "a\x01" "b\x1b[31mc\x7f", "ab[31mc"},
      {"NUL", std::string("a\0b", 3), "a\xEF\xBF\xBD" "b"},
      {"entity for a tag", "&lt;b&gt;", "&lt;b&gt;"},
      {"control character: not a link, dropped", "[x](https://e.com/a\x1d" "b)", "[x](https://e.com/ab)"},
      {"link at the very end (md4c over-read)", "[w](jav", "[w](jav"},
      {"span md4c never ends", "**a [y](*`v) b", "*<i>a y b</i>"},
      {"control character in a link destination", "[k](<https://e.com/\x1d>)", "k"},
  };
  for (const Case& c : cases) {
    const std::string html = markdown_to_telegram_html(c.markdown);
    EXPECT_EQ(html, c.expected) << c.name;
    EXPECT_TRUE(html_tags_balanced(html)) << c.name << ": " << html;
  }
  // Deep nesting and long runs of markers stay balanced.
  std::string deep;
  for (int i = 0; i < 60; ++i) deep += std::string(static_cast<std::size_t>(2 * i), ' ') + "- level " + std::to_string(i) + "\n";
  std::string quotes(200, '>');
  quotes += " deep";
  for (const std::string& md : {deep, std::string(1000, '*') + "x" + std::string(999, '*'), quotes,
                                std::string("[a](http://b") + std::string(500, '(') + ")", std::string(300, '`')}) {
    EXPECT_TRUE(html_tags_balanced(markdown_to_telegram_html(md))) << md.substr(0, 40);
  }
}

TEST(MarkdownPlain, Mapping) {
  const std::vector<Case> cases = {
      {"emphasis dropped", "**bold** and *it* and ~~s~~", "bold and it and s"},
      {"link as text (url)", "[text](https://e.com)", "text (https://e.com)"},
      {"autolink once", "see https://e.com", "see https://e.com"},
      {"mail autolink once", "mail a@b.org", "mail a@b.org"},
      {"unsafe link keeps text", "[x](javascript:alert(1))", "x"},
      {"control character in a link destination", "[k](<https://e.com/\x1d>)", "k"},
      {"inline code", "run `ls -la` now", "run ls -la now"},
      {"code block lines", "```sh\necho 1\n  echo 2\n```\nafter", "echo 1\n  echo 2\n\nafter"},
      {"quote", "> q1\n>\n> q2", "> q1\n>\n> q2"},
      {"nested quote", "> a\n>> b", "> a\n>\n> > b"},
      {"lists", "- a\n  - b\n1. c", "\xE2\x80\xA2 a\n  \xE2\x80\xA2 b\n\n1. c"},
      {"no escaping", "<script> & </script>", "<script> & </script>"},
      {"irc control codes dropped", "a\x03" "4red\x02" "bold\x01" "ACTION", "a4redboldACTION"},
      {"table", "| a | b |\n|---|---|\n| 1 | 2 |", "| a   | b   |\n| --- | --- |\n| 1   | 2   |"},
      {"heading", "## Head\ntext", "Head\n\ntext"},
  };
  for (const Case& c : cases) EXPECT_EQ(markdown_to_plain_text(c.markdown), c.expected) << c.name;
}

TEST(MarkdownRender, EscapeHelper) {
  EXPECT_EQ(escape_telegram_html("<a href=\"x\">&</a>"), "&lt;a href=\"x\"&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(escape_telegram_html("\"'", true), "&quot;'");
  EXPECT_EQ(markdown_to_telegram_html(""), "");
  EXPECT_EQ(markdown_to_plain_text("  \n\n "), "");
}

}  // namespace
}  // namespace pincer::delivery
