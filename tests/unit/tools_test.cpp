// Built-in tools (src/tools) other than exec/process: workspace confinement (TL-6), argument
// validation against the schema, the read/write/edit file tools, apply_patch (parsing, hunk
// location, check-everything-before-writing) and the tool registry and policy (TL-2). Each test
// gets its own temp workspace (tools_test_support.h). exec and background processes are in
// exec_tools_test.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tools/apply_patch.h"
#include "tools/cron_tool.h"
#include "tools/exec_tool.h"
#include "tools/fs_tools.h"
#include "tools/memory_tools.h"
#include "tools/registry.h"
#include "tools/web/web_tools.h"
#include "tools/workspace_path.h"
#include "test_helpers.h"
#include "tools_test_support.h"

namespace pincer::tools::tools_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using pincer::test_helpers::slurp;
using tools_test_support::contains;
using tools_test_support::spit;
using tools_test_support::ToolsTest;

// ---------------------------------------------------------------------------------------------
// Workspace confinement (TL-6)

TEST_F(ToolsTest, PathConfinementTable) {
  fs::create_directories(ws_ / "sub");
  spit(outside_ / "secret", "s");
  fs::create_symlink(outside_, ws_ / "escape");                 // directory link out
  fs::create_symlink(outside_ / "new-file", ws_ / "dangling");  // dangling link out
  fs::create_symlink(ws_ / "sub", ws_ / "inlink");              // link that stays inside
  fs::create_symlink("sub", ws_ / "rel-inlink");                // relative link inside
  fs::create_symlink("loop2", ws_ / "loop1");
  fs::create_symlink("loop1", ws_ / "loop2");

  struct Case {
    std::string path;
    std::string code;      // "" = ok
    std::string relative;  // expected when ok
  };
  const std::vector<Case> cases = {
      {"a.txt", "", "a.txt"},
      {"./sub/../a.txt", "", "a.txt"},
      {".", "", "."},
      {"sub/new/deeper.txt", "", "sub/new/deeper.txt"},
      {"~/notes.md", "", "~/notes.md"},
      {(ws_ / "sub" / "x").string(), "", "sub/x"},
      {"inlink/f.txt", "", "sub/f.txt"},
      {"rel-inlink/f.txt", "", "sub/f.txt"},
      {"inlink/../a.txt", "", "a.txt"},
      {"../etc/passwd", "PATH_OUTSIDE_WORKSPACE", ""},
      {"sub/../../x", "PATH_OUTSIDE_WORKSPACE", ""},
      {"newdir/../../x", "PATH_OUTSIDE_WORKSPACE", ""},
      {"/etc/passwd", "PATH_OUTSIDE_WORKSPACE", ""},
      {(base_ / "outside" / "secret").string(), "PATH_OUTSIDE_WORKSPACE", ""},
      {"escape/secret", "PATH_OUTSIDE_WORKSPACE", ""},
      {"escape", "PATH_OUTSIDE_WORKSPACE", ""},
      {"escape/../ws/a.txt", "", "a.txt"},  // kernel semantics: escape/.. is base_
      {"dangling", "PATH_OUTSIDE_WORKSPACE", ""},
      {"loop1", "PATH_SYMLINK_LOOP", ""},
      {"", "PATH_INVALID", ""},
  };
  for (const auto& c : cases) {
    auto r = resolve_workspace_path(ws_, c.path);
    if (c.code.empty()) {
      ASSERT_TRUE(r.ok()) << c.path << ": " << r.error().message;
      EXPECT_EQ(r->relative, c.relative) << c.path;
    } else {
      ASSERT_FALSE(r.ok()) << c.path << " resolved to " << r->real;
      EXPECT_EQ(r.error().code, c.code) << c.path;
    }
  }
  auto err = resolve_workspace_path(ws_, "../etc/passwd");
  EXPECT_EQ(err.error().message, "path \"../etc/passwd\" is outside the workspace");
}

TEST_F(ToolsTest, FinalSymlinkCanBeKeptForDeletes) {
  fs::create_symlink(outside_, ws_ / "escape");
  EXPECT_FALSE(resolve_workspace_path(ws_, "escape").ok());
  auto kept = resolve_workspace_path(ws_, "escape", FinalSymlink::kKeep);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->relative, "escape");
}

TEST_F(ToolsTest, WorkspaceGivenThroughASymlink) {
  fs::create_symlink(ws_, base_ / "alias");
  auto r = resolve_workspace_path(base_ / "alias", (base_ / "alias" / "f").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->relative, "f");
  EXPECT_EQ(resolve_workspace_path(base_ / "missing", "f").error().code, "WORKSPACE_MISSING");
}

// ---------------------------------------------------------------------------------------------
// Argument validation

TEST_F(ToolsTest, ArgumentsAreValidatedAgainstTheSchema) {
  auto out = call("read", json::object());
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.text, "read: missing required argument \"path\"");
  out = call("read", {{"path", "a"}, {"offset", "3"}});
  EXPECT_EQ(out.text, "read: argument \"offset\" must be an integer, got string");
  out = call("read", {{"path", nullptr}});
  EXPECT_EQ(out.text, "read: missing required argument \"path\"");
  out = call("read", json::array());
  EXPECT_EQ(out.text, "read: arguments must be a JSON object, got array");
  out = call("process", {{"action", "dance"}});
  EXPECT_TRUE(contains(out.text, "argument \"action\" must be one of \"list\", \"poll\""));
  out = call("exec", {{"command", "true"}, {"timeoutSeconds", true}});
  EXPECT_EQ(out.text, "exec: argument \"timeoutSeconds\" must be a number, got boolean");
  spit(ws_ / "a", "x\n");
  EXPECT_FALSE(call("read", {{"path", "a"}, {"offset", 1.0}, {"extra", 1}}).is_error);  // 1.0 is an integer
}

TEST(ToolText, SanitizeUtf8ReplacesInvalidSequences) {
  EXPECT_EQ(sanitize_utf8("h\xC3\xA9llo"), "h\xC3\xA9llo");
  EXPECT_EQ(sanitize_utf8("a\xE9z"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(sanitize_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(sanitize_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(sanitize_utf8("\xF0\x9F"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated
}

// ---------------------------------------------------------------------------------------------
// read

TEST_F(ToolsTest, ReadReturnsTextAndPages) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "line " + std::to_string(i) + "\n";
  spit(ws_ / "f.txt", text);
  auto out = call("read", {{"path", "f.txt"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(out.text, text.substr(0, text.size() - 1));
  EXPECT_EQ(out.details["totalLines"], 10);

  out = call("read", {{"path", "f.txt"}, {"offset", 3}, {"limit", 2}});
  EXPECT_EQ(out.text, "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]");
  out = call("read", {{"path", "f.txt"}, {"offset", 10}});
  EXPECT_EQ(out.text, "line 10");
  out = call("read", {{"path", "f.txt"}, {"offset", 11}});
  EXPECT_TRUE(out.is_error);
  EXPECT_EQ(out.text, "read: offset 11 is beyond the end of f.txt (10 lines)");
  EXPECT_TRUE(call("read", {{"path", "f.txt"}, {"offset", 0}}).is_error);
}

TEST_F(ToolsTest, ReadCapsLargeFilesWithAContinuationNote) {
  ctx_.max_output_chars = 1'000'000;  // the read page limit (50KB) applies
  std::string line(99, 'x');
  std::string text;
  for (int i = 0; i < 3000; ++i) text += line + "\n";
  spit(ws_ / "big.txt", text);
  auto out = call("read", {{"path", "big.txt"}});
  ASSERT_FALSE(out.is_error);
  EXPECT_LE(out.text.size(), kReadMaxBytes + 200);
  EXPECT_TRUE(contains(out.text, "[Showing lines 1-512 of 3000 (50KB limit). Use offset=513 to continue.]"))
      << out.text.substr(out.text.size() - 200);
  EXPECT_EQ(out.details["truncated"], true);

  spit(ws_ / "oneline.txt", std::string(200'000, 'y') + "\nsecond\n");
  out = call("read", {{"path", "oneline.txt"}});
  EXPECT_LE(out.text.size(), kReadMaxBytes + 200);
  EXPECT_TRUE(contains(out.text, "[Line 1 is longer than 50KB; showing its beginning only."));
  EXPECT_TRUE(contains(out.text, "Use offset=2 for the following lines.]"));
  EXPECT_EQ(call("read", {{"path", "oneline.txt"}, {"offset", 2}}).text, "second");
}

TEST_F(ToolsTest, ReadErrors) {
  spit(ws_ / "bin.dat", std::string("\x7f"
                                    "ELF\0\0\1",
                                    7));
  spit(ws_ / "empty.txt", "");
  spit(ws_ / "latin1.txt", "caf\xE9\n");
  fs::create_directories(ws_ / "dir");
  EXPECT_EQ(call("read", {{"path", "missing.txt"}}).text, "read: missing.txt: file not found");
  EXPECT_EQ(call("read", {{"path", "dir"}}).text, "read: dir is a directory");
  EXPECT_TRUE(contains(call("read", {{"path", "bin.dat"}}).text, "read: bin.dat is a binary file (7 bytes)"));
  EXPECT_EQ(call("read", {{"path", "../outside/x"}}).text, "read: path \"../outside/x\" is outside the workspace");
  EXPECT_EQ(call("read", {{"path", "empty.txt"}}).text, "(empty file)");
  EXPECT_EQ(call("read", {{"path", "latin1.txt"}}).text, "caf\xEF\xBF\xBD");
}

// ---------------------------------------------------------------------------------------------
// write

TEST_F(ToolsTest, WriteCreatesParentsAndReplacesAtomically) {
  auto out = call("write", {{"path", "a/b/c.txt"}, {"content", "hello\n"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(out.text, "Wrote 6 bytes to a/b/c.txt");
  EXPECT_EQ(slurp(ws_ / "a/b/c.txt"), "hello\n");

  ::chmod((ws_ / "a/b/c.txt").c_str(), 0640);
  ASSERT_FALSE(call("write", {{"path", "a/b/c.txt"}, {"content", ""}}).is_error);
  EXPECT_EQ(slurp(ws_ / "a/b/c.txt"), "");
  struct stat st {};
  ::stat((ws_ / "a/b/c.txt").c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  for (const auto& e : fs::directory_iterator(ws_ / "a/b")) EXPECT_EQ(e.path().filename(), "c.txt");  // no temp left
}

TEST_F(ToolsTest, WriteErrors) {
  fs::create_directories(ws_ / "dir");
  fs::create_symlink(outside_, ws_ / "escape");
  fs::create_symlink(outside_ / "planted", ws_ / "dangling");
  EXPECT_EQ(call("write", {{"path", "dir"}, {"content", "x"}}).text, "write: dir is a directory");
  EXPECT_TRUE(call("write", {{"path", "escape/x"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(call("write", {{"path", "dangling"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(call("write", {{"path", "/tmp/pincer-should-not-exist"}, {"content", "x"}}).is_error);
  EXPECT_FALSE(fs::exists(outside_ / "x"));
  EXPECT_FALSE(fs::exists(outside_ / "planted"));
  EXPECT_EQ(call("write", {{"path", "x"}}).text, "write: missing required argument \"content\"");
}

// ---------------------------------------------------------------------------------------------
// edit

TEST_F(ToolsTest, EditReplacesAUniqueMatch) {
  spit(ws_ / "f.txt", "alpha\nbeta\ngamma\n");
  auto out = call("edit", {{"path", "f.txt"}, {"oldText", "beta\n"}, {"newText", "BETA\nbeta2\n"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(slurp(ws_ / "f.txt"), "alpha\nBETA\nbeta2\ngamma\n");

  out = call("edit", {{"path", "f.txt"},
                      {"edits", {{{"oldText", "alpha"}, {"newText", "A"}}, {{"oldText", "gamma"}, {"newText", "G"}}}}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(slurp(ws_ / "f.txt"), "A\nBETA\nbeta2\nG\n");
}

TEST_F(ToolsTest, EditErrors) {
  spit(ws_ / "f.txt", "one two one\n");
  auto out = call("edit", {{"path", "f.txt"}, {"oldText", "three"}, {"newText", "3"}});
  EXPECT_TRUE(out.is_error);
  EXPECT_TRUE(contains(out.text, "edit: oldText not found in f.txt")) << out.text;
  out = call("edit", {{"path", "f.txt"}, {"oldText", "one"}, {"newText", "1"}});
  EXPECT_TRUE(contains(out.text, "edit: oldText matches 2 times in f.txt")) << out.text;
  out = call("edit", {{"path", "f.txt"}, {"oldText", ""}, {"newText", "1"}});
  EXPECT_EQ(out.text, "edit: oldText must not be empty");
  out = call("edit", {{"path", "f.txt"}, {"oldText", "two"}, {"newText", "two"}});
  EXPECT_TRUE(contains(out.text, "identical"));
  out = call("edit",
             {{"path", "f.txt"},
              {"edits", {{{"oldText", "one two"}, {"newText", "x"}}, {{"oldText", "two one"}, {"newText", "y"}}}}});
  EXPECT_TRUE(contains(out.text, "edits[0] and edits[1] overlap")) << out.text;
  out = call("edit", {{"path", "f.txt"}, {"oldText", "two"}});
  EXPECT_EQ(out.text, "edit: oldText and newText must be given together");
  out = call("edit", {{"path", "f.txt"}});
  EXPECT_TRUE(contains(out.text, "missing required argument \"oldText\""));
  out = call("edit", {{"path", "nope.txt"}, {"oldText", "a"}, {"newText", "b"}});
  EXPECT_EQ(out.text, "edit: nope.txt: file not found");
  EXPECT_EQ(slurp(ws_ / "f.txt"), "one two one\n");  // untouched by every failure
}

TEST_F(ToolsTest, EditMatchesLfTextInCrlfFiles) {
  spit(ws_ / "w.txt", "a\r\nb\r\nc\r\n");
  auto out = call("edit", {{"path", "w.txt"}, {"oldText", "a\nb\n"}, {"newText", "x\ny\n"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(slurp(ws_ / "w.txt"), "x\r\ny\r\nc\r\n");
}

// ---------------------------------------------------------------------------------------------
// apply_patch

TEST(ApplyPatchParse, OperationsAndHunks) {
  auto p = patch::parse_patch(
      "*** Begin Patch\n"
      "*** Add File: new.txt\n+one\n+two\n"
      "*** Delete File: old.txt\n"
      "*** Update File: src/a.c\n*** Move to: src/b.c\n@@ int main() {\n-  return 1;\n+  return 0;\n }\n"
      "@@\n+tail\n*** End of File\n"
      "*** End Patch\n");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->ops.size(), 3u);
  EXPECT_EQ(p->ops[0].content, "one\ntwo\n");
  EXPECT_EQ(p->ops[1].kind, patch::OpKind::kDelete);
  const auto& up = p->ops[2];
  EXPECT_EQ(up.move_to, "src/b.c");
  ASSERT_EQ(up.hunks.size(), 2u);
  EXPECT_EQ(up.hunks[0].context, "int main() {");
  EXPECT_EQ(up.hunks[0].old_lines, (std::vector<std::string>{"  return 1;", "}"}));
  EXPECT_EQ(up.hunks[0].new_lines, (std::vector<std::string>{"  return 0;", "}"}));
  EXPECT_TRUE(up.hunks[1].end_of_file);

  // CRLF and a heredoc wrapper are tolerated.
  EXPECT_TRUE(patch::parse_patch("<<'EOF'\r\n*** Begin Patch\r\n*** Delete File: x\r\n*** End Patch\r\nEOF\r\n").ok());
}

TEST(ApplyPatchParse, Errors) {
  struct Case {
    std::string input, message;
  };
  const std::vector<Case> cases = {
      {"*** Add File: x\n+a\n*** End Patch", "line 1: a patch must start with \"*** Begin Patch\""},
      {"*** Begin Patch\n*** Add File: x\n+a\n", "line 3: a patch must end with \"*** End Patch\""},
      {"*** Begin Patch\n*** End Patch", "line 1: the patch contains no file operations"},
      {"*** Begin Patch\nfoo\n*** End Patch",
       "line 2: expected \"*** Add File:\", \"*** Delete File:\" or \"*** Update File:\", got \"foo\""},
      {"*** Begin Patch\n*** Update File: a\n*** End Patch", "line 2: \"*** Update File: a\" has no hunks"},
      {"*** Begin Patch\n*** Update File: a\n@@\n-x\nbogus\n*** End Patch",
       "line 5: expected a \"@@\" hunk header, got \"bogus\""},
      {"*** Begin Patch\n*** Update File: a\nbogus\n*** End Patch",
       "line 3: unexpected line in hunk \"bogus\" (hunk lines start with ' ', '-' or '+')"},
      {"*** Begin Patch\n*** Add File: \n*** End Patch", "line 2: missing file path after \"*** Add File:\""},
  };
  for (const auto& c : cases) {
    auto p = patch::parse_patch(c.input);
    ASSERT_FALSE(p.ok()) << c.input;
    EXPECT_EQ(p.error().code, "PATCH_INVALID");
    EXPECT_EQ(p.error().message, c.message) << c.input;
  }
}

TEST(ApplyPatchHunks, LocatesHunksLikeCodex) {
  auto hunks = [](std::string body) {
    auto p = patch::parse_patch("*** Begin Patch\n*** Update File: f\n" + body + "*** End Patch");
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? p->ops[0].hunks : std::vector<patch::Hunk>{};
  };
  const std::string file = "def a():\n    return 1\n\ndef b():\n    return 1\n";
  // The @@ context picks the second "return 1".
  auto r = patch::apply_hunks(file, hunks("@@ def b():\n-    return 1\n+    return 2\n"), "f");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, "def a():\n    return 1\n\ndef b():\n    return 2\n");
  // Without context the first occurrence changes; trailing whitespace in the patch is forgiven.
  r = patch::apply_hunks(file, hunks("@@\n def a():   \n-    return 1\n+    return 0\n"), "f");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->substr(0, 22), "def a():\n    return 0\n");
  // Typographic quotes in the patch match ASCII quotes in the file.
  r = patch::apply_hunks("say(\"hi\")\n", hunks("-say(\u201Chi\u201D)\n+say(\"bye\")\n"), "f");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "say(\"bye\")\n");
  // A pure addition appends; End of File anchors at the end; a missing final newline is added.
  r = patch::apply_hunks("x\ny", hunks("@@\n+z\n"), "f");
  EXPECT_EQ(*r, "x\ny\nz\n");
  r = patch::apply_hunks("y\nx\ny\n", hunks("@@\n-y\n+end\n*** End of File\n"), "f");
  EXPECT_EQ(*r, "y\nx\nend\n");
  // CRLF files stay CRLF.
  r = patch::apply_hunks("a\r\nb\r\n", hunks("@@\n-a\n+A\n"), "f");
  EXPECT_EQ(*r, "A\r\nb\r\n");
  // Mismatches name the file and the expected lines.
  r = patch::apply_hunks(file, hunks("@@\n-nothing here\n+x\n"), "src/f.py");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "could not find the expected lines in src/f.py:\nnothing here");
  r = patch::apply_hunks(file, hunks("@@ def zzz():\n-x\n"), "f");
  EXPECT_EQ(r.error().message, "could not find the context \"@@ def zzz():\" in f");
}

TEST_F(ToolsTest, ApplyPatchAddsUpdatesMovesAndDeletes) {
  spit(ws_ / "src/a.txt", "one\ntwo\nthree\n");
  spit(ws_ / "old.txt", "bye\n");
  spit(ws_ / "mv.txt", "keep\nchange\n");
  auto out = call("apply_patch", {{"input",
                                   "*** Begin Patch\n"
                                   "*** Add File: docs/new.md\n+# New\n+\n+text\n"
                                   "*** Update File: src/a.txt\n@@\n one\n-two\n+TWO\n three\n"
                                   "*** Delete File: old.txt\n"
                                   "*** Update File: mv.txt\n*** Move to: moved/mv.txt\n@@\n keep\n-change\n+changed\n"
                                   "*** End Patch"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(out.text,
            "Success. Updated the following files:\nA docs/new.md\nM src/a.txt\nD old.txt\nM moved/mv.txt (moved from "
            "mv.txt)");
  EXPECT_EQ(slurp(ws_ / "docs/new.md"), "# New\n\ntext\n");
  EXPECT_EQ(slurp(ws_ / "src/a.txt"), "one\nTWO\nthree\n");
  EXPECT_FALSE(fs::exists(ws_ / "old.txt"));
  EXPECT_FALSE(fs::exists(ws_ / "mv.txt"));
  EXPECT_EQ(slurp(ws_ / "moved/mv.txt"), "keep\nchanged\n");
}

TEST_F(ToolsTest, ApplyPatchChecksEverythingBeforeWriting) {
  spit(ws_ / "a.txt", "a\n");
  spit(ws_ / "exists.txt", "e\n");
  fs::create_symlink(outside_, ws_ / "escape");
  struct Case {
    std::string body, message;
  };
  const std::vector<Case> cases = {
      {"*** Update File: a.txt\n@@\n-zzz\n+y\n", "apply_patch: could not find the expected lines in a.txt:\nzzz"},
      {"*** Add File: exists.txt\n+x\n", "apply_patch: cannot add exists.txt: the file already exists"},
      {"*** Delete File: nope.txt\n", "apply_patch: cannot delete nope.txt: file not found"},
      {"*** Update File: nope.txt\n@@\n-a\n", "apply_patch: nope.txt: file not found"},
      {"*** Add File: ../evil.txt\n+x\n", "apply_patch: path \"../evil.txt\" is outside the workspace"},
      {"*** Add File: escape/evil.txt\n+x\n", "apply_patch: path \"escape/evil.txt\" is outside the workspace"},
      {"*** Update File: a.txt\n*** Move to: exists.txt\n@@\n-a\n+b\n",
       "apply_patch: cannot move a.txt to exists.txt: the destination already exists"},
      {"*** Bogus\n", "apply_patch: invalid patch: line 4: expected"},
  };
  for (const auto& c : cases) {
    // Each patch first adds a file; the failing operation after it must prevent that write too.
    auto out =
        call("apply_patch", {{"input", "*** Begin Patch\n*** Add File: added.txt\n+x\n" + c.body + "*** End Patch"}});
    EXPECT_TRUE(out.is_error) << c.body;
    EXPECT_TRUE(contains(out.text, c.message)) << out.text;
    EXPECT_FALSE(fs::exists(ws_ / "added.txt")) << c.body;
  }
  EXPECT_EQ(slurp(ws_ / "a.txt"), "a\n");
  EXPECT_FALSE(fs::exists(base_ / "evil.txt"));
  EXPECT_FALSE(fs::exists(outside_ / "evil.txt"));

  // Delete then re-add in one patch is allowed; deleting a symlink removes the link only.
  auto out = call("apply_patch", {{"input",
                                   "*** Begin Patch\n*** Delete File: exists.txt\n*** Add File: exists.txt\n+new\n"
                                   "*** Delete File: escape\n*** End Patch"}});
  ASSERT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(slurp(ws_ / "exists.txt"), "new\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws_ / "escape")));
  EXPECT_TRUE(fs::exists(outside_));
}

// ---------------------------------------------------------------------------------------------
// Registry and policy (TL-2)

std::vector<std::string> names(const Result<std::vector<const Tool*>>& tools) {
  std::vector<std::string> out;
  if (!tools.ok()) return {"error: " + tools.error().message};
  for (const Tool* t : *tools) out.emplace_back(t->name());
  return out;
}

// The tools these policy cases were written for (fs, runtime, memory, web, cron): tools added to
// the built-in registry later (skills, session tools, subagents) do not change what they check.
ToolRegistry core_tools_registry() {
  ToolRegistry r;
  for (auto& t : make_fs_tools()) r.add(std::move(t));
  for (auto& t : make_runtime_tools()) r.add(std::move(t));
  for (auto& t : make_memory_tools()) r.add(std::move(t));
  for (auto& t : make_web_tools()) r.add(std::move(t));
  r.add(make_cron_tool());
  return r;
}

TEST(ToolPolicy, ProfilesAllowDenyGroupsAndWildcards) {
  const auto reg = core_tools_registry();
  using V = std::vector<std::string>;
  const V all = {"read", "write", "edit", "apply_patch", "exec", "process", "memory_search", "memory_get", "web_fetch", "web_search", "cron"};
  struct Case {
    ToolPolicy policy;
    V expected;
  };
  const std::vector<Case> cases = {
      {{"", {}, {}, {}}, all},
      {{"full", {}, {}, {}}, all},
      {{"coding", {}, {}, {}}, all},
      {{"minimal", {}, {}, {}}, {}},
      {{"messaging", {}, {}, {}}, {}},
      {{"Coding", {"read"}, {}, {}}, {"read"}},
      {{"coding", {"group:fs"}, {}, {}}, {"read", "write", "edit", "apply_patch"}},
      {{"coding", {}, {}, {"group:runtime"}}, {"read", "write", "edit", "apply_patch", "memory_search", "memory_get", "web_fetch", "web_search", "cron"}},
      {{"", {"*"}, {}, {"exec"}}, {"read", "write", "edit", "apply_patch", "process", "memory_search", "memory_get", "web_fetch", "web_search", "cron"}},
      {{"coding", {}, {}, {"group:runtime", "group:web"}}, {"read", "write", "edit", "apply_patch", "memory_search", "memory_get", "cron"}},
      {{"", {"exec"}, {}, {"exec"}}, {}},                    // deny beats allow
      {{"", {"group:runtime"}, {}, {"process"}}, {"exec"}},  // deny beats a group allow
      {{"", {"e*"}, {}, {}}, {"edit", "exec"}},
      {{"", {"*_patch", "READ"}, {}, {}}, {"read", "apply_patch"}},
      {{"", {"write"}, {}, {}}, {"write", "apply_patch"}},  // OpenClaw: allowing write allows apply_patch
      {{"", {}, {}, {"write"}},
       {"read", "edit", "apply_patch", "exec", "process", "memory_search", "memory_get", "web_fetch", "web_search", "cron"}},  // ...but denying it does not deny it
      {{"", {"bash"}, {}, {}}, {"exec"}},
      {{"", {}, {}, {"*"}}, {}},
      {{"minimal", {"read"}, {}, {}}, {}},                                            // allow narrows, never widens
      {{"minimal", {}, {"read", "group:runtime"}, {}}, {"read", "exec", "process"}},  // alsoAllow widens
      {{"messaging", {}, {"group:fs"}, {"edit"}}, {"read", "write", "apply_patch"}},
      {{"", {"group:nope"}, {}, {}}, {}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(names(reg.effective_tools(c.policy)), c.expected)
        << "profile=" << c.policy.profile << " allow=" << json(c.policy.allow)
        << " alsoAllow=" << json(c.policy.also_allow) << " deny=" << json(c.policy.deny);
  }
  EXPECT_EQ(names(reg.effective_tools("coding", {"read", "exec"}, {"exec"})), V{"read"});
  auto bad = reg.effective_tools("admin", {}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "TOOLS_PROFILE_UNKNOWN");
  EXPECT_EQ(bad.error().message, "unknown tools.profile \"admin\" (expected minimal, coding, messaging or full)");
}

TEST(ToolPolicy, GroupsAndDefinitions) {
  const auto reg = ToolRegistry::builtin();
  EXPECT_EQ(group_members("fs"), (std::vector<std::string>{"read", "write", "edit", "apply_patch"}));
  EXPECT_TRUE(group_members("unknown").empty());
  for (const Tool* t : reg.all()) {
    const std::string group(t->group());
    EXPECT_TRUE(policy_entry_matches("group:" + group, *t)) << t->name();
    EXPECT_EQ(t->parameters()["type"], "object") << t->name();
    EXPECT_FALSE(t->description().empty());
  }
  EXPECT_EQ(reg.find("nope"), nullptr);
  const auto core = core_tools_registry();
  auto defs = ToolRegistry::definitions(core.all());
  ASSERT_EQ(defs.size(), 11u);  // fs 4, exec, process, memory 2, web 2, cron
  EXPECT_EQ(defs[0]["name"], "read");
  EXPECT_EQ(defs[0]["parameters"]["required"], json({"path"}));
  EXPECT_EQ(defs[4]["name"], "exec");
}

}  // namespace
}  // namespace pincer::tools::tools_test
