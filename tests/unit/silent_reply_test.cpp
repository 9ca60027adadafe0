// Silent replies (CX-10, agent/silent_reply.h): which texts are silent, what a finished and a
// streaming reply show, and the run-event filter every front end uses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agent/silent_reply.h"

namespace pincer::agent {
namespace {

TEST(SilentReplyText, RecognisesTheTokensAsOpenClawDoes) {
  for (const char* yes : {"NO_REPLY", " no_reply \n", "NO_REPLY NO_REPLY", "**NO_REPLY**", "NO_REPLY.", "\"NO_REPLY\"",
                          "{\"action\":\"NO_REPLY\"}", "{ \"action\" : \"NO_REPLY\" }"}) {
    EXPECT_TRUE(is_silent_reply(yes)) << yes;
    EXPECT_EQ(visible_reply_text(yes), "") << yes;
  }
  for (const char* yes : {"HEARTBEAT_OK", "  HEARTBEAT_OK.\n", "**heartbeat_ok**"}) {
    EXPECT_TRUE(is_token_only_text(yes, kHeartbeatToken)) << yes;
    EXPECT_EQ(visible_reply_text(yes), "") << yes;
  }
  for (const char* no : {"", "NO", "NO_REPLYING", "Say NO_REPLY to stay quiet, then", "{\"action\":\"NO_REPLY\",\"x\":1}"}) {
    EXPECT_FALSE(is_silent_reply(no)) << no;
  }
}

TEST(SilentReplyText, FinishedReplyDropsAStrayTokenAndKeepsEverythingElse) {
  EXPECT_EQ(visible_reply_text("Done. NO_REPLY"), "Done.");
  EXPECT_EQ(visible_reply_text("Done.\n\n**NO_REPLY**"), "Done.");
  EXPECT_EQ(visible_reply_text("All good HEARTBEAT_OK"), "All good");
  EXPECT_EQ(visible_reply_text("NO_REPLY\nThe answer is 42."), "The answer is 42.");
  // Untouched, byte for byte: no token at an edge, or the token inside a word or mid-text.
  for (const char* same : {"Hello there.\n", "  indented\n", "The answer is no.", "NO_REPLY is the token I use, as you see",
                           "x.NO_REPLY", "No"}) {
    EXPECT_EQ(visible_reply_text(same), same) << same;
  }
}

TEST(SilentReplyText, StreamingHoldsBackWhatMayBecomeAToken) {
  for (const char* held : {"N", "NO_RE", "no_reply", "**NO", "\"NO_REPLY", "NO_REPLY NO_", "{\"act", "  ", "HEARTBEAT"}) {
    EXPECT_EQ(visible_stream_text(held), "") << held;
  }
  EXPECT_EQ(visible_stream_text("Done. NO_REP"), "Done.");
  EXPECT_EQ(visible_stream_text("The answer is no"), "The answer is");  // "no" may become NO_REPLY
  EXPECT_EQ(visible_stream_text("The answer is no "), "The answer is no");  // a finished word
  EXPECT_EQ(visible_stream_text("No, I think"), "No, I think");
  EXPECT_EQ(visible_stream_text("NO_REPLY\nThe ans"), "The ans");
  EXPECT_EQ(visible_stream_text("{\"name\": 1}"), "{\"name\": 1}");
}

TEST(SilentReplyText, StreamedTextOnlyGrowsAndTheFinalExtendsIt) {
  for (std::string full : {std::string("Hello there, no problem at all. NO_REPLY"), std::string("NO_REPLY"),
                           std::string("NO_REPLY\n\nActually: here it is.\n"), std::string("no"),
                           std::string("**NO_REPLY**"), std::string("He said no. HEARTBEAT_OK")}) {
    std::string last;
    for (std::size_t n = 0; n <= full.size(); ++n) {
      const std::string v = visible_stream_text(full.substr(0, n));
      ASSERT_TRUE(v.starts_with(last)) << "at " << n << " of '" << full << "': '" << v << "' after '" << last << "'";
      last = v;
    }
    EXPECT_TRUE(visible_reply_text(full).starts_with(last)) << full;
  }
}

// Feeds the deltas of `steps` (each step's text streamed 3 bytes at a time, steps separated by a
// tool call) and an End with the last step's text through the filter; returns what the sink got.
RunEvent event_of(RunEvent::Kind kind) {
  RunEvent e;
  e.kind = kind;
  e.run_id = "run";
  return e;
}

std::vector<RunEvent> filtered(const std::vector<std::string>& steps) {
  std::vector<RunEvent> got;
  auto sink = without_silent_replies([&got](const RunEvent& e) { got.push_back(e); });
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (s > 0) sink(event_of(RunEvent::Kind::ToolStart));
    for (std::size_t n = 3; n < steps[s].size() + 3; n += 3) {
      RunEvent d = event_of(RunEvent::Kind::AssistantDelta);
      d.text = steps[s].substr(0, std::min(n, steps[s].size()));
      d.delta = steps[s].substr(n - 3, 3);
      sink(d);
    }
  }
  RunEvent end = event_of(RunEvent::Kind::End);
  end.text = steps.back();
  sink(end);
  return got;
}

std::string streamed(const std::vector<RunEvent>& events) {
  std::string all;
  for (const auto& e : events) {
    if (e.kind == RunEvent::Kind::AssistantDelta) all += e.delta;
    if (e.kind == RunEvent::Kind::ToolStart) all += "|";
  }
  return all;
}

TEST(SilentReplySink, ASilentRunStreamsNothingAndEndsEmpty) {
  const auto got = filtered({"NO_REPLY"});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, RunEvent::Kind::End);
  EXPECT_EQ(got[0].text, "");
}

TEST(SilentReplySink, DeltasStayConsistentWithTheirText) {
  const auto got = filtered({"Sure, no problem. NO_REPLY"});
  std::string text;
  for (const auto& e : got) {
    if (e.kind != RunEvent::Kind::AssistantDelta) continue;
    text += e.delta;
    EXPECT_EQ(e.text, text);  // each event's text is what its deltas add up to
  }
  EXPECT_EQ(got.back().text, "Sure, no problem.");
  EXPECT_EQ(streamed(got), "Sure, no problem.");
}

TEST(SilentReplySink, HeldTextOfAToolStepIsReleasedBeforeTheTool) {
  // The first step's last word ("no") was held back; the tool call shows it, the silent last
  // step shows nothing.
  const auto got = filtered({"Checking whether the answer is no", "NO_REPLY"});
  EXPECT_EQ(streamed(got), "Checking whether the answer is no|");
  EXPECT_EQ(got.back().text, "");
}

}  // namespace
}  // namespace pincer::agent
