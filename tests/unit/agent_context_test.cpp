// The agent context layer: workspace creation and bootstrap loading (agent/workspace.h, CX-2/CX-3:
// files created once and never overwritten, head/tail truncation with a marker, per-file and total
// budgets, truncation warnings), the system prompt (agent/system_prompt.h, CX-4: sections in
// order, byte-stable output, tools and turn context) and the tool-result cap
// (agent/tool_result_cap.h, CX-8). The agents/models config and model registry are in
// agents_config_test.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/system_prompt.h"
#include "agent/text_cut.h"
#include "agent/tool_result_cap.h"
#include "agent/workspace.h"

namespace pincer::agent::agent_context_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("pincer-agent-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  fs::path write(const std::string& relative, const std::string& text) const {
    fs::path p = path_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  std::string read(const std::string& relative) const {
    std::ifstream in(path_ / relative, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  fs::path path_;
};


std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if (!text::is_continuation(s[i + k])) return false;
    }
    i += n;
  }
  return true;
}
// ---- workspace creation --------------------------------------------------------------------------

TEST(Workspace, EnsureCreatesEveryFileOnceAndNeverOverwrites) {
  TempDir tmp;
  const fs::path ws = tmp.path() / "a" / "workspace";
  auto first = ensure_workspace(ws);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->brand_new);
  EXPECT_THAT(first->created, ElementsAre("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md",
                                          "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"));
  for (std::string_view name : kBootstrapFileNames) {
    EXPECT_EQ(tmp.read("a/workspace/" + std::string(name)), bootstrap_template(name)) << name;
    EXPECT_FALSE(bootstrap_template(name).empty()) << name;
    EXPECT_LT(bootstrap_template(name).size(), 1200u) << name << " template should stay short (LESSONS 1)";
  }

  // Idempotent: nothing created, edits kept.
  tmp.write("a/workspace/SOUL.md", "my soul");
  tmp.write("a/workspace/USER.md", "");
  auto second = ensure_workspace(ws);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->brand_new);
  EXPECT_TRUE(second->created.empty());
  EXPECT_EQ(tmp.read("a/workspace/SOUL.md"), "my soul");
  EXPECT_EQ(tmp.read("a/workspace/USER.md"), "");

  // The agent deletes BOOTSTRAP.md when done: it does not come back. Other files do.
  fs::remove(ws / "BOOTSTRAP.md");
  fs::remove(ws / "TOOLS.md");
  auto third = ensure_workspace(ws);
  ASSERT_TRUE(third.ok());
  EXPECT_THAT(third->created, ElementsAre("TOOLS.md"));
  EXPECT_FALSE(fs::exists(ws / "BOOTSTRAP.md"));
}

TEST(Workspace, ExistingWorkspaceGetsNoBootstrapAndLowercaseMemoryCounts) {
  TempDir tmp;
  tmp.write("AGENTS.md", "mine");
  tmp.write("memory.md", "notes");
  auto init = ensure_workspace(tmp.path());
  ASSERT_TRUE(init.ok());
  EXPECT_FALSE(init->brand_new);
  EXPECT_THAT(init->created, ElementsAre("SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"));
  EXPECT_EQ(tmp.read("AGENTS.md"), "mine");
  EXPECT_FALSE(fs::exists(tmp.path() / "MEMORY.md"));
}

TEST(Workspace, AStampSkipsTheFileChecksWhileTheDirectoryIsUnchanged) {
  TempDir tmp;
  const fs::path ws = tmp.path() / "workspace";
  int64_t stamp = -1;
  auto first = ensure_workspace(ws, stamp);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->brand_new);
  EXPECT_GE(stamp, 0);

  // A deleted file changes the directory's mtime: the next turn re-creates it.
  fs::remove(ws / "TOOLS.md");
  auto second = ensure_workspace(ws, stamp);
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(second->created, ElementsAre("TOOLS.md"));

  // The checks are really skipped while the directory looks unchanged: a file removed with the
  // directory's mtime put back is not noticed (a stamp of -1 checks again).
  struct stat st {};
  ASSERT_EQ(::stat(ws.c_str(), &st), 0);
  fs::remove(ws / "SOUL.md");
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, ws.c_str(), times, 0), 0);
  auto third = ensure_workspace(ws, stamp);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->created.empty());
  EXPECT_FALSE(fs::exists(ws / "SOUL.md"));
  int64_t fresh = -1;
  auto fourth = ensure_workspace(ws, fresh);
  ASSERT_TRUE(fourth.ok());
  EXPECT_THAT(fourth->created, ElementsAre("SOUL.md"));

  // A workspace that is not a directory is an error, and leaves no stamp.
  tmp.write("file", "x");
  int64_t bad = 5;
  EXPECT_FALSE(ensure_workspace(tmp.path() / "file", bad).ok());
  EXPECT_EQ(bad, -1);
}

TEST(Workspace, EnsureFailsClearlyOnAFile) {
  TempDir tmp;
  tmp.write("file", "x");
  auto init = ensure_workspace(tmp.path() / "file");
  ASSERT_FALSE(init.ok());
  EXPECT_EQ(init.error().code, "IO_ERROR");
  EXPECT_THAT(init.error().message, StartsWith((tmp.path() / "file").string() + ": "));
}

// ---- bootstrap loading ---------------------------------------------------------------------------

// `n` distinct-ish chars without trailing whitespace: "000,001,002,…".
std::string numbered(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%03zu,", i % 1000);
    s += buf;
  }
  s.resize(n);
  return s;
}

TEST(Bootstrap, TruncationKeepsHead70AndTail20WithAMarker) {
  const std::string content = numbered(300);
  bool cut = false;
  std::string out = truncate_bootstrap_content(content + "\n\n  \n", "AGENTS.md", 100, &cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(out, content.substr(0, 70) + "\n" +
                     "\n[... AGENTS.md truncated: kept the first 70 and last 20 of 300 chars; read AGENTS.md for the "
                     "rest ...]\n" +
                     "\n" + content.substr(280));

  // Exactly at the cap, or shorter after trimming trailing whitespace: unchanged (but trimmed).
  EXPECT_EQ(truncate_bootstrap_content(numbered(100) + "\n\n", "X.md", 100, &cut), numbered(100));
  EXPECT_FALSE(cut);

  // Odd caps round down: floor(33 × 0.7) = 23, floor(33 × 0.2) = 6.
  out = truncate_bootstrap_content(content, "S.md", 33, &cut);
  EXPECT_THAT(out, StartsWith(content.substr(0, 23) + "\n\n[... S.md truncated: kept the first 23 and last 6 of 300"));
  EXPECT_THAT(out, EndsWith("...]\n\n" + content.substr(294)));

  // Never splits a UTF-8 character: 2-byte "é" × 100 with a cap of 51 → head 35 → 34 bytes.
  std::string e;
  for (int i = 0; i < 100; ++i) e += "é";
  out = truncate_bootstrap_content(e, "U.md", 51, &cut);
  EXPECT_TRUE(valid_utf8(out));
  EXPECT_THAT(out, HasSubstr("kept the first 34 and last 10 of 200 chars"));
}

TEST(Bootstrap, LoadsFilesInOrderWithMissingNotesAndSkips) {
  TempDir tmp;
  tmp.write("SOUL.md", "soul\n\n");
  tmp.write("AGENTS.md", "agents");
  tmp.write("TOOLS.md", "  \n\t\n");  // whitespace only: skipped
  tmp.write("MEMORY.md", "remember");
  // IDENTITY, USER, HEARTBEAT missing (expected → notes); BOOTSTRAP missing (optional → absent).
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  std::vector<std::string> names;
  for (const auto& f : load.files) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"));
  EXPECT_EQ(load.files[0].content, "agents");
  EXPECT_EQ(load.files[1].content, "soul");
  EXPECT_EQ(load.files[1].original_chars, 4u);
  EXPECT_TRUE(load.files[2].missing);
  EXPECT_EQ(load.files[2].content, "[MISSING] Expected at: " + (tmp.path() / "IDENTITY.md").string());
  EXPECT_EQ(load.files[5].content, "remember");
  EXPECT_FALSE(load.truncated());
  EXPECT_EQ(load.truncation_signature(), "");
  std::size_t total = 0;
  for (const auto& f : load.files) total += f.content.size();
  EXPECT_EQ(load.total_chars, total);
}

TEST(Bootstrap, LowercaseMemoryFileIsRead) {
  TempDir tmp;
  tmp.write("memory.md", "lower");
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  ASSERT_FALSE(load.files.empty());
  EXPECT_EQ(load.files.back().name, "MEMORY.md");
  EXPECT_EQ(load.files.back().content, "lower");
  EXPECT_EQ(load.files.back().path, tmp.path() / "memory.md");
}

TEST(Bootstrap, Sets) {
  TempDir tmp;
  ASSERT_TRUE(ensure_workspace(tmp.path()).ok());
  auto names_of = [](const BootstrapLoad& load) {
    std::vector<std::string> names;
    for (const auto& f : load.files) names.push_back(f.name);
    return names;
  };
  EXPECT_THAT(names_of(load_bootstrap(tmp.path(), 20000, 150000, BootstrapSet::kHeartbeat)), ElementsAre("HEARTBEAT.md"));
  EXPECT_THAT(names_of(load_bootstrap(tmp.path(), 20000, 150000, BootstrapSet::kMinimal)),
              ElementsAre("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"));
  EXPECT_EQ(load_bootstrap(tmp.path(), 20000, 150000).files.size(), 8u);
}

TEST(Bootstrap, PerFileCapAndSignature) {
  TempDir tmp;
  for (std::string_view n : {"SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md"}) tmp.write(std::string(n), "x");
  tmp.write("AGENTS.md", numbered(45000));
  BootstrapLoad load = load_bootstrap(tmp.path(), 20000, 150000);
  const BootstrapFile& agents = load.files.at(0);
  EXPECT_TRUE(agents.truncated);
  EXPECT_EQ(agents.original_chars, 45000u);
  EXPECT_THAT(agents.content, StartsWith(numbered(14000) + "\n\n[... AGENTS.md truncated: kept the first 14000 and "
                                                           "last 4000 of 45000 chars"));
  EXPECT_THAT(agents.content, EndsWith(numbered(45000).substr(41000)));
  EXPECT_TRUE(load.truncated());
  EXPECT_EQ(load.truncation_signature(), "AGENTS.md:45000>" + std::to_string(agents.content.size()));
}

TEST(Bootstrap, TotalBudgetClampsThenStopsBelow64Chars) {
  TempDir tmp;
  tmp.write("AGENTS.md", std::string(900, 'A'));
  tmp.write("SOUL.md", std::string(300, 'S'));
  tmp.write("TOOLS.md", "tools");
  tmp.write("IDENTITY.md", "identity");
  tmp.write("MEMORY.md", "memory");
  BootstrapLoad load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_EQ(load.files.size(), 2u);
  EXPECT_EQ(load.files[0].content, std::string(900, 'A'));
  EXPECT_FALSE(load.files[0].truncated);
  // SOUL.md: cap = min(5000, 100 remaining) → 70 + marker + 20 > 100 → clamped to 100 with "…".
  const std::string& soul = load.files[1].content;
  EXPECT_EQ(soul.size(), 100u);
  EXPECT_EQ(soul, std::string(70, 'S') + "\n\n[... SOUL.md truncated: k…");
  EXPECT_TRUE(load.files[1].truncated);
  EXPECT_EQ(load.total_chars, 1000u);
  // Nothing left: existing files are reported, missing ones (USER, HEARTBEAT) are not.
  EXPECT_THAT(load.omitted, ElementsAre("TOOLS.md", "IDENTITY.md", "MEMORY.md"));
  EXPECT_EQ(load.truncation_signature(), "SOUL.md:300>100|TOOLS.md:omitted|IDENTITY.md:omitted|MEMORY.md:omitted");

  // Remaining budget under 64 chars stops before the next file.
  tmp.write("AGENTS.md", std::string(940, 'A'));
  load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_EQ(load.files.size(), 1u);
  EXPECT_THAT(load.omitted, ElementsAre("SOUL.md", "TOOLS.md", "IDENTITY.md", "MEMORY.md"));
}

TEST(Bootstrap, MissingNotesAreChargedAndClamped) {
  TempDir tmp;
  tmp.write("AGENTS.md", std::string(950, 'A'));
  BootstrapLoad load = load_bootstrap(tmp.path(), 5000, 1000);
  ASSERT_GE(load.files.size(), 2u);
  EXPECT_TRUE(load.files[1].missing);
  EXPECT_EQ(load.files[1].content.size(), 50u);
  EXPECT_THAT(load.files[1].content, StartsWith("[MISSING] Expected at: "));
  EXPECT_THAT(load.files[1].content, EndsWith("…"));
  EXPECT_EQ(load.files.size(), 2u);
  EXPECT_TRUE(load.omitted.empty());
}

TEST(Bootstrap, TruncationWarningModes) {
  BootstrapLoad cut;
  cut.files.push_back(BootstrapFile{"AGENTS.md", "/w/AGENTS.md", std::string(120, 'x'), false, 500, true});
  cut.files.push_back(BootstrapFile{"SOUL.md", "/w/SOUL.md", "soul", false, 4, false});
  cut.omitted = {"MEMORY.md"};
  const std::string expected =
      "Note: some workspace files were shortened to fit the context budget: AGENTS.md (injected 120 of 500 chars); "
      "MEMORY.md (not loaded). Read them with the file tools if you need the full text.";
  BootstrapLoad clean;
  clean.files.push_back(BootstrapFile{"SOUL.md", "/w/SOUL.md", "soul", false, 4, false});

  TruncationWarnings once(TruncationWarningMode::kOnce);
  EXPECT_EQ(once.warning_for(cut, "s1"), expected);
  EXPECT_EQ(once.warning_for(cut, "s1"), "");
  EXPECT_EQ(once.warning_for(cut, "s2"), expected);  // another session
  EXPECT_EQ(once.warning_for(clean, "s1"), "");
  BootstrapLoad other = cut;
  other.files[0].original_chars = 600;  // a different cut: warn again
  EXPECT_EQ(once.warning_for(other, "s1"), ReplaceAll(expected, "of 500", "of 600"));

  TruncationWarnings always(TruncationWarningMode::kAlways);
  EXPECT_EQ(always.warning_for(cut), expected);
  EXPECT_EQ(always.warning_for(cut), expected);
  EXPECT_EQ(always.warning_for(clean), "");

  TruncationWarnings off(TruncationWarningMode::kOff);
  EXPECT_EQ(off.warning_for(cut), "");

  // Bounded memory: with room for 2 pairs, the oldest is forgotten and warned about again.
  TruncationWarnings small(TruncationWarningMode::kOnce, 2);
  EXPECT_NE(small.warning_for(cut, "a"), "");
  EXPECT_NE(small.warning_for(cut, "b"), "");
  EXPECT_NE(small.warning_for(cut, "c"), "");
  EXPECT_EQ(small.warning_for(cut, "c"), "");
  EXPECT_NE(small.warning_for(cut, "a"), "");

  EXPECT_EQ(parse_truncation_warning_mode("once"), TruncationWarningMode::kOnce);
  EXPECT_EQ(parse_truncation_warning_mode("always"), TruncationWarningMode::kAlways);
  EXPECT_EQ(parse_truncation_warning_mode("off"), TruncationWarningMode::kOff);
  EXPECT_EQ(parse_truncation_warning_mode("never"), std::nullopt);
}

// ---- system prompt -------------------------------------------------------------------------------

SystemPromptInput sample_prompt_input() {
  SystemPromptInput in;
  in.agent_id = "main";
  in.agent_name = "Pinchy";
  in.tools = {{"write", "Create or overwrite a file. Parent folders are created."},
              {"exec", "Run a shell command in the workspace.\nMore details here."},
              {"read", "Read a text file. Supports offset and limit."},
              {"zz_custom", "Does a custom thing. More about it."}};
  in.workspace = "/home/u/.pincer/workspace";
  in.context_files = {BootstrapFile{"AGENTS.md", "/w/AGENTS.md", "Be careful.", false, 11, false},
                      BootstrapFile{"SOUL.md", "/w/SOUL.md", "Be kind.", false, 8, false}};
  in.os = "Linux x86_64";
  in.model = "mock/mock-model";
  in.thinking = "low";
  return in;
}

TEST(SystemPrompt, SectionsInOrder) {
  const std::string prompt = build_system_prompt(sample_prompt_input());
  EXPECT_THAT(prompt, StartsWith("You are Pinchy, a personal assistant running in Pincer"));
  const std::vector<std::string> in_order = {
      "## Tools\n",
      "\n- exec: Run shell commands\n- read: Read files\n- write: Create or overwrite files\n- zz_custom: Does a custom thing.\n",
      "## Workspace\nYour working directory is /home/u/.pincer/workspace\n",
      "## Safety\n",
      "## Project context\n",
      "### AGENTS.md\nBe careful.\n\n### SOUL.md\nBe kind.",
      "## Runtime\nagent=main | os=Linux x86_64 | model=mock/mock-model | thinking=low\n"};
  std::size_t pos = 0;
  for (const auto& piece : in_order) {
    std::size_t found = prompt.find(piece, pos);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << piece << "\n---\n" << prompt;
    pos = found + piece.size();
  }
  EXPECT_THAT(prompt, EndsWith("thinking=low\n"));
  EXPECT_THAT(prompt, Not(HasSubstr("More details here")));
}

TEST(SystemPrompt, ByteStableAndIndependentOfToolOrder) {
  SystemPromptInput a = sample_prompt_input();
  SystemPromptInput b = sample_prompt_input();
  std::reverse(b.tools.begin(), b.tools.end());
  const std::string first = build_system_prompt(a);
  EXPECT_EQ(build_system_prompt(a), first);
  EXPECT_EQ(build_system_prompt(b), first);
  std::rotate(b.tools.begin(), b.tools.begin() + 1, b.tools.end());
  EXPECT_EQ(build_system_prompt(b), first);

  // Nothing time-like sneaks in.
  EXPECT_THAT(first, Not(HasSubstr("Current time")));
  EXPECT_THAT(first, Not(HasSubstr("2026")));

  // Inputs that do matter change it.
  SystemPromptInput c = sample_prompt_input();
  c.context_files[1].content = "Be kinder.";
  EXPECT_NE(build_system_prompt(c), first);
  SystemPromptInput d = sample_prompt_input();
  d.tools.pop_back();
  EXPECT_NE(build_system_prompt(d), first);
}

TEST(SystemPrompt, MinimalInput) {
  SystemPromptInput in;
  in.agent_id = "x";
  in.thinking = "";
  const std::string prompt = build_system_prompt(in);
  EXPECT_THAT(prompt, StartsWith("You are a personal assistant running in Pincer"));
  EXPECT_THAT(prompt, Not(HasSubstr("## Tools")));
  EXPECT_THAT(prompt, Not(HasSubstr("## Workspace")));
  EXPECT_THAT(prompt, Not(HasSubstr("## Project context")));
  EXPECT_THAT(prompt, HasSubstr("## Safety\n"));
  EXPECT_THAT(prompt, EndsWith("## Runtime\nagent=x\n"));
}

TEST(SystemPrompt, OneLineDescriptions) {
  struct Case {
    std::string in, out;
  } cases[] = {
      {"Read a file. Supports offsets.", "Read a file."},
      {"Run a command\nin the shell.", "Run a command"},
      {"  Uses v1.2 of the API. More.", "Uses v1.2 of the API."},
      {"No period at all", "No period at all"},
      {"Ends with a period.", "Ends with a period."},
      {"", ""},
      {"   \n ", ""},
      {std::string(300, 'x'), std::string(197, 'x') + "…"},
  };
  for (const auto& c : cases) EXPECT_EQ(one_line_description(c.in), c.out) << c.in;
  std::string e;
  for (int i = 0; i < 150; ++i) e += "é";
  const std::string line = one_line_description(e);
  EXPECT_TRUE(valid_utf8(line));
  EXPECT_LE(line.size(), 200u);
}

TEST(SystemPrompt, ToolsFromTheRegistryAndRuntimeOs) {
  EXPECT_FALSE(runtime_os().empty());
  EXPECT_EQ(runtime_os(), runtime_os());
  EXPECT_TRUE(prompt_tools({}).empty());
}

TEST(SystemPrompt, TurnContext) {
  EXPECT_EQ(build_turn_context({}), "");
  TurnContext t;
  t.now_ms = 1772715780000;  // 2026-03-05 13:03 UTC, a Thursday
  t.utc_offset_minutes = 60;
  t.time_zone = "Europe/Berlin";
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Thursday 2026-03-05 14:03 (Europe/Berlin, UTC+01:00)\n\n");
  t.time_zone = "";
  t.utc_offset_minutes = -330;
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Thursday 2026-03-05 07:33 (UTC-05:30)\n\n");
  t.now_ms = -1800000;  // 1969-12-31 23:30 UTC
  t.utc_offset_minutes = 0;
  t.bootstrap_warning = "Note: cut.";
  EXPECT_EQ(build_turn_context(t), "[Turn context]\nCurrent time: Wednesday 1969-12-31 23:30 (UTC+00:00)\nNote: cut.\n\n");
  TurnContext w;
  w.bootstrap_warning = "Note: cut.";
  EXPECT_EQ(build_turn_context(w), "[Turn context]\nNote: cut.\n\n");
}

// ---- tool-result cap (CX-8) ---------------------------------------------------------------------

TEST(ToolResultCap, CapFormula) {
  struct Case {
    std::int64_t context_tokens;
    std::size_t cap;
  } cases[] = {
      {0, 16000},       {-5, 16000},       {1000, 2000},      // 300 × 4 = 1200 → floor 2000
      {2000, 2400},     {10000, 12000},    {13333, 15996},    // floor(3999.9) × 4
      {13334, 16000},   {128000, 16000},   {1000000, 16000},
  };
  for (const auto& c : cases) EXPECT_EQ(tool_result_cap_chars(c.context_tokens), c.cap) << c.context_tokens;
}

std::string lines(std::size_t count, const std::string& last = "") {
  std::string s;
  for (std::size_t i = 0; i < count; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "line %04zu\n", i);
    s += buf;
  }
  return s + last;
}

TEST(ToolResultCap, FittingTextIsUnchanged) {
  const std::string text = lines(100);
  CappedText c = cap_text(text, 16000);
  EXPECT_EQ(c.text, text);
  EXPECT_FALSE(c.truncated);
  EXPECT_EQ(c.original_chars, text.size());
  EXPECT_EQ(cap_text(std::string(2000, 'x'), 10).text, std::string(2000, 'x'));  // 2 000 always fit
}

TEST(ToolResultCap, HeadOnlyCutSnapsToANewline) {
  const std::string text = lines(5000);  // 50 000 chars, nothing important at the end
  CappedText c = cap_text(text, 16000);
  EXPECT_TRUE(c.truncated);
  EXPECT_EQ(c.original_chars, 50000u);
  EXPECT_LE(c.text.size(), 16000u);
  const std::size_t note = c.text.find("\n\n[Output truncated: kept ");
  ASSERT_NE(note, std::string::npos);
  EXPECT_EQ(c.text.substr(0, note), text.substr(0, note));
  EXPECT_EQ(text[note], '\n');  // the head ends at a line break
  EXPECT_GT(note, 15000u);
  EXPECT_EQ(c.text.substr(note), "\n\n[Output truncated: kept " + std::to_string(note) +
                                      " of 50000 chars. Re-run with a narrower command or read the rest in smaller "
                                      "parts if you need more.]");
}

TEST(ToolResultCap, ImportantTailIsKept) {
  const std::string text = lines(5000, "Traceback (most recent call last):\n  File x\nValueError: bad value\n");
  CappedText c = cap_text(text, 16000);
  EXPECT_TRUE(c.truncated);
  EXPECT_LE(c.text.size(), 16000u);
  EXPECT_THAT(c.text, StartsWith("line 0000\nline 0001\n"));
  EXPECT_THAT(c.text, HasSubstr(" chars omitted; showing the start and the end ...]\n\n"));
  EXPECT_THAT(c.text, HasSubstr("ValueError: bad value\n\n\n[Output truncated: kept "));
  // Tail = min(30 % of the budget, 4 000) and starts at a line start.
  const std::size_t marker_end = c.text.find("...]\n\n") + 6;
  const std::size_t note = c.text.find("\n\n[Output truncated");
  const std::string tail = c.text.substr(marker_end, note - marker_end);
  EXPECT_LE(tail.size(), 4000u);
  EXPECT_GT(tail.size(), 3000u);
  EXPECT_THAT(tail, StartsWith("line "));
  EXPECT_THAT(text, EndsWith(tail));
}

TEST(ToolResultCap, SmallCapsKeepAtLeast2000CharsAndNoTail) {
  const std::string text = lines(1000, "fatal error\n");
  CappedText c = cap_text(text, 100);
  EXPECT_TRUE(c.truncated);
  EXPECT_THAT(c.text, Not(HasSubstr("omitted")));  // budget 2 000 is too small for head + tail
  const std::size_t note = c.text.find("\n\n[Output truncated");
  EXPECT_GT(note, 1600u);
  EXPECT_LE(note, 2000u);
  EXPECT_EQ(cap_tool_result(text, 1000).text, c.text);
}

TEST(ToolResultCap, NeverSplitsCharactersAndRespectsTheBound) {
  std::mt19937 rng(42);
  const std::vector<std::string> pieces = {"a", "é", "€", "😀", "\n", " ", "error", "}"};
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const std::size_t target = 1000 + rng() % 40000;
    while (text.size() < target) text += pieces[rng() % pieces.size()];
    const std::size_t cap = 500 + rng() % 20000;
    CappedText c = cap_text(text, cap);
    const std::size_t effective = std::max<std::size_t>(cap, 2000);
    EXPECT_EQ(c.truncated, text.size() > effective);
    EXPECT_TRUE(valid_utf8(c.text)) << round;
    EXPECT_LE(c.text.size(), std::max<std::size_t>(effective, 2000 + 200)) << round;
  }
}

TEST(ToolResultCap, ImportantTailDetection) {
  struct Case {
    std::string text;
    bool important;
  } cases[] = {
      {"all good\nDone", true},
      {"Process exited with exit code 1", true},
      {"ERROR: disk full", true},
      {"panic: runtime error", true},
      {"see stack trace above", true},
      {"{\"a\": 1}\n  ", true},
      {"Total: 3 files", true},
      {"plain output\nmore output", false},
      {"terrors and donations", false},  // not whole words
      {"errors: 0", false},
      {"error early" + std::string(3000, '.'), false},  // outside the last 2 000 chars
  };
  for (const auto& c : cases) EXPECT_EQ(has_important_tail(c.text), c.important) << c.text.substr(0, 40);
}

}  // namespace
}  // namespace pincer::agent::agent_context_test
