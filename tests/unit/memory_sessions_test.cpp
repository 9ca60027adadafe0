// The sessions corpus (issue 13; OpenClaw's memorySearch sources "sessions"): transcripts rendered
// as User:/Assistant: lines, indexed incrementally (only appended lines are read), hits naming the
// session key and turn; off by default. Real SQLite, real transcript files in a temp state dir.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/ids.h"
#include "memory/memory_index.h"
#include "memory/memory_service.h"
#include "memory/session_corpus.h"

namespace pincer::memory {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct SessionsTempDir {
  fs::path dir = fs::temp_directory_path() / ("pincer-memsessions-" + ids::uuid_v4());
  SessionsTempDir() { fs::create_directories(dir / "ws"); }
  ~SessionsTempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path sessions() const { return dir / "state/agents/main/sessions"; }
};

std::string sessions_msg(const std::string& role, const std::string& text, int64_t ts_ms = 1'780'000'000'000) {
  json content = role == "user" ? json(text) : json::array({{{"type", "text"}, {"text", text}}});
  return json{{"type", "message"}, {"id", ids::uuid_v4().substr(0, 8)}, {"timestamp", "2026-05-28T10:00:00.000Z"},
              {"message", {{"role", role}, {"content", content}, {"timestamp", ts_ms}}}}
             .dump() + "\n";
}

void sessions_append(const fs::path& p, const std::string& data) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::app) << data;
}

const std::string kSessionsHeader =
    R"({"type":"session","version":3,"id":"s-alpha","timestamp":"2026-05-28T10:00:00.000Z","cwd":"/w"})" "\n";

json sessions_on(int tokens = 400) {
  return json{{"memory",
               {{"search",
                 {{"sources", json::array({"memory", "sessions"})},
                  {"experimental", {{"sessionMemory", true}}},
                  {"chunking", {{"tokens", tokens}, {"overlap", 0}}}}}}}};
}

TEST(MemorySessions, RenderingKeepsTextMessagesWithTheirLinesAndTurns) {
  const std::string bytes = kSessionsHeader + sessions_msg("user", "Where is   my\n\nbike?") +
                            R"({"type":"message","id":"t1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":{}}]}})" "\n" +
                            R"({"type":"message","id":"t2","message":{"role":"toolResult","content":[{"type":"text","text":"file body"}]}})" "\n" +
                            sessions_msg("assistant", "In the shed.") + "not json\n" + sessions_msg("user", "thanks") +
                            sessions_msg("assistant", "NO_REPLY") + R"({"type":"message","id":"torn","message":{"ro)";
  const RenderedTranscript r = render_session_lines(bytes, 0, 0, 0);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0].text, "User: Where is my bike?");
  EXPECT_EQ(r.lines[0].jsonl_line, 2);
  EXPECT_EQ(r.lines[0].turn, 1);
  EXPECT_EQ(r.lines[0].ts_ms, 1'780'000'000'000);
  EXPECT_EQ(r.lines[1].text, "Assistant: In the shed.");
  EXPECT_EQ(r.lines[1].jsonl_line, 5);
  EXPECT_EQ(r.lines[1].turn, 1);
  EXPECT_EQ(r.lines[2].text, "User: thanks");
  EXPECT_EQ(r.lines[2].jsonl_line, 7);
  EXPECT_EQ(r.lines[2].turn, 2);
  EXPECT_EQ(r.lines_total, 8);  // the torn last line is not consumed
  EXPECT_EQ(r.turns_total, 2);
  EXPECT_EQ(static_cast<std::size_t>(r.end_offset), bytes.rfind('\n') + 1);
  // Long messages wrap at a space; every piece keeps its label and line.
  std::string words;
  for (int i = 0; i < 90; ++i) words += "abcdefghi ";
  const RenderedTranscript l = render_session_lines(sessions_msg("user", words + "tail"), 100, 4, 2);
  ASSERT_EQ(l.lines.size(), 2u);
  EXPECT_LE(l.lines[0].text.size(), 6u + 800u);
  EXPECT_EQ(l.lines[0].text.substr(0, 16), "User: abcdefghi ");
  EXPECT_EQ(l.lines[1].text.substr(0, 15), "User: abcdefghi");
  EXPECT_EQ(l.lines[1].text.substr(l.lines[1].text.size() - 4), "tail");
  EXPECT_EQ(l.lines[1].jsonl_line, 5);
  EXPECT_EQ(l.lines[1].byte_start, 100);
  EXPECT_EQ(l.lines[1].turn, 3);
}

TEST(MemorySessions, FileNamesOfTheCorpus) {
  EXPECT_EQ(session_id_of_transcript("abc.jsonl"), "abc");
  EXPECT_EQ(session_id_of_transcript("abc-topic-42.jsonl"), "abc");
  EXPECT_EQ(session_id_of_transcript("abc.jsonl.reset.2026-03-05T14-22-01.123Z"), "abc");
  EXPECT_EQ(session_id_of_transcript("abc.jsonl.deleted.2026-03-05T14-22-01.123Z"), "");
  EXPECT_EQ(session_id_of_transcript("sessions.json"), "");
  EXPECT_EQ(session_id_of_transcript("notes.md"), "");
}

TEST(MemorySessions, OffByDefaultAndASessionsSearchSaysHowToTurnItOn) {
  SessionsTempDir t;
  sessions_append(t.sessions() / "s-alpha.jsonl", kSessionsHeader + sessions_msg("user", "my locker code is 7319"));
  MemoryService svc(json::object(), t.dir / "state", {}, false);
  json r = svc.search("main", t.dir / "ws", {{"query", "locker code"}});
  EXPECT_TRUE(r["results"].empty()) << r.dump();
  json s = svc.search("main", t.dir / "ws", {{"query", "locker code"}, {"corpus", "sessions"}});
  EXPECT_EQ(s["unavailable"], true) << s.dump();
  EXPECT_NE(s["action"].get<std::string>().find("sessionMemory"), std::string::npos);
  // sources alone is not enough (OpenClaw: sessions need experimental.sessionMemory).
  MemoryService half(json{{"memory", {{"search", {{"sources", json::array({"memory", "sessions"})}}}}}}, t.dir / "state", {}, false);
  EXPECT_TRUE(half.search("main", t.dir / "ws", {{"query", "locker"}})["results"].empty());
}

TEST(MemorySessions, HitsNameTheSessionAndTurnAndTheCorpusNarrowsTheSearch) {
  SessionsTempDir t;
  std::ofstream(t.dir / "ws/MEMORY.md") << "- The locker room is on floor two.\n";
  sessions_append(t.sessions() / "sessions.json", R"({"agent:main:alpha":{"sessionId":"s-alpha","updatedAt":1}})");
  sessions_append(t.sessions() / "s-alpha.jsonl", kSessionsHeader + sessions_msg("user", "hello there") +
                                                      sessions_msg("assistant", "Hi! How can I help?") +
                                                      sessions_msg("user", "my locker code is 7319") +
                                                      sessions_msg("assistant", "Got it, 7319."));
  MemoryService svc(sessions_on(), t.dir / "state", {}, false);
  json r = svc.search("main", t.dir / "ws", {{"query", "locker code 7319"}, {"corpus", "sessions"}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();
  const json& h = r["results"][0];
  EXPECT_EQ(h["source"], "sessions");
  EXPECT_EQ(h["path"], "sessions/s-alpha.jsonl");
  EXPECT_EQ(h["sessionKey"], "agent:main:alpha");
  EXPECT_EQ(h["sessionId"], "s-alpha");
  EXPECT_EQ(h["startLine"], 2);  // the transcript's own lines
  EXPECT_EQ(h["endLine"], 5);
  EXPECT_EQ(h["turn"], 1);
  EXPECT_EQ(h["turnEnd"], 2);
  EXPECT_NE(h["snippet"].get<std::string>().find("User: my locker code is 7319"), std::string::npos);

  json mem = svc.search("main", t.dir / "ws", {{"query", "locker"}, {"corpus", "memory"}});
  ASSERT_FALSE(mem["results"].empty());
  for (const auto& x : mem["results"]) EXPECT_EQ(x["source"], "memory") << mem.dump();
  json all = svc.search("main", t.dir / "ws", {{"query", "locker"}});
  std::set<std::string> sources;
  for (const auto& x : all["results"]) sources.insert(x["source"].get<std::string>());
  EXPECT_EQ(sources, (std::set<std::string>{"memory", "sessions"})) << all.dump();
}

TEST(MemorySessions, OnlyAppendedLinesAreReadAndATornLineWaitsForItsNewline) {
  SessionsTempDir t;
  const fs::path file = t.sessions() / "s-alpha.jsonl";
  // Small chunks (40 tokens ≈ 160 bytes, no overlap): the first two messages are one chunk.
  const std::string first = sessions_msg("user", "the boat in the harbour is called Persephone, remember it");
  const std::string reply = sessions_msg("assistant", "Understood, the boat in the harbour is called Persephone.");
  sessions_append(file, kSessionsHeader + first + reply);
  MemorySettings s = resolve_memory_settings(sessions_on(40), "main", t.dir / "ws", t.dir / "state", {});
  auto idx = MemoryIndex::open(s, t.dir / "ws", "main");
  ASSERT_TRUE(idx) << idx.error().message;
  ASSERT_TRUE((*idx)->sync());
  auto hits = (*idx)->search("Persephone", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(hits);
  ASSERT_FALSE(hits->results.empty());

  // Rewrite a part already read in place (same size, far from the end): an incremental sync never
  // reads it again, so the index still has the old words.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    const std::string all = kSessionsHeader + first;
    const auto at = all.find("Persephone");
    f.seekp(static_cast<std::streamoff>(at));
    f << "Xenophonia";
  }
  sessions_append(file, sessions_msg("user", "and the car parked outside is called Bucephalus, also remember"));
  sessions_append(file, R"({"type":"message","id":"half","message":{"role":"user","content":"the bike is called Rocin)");
  auto sync = (*idx)->sync();
  ASSERT_TRUE(sync);
  hits = (*idx)->search("Bucephalus", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(hits);
  ASSERT_EQ(hits->results.size(), 1u);
  EXPECT_EQ(hits->results[0].start_line, 4);
  EXPECT_EQ(hits->results[0].turn, 2);
  auto old = (*idx)->search("Xenophonia", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(old);
  EXPECT_TRUE(old->results.empty()) << "the part read before was read again";
  auto torn = (*idx)->search("Rocinante", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(torn);
  EXPECT_TRUE(torn->results.empty());
  sessions_append(file, "ante, please\"}}\n");
  torn = (*idx)->search("Rocinante", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(torn);
  ASSERT_EQ(torn->results.size(), 1u);
  // The small last chunk (line 4 alone) was cut again with the appended line: one chunk, 4–5.
  EXPECT_EQ(torn->results[0].start_line, 4);
  EXPECT_EQ(torn->results[0].end_line, 5);
  EXPECT_EQ(torn->results[0].turn, 2);
  EXPECT_EQ(torn->results[0].turn_end, 3);
  hits = (*idx)->search("Bucephalus", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(hits);
  EXPECT_EQ(hits->results.size(), 1u);  // not twice
  hits = (*idx)->search("Persephone", 10, 0.0, Corpus::Sessions);
  ASSERT_TRUE(hits);
  EXPECT_EQ(hits->results.size(), 1u);
}

TEST(MemorySessions, AnArchivedTranscriptKeepsItsChunksAndKeyAndADeletedOneLosesThem) {
  SessionsTempDir t;
  const fs::path live = t.sessions() / "s-alpha.jsonl";
  sessions_append(t.sessions() / "sessions.json", R"({"agent:main:alpha":{"sessionId":"s-alpha","updatedAt":1}})");
  sessions_append(live, kSessionsHeader + sessions_msg("user", "the wifi password is marmalade42"));
  MemoryService svc(sessions_on(), t.dir / "state", {}, false);
  json r = svc.search("main", t.dir / "ws", {{"query", "wifi password"}, {"corpus", "sessions"}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();

  // /new: the transcript is archived and the key gets a new session id.
  const fs::path archived = t.sessions() / "s-alpha.jsonl.reset.2026-05-28T11-00-00.000Z";
  fs::rename(live, archived);
  std::ofstream(t.sessions() / "sessions.json", std::ios::trunc) << R"({"agent:main:alpha":{"sessionId":"s-beta","updatedAt":2}})";
  r = svc.search("main", t.dir / "ws", {{"query", "wifi password"}, {"corpus", "sessions"}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();
  EXPECT_EQ(r["results"][0]["path"], "sessions/" + archived.filename().string());
  EXPECT_EQ(r["results"][0]["sessionKey"], "agent:main:alpha");
  EXPECT_EQ(r["results"][0]["sessionId"], "s-alpha");

  fs::rename(archived, t.sessions() / "s-alpha.jsonl.deleted.2026-05-28T12-00-00.000Z");
  r = svc.search("main", t.dir / "ws", {{"query", "wifi password"}, {"corpus", "sessions"}});
  EXPECT_TRUE(r["results"].empty()) << r.dump();

  // Turning the corpus off removes what it indexed.
  sessions_append(t.sessions() / "s-gamma.jsonl", kSessionsHeader + sessions_msg("user", "the gate code is 4455"));
  ASSERT_EQ(svc.search("main", t.dir / "ws", {{"query", "gate code"}})["results"].size(), 1u);
  svc.reconfigure(json::object());
  auto idx = svc.index("main", t.dir / "ws");
  ASSERT_TRUE(idx);
  auto st = (*idx)->sync();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->chunks, 0);
}

}  // namespace
}  // namespace pincer::memory
