// Block streaming (SPEC CH-4; OpenClaw src/agents/pi-embedded-block-chunker.ts and
// src/auto-reply/reply/block-reply-coalescer.ts): buffering to minChars, breaks before maxChars,
// fences, coalescing, idle flush on the (manual) clock, flush at the end.
#include <gtest/gtest.h>

#include <random>

#include "core/clock.h"
#include "delivery/block_streamer.h"
#include "delivery/fences.h"
#include "test_helpers.h"

namespace pincer::delivery {
namespace {

struct Harness {
  explicit Harness(BlockStreamerOptions options)
      : streamer(clock, std::move(options), [this](std::string b) { blocks.push_back(std::move(b)); }) {}
  ManualClock clock;
  std::vector<std::string> blocks;
  BlockStreamer streamer;
};

/// Stage 1 only: coalescing passes every block straight through (max 1).
BlockStreamerOptions cutting(std::size_t min, std::size_t max, BreakPreference pref = BreakPreference::Paragraph) {
  BlockStreamerOptions o;
  o.min_chars = min;
  o.max_chars = max;
  o.break_preference = pref;
  o.coalesce_min_chars = 1;
  o.coalesce_max_chars = 1;
  o.idle_ms = 0;
  return o;
}

using pincer::test_helpers::without_space;

TEST(BlockStreamer, BuffersUntilMinCharsThenCutsAtThePreferredBreak) {
  Harness h(cutting(20, 60));
  h.streamer.append("Short start. ");
  EXPECT_TRUE(h.blocks.empty());  // 13 < min 20
  h.streamer.append("More words here.\n\nSecond para");
  ASSERT_EQ(h.blocks.size(), 1u);
  EXPECT_EQ(h.blocks[0], "Short start. More words here.");
  h.streamer.append(" goes on.");
  EXPECT_EQ(h.blocks.size(), 1u);  // no break after min yet, below max
  h.streamer.flush();
  ASSERT_EQ(h.blocks.size(), 2u);
  EXPECT_EQ(h.blocks[1], "Second para goes on.");
  EXPECT_FALSE(h.streamer.has_buffered());
}

TEST(BlockStreamer, BreakPreferenceTable) {
  struct Case {
    const char* name;
    BreakPreference pref;
    std::string text;
    std::string first_block;
  };
  // Breaks before min (10) never count; the last preferred one before max (40) wins.
  const std::string text = "aa\n\nbb. cc dd ee\nff gg. hh\n\nii jj. kk\nll mm nn oo pp qq rr ss tt";
  const std::vector<Case> cases = {
      {"paragraph", BreakPreference::Paragraph, text, "aa\n\nbb. cc dd ee\nff gg. hh"},
      {"newline", BreakPreference::Newline, text, "aa\n\nbb. cc dd ee\nff gg. hh\n\nii jj. kk"},
      {"sentence", BreakPreference::Sentence, text, "aa\n\nbb. cc dd ee\nff gg. hh\n\nii jj."},
      {"paragraph falls back to newline", BreakPreference::Paragraph, "aa bb cc\ndd ee ff gg hh ii jj kk ll mm nn",
       "aa bb cc"},
      {"no break: last space at max", BreakPreference::Paragraph,
       "aaaaaaaaaa bbbbbbbbbb cccccccccc dddddddddd eeeeeeeeee", "aaaaaaaaaa bbbbbbbbbb cccccccccc"},
      {"no space: hard cut at max", BreakPreference::Paragraph, std::string(50, 'x'), std::string(40, 'x')},
  };
  for (const Case& c : cases) {
    Harness h(cutting(c.name == std::string("paragraph falls back to newline") ? 5 : 10, 40, c.pref));
    h.streamer.append(c.text);
    ASSERT_FALSE(h.blocks.empty()) << c.name;
    EXPECT_EQ(h.blocks[0], c.first_block) << c.name;
    h.streamer.flush();
    std::string all;
    for (const auto& b : h.blocks) {
      EXPECT_LE(b.size(), 40u) << c.name;
      all += b;
    }
    EXPECT_EQ(without_space(all), without_space(c.text)) << c.name;
  }
}

TEST(BlockStreamer, NeverCutsInsideAFenceThatFits) {
  Harness h(cutting(10, 60));
  h.streamer.append("Intro text here.\n```\nline one\n\nline two\n```\nafter the code block, more");
  ASSERT_FALSE(h.blocks.empty());
  EXPECT_EQ(h.blocks[0], "Intro text here.\n```\nline one\n\nline two\n```");
  h.streamer.flush();
  for (const auto& b : h.blocks) EXPECT_TRUE(fences_balanced(b)) << b;
}

TEST(BlockStreamer, LongFenceIsClosedAndReopened) {
  Harness h(cutting(20, 80));
  std::string md = "```python\n";
  for (int i = 0; i < 30; ++i) md += "print(" + std::to_string(i) + ")\n";
  md += "```\n";
  h.streamer.append(md);
  h.streamer.flush();
  ASSERT_GT(h.blocks.size(), 2u);
  for (const auto& b : h.blocks) {
    EXPECT_TRUE(fences_balanced(b)) << b;
    EXPECT_TRUE(b.starts_with("```python\n")) << b;
    EXPECT_LE(b.size(), 80u) << b;
  }
}

TEST(BlockStreamer, CoalescesSmallBlocksAndFlushesOnIdle) {
  BlockStreamerOptions o = cutting(5, 100);
  o.coalesce_min_chars = 30;
  o.coalesce_max_chars = 60;
  o.idle_ms = 1000;
  Harness h(o);
  h.streamer.append("First one.\n\n");
  h.streamer.append("Second.\n\n");
  EXPECT_TRUE(h.blocks.empty());  // joined, 19 < 30: waiting
  ASSERT_TRUE(h.streamer.next_deadline_ms().has_value());
  h.clock.advance(1000);
  h.streamer.poll();
  EXPECT_TRUE(h.blocks.empty());  // idle, but below coalesce_min: keeps waiting
  EXPECT_FALSE(h.streamer.next_deadline_ms().has_value());
  h.streamer.append("Third block here.\n\nx");
  EXPECT_TRUE(h.blocks.empty());
  const std::int64_t due = *h.streamer.next_deadline_ms();
  EXPECT_EQ(due, h.clock.steady_ms() + 1000);
  h.clock.advance(999);
  h.streamer.poll();
  EXPECT_TRUE(h.blocks.empty());  // not yet idle
  h.clock.advance(1);
  h.streamer.poll();
  ASSERT_EQ(h.blocks.size(), 1u);
  EXPECT_EQ(h.blocks[0], "First one.\n\nSecond.\n\nThird block here.");
  h.streamer.flush();
  ASSERT_EQ(h.blocks.size(), 2u);
  EXPECT_EQ(h.blocks[1], "x");
}

TEST(BlockStreamer, CoalescingSendsBeforeExceedingMax) {
  BlockStreamerOptions o = cutting(5, 100);
  o.coalesce_min_chars = 10;
  o.coalesce_max_chars = 30;
  Harness h(o);
  h.streamer.append("Block number one.\n\n");
  EXPECT_TRUE(h.blocks.empty());
  h.streamer.append("Block number two.\n\n");
  h.streamer.append("z");
  ASSERT_EQ(h.blocks.size(), 1u);  // joining the second would exceed 30
  EXPECT_EQ(h.blocks[0], "Block number one.");
  h.streamer.flush();
  ASSERT_EQ(h.blocks.size(), 2u);
  EXPECT_EQ(h.blocks[1], "Block number two.\n\nz");
}

TEST(BlockStreamer, FlushOnParagraphSendsEachParagraph) {
  BlockStreamerOptions o = cutting(500, 1000);
  o.flush_on_paragraph = true;
  o.coalesce_min_chars = 500;
  o.coalesce_max_chars = 1000;
  Harness h(o);
  h.streamer.append("one\n\ntwo\n \nthr");
  EXPECT_EQ(h.blocks, (std::vector<std::string>{"one", "two"}));
  h.streamer.append("ee\n```\na\n\nb\n```\n\nfour");
  EXPECT_EQ(h.blocks, (std::vector<std::string>{"one", "two", "three\n```\na\n\nb\n```"}));
  h.streamer.flush();
  EXPECT_EQ(h.blocks.back(), "four");
}

TEST(BlockStreamer, Utf8SplitAcrossAppendsAndUnits) {
  BlockStreamerOptions o = cutting(1, 3);
  o.unit = LengthUnit::Utf16;
  Harness h(o);
  const std::string emoji = "😀😀😀😀";  // 8 UTF-16 units
  for (char c : emoji) h.streamer.append(std::string(1, c));
  h.streamer.flush();
  std::string all;
  for (const auto& b : h.blocks) {
    EXPECT_EQ(b, "😀");  // 3 units allow one emoji (2), never half of one
    all += b;
  }
  EXPECT_EQ(all, emoji);
}

TEST(BlockStreamer, WhitespaceIsNeverABlock) {
  Harness h(cutting(1, 10));
  h.streamer.append("\n\n   \n\t");
  h.streamer.flush();
  EXPECT_TRUE(h.blocks.empty());
}

TEST(BlockStreamer, RandomStreamsKeepTextAndFences) {
  std::mt19937 rng(42);
  const std::vector<std::string> pieces = {"word ", "end. ", "\n", "\n\n", "```\n", "😀", "漢字", "x"};
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 150);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    BlockStreamerOptions o;
    o.max_chars = 20 + rng() % 200;
    o.min_chars = 1 + rng() % o.max_chars;
    o.coalesce_min_chars = rng() % 100;
    o.coalesce_max_chars = 1 + rng() % 300;
    o.break_preference = static_cast<BreakPreference>(rng() % 3);
    o.flush_on_paragraph = rng() % 4 == 0;
    Harness h(o);
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t step = 1 + rng() % 17;
      h.streamer.append(std::string_view(text).substr(i, step));
      i += step;
      h.clock.advance(rng() % 1500);
      h.streamer.poll();
    }
    h.streamer.flush();
    EXPECT_FALSE(h.streamer.has_buffered());
    std::string all;
    for (const auto& b : h.blocks) {
      EXPECT_FALSE(without_space(b).empty());
      all += b;
    }
    // Fences reopened at cuts add "```" lines; compare with those removed.
    auto strip_fences = [](std::string s) {
      std::string out;
      for (char c : s) {
        if (c != '`') out += c;
      }
      return without_space(out);
    };
    EXPECT_EQ(strip_fences(all), strip_fences(text)) << text;
  }
}

}  // namespace
}  // namespace pincer::delivery
