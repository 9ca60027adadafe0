// Unit tests of CLI backends (issue 17 item 5): the settings (OpenClaw's built-in claude-cli and
// codex-cli, merged with agents.defaults.cliBackends), the command line of a call (sessions,
// resume, system prompt, model aliases, prompt on stdin), the output parsers (Claude Code's json
// and stream-json, codex's exec --json, text) fed whole and byte by byte, the child environment,
// and model refs resolving to a backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "agent/cli_backend_config.h"
#include "agent/cli_backend_invocation.h"
#include "agent/cli_backend_output.h"
#include "agent/cli_model_call.h"
#include "agent/model_registry.h"

namespace pincer::agent {
namespace cli_backend_unit_test {
namespace {

using nlohmann::json;
using Strings = std::vector<std::string>;

json config_with(const json& backends) { return json{{"agents", {{"defaults", {{"cliBackends", backends}}}}}}; }

TEST(CliBackendConfig, ClaudeAndCodexAreBuiltIn) {
  auto claude = resolve_cli_backend("claude-cli", json::object());
  ASSERT_TRUE(claude);
  EXPECT_EQ(claude->command, "claude");
  EXPECT_EQ(claude->args, (Strings{"-p", "--output-format", "json", "--dangerously-skip-permissions"}));
  EXPECT_EQ(claude->resume_args.back(), "{sessionId}");
  EXPECT_EQ(claude->output, CliOutput::Json);
  EXPECT_EQ(claude->session_arg, "--session-id");
  EXPECT_EQ(claude->session_mode, CliSessionMode::Always);
  EXPECT_EQ(claude->system_prompt_arg, "--append-system-prompt");
  EXPECT_EQ(claude->clear_env, (Strings{"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY_OLD"}));
  EXPECT_TRUE(claude->serialize);
  EXPECT_EQ(claude->cli_model("Claude-Opus-4-5"), "opus");
  EXPECT_EQ(claude->cli_model("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5-20250929");

  auto codex = resolve_cli_backend(" Codex-CLI ", json::object());
  ASSERT_TRUE(codex);
  EXPECT_EQ(codex->id, "codex-cli");
  EXPECT_EQ(codex->command, "codex");
  EXPECT_EQ(codex->output, CliOutput::Jsonl);
  ASSERT_TRUE(codex->resume_output);
  EXPECT_EQ(*codex->resume_output, CliOutput::Text);
  EXPECT_EQ(codex->session_mode, CliSessionMode::Existing);
  EXPECT_EQ(codex->session_id_fields, (Strings{"thread_id"}));

  EXPECT_FALSE(resolve_cli_backend("my-cli", json::object()));
  EXPECT_FALSE(resolve_cli_backend("openai", json::object()));
}

TEST(CliBackendConfig, ConfiguredKeysMergeOverTheBuiltIns) {
  const json cfg = config_with({{"claude-cli",
                                 {{"command", "/opt/bin/claude"},
                                  {"clearEnv", {"MY_TOKEN"}},
                                  {"env", {{"CLAUDE_CONFIG_DIR", "/x"}}},
                                  {"modelAliases", {{"Fast", "haiku"}}},
                                  {"reliability", {{"watchdog", {{"fresh", {{"noOutputTimeoutMs", 5000}}}}}}}}},
                                {"My-CLI", {{"command", "mycli"}, {"output", "text"}, {"input", "stdin"}}}});
  auto claude = resolve_cli_backend("claude-cli", cfg);
  ASSERT_TRUE(claude);
  EXPECT_EQ(claude->command, "/opt/bin/claude");
  EXPECT_EQ(claude->args.front(), "-p");  // kept
  EXPECT_EQ(claude->clear_env, (Strings{"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY_OLD", "MY_TOKEN"}));
  EXPECT_EQ(claude->env.at("CLAUDE_CONFIG_DIR"), "/x");
  EXPECT_EQ(claude->cli_model("fast"), "haiku");
  EXPECT_EQ(claude->cli_model("opus"), "opus");
  EXPECT_EQ(claude->fresh_watchdog.limit_ms(600'000), 5000);
  EXPECT_EQ(claude->resume_watchdog.limit_ms(600'000), 180'000);  // 0.3 × 600 s, clamped to 60..180 s

  auto mine = resolve_cli_backend("my-cli", cfg);
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->output, CliOutput::Text);
  EXPECT_EQ(mine->input, CliInput::Stdin);
  EXPECT_FALSE(mine->serialize);
  EXPECT_EQ(cli_backend_ids(cfg), (Strings{"claude-cli", "codex-cli", "my-cli"}));

  EXPECT_FALSE(resolve_cli_backend("claude-cli", config_with({{"claude-cli", {{"command", "  "}}}})));
}

TEST(CliBackendConfig, WatchdogScalesWithTheRunTimeout) {
  CliWatchdog fresh;  // 0.8, 180..600 s
  EXPECT_EQ(fresh.limit_ms(600'000), 480'000);
  EXPECT_EQ(fresh.limit_ms(10'000), 180'000);
  EXPECT_EQ(fresh.limit_ms(3'600'000), 600'000);
}

TEST(CliBackendInvocation, ClaudeFirstCallThenResume) {
  auto claude = *resolve_cli_backend("claude-cli", json::object());
  CliCallInput call;
  call.model_id = "opus-4.5";
  call.prompt = "hello";
  call.system_prompt = "You are Pincer.";
  call.fresh_session_id = "11111111-2222-4333-8444-555555555555";
  CliInvocation first = build_cli_invocation(claude, call);
  EXPECT_EQ(first.argv, (Strings{"claude", "-p", "--output-format", "json", "--dangerously-skip-permissions", "--model",
                                 "opus", "--append-system-prompt", "You are Pincer.", "--session-id",
                                 "11111111-2222-4333-8444-555555555555", "hello"}));
  EXPECT_FALSE(first.resuming);
  EXPECT_FALSE(first.stdin_text);
  EXPECT_EQ(first.session_id, call.fresh_session_id);

  call.stored_session_id = "stored-id";
  CliInvocation next = build_cli_invocation(claude, call);
  EXPECT_EQ(next.argv, (Strings{"claude", "-p", "--output-format", "json", "--dangerously-skip-permissions", "--resume",
                                "stored-id", "--model", "opus", "hello"}));  // no system prompt: the session has it
  EXPECT_TRUE(next.resuming);
  EXPECT_EQ(next.session_id, "stored-id");
}

TEST(CliBackendInvocation, CodexSessionsExistOnlyOnceTheCliMadeOne) {
  auto codex = *resolve_cli_backend("codex-cli", json::object());
  CliCallInput call;
  call.model_id = "gpt-5-codex";
  call.prompt = "fix it";
  call.fresh_session_id = "unused";
  CliInvocation first = build_cli_invocation(codex, call);
  EXPECT_EQ(first.argv, (Strings{"codex", "exec", "--json", "--color", "never", "--sandbox", "read-only",
                                 "--skip-git-repo-check", "--model", "gpt-5-codex", "fix it"}));
  EXPECT_EQ(first.session_id, "");
  EXPECT_EQ(first.output, CliOutput::Jsonl);

  call.stored_session_id = "thread-9";
  CliInvocation next = build_cli_invocation(codex, call);
  EXPECT_EQ(Strings(next.argv.begin(), next.argv.begin() + 4), (Strings{"codex", "exec", "resume", "thread-9"}));
  EXPECT_EQ(next.argv.back(), "fix it");
  EXPECT_EQ(next.output, CliOutput::Text);  // resumeOutput
}

TEST(CliBackendInvocation, ThinkingLevelArgsAndEnvPerLevel) {
  CliCallInput call;
  call.model_id = "gpt-5-codex";
  call.prompt = "p";
  auto codex = *resolve_cli_backend("codex-cli", json::object());
  call.thinking_level = "off";
  EXPECT_EQ(build_cli_invocation(codex, call).argv,
            (Strings{"codex", "exec", "--json", "--color", "never", "--sandbox", "read-only", "--skip-git-repo-check",
                     "--model", "gpt-5-codex", "p"}));  // off: nothing
  call.thinking_level = "medium";
  EXPECT_EQ(build_cli_invocation(codex, call).argv,
            (Strings{"codex", "exec", "--json", "--color", "never", "--sandbox", "read-only", "--skip-git-repo-check",
                     "-c", "model_reasoning_effort=medium", "--model", "gpt-5-codex", "p"}));

  auto claude = *resolve_cli_backend("claude-cli", json::object());
  call.model_id = "sonnet";
  for (auto [level, effort] : std::vector<std::pair<std::string, std::string>>{
           {"minimal", "low"}, {"low", "low"}, {"medium", "medium"}, {"high", "high"}, {"xhigh", "xhigh"}}) {
    call.thinking_level = level;
    auto inv = build_cli_invocation(claude, call);
    auto at = std::find(inv.argv.begin(), inv.argv.end(), "--effort");
    ASSERT_NE(at, inv.argv.end()) << level;
    EXPECT_EQ(*(at + 1), effort) << level;
    EXPECT_TRUE(inv.env.empty());
  }
  call.thinking_level = "off";
  auto off = build_cli_invocation(claude, call);
  EXPECT_EQ(std::find(off.argv.begin(), off.argv.end(), "--effort"), off.argv.end());

  // A configured backend: only some levels; the nearest lower one is used, never below minimal.
  json config = json::parse(R"({"agents":{"defaults":{"cliBackends":{"my-cli":{"command":"my",
      "thinkingArgs":{"low":["--think","low"],"high":["--think","hard"]},
      "thinkingEnv":{"off":{"THINK":"0"},"medium":{"THINK":"8k"}}}}}}})");
  auto mine = *resolve_cli_backend("my-cli", config);
  auto args_at = [&](const std::string& level) {
    call.thinking_level = level;
    auto inv = build_cli_invocation(mine, call);
    return Strings(inv.argv.begin() + 1, inv.argv.end() - 1);
  };
  auto env_at = [&](const std::string& level) {
    call.thinking_level = level;
    return build_cli_invocation(mine, call).env;
  };
  EXPECT_EQ(args_at("off"), Strings{});
  EXPECT_EQ(args_at("minimal"), Strings{});
  EXPECT_EQ(args_at("low"), (Strings{"--think", "low"}));
  EXPECT_EQ(args_at("medium"), (Strings{"--think", "low"}));
  EXPECT_EQ(args_at("xhigh"), (Strings{"--think", "hard"}));
  EXPECT_EQ(env_at("off"), (std::map<std::string, std::string>{{"THINK", "0"}}));
  EXPECT_TRUE(env_at("low").empty());  // "off" is not a fallback of the other levels
  EXPECT_EQ(env_at("high"), (std::map<std::string, std::string>{{"THINK", "8k"}}));
}

TEST(CliBackendInvocation, PromptOnStdinPlaceholderAndNoSessions) {
  CliBackendSettings b;
  b.command = "gemini";
  b.args = {"--output-format", "json", "--prompt", "{prompt}"};
  b.session_mode = CliSessionMode::None;
  b.session_arg = "--session";
  b.system_prompt_arg = "--system";
  b.system_prompt_when = CliSystemPromptWhen::Never;
  CliCallInput call;
  call.prompt = "two words";
  call.system_prompt = "sys";
  call.stored_session_id = "ignored";
  call.fresh_session_id = "ignored-too";
  CliInvocation inv = build_cli_invocation(b, call);
  EXPECT_EQ(inv.argv, (Strings{"gemini", "--output-format", "json", "--prompt", "two words"}));
  EXPECT_EQ(inv.session_id, "");

  b.args = {"run"};
  b.max_prompt_arg_chars = 5;  // the prompt is longer: stdin
  inv = build_cli_invocation(b, call);
  EXPECT_EQ(inv.argv, (Strings{"gemini", "run"}));
  ASSERT_TRUE(inv.stdin_text);
  EXPECT_EQ(*inv.stdin_text, "two words");

  b.max_prompt_arg_chars = 0;
  b.input = CliInput::Stdin;
  inv = build_cli_invocation(b, call);
  ASSERT_TRUE(inv.stdin_text);

  EXPECT_EQ(shell_join({"a b", "it's", "", "--x=1"}), "'a b' 'it'\\''s' '' --x=1");
}

TEST(CliBackendInvocation, ImagesFollowThePromptOrAreNamedInIt) {
  CliBackendSettings b;
  b.command = "cli";
  b.session_mode = CliSessionMode::None;
  b.image_arg = "--image";
  CliCallInput call;
  call.prompt = "look ";
  call.image_paths = {"/t/a.png", "/t/b.gif"};
  EXPECT_EQ(build_cli_invocation(b, call).argv, (Strings{"cli", "look ", "--image", "/t/a.png", "--image", "/t/b.gif"}));
  b.image_list = true;
  EXPECT_EQ(build_cli_invocation(b, call).argv, (Strings{"cli", "look ", "--image", "/t/a.png,/t/b.gif"}));
  b.image_arg = "@";
  EXPECT_EQ(build_cli_invocation(b, call).argv, (Strings{"cli", "look\n\n@/t/a.png\n@/t/b.gif"}));
  b.image_arg = "";
  EXPECT_EQ(build_cli_invocation(b, call).argv, (Strings{"cli", "look\n\n/t/a.png\n/t/b.gif"}));
  b.image_arg = "--image";
  b.input = CliInput::Stdin;  // on stdin the paths go with the prompt
  auto inv = build_cli_invocation(b, call);
  EXPECT_EQ(inv.argv, (Strings{"cli"}));
  ASSERT_TRUE(inv.stdin_text);
  EXPECT_EQ(*inv.stdin_text, "look\n\n/t/a.png\n/t/b.gif");
  // codex-cli passes them with --image (OpenClaw's built-in); claude-cli names them in the prompt.
  EXPECT_EQ(resolve_cli_backend("codex-cli", json::object())->image_arg, "--image");
  EXPECT_EQ(resolve_cli_backend("claude-cli", json::object())->image_arg, "");
  auto configured = resolve_cli_backend("my-cli", json{{"agents", {{"defaults", {{"cliBackends",
                                                        {{"my-cli", {{"command", "x"}, {"imageArg", "-i"}, {"imageMode", "list"}}}}}}}}}});
  ASSERT_TRUE(configured);
  EXPECT_EQ(configured->image_arg, "-i");
  EXPECT_TRUE(configured->image_list);
}

// Feeds `out` whole and byte by byte; both must give the same reply and deltas.
CliReply parse(CliOutput mode, const std::string& out, Strings fields, Strings* deltas = nullptr) {
  Strings whole_deltas, byte_deltas;
  CliOutputParser whole(mode, fields, [&](const std::string& d, const std::string&) { whole_deltas.push_back(d); });
  whole.feed(out);
  CliReply a = whole.finish();
  CliOutputParser bytes(mode, fields, [&](const std::string& d, const std::string&) { byte_deltas.push_back(d); });
  for (char c : out) bytes.feed(std::string_view(&c, 1));
  CliReply b = bytes.finish();
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.session_id, b.session_id);
  EXPECT_EQ(whole_deltas, byte_deltas);
  if (deltas) *deltas = whole_deltas;
  return a;
}

const Strings kClaudeFields = {"session_id", "sessionId", "conversation_id", "conversationId"};

TEST(CliBackendOutput, ClaudeJson) {
  const std::string out =
      R"({"type":"result","subtype":"success","is_error":false,"duration_ms":1520,"num_turns":1,"result":"Hi there","session_id":"abc-1","total_cost_usd":0.002,"usage":{"input_tokens":12,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":7}})"
      "\n";
  CliReply r = parse(CliOutput::Json, out, kClaudeFields);
  EXPECT_EQ(r.text, "Hi there");
  EXPECT_EQ(r.session_id, "abc-1");
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.usage.input, 12);
  EXPECT_EQ(r.usage.output, 7);
  EXPECT_EQ(r.usage.cache_read, 3);
  EXPECT_EQ(r.usage.cache_write, 2);

  CliReply failed = parse(CliOutput::Json, R"({"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate_limit_error","session_id":"abc-1"})", kClaudeFields);
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(*failed.error, "API Error: 429 rate_limit_error");

  CliReply noisy = parse(CliOutput::Json, "Loading…\n{\"response\":\"from gemini\",\"stats\":{}}\n", kClaudeFields);
  EXPECT_EQ(noisy.text, "from gemini");
  CliReply plain = parse(CliOutput::Json, "not json at all\n", kClaudeFields);
  EXPECT_EQ(plain.text, "not json at all");
}

TEST(CliBackendOutput, ClaudeStreamJsonStreamsDeltas) {
  const std::string out =
      R"({"type":"system","subtype":"init","session_id":"s-7","tools":["Bash"],"model":"claude-sonnet-4-5"})" "\n"
      R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","content":[]}},"session_id":"s-7"})" "\n"
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}},"session_id":"s-7"})" "\n"
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}},"session_id":"s-7"})" "\n"
      R"({"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Hello"}]},"session_id":"s-7"})" "\n"
      R"({"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"s-7","usage":{"input_tokens":4,"output_tokens":2}})" "\n";
  Strings deltas;
  CliReply r = parse(CliOutput::Jsonl, out, kClaudeFields, &deltas);
  EXPECT_EQ(deltas, (Strings{"Hel", "lo"}));
  EXPECT_EQ(r.text, "Hello");
  EXPECT_EQ(r.session_id, "s-7");
  EXPECT_EQ(r.usage.output, 2);

  // Without partial messages: each assistant message's text is one delta; a tool_use block is not text.
  const std::string whole =
      R"({"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t","name":"Bash","input":{}}]},"session_id":"s"})" "\n"
      R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"session_id":"s"})" "\n"
      R"({"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Done."}]},"session_id":"s"})";  // no final newline
  r = parse(CliOutput::Jsonl, whole, kClaudeFields, &deltas);
  EXPECT_EQ(deltas, (Strings{"Let me look.", "Done."}));
  EXPECT_EQ(r.text, "Done.");  // the last message (no result event)
}

TEST(CliBackendOutput, CodexExecJson) {
  const std::string out =
      R"({"type":"thread.started","thread_id":"0199a213-81c0"})" "\n"
      R"({"type":"turn.started"})" "\n"
      R"({"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**"}})" "\n"
      R"({"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a","exit_code":0,"status":"completed"}})" "\n"
      R"({"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"All done."}})" "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":2048,"output_tokens":31}})" "\n";
  Strings deltas;
  CliReply r = parse(CliOutput::Jsonl, out, {"thread_id"}, &deltas);
  EXPECT_EQ(deltas, (Strings{"All done."}));
  EXPECT_EQ(r.text, "All done.");
  EXPECT_EQ(r.session_id, "0199a213-81c0");
  EXPECT_EQ(r.usage.input, 2400);
  EXPECT_EQ(r.usage.cache_read, 2048);
  EXPECT_FALSE(r.error);

  CliReply failed = parse(CliOutput::Jsonl,
                          R"({"type":"thread.started","thread_id":"t"})" "\n"
                          R"({"type":"turn.failed","error":{"message":"You've hit your usage limit. Try again later."}})" "\n",
                          {"thread_id"});
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(*failed.error, "You've hit your usage limit. Try again later.");
}

TEST(CliBackendOutput, TextIsStdout) {
  CliReply r = parse(CliOutput::Text, "The answer.\n\n", {});
  EXPECT_EQ(r.text, "The answer.");
  EXPECT_EQ(r.session_id, "");
}

TEST(CliModelCall, ChildEnvironmentClearsAndSets) {
  auto env = CliModelCall::child_environment({{"PATH", "/bin"}, {"ANTHROPIC_API_KEY", "sk"}, {"KEEP", "1"}},
                                             {"ANTHROPIC_API_KEY", "ABSENT"}, {{"KEEP", "2"}, {"NEW", "x"}});
  EXPECT_EQ(env, (Strings{"KEEP=2", "NEW=x", "PATH=/bin"}));
}

TEST(CliBackendModels, RefsOfBackendsResolveWithoutProviders) {
  const json cfg = config_with({{"my-cli", {{"command", "mycli"}}}});
  const ModelRegistry registry = ModelRegistry::from_config(cfg);
  auto claude = registry.resolve("claude-cli/sonnet");
  ASSERT_TRUE(claude) << claude.error().message;
  EXPECT_EQ(claude->provider, "claude-cli");
  EXPECT_EQ(claude->id, "sonnet");
  EXPECT_EQ(claude->api, kCliBackendApi);
  EXPECT_TRUE(registry.resolve("My-CLI/anything"));
  EXPECT_FALSE(registry.resolve("other-cli/x"));
  EXPECT_TRUE(model_reference_warnings(json{{"agents", {{"defaults", {{"model", {{"primary", "codex-cli/gpt-5"}}}}}}}}).empty());
}

}  // namespace
}  // namespace cli_backend_unit_test
}  // namespace pincer::agent
