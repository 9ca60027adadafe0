// `/dreaming` (memory/dreaming/dreaming_command.h): the status it shows, who may turn it on or off,
// and the merge patch it writes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memory/dreaming/dreaming_command.h"

namespace pincer::memory::dreaming {
namespace {

using nlohmann::json;

// 2026-12-05T12:00:00Z
constexpr int64_t kNow = 1'796'472'000'000;

json config_with(json dreaming) {
  return {{"plugins", {{"entries", {{"memory-core", {{"config", {{"dreaming", std::move(dreaming)}}}}}}}}}};
}

TEST(DreamingCommand, StatusShowsTheSettingsTheNextSweepAndTheGates) {
  const json cfg = config_with({{"enabled", true}, {"frequency", "30 4 * * *"}, {"timezone", "UTC"},
                                {"phases", {{"deep", {{"minScore", 0.8}, {"minRecallCount", 4}}}}}});
  const auto r = dreaming_command(cfg, "status", {}, kNow);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.text,
            "Dreaming status:\n- enabled: on (UTC)\n- sweep cadence: 30 4 * * *; next sweep 2026-12-06T04:30:00.000Z\n"
            "- promotion policy: score>=0.8, recalls>=4, uniqueQueries>=2");
}

TEST(DreamingCommand, StatusSaysWhyNoSweepRuns) {
  json cfg = config_with({{"enabled", true}, {"timezone", "UTC"}});
  cfg["cron"] = {{"enabled", false}};
  EXPECT_NE(dreaming_command(cfg, "STATUS", {}, kNow).text.find("no sweep scheduled: cron.enabled is false"),
            std::string::npos);
  const auto off = dreaming_command(json::object(), "status", {}, kNow).text;
  EXPECT_NE(off.find("- enabled: off"), std::string::npos) << off;
  EXPECT_NE(off.find("no sweep scheduled: plugins.entries.memory-core.config.dreaming.enabled is false"), std::string::npos)
      << off;
}

TEST(DreamingCommand, NoArgumentOrHelpShowsUsageStatusAndPhases) {
  for (const char* arg : {"", "help", "phases"}) {
    const auto r = dreaming_command(json::object(), arg, {}, kNow);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.text.rfind("Usage: /dreaming status\nUsage: /dreaming on|off\n\nDreaming status:", 0), 0u) << arg;
    EXPECT_NE(r.text.find("deep is the only phase that writes durable entries to MEMORY.md"), std::string::npos);
  }
}

TEST(DreamingCommand, AnUnknownArgumentIsSaid) {
  const auto r = dreaming_command(json::object(), "bogus", {}, kNow);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text.rfind("⚠️ /dreaming bogus: unknown argument.\n\nUsage: /dreaming status", 0), 0u) << r.text;
}

TEST(DreamingCommand, OnAndOffNeedTheOwnerAndAWriter) {
  int writes = 0;
  DreamingCommandAccess stranger{false, [&](const json&) -> Status {
                                   ++writes;
                                   return Ok{};
                                 }};
  auto refused = dreaming_command(json::object(), "on", stranger, kNow);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.text.find("requires owner status"), std::string::npos) << refused.text;
  EXPECT_EQ(writes, 0);

  DreamingCommandAccess no_writer{true, {}};
  auto cannot = dreaming_command(json::object(), "off", no_writer, kNow);
  EXPECT_FALSE(cannot.ok);
  EXPECT_NE(cannot.text.find("pincer config set plugins.entries.memory-core.config.dreaming.enabled false"),
            std::string::npos)
      << cannot.text;
}

TEST(DreamingCommand, OnWritesTheEnabledFlagAndShowsTheNewStatus) {
  json written;
  DreamingCommandAccess owner{true, [&](const json& patch) -> Status {
                                written = patch;
                                return Ok{};
                              }};
  const json cfg = config_with({{"frequency", "0 5 * * *"}, {"timezone", "UTC"}});
  const auto r = dreaming_command(cfg, " On ", owner, kNow);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(written, config_with({{"enabled", true}})) << "only the flag is patched: the rest of the block stays";
  EXPECT_EQ(r.text.rfind("Dreaming enabled.\n\nDreaming status:\n- enabled: on (UTC)", 0), 0u) << r.text;
  EXPECT_NE(r.text.find("next sweep 2026-12-06T05:00:00.000Z"), std::string::npos) << r.text;

  const auto off = dreaming_command(cfg, "off", owner, kNow);
  EXPECT_EQ(written, config_with({{"enabled", false}}));
  EXPECT_EQ(off.text.rfind("Dreaming disabled.", 0), 0u) << off.text;
}

TEST(DreamingCommand, AFailedWriteIsSaid) {
  DreamingCommandAccess owner{true, [](const json&) -> Status {
                                return Error{"CONFIG_INVALID", "pincer.json: locked by another writer"};
                              }};
  const auto r = dreaming_command(json::object(), "on", owner, kNow);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "⚠️ /dreaming on: pincer.json: locked by another writer");
}

}  // namespace
}  // namespace pincer::memory::dreaming
