// Chunking rendered replies into platform messages (SPEC CH-4; LESSONS.md 6): every chunk within
// the limit in the platform's units, UTF-8 sequences and surrogate pairs whole, fences and tags
// balanced per chunk, entities never cut, the break preference order, nothing but whitespace lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "delivery/chunker.h"
#include "delivery/fences.h"
#include "delivery/markdown_render.h"
#include "delivery/text_units.h"
#include "test_helpers.h"

namespace pincer::delivery {
namespace {

std::vector<std::string> chunk(std::string_view text, std::size_t limit, TextFormat format = TextFormat::Plain,
                               LengthUnit unit = LengthUnit::Utf16, ChunkMode mode = ChunkMode::Length) {
  auto r = chunk_text(text, ChunkOptions{limit, unit, format, mode});
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : std::vector<std::string>{};
}

using pincer::test_helpers::without_space;

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

/// The invariants every chunking must keep.
void expect_within(const std::vector<std::string>& chunks, std::size_t limit, LengthUnit unit) {
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LE(measure(chunks[i], unit), limit) << "chunk " << i;
    EXPECT_TRUE(is_valid_utf8(chunks[i])) << "chunk " << i;
    EXPECT_FALSE(without_space(chunks[i]).empty()) << "chunk " << i;
  }
}

// ---------------------------------------------------------------------------------------------

TEST(TextUnits, MeasuresInPlatformUnits) {
  struct Case {
    const char* text;
    std::size_t utf16, bytes, code_points;
  };
  const std::vector<Case> cases = {
      {"", 0, 0, 0},
      {"abc", 3, 3, 3},
      {"é", 1, 2, 1},
      {"漢字", 2, 6, 2},
      {"😀", 2, 4, 1},            // outside the BMP: a surrogate pair in UTF-16
      {"👍🏽", 4, 8, 2},           // emoji + skin tone modifier
      {"\xFF", 1, 1, 1},          // invalid byte
      {"\xE6\xBC", 2, 2, 2},      // truncated sequence: two invalid bytes
      {"\xED\xA0\x80", 3, 3, 3},  // UTF-8-encoded surrogate: invalid
  };
  for (const Case& c : cases) {
    EXPECT_EQ(measure(c.text, LengthUnit::Utf16), c.utf16) << c.text;
    EXPECT_EQ(measure(c.text, LengthUnit::Utf8Bytes), c.bytes) << c.text;
    EXPECT_EQ(measure(c.text, LengthUnit::CodePoints), c.code_points) << c.text;
  }
  EXPECT_TRUE(is_valid_utf8("漢😀"));
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));  // overlong NUL
}

TEST(Chunker, SmallTextIsOneChunkAndBlankTextNone) {
  EXPECT_EQ(chunk("hello", 16), (std::vector<std::string>{"hello"}));
  EXPECT_TRUE(chunk("", 16).empty());
  EXPECT_TRUE(chunk(" \n\n \t", 16).empty());
  const auto r = chunk_text("x", ChunkOptions{15});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "CHUNK_LIMIT_TOO_SMALL");
}

TEST(Chunker, BreakPreferenceOrder) {
  // Each text has breaks of several kinds inside the first 40 units; the best kind wins even
  // when a worse one lies later.
  struct Case {
    const char* name;
    std::string text;
    std::string first_chunk;
  };
  const std::string tail = " " + repeat("z", 60);
  const std::vector<Case> cases = {
      {"paragraph beats line", "aaa bbb\n\nccc. ddd\neee fff" + tail, "aaa bbb"},
      {"line beats sentence", "aaa. bbb ccc\nddd. eee fff" + tail, "aaa. bbb ccc"},
      {"sentence beats space", "aaa bbb. ccc ddd eee fff" + tail, "aaa bbb."},
      {"space beats hard cut", "aaa bbb ccc ddd eee fff" + tail, "aaa bbb ccc ddd eee fff"},
      {"hard cut last", repeat("x", 100), repeat("x", 40)},
      {"latest of the best kind", "a\n\nb\n\nccc ddd" + tail, "a\n\nb"},
  };
  for (const Case& c : cases) {
    const auto chunks = chunk(c.text, 40);
    ASSERT_FALSE(chunks.empty()) << c.name;
    EXPECT_EQ(chunks.front(), c.first_chunk) << c.name;
    expect_within(chunks, 40, LengthUnit::Utf16);
    EXPECT_EQ(without_space(join(chunks)), without_space(c.text)) << c.name;
  }
}

TEST(Chunker, NewlineModeSendsOneParagraphPerChunk) {
  EXPECT_EQ(chunk("one\n\ntwo\n \nthree", 100, TextFormat::Plain, LengthUnit::Utf16, ChunkMode::Newline),
            (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(chunk("one\ntwo", 100, TextFormat::Plain, LengthUnit::Utf16, ChunkMode::Newline),
            (std::vector<std::string>{"one\ntwo"}));
  // Not inside a code fence.
  const std::string fenced = "```\na\n\nb\n```";
  EXPECT_EQ(chunk(fenced, 100, TextFormat::Markdown, LengthUnit::Utf16, ChunkMode::Newline),
            (std::vector<std::string>{fenced}));
}

TEST(Chunker, Utf16EmojiAndSurrogatePairsStayWhole) {
  const std::string emoji = repeat("😀", 5000);  // 10 000 UTF-16 units
  for (std::size_t limit : {16u, 17u, 4096u}) {
    const auto chunks = chunk(emoji, limit, TextFormat::Plain, LengthUnit::Utf16);
    expect_within(chunks, limit, LengthUnit::Utf16);
    EXPECT_EQ(join(chunks), emoji) << limit;
    for (const auto& c : chunks) EXPECT_EQ(c.size() % 4, 0u);  // whole 4-byte sequences
  }
  const auto tg = chunk(emoji, kTelegramMessageLimit);
  EXPECT_EQ(tg.size(), 3u);  // 4096 + 4096 + 1808 units
  EXPECT_EQ(measure(tg[0], LengthUnit::Utf16), 4096u);
}

TEST(Chunker, CjkInUtf8BytesForIrc) {
  const std::string cjk = repeat("漢字かな", 2500);  // 10 000 code points, 30 000 bytes
  const auto chunks = chunk(cjk, 350, TextFormat::Plain, LengthUnit::Utf8Bytes);
  expect_within(chunks, 350, LengthUnit::Utf8Bytes);
  EXPECT_EQ(join(chunks), cjk);
  for (const auto& c : chunks) EXPECT_EQ(c.size(), c.size() / 3 * 3);
  const auto by_code_points = chunk(cjk, 1000, TextFormat::Plain, LengthUnit::CodePoints);
  EXPECT_EQ(by_code_points.size(), 10u);
}

/// A long agent reply: prose paragraphs, lists, links and code fences, about `chars` long.
std::string long_reply(std::size_t chars) {
  std::string md;
  int i = 0;
  while (md.size() < chars) {
    md += "## Step " + std::to_string(i) + "\n\n";
    md += "This paragraph explains **step " + std::to_string(i) +
          "** in detail. It has sentences, a [link](https://example.com/docs?a=1&b=2) and `inline code`. ";
    md += "Text & symbols <like> these must be escaped.\n\n";
    md += "- item one\n- item two with 😀 emoji\n  - nested 漢字\n\n";
    md += "```python\n";
    for (int l = 0; l < 30 + (i % 7) * 10; ++l) md += "    print('line " + std::to_string(l) + "')  # <tag> & more\n";
    md += "```\n\n";
    ++i;
  }
  return md;
}

TEST(Chunker, LongMarkdownReplyKeepsFencesBalanced) {
  const std::string md = long_reply(10'000);
  for (std::size_t limit : {300u, 1000u, 2000u}) {
    const auto chunks = chunk(md, limit, TextFormat::Markdown);
    ASSERT_GT(chunks.size(), 1u);
    expect_within(chunks, limit, LengthUnit::Utf16);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_TRUE(fences_balanced(chunks[i])) << "limit " << limit << " chunk " << i << ":\n" << chunks[i];
    }
  }
}

TEST(Chunker, LongTelegramReplyKeepsTagsAndEntitiesWhole) {
  const std::string html = markdown_to_telegram_html(long_reply(10'000));
  ASSERT_TRUE(html_tags_balanced(html));
  for (std::size_t limit : {64u, 500u, 4096u}) {
    const auto chunks = chunk(html, limit, TextFormat::TelegramHtml);
    ASSERT_GT(chunks.size(), 1u);
    expect_within(chunks, limit, LengthUnit::Utf16);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_TRUE(html_tags_balanced(chunks[i])) << "limit " << limit << " chunk " << i << ":\n" << chunks[i];
    }
  }
}

TEST(Chunker, TagsAreClosedAndReopenedAcrossCuts) {
  const std::string html = "<b>" + repeat("word ", 30) + "</b>";
  const auto chunks = chunk(html, 40, TextFormat::TelegramHtml);
  ASSERT_GT(chunks.size(), 2u);
  for (const auto& c : chunks) {
    EXPECT_TRUE(c.starts_with("<b>")) << c;
    EXPECT_TRUE(c.ends_with("</b>")) << c;
    EXPECT_LE(c.size(), 40u);
  }
  // Attributes survive the reopen; nested tags close in reverse order.
  const std::string nested = "<blockquote><a href=\"https://x.y/?a=1&amp;b=2\">" + repeat("link ", 20) + "</a></blockquote>";
  const auto parts = chunk(nested, 90, TextFormat::TelegramHtml);
  ASSERT_GT(parts.size(), 1u);
  for (const auto& p : parts) {
    EXPECT_TRUE(p.starts_with("<blockquote><a href=\"https://x.y/?a=1&amp;b=2\">")) << p;
    EXPECT_TRUE(p.ends_with("</a></blockquote>")) << p;
    EXPECT_TRUE(html_tags_balanced(p)) << p;
  }
  // Code blocks: cut at a line break, <pre><code> closed and reopened.
  std::string code = "<pre><code>";
  for (int i = 0; i < 20; ++i) code += "line " + std::to_string(i) + "\n";
  code += "</code></pre>";
  for (const auto& p : chunk(code, 60, TextFormat::TelegramHtml)) {
    EXPECT_TRUE(p.starts_with("<pre><code>line ")) << p;
    EXPECT_TRUE(p.ends_with("</code></pre>")) << p;
  }
}

TEST(Chunker, EntitiesAreNeverCut) {
  const std::string html = repeat("a&amp;b&lt;&#x1F600;&quot; ", 40);
  for (std::size_t limit = kMinChunkLimit; limit < 60; ++limit) {
    const auto chunks = chunk(html, limit, TextFormat::TelegramHtml);
    expect_within(chunks, limit, LengthUnit::Utf16);
    for (const auto& c : chunks) EXPECT_TRUE(html_tags_balanced(c)) << "limit " << limit << ": " << c;
    EXPECT_EQ(without_space(join(chunks)), without_space(html)) << limit;
  }
}

TEST(Chunker, ProtectedSpansMoveToTheNextChunk) {
  // The link would straddle the limit: the cut falls before it, not inside.
  const std::string md = "See " + repeat("w ", 10) + "[the docs](https://example.com/a/b/c) ok";
  const auto chunks = chunk(md, 40, TextFormat::Markdown);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1], "[the docs](https://example.com/a/b/c) ok");
  // Bare URLs likewise, in plain text.
  const std::string plain = "go to " + repeat("x", 20) + " https://example.com/some/long/path ok";
  const auto p = chunk(plain, 40);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1], "https://example.com/some/long/path ok");
  // Inline code too.
  const std::string code = repeat("y ", 15) + "`some code here` tail";
  const auto c = chunk(code, 40, TextFormat::Markdown);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1], "`some code here` tail");
  // Without any space, the hard cut still falls outside the protected span.
  const std::string solid = "abcdefghijklmnopqrstuvwxyz0123456789`inline_code_here`";
  EXPECT_EQ(chunk(solid, 40, TextFormat::Markdown),
            (std::vector<std::string>{"abcdefghijklmnopqrstuvwxyz0123456789", "`inline_code_here`"}));
  const std::string solid_html = "abcdefghijklmnopqrstuvwxyz<a href=\"http://e.co\">link_text</a>";
  EXPECT_EQ(chunk(solid_html, 40, TextFormat::TelegramHtml),
            (std::vector<std::string>{"abcdefghijklmnopqrstuvwxyz", "<a href=\"http://e.co\">link_text</a>"}));
  // A fence is not split when the block before it can be cut.
  const std::string fenced = "intro line\n```\ncode 1\ncode 2\n```\nafter";
  const auto f = chunk(fenced, 30, TextFormat::Markdown);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], "intro line");
  EXPECT_EQ(f[1], "```\ncode 1\ncode 2\n```\nafter");
}

TEST(Chunker, LongFenceIsClosedAndReopened) {
  std::string md = "```js\n";
  for (int i = 0; i < 40; ++i) md += "let x" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  md += "```";
  const auto chunks = chunk(md, 100, TextFormat::Markdown);
  ASSERT_GT(chunks.size(), 3u);
  for (const auto& c : chunks) {
    EXPECT_TRUE(c.starts_with("```js\nlet x")) << c;
    EXPECT_TRUE(c.ends_with(";\n```")) << c;
    EXPECT_TRUE(fences_balanced(c));
    EXPECT_LE(c.size(), 100u);
  }
  // An unclosed fence is closed at the end.
  const auto open = chunk("```\nabc", 100, TextFormat::Markdown);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_TRUE(fences_balanced(open[0])) << open[0];
}

TEST(Chunker, DegenerateMarkupNeverBreaksTheLimit) {
  // An <a> whose href leaves no room for text is dropped; its text stays.
  const std::string html = "<a href=\"https://example.com/" + repeat("p", 80) + "\">label</a> after";
  const auto chunks = chunk(html, 60, TextFormat::TelegramHtml);
  expect_within(chunks, 60, LengthUnit::Utf16);
  EXPECT_EQ(join(chunks), "label after");
  // Unbalanced input, stray '<' and '&', invalid UTF-8: still within the limit.
  const std::string junk = "</b><i>x & y <not a tag \xFF\xFE" + repeat("<b>", 30) + repeat("z", 100);
  for (TextFormat f : {TextFormat::Plain, TextFormat::Markdown, TextFormat::TelegramHtml}) {
    const auto parts = chunk(junk, 20, f);
    for (const auto& p : parts) EXPECT_LE(measure(p, LengthUnit::Utf16), 20u);
  }
}

TEST(Chunker, RandomTextsKeepTheInvariants) {
  // A cheap in-test cousin of fuzz/chunker_fuzz.cpp with a fixed seed.
  std::mt19937 rng(1234);
  const std::vector<std::string> pieces = {"a", "bc ", ". ", "\n", "\n\n", "😀", "漢", "```\n", "`", "[x](http://y)",
                                           "http://z.com/q ", "  ", "é"};
  for (int round = 0; round < 300; ++round) {
    std::string md;
    const int n = static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) md += pieces[rng() % pieces.size()];
    const std::size_t limit = kMinChunkLimit + rng() % 100;
    for (LengthUnit unit : {LengthUnit::Utf16, LengthUnit::Utf8Bytes, LengthUnit::CodePoints}) {
      const auto plain = chunk(md, limit, TextFormat::Plain, unit);
      expect_within(plain, limit, unit);
      EXPECT_EQ(without_space(join(plain)), without_space(md));
      const std::string html = markdown_to_telegram_html(md);
      for (const auto& c : chunk(html, limit, TextFormat::TelegramHtml, unit)) {
        EXPECT_LE(measure(c, unit), limit);
        EXPECT_TRUE(html_tags_balanced(c)) << html << "\n=> " << c;
      }
    }
  }
}

}  // namespace
}  // namespace pincer::delivery
