// Inbound webhooks, the pure part (AT-3, src/automation/hooks.h): `hooks.*` settings and their
// errors, the wake/agent bodies with OpenClaw's defaults and texts, tokens from headers only,
// idempotency keys, the agent allowlist, the session-key policy, `{{…}}` templates and mappings
// (the gmail preset among them).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "automation/hooks.h"

namespace pincer::automation {
namespace {

using nlohmann::json;

HooksSettings hooks_of(json hooks) {
  hooks["enabled"] = true;
  if (!hooks.contains("token")) hooks["token"] = "hook-secret";
  auto s = hooks_settings_from_config({{"hooks", hooks}});
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? *s : HooksSettings{};
}

std::string fixed_id() { return "fixed-id"; }

TEST(HooksSettings, OffByDefaultAndOpenClawDefaultsWhenOn) {
  auto off = hooks_settings_from_config(json::object());
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->enabled);
  const HooksSettings s = hooks_of(json::object());
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.path, "/hooks");
  EXPECT_EQ(s.max_body_bytes, 256u * 1024);
  EXPECT_FALSE(s.allow_request_session_key);
  EXPECT_FALSE(s.allowed_agent_ids) << "no allowlist: any agent";
  EXPECT_EQ(hooks_of({{"path", "ingest/"}}).path, "/ingest") << "a leading slash added, the trailing one dropped";
  EXPECT_FALSE(hooks_of({{"allowedAgentIds", {"main", "*"}}}).allowed_agent_ids) << "* = any";
}

TEST(HooksSettings, ErrorsNameTheKey) {
  auto err = [](json hooks, json extra = json::object()) {
    if (!hooks.contains("enabled")) hooks["enabled"] = true;
    extra["hooks"] = hooks;
    auto s = hooks_settings_from_config(extra);
    return s ? std::string() : s.error().message;
  };
  EXPECT_NE(err(json::object()).find("hooks.token: required"), std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"path", "/"}}).find("hooks.path: may not be '/'"), std::string::npos);
  EXPECT_NE(err({{"token", "same"}}, {{"gateway", {{"auth", {{"token", "same"}}}}}}).find("must differ from gateway.auth.token"),
            std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"allowedSessionKeyPrefixes", {"mail:"}}}).find("must include 'hook:'"), std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"defaultSessionKey", "x:1"}, {"allowedSessionKeyPrefixes", {"hook:"}}})
                .find("hooks.defaultSessionKey: must match"),
            std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"presets", {"outlook"}}}).find("hooks.presets[0]: unknown preset 'outlook'"),
            std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"mappings", {{{"match", {{"path", "x"}}}, {"transform", {{"module", "x.js"}}}, {"messageTemplate", "m"}}}}})
                .find("hooks.mappings[0].transform"),
            std::string::npos);
  EXPECT_NE(err({{"token", "t"}, {"mappings", {{{"action", "wake"}}}}}).find("hooks.mappings[0]: a wake mapping needs textTemplate"),
            std::string::npos);
  EXPECT_EQ(err({{"enabled", false}, {"token", "t"}, {"path", "/"}}), "") << "hooks off: nothing is checked";
}

TEST(HookBodies, WakeAndAgentWithOpenClawDefaultsAndErrors) {
  EXPECT_EQ(parse_hook_wake(json::object()).error().message, "text required");
  EXPECT_EQ(parse_hook_wake({{"text", "   "}}).error().message, "text required");
  auto w = parse_hook_wake({{"text", " New email "}, {"mode", "bogus"}});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->text, "New email");
  EXPECT_EQ(w->mode, HookWakeMode::Now) << "anything but next-heartbeat is now";
  EXPECT_EQ(parse_hook_wake({{"text", "x"}, {"mode", "next-heartbeat"}})->mode, HookWakeMode::NextHeartbeat);

  const std::vector<std::string> channels = {"telegram"};
  EXPECT_EQ(parse_hook_agent(json::object(), channels).error().message, "message required");
  auto t = parse_hook_agent({{"message", "Summarize inbox"}}, channels);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->name, "Hook");
  EXPECT_TRUE(t->deliver);
  EXPECT_EQ(t->channel, "last");
  EXPECT_EQ(t->wake_mode, HookWakeMode::Now);
  EXPECT_FALSE(t->session_key_from_request);
  auto full = parse_hook_agent({{"message", "m"}, {"name", "Email"}, {"channel", "Telegram"}, {"to", "42"}, {"deliver", false},
                                {"timeoutSeconds", 12.7}, {"sessionKey", "hook:x"}, {"wakeMode", "next-heartbeat"}},
                               channels);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->channel, "telegram");
  EXPECT_FALSE(full->deliver);
  EXPECT_EQ(full->timeout_seconds, 12);
  EXPECT_TRUE(full->session_key_from_request);
  EXPECT_EQ(parse_hook_agent({{"message", "m"}, {"channel", "discord"}}, channels).error().message,
            "channel must be last|telegram");
  EXPECT_EQ(parse_hook_agent({{"message", "m"}, {"model", " "}}, channels).error().message, "model required");
  // A text field of another type is refused (an agentId of 5 ran on the default agent silently).
  EXPECT_EQ(parse_hook_agent({{"message", "m"}, {"agentId", 5}}, channels).error().message, "agentId must be a string");
  EXPECT_EQ(parse_hook_agent({{"message", "m"}, {"sessionKey", json::array()}}, channels).error().message,
            "sessionKey must be a string");
  EXPECT_TRUE(parse_hook_agent({{"message", "m"}, {"agentId", nullptr}}, channels));  // null: not given
}

TEST(HookHeaders, TokenFromHeadersOnlyAndIdempotencyKeys) {
  EXPECT_EQ(hook_token_from_headers({{"authorization", "Bearer  abc "}}), "abc");
  EXPECT_EQ(hook_token_from_headers({{"x-openclaw-token", "def"}}), "def");
  EXPECT_EQ(hook_token_from_headers({{"x-pincer-token", "ghi"}}), "ghi");
  EXPECT_FALSE(hook_token_from_headers({{"authorization", "Basic abc"}}));
  EXPECT_FALSE(hook_token_from_headers({}));
  EXPECT_EQ(hook_idempotency_key({{"idempotency-key", "k1"}}, {{"idempotencyKey", "k2"}}), "k1");
  EXPECT_EQ(hook_idempotency_key({}, {{"idempotencyKey", "k2"}}), "k2");
  EXPECT_EQ(hook_idempotency_key({}, {{"idempotencyKey", std::string(300, 'k')}}), "") << "too long: ignored";
}

TEST(HookPolicy, AgentsAndSessionKeys) {
  const HooksSettings any = hooks_of(json::object());
  EXPECT_TRUE(hook_agent_allowed(any, "ops", "main"));
  const HooksSettings only_main = hooks_of({{"allowedAgentIds", {"main"}}});
  EXPECT_TRUE(hook_agent_allowed(only_main, "", "main"));
  EXPECT_FALSE(hook_agent_allowed(only_main, "ops", "main"));
  EXPECT_FALSE(hook_agent_allowed(hooks_of({{"allowedAgentIds", json::array()}}), "", "main")) << "[] = none";

  HookAgentTurn turn;
  EXPECT_EQ(*resolve_hook_session_key(any, turn, fixed_id), "hook:fixed-id");
  turn.session_key = "hook:mine";
  turn.session_key_from_request = true;
  EXPECT_NE(resolve_hook_session_key(any, turn, fixed_id).error().message.find("hooks.allowRequestSessionKey=true"),
            std::string::npos);
  const HooksSettings open = hooks_of({{"allowRequestSessionKey", true}, {"allowedSessionKeyPrefixes", {"HOOK:"}}});
  EXPECT_EQ(*resolve_hook_session_key(open, turn, fixed_id), "hook:mine");
  turn.session_key = "main";
  EXPECT_EQ(resolve_hook_session_key(open, turn, fixed_id).error().message, "sessionKey must start with one of: hook:");
  turn.session_key_from_request = false;  // a mapping's key: no allowRequestSessionKey needed, prefixes still apply
  turn.session_key = "hook:gmail:1";
  EXPECT_EQ(*resolve_hook_session_key(any, turn, fixed_id), "hook:gmail:1");
  const HooksSettings fixed = hooks_of({{"defaultSessionKey", "hook:ingest"}});
  EXPECT_EQ(*resolve_hook_session_key(fixed, HookAgentTurn{}, fixed_id), "hook:ingest");
}

TEST(HookTemplates, PlaceholdersAndBlockedKeys) {
  HookRequestContext ctx;
  ctx.payload = {{"messages", {{{"from", "Ada"}, {"n", 3}, {"tags", {"a"}}}}}, {"ok", true}};
  ctx.headers = {{"x-source", "gh"}};
  ctx.query = {{"repo", "pincer"}};
  ctx.path = "github";
  ctx.now_ms = 0;
  EXPECT_EQ(render_hook_template("{{messages[0].from}} / {{ payload.messages[0].n }} / {{ok}}", ctx), "Ada / 3 / true");
  EXPECT_EQ(render_hook_template("{{messages[0].tags}}|{{missing.x}}|{{messages[5].from}}", ctx), "[\"a\"]||");
  EXPECT_EQ(render_hook_template("{{headers.X-Source}} {{query.repo}} {{path}} {{now}}", ctx),
            "gh pincer github 1970-01-01T00:00:00.000Z");
  EXPECT_EQ(render_hook_template("{{__proto__.x}}{{constructor}}", ctx), "");
  EXPECT_EQ(render_hook_template("open {{ only", ctx), "open {{ only") << "an unclosed placeholder stays text";
}

TEST(HookMappings, FirstMatchWinsPresetsAndErrors) {
  const HooksSettings s = hooks_of(
      {{"presets", {"gmail"}},
       {"mappings",
        {{{"id", "gh"}, {"match", {{"path", "/github/"}, {"source", "github"}}}, {"messageTemplate", "PR {{pr.title}}"},
          {"name", "GitHub {{pr.number}}"}, {"deliver", false}, {"channel", "telegram"}, {"to", "{{chat}}"}},
         {{"match", {{"path", "ping"}}}, {"action", "wake"}, {"textTemplate", "{{what}}"}, {"wakeMode", "next-heartbeat"}}}}});
  const std::vector<std::string> channels = {"telegram"};
  HookRequestContext ctx;
  ctx.path = "github";
  ctx.payload = {{"source", "github"}, {"pr", {{"title", "Fix"}, {"number", 7}}}, {"chat", "42"}};
  auto gh = apply_hook_mappings(s, ctx, channels);
  ASSERT_TRUE(gh && *gh);
  const auto& turn = std::get<HookAgentTurn>(**gh);
  EXPECT_EQ(turn.message, "PR Fix");
  EXPECT_EQ(turn.name, "GitHub 7");
  EXPECT_FALSE(turn.deliver);
  EXPECT_EQ(turn.channel, "telegram");
  EXPECT_EQ(turn.to, "42");
  EXPECT_FALSE(turn.session_key_from_request);

  ctx.payload["source"] = "gitlab";
  EXPECT_FALSE(apply_hook_mappings(s, ctx, channels)) << "source differs: no mapping";

  ctx.path = "ping";
  ctx.payload = {{"what", "disk full"}};
  auto ping = apply_hook_mappings(s, ctx, channels);
  ASSERT_TRUE(ping && *ping);
  EXPECT_EQ(std::get<HookWake>(**ping).text, "disk full");
  EXPECT_EQ(std::get<HookWake>(**ping).mode, HookWakeMode::NextHeartbeat);
  ctx.payload = json::object();
  EXPECT_EQ(apply_hook_mappings(s, ctx, channels)->error().message, "hook mapping requires text");

  ctx.path = "gmail";
  ctx.payload = {{"messages", {{{"id", "m1"}, {"from", "Ada"}, {"subject", "Hi"}, {"snippet", "Hello"}, {"body", ""}}}}};
  auto gmail = apply_hook_mappings(s, ctx, channels);
  ASSERT_TRUE(gmail && *gmail);
  const auto& mail = std::get<HookAgentTurn>(**gmail);
  EXPECT_EQ(mail.name, "Gmail");
  EXPECT_EQ(mail.session_key, "hook:gmail:m1");
  EXPECT_EQ(mail.message, "New email from Ada\nSubject: Hi\nHello\n");
}

}  // namespace
}  // namespace pincer::automation
