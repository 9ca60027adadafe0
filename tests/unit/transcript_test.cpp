// Pi v3 transcripts (SS-4..SS-6, openclaw-protocol.md §5): ISO and archive timestamps, transcript
// paths, the header and append chain (mode 0600, parent ids, bytes never rewritten), reading
// hand-written pi/OpenClaw transcripts, torn and corrupt lines, forked branches, compaction and
// branch summaries, older versions, duplicate ids and cycles, and archive naming. The session keys
// and index are in session_keys_index_test.cpp; shared helpers in store_test_support.h.
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "store/transcript.h"
#include "store_test_support.h"

namespace pincer::store::transcript_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using store_test_support::kArchiveTs;
using store_test_support::mode_of;
using store_test_support::read_checked;
using store_test_support::spit;
using store_test_support::TempDir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// The text of the first text block of a pi message (or its string content).
std::string text_of(const Json& message) {
  const Json& content = message.at("content");
  if (content.is_string()) return content.get<std::string>();
  return content.at(0).at("text").get<std::string>();
}

Json user(std::string_view text, int64_t ts = 1) {
  return {{"role", "user"}, {"content", text}, {"timestamp", ts}};
}

Json assistant(std::string_view text, std::string_view provider = "openai", std::string_view model = "gpt-4.1") {
  return {{"role", "assistant"},
          {"content", Json::array({{{"type", "text"}, {"text", text}}})},
          {"api", "openai-responses"},
          {"provider", provider},
          {"model", model},
          {"usage", {{"input", 1}, {"output", 1}, {"cacheRead", 0}, {"cacheWrite", 0}, {"totalTokens", 2}}},
          {"stopReason", "stop"},
          {"timestamp", 2}};
}

const std::regex kIsoMs(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
const std::regex kEntryId("^[0-9a-f]{8}$");

// =============================================================================================
// Transcripts
// =============================================================================================

// A pi v3 transcript as pi/OpenClaw write it (one JSON.stringify line per entry), with every entry
// type, an unknown type and unknown fields.
const std::string kPiTranscript =
    R"({"type":"session","version":3,"id":"0e2df3ef-c92b-4471-9b25-18cce4418810","timestamp":"2026-03-05T14:22:01.123Z","cwd":"/home/u/.openclaw/workspace","futureHeaderField":1})" "\n"
    R"({"type":"model_change","id":"a1b2c3d4","parentId":null,"timestamp":"2026-03-05T14:22:01.200Z","provider":"anthropic","modelId":"claude-sonnet-4"})" "\n"
    R"({"type":"thinking_level_change","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-03-05T14:22:01.201Z","thinkingLevel":"medium"})" "\n"
    R"({"type":"message","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-03-05T14:22:02.000Z","message":{"role":"user","content":"What is the weather?","timestamp":1772720522000}})" "\n"
    R"({"type":"message","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2026-03-05T14:22:03.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"toolCall","id":"call_1","name":"weather","arguments":{"city":"Paris"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.00003,"output":0.000075,"cacheRead":0,"cacheWrite":0,"total":0.000105}},"stopReason":"toolUse","timestamp":1772720523000}})" "\n"
    R"({"type":"message","id":"e5f6a7b8","parentId":"d4e5f6a7","timestamp":"2026-03-05T14:22:04.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"weather","content":[{"type":"text","text":"Sunny, 21°C"}],"isError":false,"timestamp":1772720524000}})" "\n"
    R"({"type":"custom","id":"f6a7b8c9","parentId":"e5f6a7b8","timestamp":"2026-03-05T14:22:04.100Z","customType":"ext-state","data":{"k":[1,2]}})" "\n"
    R"({"type":"custom_message","id":"a7b8c9d0","parentId":"f6a7b8c9","timestamp":"2026-03-05T14:22:04.200Z","customType":"reminder","content":"Remember the umbrella","display":true})" "\n"
    R"({"type":"label","id":"b8c9d0e1","parentId":"a7b8c9d0","timestamp":"2026-03-05T14:22:04.300Z","targetId":"c3d4e5f6","label":"question"})" "\n"
    R"({"type":"session_info","id":"c9d0e1f2","parentId":"b8c9d0e1","timestamp":"2026-03-05T14:22:04.400Z","name":"Weather chat"})" "\n"
    R"({"type":"future_thing","id":"d0e1f2a3","parentId":"c9d0e1f2","timestamp":"2026-03-05T14:22:04.500Z","payload":{"x":1}})" "\n"
    R"({"type":"message","id":"e1f2a3b4","parentId":"d0e1f2a3","timestamp":"2026-03-05T14:22:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Sunny in Paris."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4","usage":{"input":20,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":24},"stopReason":"stop","timestamp":1772720525000}})" "\n";

struct TranscriptFixture : ::testing::Test {
  TempDir dir;
  ManualClock clock{1'700'000'000'000};  // 2023-11-14T22:13:20.000Z
  fs::path file = dir.path() / "agents" / "main" / "sessions" / "s1.jsonl";

  TranscriptWriter create(FsyncPolicy fsync = FsyncPolicy::EveryAppend) {
    auto w = TranscriptWriter::create(file, {"s1", "/work/space", std::nullopt, fsync}, clock);
    EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
    return std::move(w).value();
  }
};

TEST(TranscriptTime, IsoTimestamps) {
  EXPECT_EQ(iso_timestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_timestamp(1'700'000'000'000), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(iso_timestamp(1'772'720'521'123), "2026-03-05T14:22:01.123Z");
  EXPECT_EQ(iso_timestamp(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(iso_timestamp(951'782'400'000), "2000-02-29T00:00:00.000Z");
  for (int64_t ms : {int64_t{0}, int64_t{-1}, int64_t{1'772'720'521'123}, int64_t{4'102'444'800'999}}) {
    EXPECT_EQ(parse_iso_timestamp(iso_timestamp(ms)), ms);
  }
  EXPECT_EQ(parse_iso_timestamp("2026-03-05T16:22:01.5+02:00"), 1'772'720'521'500);
  EXPECT_EQ(parse_iso_timestamp("2026-03-05T14:22:01Z"), 1'772'720'521'000);
  for (const char* bad : {"", "2026-03-05", "2026-03-05T14:22:01", "2026-13-05T14:22:01Z", "2026-03-05T14:22:01.Z",
                          "2026-03-05T14:22:01Zjunk", "x026-03-05T14:22:01Z"}) {
    EXPECT_FALSE(parse_iso_timestamp(bad)) << bad;
  }
}

TEST(TranscriptTime, ArchiveTimestampShape) {
  EXPECT_EQ(archive_timestamp(1'772'720'521'123), "2026-03-05T14-22-01.123Z");
  for (const char* good : {"2026-03-05T14-22-01.123Z", "2026-03-05T14-22-01Z"}) {
    EXPECT_TRUE(is_archive_timestamp(good)) << good;
    EXPECT_TRUE(std::regex_match(good, kArchiveTs));
  }
  for (const char* bad : {"2026-03-05T14:22:01.123Z", "2026-03-05T14-22-01.12Z", "2026-03-05T14-22-01.123",
                          "2026-03-05T14-22-01.123Zx", ""}) {
    EXPECT_FALSE(is_archive_timestamp(bad)) << bad;
    EXPECT_FALSE(std::regex_match(bad, kArchiveTs)) << bad;
  }
}

TEST(TranscriptPaths, SessionIdAndTopic) {
  EXPECT_EQ(*transcript_path("/d", "abc"), fs::path("/d/abc.jsonl"));
  EXPECT_EQ(*transcript_path("/d", "abc", "a/b c"), fs::path("/d/abc-topic-a%2Fb%20c.jsonl"));
  EXPECT_EQ(*transcript_path("/d", "abc", "42"), fs::path("/d/abc-topic-42.jsonl"));
  EXPECT_EQ(transcript_path("/d", "../etc/passwd").error().code, "SESSION_ID_INVALID");
}

TEST_F(TranscriptFixture, CreateWritesAPiHeaderWithMode0600) {
  auto writer = create();
  EXPECT_EQ(writer.leaf_id(), "");
  EXPECT_EQ(read_checked(file),
            R"({"type":"session","version":3,"id":"s1","timestamp":"2023-11-14T22:13:20.000Z","cwd":"/work/space"})"
            "\n");
  EXPECT_EQ(mode_of(file), 0600u);
  EXPECT_EQ(mode_of(file.parent_path()), 0700u);

  auto again = TranscriptWriter::create(file, {"s1", "/", std::nullopt}, clock);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "TRANSCRIPT_EXISTS");
  EXPECT_EQ(TranscriptWriter::create(dir.path() / "x.jsonl", {"../x", "/", std::nullopt}, clock).error().code,
            "SESSION_ID_INVALID");

  auto forked = TranscriptWriter::create(dir.path() / "s2.jsonl", {"s2", "/w", std::string("/p/s1.jsonl")}, clock);
  ASSERT_TRUE(forked.ok());
  EXPECT_NE(read_checked(dir.path() / "s2.jsonl").find(R"("cwd":"/w","parentSession":"/p/s1.jsonl"})"), std::string::npos);
}

TEST_F(TranscriptFixture, AppendsChainParentIdsAndNeverRewriteBytes) {
  auto writer = create(FsyncPolicy::None);
  auto u1 = writer.append_message(user("hi"));
  ASSERT_TRUE(u1.ok());
  clock.advance(1234);
  auto a1 = writer.append_message(assistant("hello"));
  ASSERT_TRUE(a1.ok());
  const std::string before = read_checked(file);

  ASSERT_TRUE(writer.append_model_change("openai", "o3").ok());
  ASSERT_TRUE(writer.append_thinking_level_change("high").ok());
  ASSERT_TRUE(writer.append_custom("ext", {{"k", 1}}).ok());
  ASSERT_TRUE(writer.append_custom_message("note", "remember", false).ok());
  ASSERT_TRUE(writer.append_label(*u1, "start").ok());
  ASSERT_TRUE(writer.append_session_info("My session").ok());
  ASSERT_TRUE(writer.append_branch_summary(*u1, "tried X").ok());
  ASSERT_TRUE(writer.append_compaction("summary", *u1, 1000, {{"files", {"a.txt"}}}).ok());
  ASSERT_TRUE(writer.append("future_thing", {{"type", "ignored"}, {"payload", 7}}).ok());

  const std::string after = read_checked(file);
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(0, before.size()), before) << "appends never rewrite existing bytes";

  const auto lines = lines_of(after);
  ASSERT_EQ(lines.size(), 12u);
  std::set<std::string> ids;
  std::string previous;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const Json entry = Json::parse(lines[i]);
    EXPECT_EQ(lines[i].rfind(R"({"type":)", 0), 0u) << "pi key order: type, id, parentId, timestamp";
    const std::string id = entry.at("id");
    EXPECT_TRUE(std::regex_match(id, kEntryId)) << id;
    EXPECT_TRUE(ids.insert(id).second) << "ids are unique";
    EXPECT_EQ(entry.at("parentId"), previous.empty() ? Json(nullptr) : Json(previous));
    EXPECT_TRUE(std::regex_match(entry.at("timestamp").get<std::string>(), kIsoMs));
    previous = id;
  }
  EXPECT_EQ(Json::parse(lines[1]).at("timestamp"), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(Json::parse(lines[2]).at("timestamp"), "2023-11-14T22:13:21.234Z");
  EXPECT_EQ(Json::parse(lines[2]).at("message"), assistant("hello"));
  EXPECT_EQ(Json::parse(lines[11]).at("type"), "future_thing");
  EXPECT_EQ(Json::parse(lines[11]).at("payload"), 7);
  const Json compaction = Json::parse(lines[10]);
  EXPECT_EQ(compaction.at("firstKeptEntryId"), *u1);
  EXPECT_EQ(compaction.at("tokensBefore"), 1000);
  EXPECT_EQ(compaction.at("details").at("files").at(0), "a.txt");
  EXPECT_EQ(writer.leaf_id(), previous);
  EXPECT_EQ(mode_of(file), 0600u);
}

TEST_F(TranscriptFixture, ReadsAHandWrittenPiTranscript) {
  const TranscriptContents t = parse_transcript(kPiTranscript);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().message;
  EXPECT_EQ(t.version, 3);
  EXPECT_EQ(t.session_id(), "0e2df3ef-c92b-4471-9b25-18cce4418810");
  EXPECT_EQ(t.header.at("futureHeaderField"), 1);
  ASSERT_EQ(t.entries.size(), 11u);
  EXPECT_EQ(t.entries[0].type, "model_change");
  EXPECT_FALSE(t.entries[0].parent_id);
  EXPECT_EQ(t.entries[0].line, 2u);
  EXPECT_EQ(t.entries[9].type, "future_thing");
  EXPECT_EQ(t.entries[9].raw.at("payload").at("x"), 1);
  EXPECT_EQ(t.find("c3d4e5f6"), 2u);
  EXPECT_FALSE(t.find("nope"));
  // Each entry's raw object is exactly the line's JSON.
  const auto lines = lines_of(kPiTranscript);
  for (const auto& e : t.entries) EXPECT_EQ(e.raw, Json::parse(lines[e.line - 1]));

  const SessionContext ctx = build_context(t.entries);
  EXPECT_EQ(ctx.leaf_id, "e1f2a3b4");
  EXPECT_EQ(ctx.thinking_level, "medium");
  EXPECT_EQ(ctx.provider, "anthropic");
  EXPECT_EQ(ctx.model_id, "claude-sonnet-4");
  ASSERT_EQ(ctx.messages.size(), 5u);  // user, assistant, toolResult, custom_message, assistant
  EXPECT_EQ(ctx.messages[0], t.entries[2].raw.at("message"));
  EXPECT_EQ(ctx.messages[2].at("role"), "toolResult");
  EXPECT_EQ(ctx.messages[3].at("role"), "custom");
  EXPECT_EQ(ctx.messages[3].at("customType"), "reminder");
  EXPECT_EQ(ctx.messages[3].at("timestamp"), *parse_iso_timestamp("2026-03-05T14:22:04.200Z"));
  EXPECT_EQ(ctx.messages[4].at("role"), "assistant");

  const auto llm = to_llm_messages(ctx.messages);
  ASSERT_EQ(llm.size(), 5u);
  EXPECT_EQ(llm[3].at("role"), "user");
  EXPECT_EQ(text_of(llm[3]), "Remember the umbrella");
}

TEST_F(TranscriptFixture, AppendingToAPiTranscriptKeepsItsBytes) {
  spit(file, kPiTranscript);
  auto writer = TranscriptWriter::open(file, clock, FsyncPolicy::None);
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  EXPECT_EQ(writer->leaf_id(), "e1f2a3b4");
  auto id = writer->append_message(user("and tomorrow?"));
  ASSERT_TRUE(id.ok());
  const std::string text = read_checked(file);
  EXPECT_EQ(text.substr(0, kPiTranscript.size()), kPiTranscript);
  const auto t = parse_transcript(text);
  ASSERT_EQ(t.entries.size(), 12u);
  EXPECT_EQ(t.entries.back().parent_id.value_or(""), "e1f2a3b4");
  EXPECT_EQ(t.entries.back().id, *id);
}

TEST_F(TranscriptFixture, TornLastLineIsSkippedWithAWarningAndHealedOnAppend) {
  const std::string torn = kPiTranscript + R"({"type":"message","id":"deadbeef","parentId":"e1f2a3b4","timest)";
  spit(file, torn);
  const auto t = parse_transcript(torn);
  EXPECT_TRUE(t.missing_final_newline);
  ASSERT_EQ(t.entries.size(), 11u);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0].line, 13u);
  EXPECT_NE(t.warnings[0].message.find("torn last line"), std::string::npos) << t.warnings[0].message;

  std::vector<TranscriptWarning> warnings;
  auto writer = TranscriptWriter::open(file, clock, FsyncPolicy::None, &warnings);
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ(warnings.size(), 1u);
  auto id = writer->append_message(user("after the crash"));
  ASSERT_TRUE(id.ok());
  const std::string text = read_checked(file);
  EXPECT_EQ(text.substr(0, torn.size()), torn) << "the torn bytes are not rewritten";

  const auto healed = parse_transcript(text);
  EXPECT_FALSE(healed.missing_final_newline);
  ASSERT_EQ(healed.entries.size(), 12u) << "the new entry did not merge into the torn fragment";
  EXPECT_EQ(healed.entries.back().id, *id);
  EXPECT_EQ(healed.entries.back().parent_id.value_or(""), "e1f2a3b4");
  ASSERT_EQ(healed.warnings.size(), 1u);
  EXPECT_EQ(healed.warnings[0].line, 13u);
}

TEST_F(TranscriptFixture, ValidLastLineWithoutNewlineIsKept) {
  std::string text = kPiTranscript;
  text.pop_back();
  const auto t = parse_transcript(text);
  EXPECT_TRUE(t.missing_final_newline);
  EXPECT_EQ(t.entries.size(), 11u);
  EXPECT_TRUE(t.warnings.empty());
}

TEST_F(TranscriptFixture, CorruptMiddleLinesAreReportedByLineAndSkipped) {
  auto lines = lines_of(kPiTranscript);
  lines[3] = R"({"type":"message","id":"c3d4e5f6",garbage)";
  lines.insert(lines.begin() + 5, "[1,2,3]");
  lines.insert(lines.begin() + 6, R"({"id":"abcdabcd"})");
  lines.insert(lines.begin() + 7, R"({"type":"message","parentId":null})");
  lines.insert(lines.begin() + 8, "   ");
  lines.insert(lines.begin() + 9, std::string("{\"type\":\"x\",\"id\":\"nul00000\"}\0\0", 30));
  std::string text;
  for (const auto& l : lines) text += l + "\n";

  const auto t = parse_transcript(text);
  ASSERT_EQ(t.warnings.size(), 5u);
  EXPECT_EQ(t.warnings[0].line, 4u);
  EXPECT_NE(t.warnings[0].message.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(t.warnings[1].line, 6u);
  EXPECT_EQ(t.warnings[2].line, 7u);
  EXPECT_EQ(t.warnings[3].line, 8u);
  EXPECT_NE(t.warnings[3].message.find("id"), std::string::npos);
  EXPECT_EQ(t.warnings[4].line, 10u);
  EXPECT_NE(t.warnings[4].message.find("NUL"), std::string::npos);
  EXPECT_EQ(t.entries.size(), 10u);
  EXPECT_FALSE(t.find("c3d4e5f6"));
  // The branch is cut where the missing entry was: the context starts after it.
  const auto branch = active_branch(t.entries);
  EXPECT_EQ(branch.front()->id, "d4e5f6a7");
}

TEST_F(TranscriptFixture, ForkedBranchesFollowTheLeaf) {
  auto writer = create(FsyncPolicy::None);
  const std::string u1 = *writer.append_message(user("root question"));
  const std::string a1 = *writer.append_message(assistant("root answer"));
  const std::string u2a = *writer.append_message(user("branch A"));
  const std::string a2a = *writer.append_message(assistant("answer A", "openai", "gpt-4.1"));
  ASSERT_TRUE(writer.set_leaf(a1).ok());  // fork: a second child of a1
  const std::string u2b = *writer.append_message(user("branch B"));
  ASSERT_TRUE(writer.append_thinking_level_change("low").ok());
  const std::string a2b = *writer.append_message(assistant("answer B", "anthropic", "claude"));
  EXPECT_EQ(writer.set_leaf("zzzzzzzz").error().code, "ENTRY_NOT_FOUND");

  const auto t = *read_transcript(file);
  ASSERT_EQ(t.entries.size(), 7u);
  EXPECT_EQ(t.entries[4].parent_id.value_or(""), a1);

  // Default leaf = the last entry in the file: branch B.
  auto b = build_context(t.entries);
  EXPECT_EQ(b.leaf_id, a2b);
  ASSERT_EQ(b.messages.size(), 4u);
  EXPECT_EQ(text_of(b.messages[2]), "branch B");
  EXPECT_EQ(text_of(b.messages[3]), "answer B");
  EXPECT_EQ(b.thinking_level, "low");
  EXPECT_EQ(b.provider, "anthropic");

  // An explicit leaf selects branch A; its state does not see branch B's changes.
  auto a = build_context(t.entries, a2a);
  EXPECT_EQ(a.leaf_id, a2a);
  ASSERT_EQ(a.messages.size(), 4u);
  EXPECT_EQ(text_of(a.messages[2]), "branch A");
  EXPECT_EQ(a.thinking_level, "off");
  EXPECT_EQ(a.model_id, "gpt-4.1");

  // A leaf in the middle, and an unknown leaf (falls back to the last entry, as pi).
  EXPECT_EQ(build_context(t.entries, u2a).messages.size(), 3u);
  EXPECT_EQ(build_context(t.entries, "missing0").leaf_id, a2b);
  const auto path = active_branch(t.entries, u2b);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0]->id, u1);
  EXPECT_EQ(path[2]->id, u2b);

  // Re-opening continues from the last entry in the file, also from contents already read.
  auto reopened = TranscriptWriter::open(file, clock, FsyncPolicy::None);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->leaf_id(), a2b);
  auto from_contents = TranscriptWriter::open(file, t, clock, FsyncPolicy::None);
  ASSERT_TRUE(from_contents.ok());
  EXPECT_EQ(from_contents->leaf_id(), a2b);
  EXPECT_TRUE(from_contents->contains(u2a));
}

TEST_F(TranscriptFixture, CompactionReplacesOlderMessagesWithItsSummary) {
  auto writer = create(FsyncPolicy::None);
  ASSERT_TRUE(writer.append_message(user("u1")).ok());
  ASSERT_TRUE(writer.append_message(assistant("a1")).ok());
  ASSERT_TRUE(writer.append_message(user("u2")).ok());
  ASSERT_TRUE(writer.append_message(assistant("a2")).ok());
  const std::string u3 = *writer.append_message(user("u3"));
  ASSERT_TRUE(writer.append_message(assistant("a3")).ok());
  clock.advance(500);
  ASSERT_TRUE(writer.append_compaction("Talked about u1/u2 (IDs: 42).", u3, 12345).ok());
  ASSERT_TRUE(writer.append_message(user("u4")).ok());
  ASSERT_TRUE(writer.append_message(assistant("a4")).ok());

  const auto t = *read_transcript(file);
  const auto ctx = build_context(t.entries);
  ASSERT_EQ(ctx.messages.size(), 5u);
  EXPECT_EQ(ctx.messages[0].at("role"), "compactionSummary");
  EXPECT_EQ(ctx.messages[0].at("summary"), "Talked about u1/u2 (IDs: 42).");
  EXPECT_EQ(ctx.messages[0].at("tokensBefore"), 12345);
  EXPECT_EQ(ctx.messages[0].at("timestamp"), 1'700'000'000'500);
  EXPECT_EQ(text_of(ctx.messages[1]), "u3");
  EXPECT_EQ(text_of(ctx.messages[2]), "a3");
  EXPECT_EQ(text_of(ctx.messages[3]), "u4");
  EXPECT_EQ(text_of(ctx.messages[4]), "a4");

  const auto llm = to_llm_messages(ctx.messages);
  ASSERT_EQ(llm.size(), 5u);
  EXPECT_EQ(llm[0].at("role"), "user");
  EXPECT_EQ(text_of(llm[0]),
            "The conversation history before this point was compacted into the following summary:\n\n"
            "<summary>\nTalked about u1/u2 (IDs: 42).\n</summary>");

  // A second compaction wins over the first; a firstKeptEntryId off the branch keeps nothing older.
  ASSERT_TRUE(writer.append_compaction("second", "notthere", 99).ok());
  const auto ctx2 = build_context(read_transcript(file)->entries);
  ASSERT_EQ(ctx2.messages.size(), 1u);
  EXPECT_EQ(ctx2.messages[0].at("summary"), "second");
}

TEST_F(TranscriptFixture, BranchSummariesAndPiRolesBecomeUserMessages) {
  auto writer = create(FsyncPolicy::None);
  const std::string u1 = *writer.append_message(user("u1"));
  ASSERT_TRUE(writer.append_branch_summary(u1, "We tried approach X; it failed.").ok());
  ASSERT_TRUE(writer.append_branch_summary(u1, "").ok());  // empty summaries add nothing (pi)
  ASSERT_TRUE(writer.append_custom("state", {{"hidden", true}}).ok());
  ASSERT_TRUE(writer.append_message({{"role", "bashExecution"}, {"command", "ls"}, {"output", "a\nb"},
                                     {"exitCode", 2}, {"cancelled", false}, {"truncated", false},
                                     {"timestamp", 5}}).ok());
  ASSERT_TRUE(writer.append_message({{"role", "bashExecution"}, {"command", "secret"}, {"output", ""},
                                     {"excludeFromContext", true}, {"timestamp", 6}}).ok());
  const auto ctx = build_context(read_transcript(file)->entries);
  ASSERT_EQ(ctx.messages.size(), 4u);
  EXPECT_EQ(ctx.messages[1].at("role"), "branchSummary");
  EXPECT_EQ(ctx.messages[1].at("fromId"), u1);

  const auto llm = to_llm_messages(ctx.messages);
  ASSERT_EQ(llm.size(), 3u);
  EXPECT_EQ(text_of(llm[1]),
            "The following is a summary of a branch that this conversation came back from:\n\n"
            "<summary>\nWe tried approach X; it failed.</summary>");
  EXPECT_EQ(text_of(llm[2]), "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2");
  EXPECT_TRUE(to_llm_messages({Json(42), Json{{"role", "mystery"}}}).empty());
}

TEST_F(TranscriptFixture, OlderVersionsAreReadAndV1IsNotAppendedTo) {
  const std::string v2 =
      R"({"type":"session","version":2,"id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"})" "\n"
      R"({"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","customType":"h","content":"hook says hi","display":true,"timestamp":1}})" "\n";
  const auto t2 = parse_transcript(v2);
  EXPECT_EQ(t2.version, 2);
  ASSERT_EQ(t2.entries.size(), 1u);
  EXPECT_EQ(t2.entries[0].raw.at("message").at("role"), "custom");
  EXPECT_EQ(text_of(to_llm_messages(build_context(t2.entries).messages).at(0)), "hook says hi");

  const std::string v1 =
      R"({"type":"session","id":"older","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"})" "\n"
      R"({"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}})" "\n"
      R"({"type":"message","timestamp":"2024-01-01T00:00:02.000Z","message":{"role":"user","content":"two","timestamp":2}})" "\n"
      R"({"type":"compaction","timestamp":"2024-01-01T00:00:03.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":5})" "\n";
  const auto t1 = parse_transcript(v1);
  EXPECT_EQ(t1.version, 1);
  ASSERT_EQ(t1.entries.size(), 3u);
  EXPECT_EQ(t1.entries[0].id, "00000001");
  EXPECT_EQ(t1.entries[2].parent_id.value_or(""), "00000002");
  EXPECT_EQ(t1.entries[2].raw.at("firstKeptEntryId"), "00000002");
  EXPECT_FALSE(t1.entries[2].raw.contains("firstKeptEntryIndex"));
  const auto ctx = build_context(t1.entries);
  ASSERT_EQ(ctx.messages.size(), 2u);
  EXPECT_EQ(text_of(ctx.messages[1]), "two");

  spit(file, v1);
  EXPECT_EQ(TranscriptWriter::open(file, clock).error().code, "TRANSCRIPT_VERSION");
  spit(file, R"({"type":"message","id":"aaaaaaaa","parentId":null})" "\n");
  EXPECT_EQ(TranscriptWriter::open(file, clock).error().code, "TRANSCRIPT_INVALID");
  EXPECT_EQ(TranscriptWriter::open(dir.path() / "none.jsonl", clock).error().code, "NOT_FOUND");
}

TEST_F(TranscriptFixture, DuplicateIdsAndCyclesAreSurvivable) {
  const std::string text =
      R"({"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"})" "\n"
      R"({"type":"message","id":"aaaaaaaa","parentId":"bbbbbbbb","timestamp":"x","message":{"role":"user","content":"a","timestamp":1}})" "\n"
      R"({"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"x","message":{"role":"user","content":"b","timestamp":1}})" "\n"
      R"({"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"x","message":{"role":"user","content":"b2","timestamp":1}})" "\n";
  const auto t = parse_transcript(text);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].message.find("duplicate"), std::string::npos);
  const auto ctx = build_context(t.entries);  // must terminate
  ASSERT_EQ(ctx.messages.size(), 2u);
  EXPECT_EQ(text_of(ctx.messages[1]), "b2");
  EXPECT_EQ(ctx.messages[0].at("timestamp"), 1);
}

TEST_F(TranscriptFixture, ArchiveNaming) {
  { auto w = create(); }
  const int64_t now = 1'772'720'521'123;
  auto archived = archive_transcript(file, ArchiveReason::Reset, now);
  ASSERT_TRUE(archived.ok()) << archived.error().message;
  EXPECT_EQ(archived->filename(), "s1.jsonl.reset.2026-03-05T14-22-01.123Z");
  EXPECT_FALSE(fs::exists(file));
  auto parsed = parse_archive_name(archived->filename().string());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->base, "s1.jsonl");
  EXPECT_EQ(parsed->reason, ArchiveReason::Reset);
  EXPECT_TRUE(std::regex_match(parsed->timestamp, kArchiveTs));

  // The same millisecond again never clobbers the first archive.
  { auto w = create(); }
  auto second = archive_transcript(file, ArchiveReason::Reset, now);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->filename(), "s1.jsonl.reset.2026-03-05T14-22-01.124Z");
  EXPECT_TRUE(fs::exists(*archived));

  { auto w = create(); }
  auto deleted = archive_transcript(file, ArchiveReason::Deleted, now);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(parse_archive_name(deleted->filename().string())->reason, ArchiveReason::Deleted);
  EXPECT_EQ(archive_transcript(file, ArchiveReason::Bak, now).error().code, "NOT_FOUND");

  EXPECT_FALSE(parse_archive_name("s1.jsonl"));
  EXPECT_FALSE(parse_archive_name("s1.jsonl.reset.yesterday"));
  EXPECT_EQ(parse_archive_name("sessions.json.bak.2026-03-05T14-22-01Z")->reason, ArchiveReason::Bak);
}

TEST(TranscriptParse, EdgeInputs) {
  EXPECT_TRUE(parse_transcript("").entries.empty());
  const auto no_header = parse_transcript(R"({"type":"message","id":"aaaaaaaa","parentId":null})" "\n");
  EXPECT_TRUE(no_header.header.is_null());
  EXPECT_EQ(no_header.entries.size(), 1u);
  ASSERT_FALSE(no_header.warnings.empty());
  EXPECT_NE(no_header.warnings[0].message.find("no session header"), std::string::npos);

  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const auto t = parse_transcript(deep + "\n");
  ASSERT_EQ(t.warnings.size(), 2u);  // nesting, then no header
  EXPECT_TRUE(build_context(t.entries).messages.empty());

  const auto crlf = parse_transcript(
      "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\r\n"
      "{\"type\":\"label\",\"id\":\"aaaaaaaa\",\"parentId\":null}\r\n");
  EXPECT_TRUE(crlf.warnings.empty());
  EXPECT_EQ(crlf.entries.size(), 1u);
}

}  // namespace
}  // namespace pincer::store::transcript_test
