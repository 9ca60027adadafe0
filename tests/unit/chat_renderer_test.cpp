// The terminal chat's rendering of gateway events (UI-2), as tables of events → terminal text.
#include <sstream>

#include <gtest/gtest.h>

#include "cli/chat_renderer.h"

namespace pincer::cli {
namespace {

using nlohmann::json;

json assistant(const std::string& run, const std::string& delta) {
  return {{"runId", run}, {"stream", "assistant"}, {"data", {{"delta", delta}}}};
}
json chat(const std::string& run, const std::string& state, const std::string& text = "") {
  json p = {{"runId", run}, {"state", state}};
  if (!text.empty()) p["message"] = {{"role", "assistant"}, {"content", json::array({{{"type", "text"}, {"text", text}}})}};
  return p;
}

TEST(TerminalSafe, DropsControlSequencesKeepsText) {
  EXPECT_EQ(terminal_safe("plain ünïcode ✓\ttab\nline"), "plain ünïcode ✓\ttab\nline");
  EXPECT_EQ(terminal_safe("\x1b]0;owned\x07title"), "]0;ownedtitle");
  EXPECT_EQ(terminal_safe("red \x1b[31mX\x1b[0m"), "red [31mX[0m");
  EXPECT_EQ(terminal_safe("a\rb\bc\x7f"), "abc");
  EXPECT_EQ(terminal_safe("csi \xc2\x9b" "2J end"), "csi 2J end");  // U+009B is a C1 CSI
  EXPECT_EQ(terminal_safe("\xc2\xa0nbsp"), "\xc2\xa0nbsp");         // U+00A0 is text
}

TEST(SlashCommands, Parse) {
  struct Case {
    std::string line, name, arg;
  } cases[] = {
      {"/new", "new", ""},          {"  /Think   high  ", "think", "high"}, {"/agent ops team", "agent", "ops team"},
      {"hello /new", "", ""},       {"/", "", ""},                         {"no command", "", ""},
  };
  for (const auto& c : cases) {
    auto cmd = parse_slash(c.line);
    EXPECT_EQ(cmd.name, c.name) << c.line;
    EXPECT_EQ(cmd.arg, c.arg) << c.line;
  }
}

TEST(ToolCallLine, Compact) {
  EXPECT_EQ(tool_call_line("exec", {{"command", "ls -la"}}), "⚙ exec ls -la");
  EXPECT_EQ(tool_call_line("read", json::object()), "⚙ read");
  EXPECT_EQ(tool_call_line("write", {{"path", "a"}, {"content", "b"}}), R"(⚙ write {"content":"b","path":"a"})");
  std::string long_arg(200, 'x');
  auto line = tool_call_line("exec", {{"command", long_arg}}, 10);
  EXPECT_EQ(line, "⚙ exec xxxxxxxxxx…");
  EXPECT_EQ(tool_call_line("exec", {{"command", "echo \x1b[2J"}}), "⚙ exec echo [2J");
}

TEST(ChatRenderer, StreamsDeltasThenEndsOnFinal) {
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("r1");
  EXPECT_FALSE(r.on_event("agent", assistant("r1", "Hel")));
  EXPECT_FALSE(r.on_event("agent", assistant("other-run", "NOISE")));
  EXPECT_FALSE(r.on_event("agent", assistant("r1", "lo")));
  EXPECT_EQ(out.str(), "Hello");
  EXPECT_FALSE(r.on_event("chat", chat("r1", "delta", "Hello")));
  EXPECT_TRUE(r.on_event("chat", chat("r1", "final", "Hello, world")));  // catch-up text printed
  EXPECT_EQ(out.str(), "Hello, world\n");
  EXPECT_EQ(r.outcome(), "final");
  EXPECT_FALSE(r.running());
  EXPECT_FALSE(r.on_event("agent", assistant("r1", "late")));  // after the end: ignored
  EXPECT_EQ(out.str(), "Hello, world\n");
}

TEST(ChatRenderer, ARunJoinedMidReplyShowsItFromItsStart) {
  // pincer chat following a resumed run after a reconnect: the first event it sees carries the
  // step's whole text so far; it is printed once, then the deltas.
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("r1");
  auto with_text = [](const std::string& delta, const std::string& text) {
    json e = assistant("r1", delta);
    e["data"]["text"] = text;
    return e;
  };
  r.on_event("agent", with_text(" word2", "word0 word1 word2"));
  r.on_event("agent", with_text(" word3", "word0 word1 word2 word3"));
  EXPECT_EQ(out.str(), "word0 word1 word2 word3");
  // Followed from its start, text and deltas agree: nothing is printed twice.
  std::ostringstream whole;
  ChatRenderer w(whole);
  w.begin_run("r2");
  json first = assistant("r2", "Hello");
  first["data"]["text"] = "Hello";
  json second = assistant("r2", " there");
  second["data"]["text"] = "Hello there";
  w.on_event("agent", first);
  w.on_event("agent", second);
  EXPECT_EQ(whole.str(), "Hello there");
}

TEST(ChatRenderer, ToolCallsOnTheirOwnLine) {
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("r");
  r.on_event("agent", assistant("r", "Let me look."));
  r.on_event("agent", {{"runId", "r"}, {"stream", "tool"}, {"data", {{"phase", "start"}, {"name", "exec"}, {"args", {{"command", "ls"}}}}}});
  r.on_event("agent", {{"runId", "r"}, {"stream", "tool"}, {"data", {{"phase", "result"}, {"name", "exec"}, {"isError", true}}}});
  r.on_event("agent", assistant("r", "Done."));
  EXPECT_TRUE(r.on_event("chat", chat("r", "final", "Done.")));
  EXPECT_EQ(out.str(), "Let me look.\n⚙ exec ls\n  ✗ exec failed\nDone.\n");
}

TEST(ChatRenderer, AbortedAndErrorAreMarked) {
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("a");
  r.on_event("agent", assistant("a", "partial"));
  EXPECT_TRUE(r.on_event("chat", chat("a", "aborted", "partial")));
  EXPECT_EQ(r.outcome(), "aborted");
  r.begin_run("b");
  json err = chat("b", "error");
  err["errorMessage"] = "model \x1b[31mfailed";
  EXPECT_TRUE(r.on_event("chat", err));
  EXPECT_EQ(out.str(), "partial\n[aborted]\n[error] model [31mfailed\n");
}

TEST(ChatRenderer, HeldEventsAreShownOrDroppedOnRelease) {
  // pincer chat asks a restarted gateway whether the resumed run is still going: the run's events
  // that come before the answer are kept, shown when it is, dropped when it finished (the history
  // then has the reply: shown live too, it was printed twice, after the history's heading).
  std::ostringstream out;
  ChatRenderer r(out);
  r.begin_run("r1");
  r.hold();
  EXPECT_FALSE(r.on_event("agent", assistant("r1", "Final")));
  EXPECT_FALSE(r.on_event("chat", chat("r1", "final", "Final plan.")));  // kept: the run is not ended yet
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(r.running());
  EXPECT_TRUE(r.release(/*show=*/true));  // still running, as the answer said: shown in order
  EXPECT_EQ(out.str(), "Final plan.\n");
  EXPECT_FALSE(r.running());
  EXPECT_FALSE(r.release(true));  // no hold: nothing to do

  std::ostringstream finished;
  ChatRenderer f(finished);
  f.begin_run("r2");
  f.hold();
  f.on_event("agent", assistant("r2", "Final"));
  f.on_event("chat", chat("r2", "final", "Final plan."));
  EXPECT_FALSE(f.release(/*show=*/false));
  EXPECT_EQ(finished.str(), "");
  f.begin_run("r3");  // events after the release are shown at once
  f.on_event("agent", assistant("r3", "next"));
  EXPECT_EQ(finished.str(), "next");
}

}  // namespace
}  // namespace pincer::cli
