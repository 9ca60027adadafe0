// Tests of `pincer import openclaw` below the CLI (cli/openclaw_import.h): run_import() on
// temporary directories — dry run, import then refusal then --force, rollback of a failed commit,
// refusal while a gateway owns the target, workspaces, cron jobs, corrupt state files, bad sources
// and auth profiles. The config mapping is tested in openclaw_map_test.cpp; shared helpers in
// openclaw_import_test_support.h. The real binary against a gateway is tested in
// tests/integration/openclaw_import_test.cpp.
#include "cli/openclaw_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.h"
#include "store/instance_lock.h"
#include "openclaw_import_test_support.h"
#include "test_helpers.h"

namespace pincer::cli::openclaw::openclaw_import_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using pincer::test_helpers::env_of;
using pincer::test_helpers::slurp;
using openclaw_import_test_support::kFixture;
using openclaw_import_test_support::TempDir;

// ---- run_import ---------------------------------------------------------------------------------

// A copy of the fixture home (so that tests may change it) and an empty Pincer home next to it.
struct ImportFixture : ::testing::Test {
  TempDir dir;
  fs::path source = dir.path() / "openclaw";
  fs::path target = dir.path() / "pincer";
  void SetUp() override { fs::copy(kFixture, source, fs::copy_options::recursive); }
  ImportOptions options(bool dry_run = false, bool force = false) const {
    ImportOptions o;
    o.source = source;
    o.target = target;
    o.dry_run = dry_run;
    o.force = force;
    o.env = env_of({{"HOME", dir.path().string()}, {"OPENCLAW_TEST_GATEWAY_TOKEN", "t"}});
    o.now_ms = 1'772'720'521'123;
    return o;
  }
  static std::vector<std::string> listing(const fs::path& root) {
    std::vector<std::string> out;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root)) out.push_back(e.path().lexically_relative(root).string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(ImportFixture, DryRunReportsEverythingAndWritesNothing) {
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(out.report.written);
  ASSERT_EQ(out.report.copied.size(), 4u);
  EXPECT_EQ(out.report.copied[0].kind, "workspace");
  EXPECT_EQ(out.report.copied[0].files, 2u);
  EXPECT_EQ(out.report.copied[1].kind, "sessions");
  EXPECT_EQ(out.report.copied[1].count, 1u);
  EXPECT_EQ(out.report.copied[1].files, 2u);
  EXPECT_EQ(out.report.copied[1].bytes, fs::file_size(source / "agents/main/sessions/sessions.json") +
                                            fs::file_size(source / "agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl"));
  EXPECT_EQ(out.report.copied[2].kind, "devices");
  EXPECT_EQ(out.report.copied[2].count, 1u);
  EXPECT_EQ(out.report.copied[3].kind, "cron");
  EXPECT_EQ(out.report.copied[3].count, 1u);
  EXPECT_THAT(out.report.copied[3].note, HasSubstr("schedules them at its next start"));
  // The JSON layout is counted as the SQLite one is (the fixture: 1 session, its transcript with
  // 2 messages, 1 cron job, no auth profiles).
  EXPECT_EQ(out.report.counts["sessions"], 1u);
  EXPECT_EQ(out.report.counts["transcripts"], 1u);
  EXPECT_EQ(out.report.counts["messages"], 2u);
  EXPECT_EQ(out.report.counts["cron jobs"], 1u);
  EXPECT_EQ(out.report.counts["auth profiles"], 0u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would skip channels: not imported: set up channels again"));
  EXPECT_THAT(text, HasSubstr("would skip devices/pending.json"));
  EXPECT_THAT(text, HasSubstr("1 archived transcript(s)"));
  EXPECT_THAT(text, HasSubstr("Dry run: nothing was written"));
  // OPENCLAW_TEST_MOCK_URL is not set in this environment: warned, not an error.
  EXPECT_THAT(text, HasSubstr("models.providers.mock.baseUrl uses ${OPENCLAW_TEST_MOCK_URL}, which is not set"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("OPENCLAW_TEST_GATEWAY_TOKEN}, which")));
  const json j = to_json(out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["dryRun"], true);
  EXPECT_EQ(j["config"]["sourceExists"], true);
  EXPECT_THAT(j.dump(), ::testing::Not(HasSubstr("test-key")));  // no config values, no secrets
}

TEST_F(ImportFixture, ImportsThenRefusesThenForceMovesAside) {
  auto first = run_import(options());
  ASSERT_EQ(first.exit_code, kExitOk) << (first.error ? first.error->message : "");
  EXPECT_TRUE(first.report.written);
  const auto transcript = fs::path("agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl");
  EXPECT_EQ(slurp(target / transcript), slurp(source / transcript));
  EXPECT_EQ(slurp(target / "agents/main/sessions/sessions.json"), slurp(source / "agents/main/sessions/sessions.json"));
  EXPECT_EQ(slurp(target / "devices/paired.json"), slurp(source / "devices/paired.json"));
  EXPECT_EQ(slurp(target / "cron/jobs.json"), slurp(source / "cron/jobs.json"));
  EXPECT_EQ(slurp(target / "workspace/memory/2026-03-05.md"), slurp(source / "workspace/memory/2026-03-05.md"));
  EXPECT_FALSE(fs::exists(target / "devices/pending.json"));
  EXPECT_FALSE(fs::exists(target / "agents/main/sessions/0a0b0c0d-1111-4222-8333-444455556666.jsonl.reset.2026-03-05T14-00-00.000Z"));
  for (const auto& rel : listing(target)) EXPECT_EQ(rel.find(".openclaw-import-"), std::string::npos) << rel;
  struct stat st {};
  ASSERT_EQ(::stat((target / "pincer.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((target / "workspace/memory").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // The written file loads as the gateway loads it.
  auto loaded = config::load(target / "pincer.json",
                             env_of({{"OPENCLAW_TEST_GATEWAY_TOKEN", "t"}, {"OPENCLAW_TEST_MOCK_URL", "http://127.0.0.1:9/v1"}}));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->effective["gateway"]["auth"]["token"], "t");

  const std::string written = slurp(target / "pincer.json");
  auto again = run_import(options());
  EXPECT_EQ(again.exit_code, kExitFailed);
  ASSERT_TRUE(again.error);
  EXPECT_EQ(again.error->code, "TARGET_EXISTS");
  EXPECT_THAT(again.error->message, HasSubstr((target / "pincer.json").string()));
  EXPECT_THAT(again.error->message, HasSubstr("--force"));
  EXPECT_EQ(again.report.conflicts.size(), 5u);
  EXPECT_EQ(slurp(target / "pincer.json"), written);

  fs::remove(target / "workspace" / "AGENTS.md");  // a change the forced import must not lose
  auto forced = run_import(options(false, /*force=*/true));
  ASSERT_EQ(forced.exit_code, kExitOk) << (forced.error ? forced.error->message : "");
  ASSERT_EQ(forced.report.backups.size(), 5u);
  const fs::path moved = target / "workspace.pre-import-2026-03-05T14-22-01.123Z";
  EXPECT_EQ(forced.report.backups[0].backup, moved);
  EXPECT_TRUE(fs::is_directory(moved));
  EXPECT_FALSE(fs::exists(moved / "AGENTS.md"));
  EXPECT_TRUE(fs::exists(target / "workspace" / "AGENTS.md"));
  EXPECT_EQ(slurp(target / "pincer.json.pre-import-2026-03-05T14-22-01.123Z"), written);
}

TEST_F(ImportFixture, FailedCommitLeavesNothingHalfImported) {
  fs::create_directories(target);
  std::ofstream(target / "agents") << "a file where a directory must go";
  auto out = run_import(options());
  EXPECT_EQ(out.exit_code, kExitFailed);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "IO_ERROR");
  EXPECT_THAT(out.error->message, HasSubstr((target / "agents").string()));
  // The workspace had been moved into place before the failure: it was moved back out.
  EXPECT_EQ(listing(target), (std::vector<std::string>{"agents", "gateway.lock"}));
}

TEST_F(ImportFixture, RefusesWhileAGatewayOwnsTheTarget) {
  fs::create_directories(target);
  auto held = store::InstanceLock::acquire(target / "gateway.lock");
  ASSERT_TRUE(held);
  auto out = run_import(options());
  EXPECT_EQ(out.exit_code, kExitFailed);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code, "GATEWAY_ALREADY_RUNNING");
  EXPECT_EQ(listing(target), (std::vector<std::string>{"gateway.lock"}));
  EXPECT_EQ(run_import(options(/*dry_run=*/true)).exit_code, kExitOk);  // a dry run only reads
}

TEST_F(ImportFixture, EmptyTargetDirectoriesDoNotCount) {
  fs::create_directories(target / ".openclaw-import-Xy12ab/workspace");  // left by a killed import
  fs::create_directories(target / "workspace");
  fs::create_directories(target / "agents/main/sessions");
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_TRUE(fs::exists(target / "workspace/AGENTS.md"));
  EXPECT_TRUE(out.report.backups.empty());
  EXPECT_FALSE(fs::exists(target / ".openclaw-import-Xy12ab"));
  EXPECT_THAT(to_text(out), HasSubstr("left behind by an interrupted import"));
}

TEST_F(ImportFixture, WorkspaceLinksAndOtherDirectories) {
  fs::create_symlink("AGENTS.md", source / "workspace" / "inside-link");
  fs::create_symlink("/etc/passwd", source / "workspace" / "outside-link");
  fs::create_directories(source / "credentials");
  fs::create_directories(source / "workspace-old");
  std::ofstream(source / ".env") << "OPENCLAW_TEST_MOCK_URL=http://x\n";
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_TRUE(fs::is_symlink(target / "workspace" / "inside-link"));
  EXPECT_EQ(fs::read_symlink(target / "workspace" / "inside-link"), "AGENTS.md");
  EXPECT_FALSE(fs::exists(fs::symlink_status(target / "workspace" / "outside-link")));
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("skipped  workspace/outside-link: symbolic link to /etc/passwd points outside"));
  EXPECT_THAT(text, HasSubstr("skipped  credentials/: channel logins"));
  EXPECT_THAT(text, HasSubstr("skipped  workspace-old/: no agent in openclaw.json uses this workspace"));
  EXPECT_THAT(text, HasSubstr("skipped  .env: Pincer does not read .env files"));
  EXPECT_THAT(text, HasSubstr("(OpenClaw may have read it from its .env"));
}

TEST_F(ImportFixture, OpenClawsOwnCronJobsAreLeftOutOfTheJsonLayoutsJobs) {
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << R"({"version": 1, "jobs": [
    {"id": "hb", "name": "heartbeat", "declarationKey": "heartbeat:main", "schedule": {"kind": "every", "everyMs": 1800000},
     "sessionTarget": "main", "wakeMode": "now", "payload": {"kind": "systemEvent", "text": "HEARTBEAT"}},
    {"id": "mine", "name": "water", "enabled": true, "schedule": {"kind": "cron", "expr": "0 9 * * *"},
     "sessionTarget": "isolated", "wakeMode": "now", "payload": {"kind": "agentTurn", "message": "water"}}]})";
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const json jobs = json::parse(slurp(target / "cron/jobs.json"));
  EXPECT_EQ(jobs["version"], 1);
  ASSERT_EQ(jobs["jobs"].size(), 1u);
  EXPECT_EQ(jobs["jobs"][0]["id"], "mine");
  EXPECT_THAT(to_text(out), HasSubstr("skipped  cron/jobs.json job_id=hb: \"heartbeat\" is managed by OpenClaw"));
  for (const auto& c : out.report.copied) {
    if (c.kind == "cron") {
      EXPECT_EQ(c.count, 1u);
    }
  }
}

TEST_F(ImportFixture, CorruptStateFilesAreSkippedWithTheirPlace) {
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << "{\n  \"version\": 1,\n  jobs: [\n";
  std::ofstream(source / "agents/main/sessions/sessions.json", std::ios::trunc) << "{\"agent:main:main\": 5}";
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would skip cron/jobs.json: invalid, not imported: " + (source / "cron/jobs.json").string() + ":4:1"));
  EXPECT_THAT(text, HasSubstr("would skip agents/main/sessions: invalid, not imported"));
  for (const auto& c : out.report.copied) EXPECT_NE(c.kind, "cron");
  for (const auto& c : out.report.copied) EXPECT_NE(c.kind, "sessions");
}

TEST_F(ImportFixture, DryRunSaysWhatItWouldDoAndNamesWhereAFileIsMalformed) {
  std::ofstream(source / "agents/main/sessions/sessions.json", std::ios::trunc) << "{\n  \"agent:main:main\": {},, }\n";
  auto out = run_import(options(/*dry_run=*/true));
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("would copy cron jobs"));
  EXPECT_THAT(text, Not(HasSubstr("copied ")));
  EXPECT_THAT(text, Not(HasSubstr("  mapped ")));
  EXPECT_THAT(text, HasSubstr("would skip agents/main/sessions: invalid, not imported: " +
                              (source / "agents/main/sessions/sessions.json").string() +
                              ":2:25: unexpected ',' (expected a quoted key)"));
  EXPECT_THAT(text, Not(HasSubstr("syntax error while parsing")));
  EXPECT_THAT(text, Not(HasSubstr("string literal")));
}

TEST_F(ImportFixture, JsonLayoutTranscriptFlawsAreNamedAndCountsReadBack) {
  const auto rel = fs::path("agents/main/sessions/6f1c2a9e-0b7d-4c1e-9a55-3e2f8d1b7c40.jsonl");
  std::ofstream(source / rel, std::ios::app) << "{not json\n";
  // Two jobs with one id: the gateway's cron store would refuse the whole file.
  const std::string jobs = slurp(source / "cron/jobs.json");
  json doc = json::parse(jobs);
  doc["jobs"].push_back(doc["jobs"][0]);
  std::ofstream(source / "cron/jobs.json", std::ios::trunc) << doc.dump(2);
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_EQ(slurp(target / rel), slurp(source / rel)) << "copied as it is, flaws included";
  EXPECT_EQ(out.report.counts["messages"], 2u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr(rel.string() + ":6: invalid JSON"));
  EXPECT_THAT(text, HasSubstr("Pincer skips that line"));
  EXPECT_THAT(text, HasSubstr("skipped  cron/jobs.json: invalid, not imported"));
  EXPECT_FALSE(fs::exists(target / "cron/jobs.json"));
  EXPECT_EQ(out.report.counts["cron jobs"], 0u);
}

TEST_F(ImportFixture, BadSources) {
  auto o = options();
  o.source = dir.path() / "missing";
  auto missing = run_import(o);
  EXPECT_EQ(missing.exit_code, kExitBadSource);
  EXPECT_EQ(missing.error->message, (dir.path() / "missing").string() + ": no such directory (name the OpenClaw state dir with --from)");

  fs::create_directories(dir.path() / "empty");  // a directory, but no OpenClaw state in it
  o.source = dir.path() / "empty";
  auto empty = run_import(o);
  EXPECT_EQ(empty.exit_code, kExitBadSource);
  EXPECT_THAT(empty.error->message, HasSubstr("not an OpenClaw state dir"));

  o = options();
  o.target = source / "pincer";  // inside the source: staging would write into it
  auto overlap = run_import(o);
  EXPECT_EQ(overlap.exit_code, kExitBadSource);
  EXPECT_THAT(overlap.error->message, HasSubstr("overlap"));

  std::ofstream(source / "openclaw.json", std::ios::trunc) << "{\n  gateway: {\n    port: 18789,,\n  },\n}\n";
  auto invalid = run_import(options());
  EXPECT_EQ(invalid.exit_code, kExitBadSource);
  EXPECT_EQ(invalid.error->code, "CONFIG_INVALID");
  EXPECT_THAT(invalid.error->message, ::testing::StartsWith((source / "openclaw.json").string() + ":3:17: "));
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(ImportFixture, WithoutOpenClawJsonOnlyStateIsImported) {
  fs::remove(source / "openclaw.json");
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  EXPECT_FALSE(fs::exists(target / "pincer.json"));
  EXPECT_TRUE(fs::exists(target / "workspace/AGENTS.md"));
  EXPECT_TRUE(fs::exists(target / "agents/main/sessions/sessions.json"));
  EXPECT_THAT(out.report.warnings[0], HasSubstr("no openclaw.json"));
}

TEST_F(ImportFixture, AuthProfilesComeOverWithTheirCooldownsAndBrokenOnesAreReported) {
  const json profiles = {{"version", 1},
                         {"profiles", {{"openai:work", {{"type", "api_key"}, {"provider", "openai"}, {"key", "sk-work-0000"}}},
                                       {"openai:home", {{"type", "api_key"}, {"provider", "openai"}, {"key", "sk-home-1111"}}}}},
                         {"usageStats", {{"openai:work", {{"disabledUntil", 1'900'000'000'000}, {"disabledReason", "billing"}}}}}};
  dir.write("openclaw/agents/main/agent/auth-profiles.json", profiles.dump());
  dir.write("openclaw/agents/main/agent/models.json", "{}");
  json with_bad = profiles;
  with_bad["profiles"]["openai:odd"] = {{"type", "magic"}, {"provider", "openai"}};
  dir.write("openclaw/agents/main/agent/auth-profiles.json", with_bad.dump());
  auto out = run_import(options());
  ASSERT_EQ(out.exit_code, kExitOk) << (out.error ? out.error->message : "");
  const auto copied = std::find_if(out.report.copied.begin(), out.report.copied.end(),
                                   [](const CopiedItem& c) { return c.kind == "auth-profiles"; });
  ASSERT_NE(copied, out.report.copied.end());
  EXPECT_EQ(copied->agent_id, "main");
  EXPECT_EQ(copied->count, 2u);
  EXPECT_EQ(out.report.counts["auth profiles"], 2u) << "the profiles Pincer can use";
  const fs::path file = target / "agents/main/agent/auth-profiles.json";
  EXPECT_EQ(json::parse(slurp(file)), with_bad) << "the cooldowns come over too; the file is copied as it is";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string text = to_text(out);
  EXPECT_THAT(text, HasSubstr("auth profiles of agent main"));
  EXPECT_THAT(text, HasSubstr("2 profiles"));
  EXPECT_THAT(text, HasSubstr("agents/main/agent/models.json"));
  EXPECT_THAT(text, HasSubstr("profile openai:odd: type must be api_key, token or oauth"));
  EXPECT_THAT(to_json(out).dump(), ::testing::Not(HasSubstr("sk-work-0000"))) << "the report shows no secret";

  TempDir other;
  fs::copy(kFixture, other.path() / "openclaw", fs::copy_options::recursive);
  other.write("openclaw/agents/main/agent/auth-profiles.json", R"({"profiles": []})");
  ImportOptions o = options();
  o.source = other.path() / "openclaw";
  o.target = other.path() / "pincer";
  auto broken = run_import(o);
  ASSERT_EQ(broken.exit_code, kExitOk) << (broken.error ? broken.error->message : "");
  EXPECT_FALSE(fs::exists(o.target / "agents/main/agent/auth-profiles.json"));
  EXPECT_THAT(to_text(broken), HasSubstr("profiles must be an object"));
}

}  // namespace
}  // namespace pincer::cli::openclaw::openclaw_import_test
