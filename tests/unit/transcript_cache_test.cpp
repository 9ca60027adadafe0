// The parsed-transcript cache (agent/transcript_cache.h) and the incremental pieces under it
// (store::append_transcript_tail, store::extend_context, agent::extend_session_history): whatever
// happened to the file, a load returns what a fresh read, build_context and session_history give.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <fstream>

#include "agent/session_history.h"
#include "agent/transcript_cache.h"
#include "core/clock.h"
#include "core/ids.h"
#include "store/atomic_file.h"
#include "store/transcript.h"

namespace pincer::agent {
namespace {

namespace fs = std::filesystem;
using store::Json;

Json user(const std::string& text) {
  return {{"role", "user"}, {"content", text}, {"timestamp", 1}};
}
Json assistant(const std::string& text, const std::string& model = "m1") {
  return {{"role", "assistant"},
          {"content", Json::array({{{"type", "text"}, {"text", text}}})},
          {"provider", "p"},
          {"model", model},
          {"stopReason", "stop"},
          {"timestamp", 2}};
}

class TranscriptCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("pincer-tcache-" + ids::random_token(6));
    fs::create_directories(dir);
    file = dir / "s1.jsonl";
    auto w = store::TranscriptWriter::create(file, {"s1", "/w", std::nullopt, store::FsyncPolicy::None}, clock);
    ASSERT_TRUE(w.ok());
    writer.emplace(std::move(*w));
  }
  void TearDown() override {
    writer.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  /// The load must equal reading the file from scratch.
  void expect_fresh(const ParsedTranscript& got) {
    auto fresh = store::read_transcript(file);
    ASSERT_TRUE(fresh.ok());
    ASSERT_EQ(got.contents.entries.size(), fresh->entries.size());
    for (std::size_t i = 0; i < fresh->entries.size(); ++i) {
      EXPECT_EQ(got.contents.entries[i].raw, fresh->entries[i].raw) << i;
      EXPECT_EQ(got.contents.entries[i].line, fresh->entries[i].line) << i;
    }
    const store::SessionContext ctx = store::build_context(fresh->entries);
    EXPECT_EQ(got.context.messages, ctx.messages);
    EXPECT_EQ(got.context.entry_ids, ctx.entry_ids);
    EXPECT_EQ(got.context.leaf_id, ctx.leaf_id);
    EXPECT_EQ(got.context.provider, ctx.provider);
    EXPECT_EQ(got.context.model_id, ctx.model_id);
    EXPECT_EQ(got.context.thinking_level, ctx.thinking_level);
    EXPECT_EQ(got.context.live_from, ctx.live_from);
    const context::SessionHistory history = session_history(ctx);
    ASSERT_EQ(got.history.messages.size(), history.messages.size());
    for (std::size_t i = 0; i < history.messages.size(); ++i) {
      EXPECT_EQ(got.history.messages[i].entry_id, history.messages[i].entry_id);
      EXPECT_EQ(llm::to_json(*got.history.messages[i].message), llm::to_json(*history.messages[i].message));
    }
    EXPECT_EQ(got.history.summary, history.summary);
    EXPECT_EQ(got.history.live_from, history.live_from);
  }

  std::shared_ptr<const ParsedTranscript> load() {
    auto r = cache.load(file);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : nullptr;
  }

  ManualClock clock;
  fs::path dir, file;
  std::optional<store::TranscriptWriter> writer;
  TranscriptCache cache;
};

TEST_F(TranscriptCacheTest, AppendedTurnsAreReadIncrementallyAndEqualAFreshRead) {
  ASSERT_TRUE(writer->append_message(user("one")).ok());
  ASSERT_TRUE(writer->append_message(assistant("reply one")).ok());
  auto first = load();
  ASSERT_TRUE(first);
  expect_fresh(*first);
  EXPECT_EQ(cache.stats().full_reads, 1u);

  auto again = load();
  EXPECT_EQ(cache.stats().unchanged, 1u);
  EXPECT_EQ(again.get(), first.get());  // nothing re-read, the same object

  ASSERT_TRUE(writer->append_thinking_level_change("high").ok());
  ASSERT_TRUE(writer->append_model_change("q", "m2").ok());
  ASSERT_TRUE(writer->append_message(user("two")).ok());
  ASSERT_TRUE(writer->append_custom_message("note", "remember this", true).ok());
  ASSERT_TRUE(writer->append_message(assistant("reply two", "m2")).ok());
  auto grown = load();
  ASSERT_TRUE(grown);
  expect_fresh(*grown);
  EXPECT_EQ(cache.stats().full_reads, 1u);
  EXPECT_EQ(cache.stats().tail_reads, 1u);
  EXPECT_EQ(cache.stats().context_rebuilds, 0u);
  EXPECT_EQ(grown->context.thinking_level, "high");
  // The caller's earlier copy did not change under it.
  EXPECT_EQ(first->contents.entries.size(), 2u);
}

TEST_F(TranscriptCacheTest, ABranchOrACompactionRebuildsTheContextFromTheParsedEntries) {
  auto u1 = writer->append_message(user("one"));
  ASSERT_TRUE(u1.ok());
  ASSERT_TRUE(writer->append_message(assistant("reply one")).ok());
  ASSERT_TRUE(load());
  // A /tree switch: the next entry hangs under the first user message, not the leaf.
  ASSERT_TRUE(writer->set_leaf(*u1).ok());
  ASSERT_TRUE(writer->append_branch_summary(*u1, "tried something else").ok());
  ASSERT_TRUE(writer->append_message(user("other way")).ok());
  auto branched = load();
  ASSERT_TRUE(branched);
  expect_fresh(*branched);
  EXPECT_EQ(cache.stats().context_rebuilds, 1u);

  auto kept = writer->append_message(assistant("answer"));
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(writer->append_compaction("the summary", *kept, 1234).ok());
  ASSERT_TRUE(writer->append_message(user("after compaction")).ok());
  auto compacted = load();
  ASSERT_TRUE(compacted);
  expect_fresh(*compacted);
  EXPECT_EQ(cache.stats().context_rebuilds, 2u);
  EXPECT_EQ(compacted->history.summary, "the summary");
  EXPECT_EQ(cache.stats().full_reads, 1u);
}

TEST_F(TranscriptCacheTest, AFileChangedOtherwiseThanByAppendingIsReadAgainInFull) {
  ASSERT_TRUE(writer->append_message(user("one")).ok());
  ASSERT_TRUE(writer->append_message(assistant("reply one")).ok());
  ASSERT_TRUE(load());
  writer.reset();
  const std::string original = *store::read_file(file);

  // Rewritten in place (same inode) with different bytes before the old end, then grown.
  std::string edited = original;
  edited.replace(edited.find("reply one"), 9, "REPLY ONE");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << edited << R"({"type":"message","id":"abcd0001","parentId":null,"timestamp":"2023-11-14T22:13:21.000Z","message":{"role":"user","content":"x","timestamp":3}})" << "\n";
  }
  auto rewritten = load();
  ASSERT_TRUE(rewritten);
  expect_fresh(*rewritten);
  EXPECT_EQ(cache.stats().full_reads, 2u);

  // Shorter: full read.
  { std::ofstream(file, std::ios::binary | std::ios::trunc) << original; }
  auto shorter = load();
  ASSERT_TRUE(shorter);
  expect_fresh(*shorter);
  EXPECT_EQ(cache.stats().full_reads, 3u);

  // Replaced by another file (a rename over it): full read.
  const fs::path other = dir / "other.jsonl";
  { std::ofstream(other, std::ios::binary) << original << R"({"type":"message","id":"abcd0002","parentId":null,"timestamp":"2023-11-14T22:13:21.000Z","message":{"role":"user","content":"y","timestamp":4}})" << "\n"; }
  fs::rename(other, file);
  auto replaced = load();
  ASSERT_TRUE(replaced);
  expect_fresh(*replaced);
  EXPECT_EQ(cache.stats().full_reads, 4u);

  // A torn tail (no newline yet) is not trusted line by line: full read, torn line reported.
  { std::ofstream(file, std::ios::binary | std::ios::app) << R"({"type":"message","id":"abcd0003")"; }
  auto torn = load();
  ASSERT_TRUE(torn);
  expect_fresh(*torn);
  EXPECT_EQ(cache.stats().full_reads, 5u);
  EXPECT_FALSE(torn->contents.warnings.empty());

  // Gone: an error, and nothing kept.
  fs::remove(file);
  auto gone = cache.load(file);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, "NOT_FOUND");
}

TEST_F(TranscriptCacheTest, TheWritersOwnLinesAreAdoptedWithoutReadingTheFile) {
  ASSERT_TRUE(writer->append_message(user("one")).ok());
  auto first = load();
  ASSERT_TRUE(first);
  writer->set_observer([this](store::AppendedLine& line) { cache.adopt(file, line); });

  // Numbers of each kind, nested data and non-ASCII text: the adopted value equals the parsed line.
  Json tool_call = assistant("calling");
  tool_call["content"].push_back({{"type", "toolCall"}, {"id", "c1"}, {"name", "exec"},
                                  {"arguments", {{"n", 3}, {"neg", -2}, {"f", 0.25}, {"s", "é😀"}}}});
  tool_call["usage"] = {{"input", 10}, {"cost", {{"total", 0.001}}}};
  ASSERT_TRUE(writer->append_message(tool_call).ok());
  ASSERT_TRUE(writer->append_model_change("q", "m2").ok());
  EXPECT_EQ(cache.stats().adopted, 2u);
  auto second = load();
  ASSERT_TRUE(second);
  expect_fresh(*second);
  EXPECT_EQ(cache.stats().full_reads, 1u);
  EXPECT_EQ(cache.stats().tail_reads, 0u);  // nothing was read back
  EXPECT_EQ(cache.stats().unchanged, 1u);
  EXPECT_EQ(first->contents.entries.size(), 1u);  // the earlier holder's copy is unchanged
  EXPECT_EQ(second->context.model_id, "m2");

  // A line that cannot be adopted exactly (not UTF-8: written with U+FFFD) is read back instead.
  ASSERT_TRUE(writer->append_message(user(std::string("bad \xff byte"))).ok());
  EXPECT_EQ(cache.stats().adopted, 2u);
  auto third = load();
  ASSERT_TRUE(third);
  expect_fresh(*third);
  EXPECT_EQ(cache.stats().tail_reads, 1u);

  // Another program appends between two of ours: ours is not taken on trust; the file is read.
  ASSERT_TRUE(writer->append_message(user("mine")).ok());
  { std::ofstream(file, std::ios::binary | std::ios::app) << R"({"type":"custom","id":"abcd0009","parentId":null,"timestamp":"2023-11-14T22:13:21.000Z","customType":"x"})" << "\n"; }
  ASSERT_TRUE(writer->append_message(assistant("after theirs")).ok());
  auto fourth = load();
  ASSERT_TRUE(fourth);
  expect_fresh(*fourth);
  EXPECT_EQ(cache.stats().full_reads, 1u);
  EXPECT_EQ(cache.stats().tail_reads, 2u);

  // Edited in place to the same size after our last append: the modification time differs, so the
  // file is read and the change seen (unless it lands in the same clock tick; see the header).
  const std::string before = *store::read_file(file);
  std::string edited = before;
  edited.replace(edited.find("after theirs"), 12, "AFTER THEIRS");
  struct timespec times[2] = {{0, UTIME_OMIT}, {0, 0}};
  { std::ofstream(file, std::ios::binary | std::ios::trunc) << edited; }
  ::clock_gettime(CLOCK_REALTIME, &times[1]);
  times[1].tv_sec += 2;  // a later time than any tick of our own writes
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
  auto fifth = load();
  ASSERT_TRUE(fifth);
  expect_fresh(*fifth);
  EXPECT_EQ(cache.stats().full_reads, 2u);
}

TEST(TranscriptTail, RefusesWhatOnlyAFullParseGetsRight) {
  const std::string header = R"({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"})" "\n";
  const std::string e1 = R"({"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}})" "\n";
  const std::string e2 = R"({"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"user","content":"y"}})" "\n";
  store::TranscriptContents base = store::parse_transcript(header + e1);

  store::TranscriptContents ok = base;
  ASSERT_TRUE(store::append_transcript_tail(ok, e2, 2));
  ASSERT_EQ(ok.entries.size(), 2u);
  EXPECT_EQ(ok.entries[1].line, 3u);
  EXPECT_EQ(ok.entries[1].raw, store::parse_transcript(header + e1 + e2).entries[1].raw);

  store::TranscriptContents same = base;
  EXPECT_FALSE(store::append_transcript_tail(same, e1, 2));                       // id already used
  EXPECT_FALSE(store::append_transcript_tail(same, e2 + e2, 2));                  // id twice in the tail
  EXPECT_FALSE(store::append_transcript_tail(same, "{not json\n", 2));            // invalid line
  EXPECT_FALSE(store::append_transcript_tail(same, e2.substr(0, e2.size() - 1), 2));  // no final newline
  EXPECT_FALSE(store::append_transcript_tail(same, header, 2));                   // a second header
  EXPECT_EQ(same.entries.size(), 1u);  // unchanged by every refusal

  store::TranscriptContents v2 = store::parse_transcript(
      R"({"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/"})" "\n" + e1);
  EXPECT_FALSE(store::append_transcript_tail(v2, e2, 2));  // migrated on read: not line by line
}

}  // namespace
}  // namespace pincer::agent
