// The agent's `cron` tool (AT-2, src/tools/cron_tool.h): a job the agent adds from a chat gets
// the run's agent, an isolated session for its turn and that chat as its announce target; a job
// naming its own target keeps it; the actions reach the backend with OpenClaw's params.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/cron_tool.h"

namespace pincer::tools {
namespace {

using nlohmann::json;

struct RecordingCronBackend : CronBackend {
  std::string action;
  json params;
  Result<json> call(const std::string& a, const json& p) override {
    action = a;
    params = p;
    return json{{"ok", true}};
  }
};

ToolContext telegram_run() {
  ToolContext ctx;
  ctx.agent_id = "main";
  ctx.origin = {"telegram", "default", "1001", "", ""};
  return ctx;
}

TEST(CronTool, AJobFromAChatAnnouncesInThatChat) {
  const json job = cron_job_with_run_defaults(
      json{{"schedule", {{"kind", "at"}, {"at", "2026-07-01T08:00"}}}, {"payload", {{"kind", "agentTurn"}, {"message", "water"}}}},
      telegram_run());
  EXPECT_EQ(job["agentId"], "main");
  EXPECT_EQ(job["sessionTarget"], "isolated");
  EXPECT_EQ(job["delivery"], json({{"mode", "announce"}, {"channel", "telegram"}, {"to", "1001"}, {"accountId", "default"}}));
}

TEST(CronTool, AJobKeepsItsOwnTargetAndSystemEventsGetNone) {
  json own = {{"payload", {{"kind", "agentTurn"}, {"message", "x"}}},
              {"delivery", {{"mode", "announce"}, {"channel", "irc"}, {"to", "#ops"}}}};
  EXPECT_EQ(cron_job_with_run_defaults(own, telegram_run())["delivery"], own["delivery"]);
  json none = {{"payload", {{"kind", "agentTurn"}, {"message", "x"}}}, {"delivery", {{"mode", "none"}}}};
  EXPECT_EQ(cron_job_with_run_defaults(none, telegram_run())["delivery"], none["delivery"]);
  json note = {{"payload", {{"kind", "systemEvent"}, {"text", "x"}}}, {"sessionTarget", "main"}};
  EXPECT_FALSE(cron_job_with_run_defaults(note, telegram_run()).contains("delivery"));
  ToolContext web = telegram_run();
  web.origin = {};  // a gateway client: no chat to announce to
  EXPECT_FALSE(cron_job_with_run_defaults(json{{"payload", {{"kind", "agentTurn"}, {"message", "x"}}}}, web).contains("delivery"));
}

TEST(CronTool, ActionsReachTheBackend) {
  auto tool = make_cron_tool();
  RecordingCronBackend backend;
  ToolContext ctx = telegram_run();
  ctx.cron = &backend;
  auto out = invoke_tool(*tool, json{{"action", "run"}, {"jobId", "water"}}, ctx);
  EXPECT_FALSE(out.is_error) << out.text;
  EXPECT_EQ(backend.action, "run");
  EXPECT_EQ(backend.params, json({{"id", "water"}, {"mode", "due"}}));
  (void)invoke_tool(*tool, json{{"action", "update"}, {"id", "water"}, {"job", {{"enabled", false}}}}, ctx);
  EXPECT_EQ(backend.params, json({{"id", "water"}, {"patch", {{"enabled", false}}}}));
  ctx.cron = nullptr;
  auto none = invoke_tool(*tool, json{{"action", "list"}}, ctx);
  EXPECT_TRUE(none.is_error);
  EXPECT_NE(none.text.find("not available"), std::string::npos) << none.text;
  auto bad = invoke_tool(*tool, json{{"action", "explode"}}, ctx);
  EXPECT_TRUE(bad.is_error);
}

}  // namespace
}  // namespace pincer::tools
