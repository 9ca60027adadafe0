// Unit tests of CliModelCall (src/agent/cli_model_call.h) on a real event loop with real child
// processes (/bin/sh): the reply and session id of a json CLI, stdin prompts, clearEnv/env, the
// no-output watchdog, exit statuses classified like provider errors (rate limit, auth, a missing
// command), jsonl deltas, and `serialize` (calls of one backend never overlap).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "agent/cli_model_call.h"
#include "core/event_loop.h"

namespace pincer::agent {
namespace cli_model_call_test {
namespace {

using Strings = std::vector<std::string>;

llm::ModelSpec cli_model() {
  llm::ModelSpec m;
  m.provider = "test-cli";
  m.id = "m1";
  m.api = kCliBackendApi;
  return m;
}

CliBackendSettings backend(const std::string& id = "test-cli") {
  CliBackendSettings b;
  b.id = id;
  b.command = "/bin/sh";
  return b;
}

CliInvocation sh(const std::string& script, CliOutput output = CliOutput::Json) {
  CliInvocation inv;
  inv.argv = {"/bin/sh", "-c", script};
  inv.output = output;
  return inv;
}

CliCallOptions options(int64_t watchdog_ms = 20'000) {
  CliCallOptions o;
  o.cwd = std::filesystem::temp_directory_path();
  o.base_env = {{"PATH", "/usr/bin:/bin"}};
  o.watchdog_ms = watchdog_ms;
  o.timeout_ms = 60'000;
  return o;
}

/// Starts the calls in order on one loop and runs it until all are done; outcomes in call order.
std::vector<CliOutcome> run_calls(const std::vector<std::pair<CliBackendSettings, CliInvocation>>& calls,
                                  const CliCallOptions& opts, Strings* deltas = nullptr) {
  EventLoop loop{1};
  std::vector<CliOutcome> outcomes(calls.size());
  std::vector<std::shared_ptr<CliModelCall>> live;
  std::size_t pending = calls.size();
  loop.post([&] {
    loop.after(30'000, [&] { loop.stop(); });  // a guard against a hang, not a timing assertion
    for (std::size_t i = 0; i < calls.size(); ++i) {
      auto call = std::make_shared<CliModelCall>(
          loop, calls[i].first, calls[i].second, opts, cli_model(),
          [deltas](const std::string& d, const std::string&) {
            if (deltas) deltas->push_back(d);
          },
          [&, i](CliOutcome o) {
            outcomes[i] = std::move(o);
            if (--pending == 0) loop.stop();
          });
      live.push_back(call);
      call->start();
    }
  });
  loop.run();
  EXPECT_EQ(pending, 0u) << "calls did not finish";
  return outcomes;
}

CliOutcome run_one(const CliBackendSettings& b, const CliInvocation& inv, const CliCallOptions& opts = options(),
                   Strings* deltas = nullptr) {
  return run_calls({{b, inv}}, opts, deltas).front();
}

TEST(CliModelCallRun, JsonReplyAndSessionId) {
  CliOutcome o = run_one(backend(), sh(R"(echo '{"type":"result","is_error":false,"result":"hi there","session_id":"s-1"}')"));
  ASSERT_TRUE(o.reply) << o.failure.message;
  EXPECT_EQ(o.reply->text, "hi there");
  EXPECT_EQ(o.reply->session_id, "s-1");
}

TEST(CliModelCallRun, PromptOnStdinAndStderrKeptApart) {
  CliInvocation inv = sh("echo 'noise on stderr' >&2; cat", CliOutput::Text);
  inv.stdin_text = "the prompt\nwith two lines";
  CliOutcome o = run_one(backend(), inv);
  ASSERT_TRUE(o.reply) << o.failure.message;
  EXPECT_EQ(o.reply->text, "the prompt\nwith two lines");
}

TEST(CliModelCallRun, EnvironmentIsClearedAndSet) {
  CliBackendSettings b = backend();
  b.clear_env = {"SECRET_ONE"};
  b.env = {{"ADDED", "yes"}};
  CliCallOptions opts = options();
  opts.base_env["SECRET_ONE"] = "s1";
  opts.base_env["KEPT"] = "k";
  CliOutcome o = run_one(b, sh(R"(echo "[${SECRET_ONE-unset}] [$KEPT] [$ADDED]")", CliOutput::Text), opts);
  ASSERT_TRUE(o.reply) << o.failure.message;
  EXPECT_EQ(o.reply->text, "[unset] [k] [yes]");
}

TEST(CliModelCallRun, WatchdogStopsASilentCli) {
  CliOutcome o = run_one(backend(), sh("echo '{\"type\":\"system\"}'; sleep 30", CliOutput::Jsonl), options(1000));
  ASSERT_FALSE(o.reply);
  EXPECT_EQ(o.failure.reason, llm::FailoverReason::Timeout);
  EXPECT_TRUE(o.failure.retryable);
  EXPECT_NE(o.failure.message.find("printed nothing"), std::string::npos) << o.failure.message;
}

TEST(CliModelCallRun, ExitStatusesAreClassifiedFromTheirMessages) {
  CliOutcome limited = run_one(backend(), sh("echo 'Error: 429 Too Many Requests: rate limit exceeded' >&2; exit 1"));
  ASSERT_FALSE(limited.reply);
  EXPECT_EQ(limited.failure.reason, llm::FailoverReason::RateLimit) << limited.failure.message;
  EXPECT_EQ(limited.failure.cause, "CLI exit 1");

  CliOutcome reported = run_one(
      backend(), sh(R"(echo '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}'; exit 1)"));
  ASSERT_FALSE(reported.reply);
  EXPECT_TRUE(reported.failure.reason == llm::FailoverReason::Auth ||
              reported.failure.reason == llm::FailoverReason::AuthPermanent)
      << reported.failure.message;

  CliBackendSettings missing = backend();
  missing.command = "no-such-cli-pincer-test";
  CliInvocation inv;
  inv.argv = {"no-such-cli-pincer-test", "-p", "hi"};
  CliOutcome absent = run_one(missing, inv);
  ASSERT_FALSE(absent.reply);
  EXPECT_EQ(absent.failure.reason, llm::FailoverReason::ModelNotFound);
  EXPECT_NE(absent.failure.message.find("agents.defaults.cliBackends.test-cli.command"), std::string::npos)
      << absent.failure.message;
}

TEST(CliModelCallRun, JsonlTextDeltasAndThreadId) {
  Strings deltas;
  CliBackendSettings codex_like = backend();
  codex_like.session_id_fields = {"thread_id"};
  CliOutcome o = run_one(codex_like,
                         sh(R"(echo '{"type":"thread.started","thread_id":"t-1"}'
echo '{"type":"item.completed","item":{"type":"agent_message","text":"first"}}'
sleep 0.2
echo '{"type":"item.completed","item":{"type":"agent_message","text":"second"}}')",
                            CliOutput::Jsonl),
                         options(), &deltas);
  ASSERT_TRUE(o.reply) << o.failure.message;
  EXPECT_EQ(deltas, (Strings{"first", "second"}));
  EXPECT_EQ(o.reply->text, "second");
  EXPECT_EQ(o.reply->session_id, "t-1");
}

TEST(CliModelCallRun, SerializedCallsOfOneBackendDoNotOverlap) {
  const auto log = std::filesystem::temp_directory_path() / ("pincer-cli-serialize-" + std::to_string(::getpid()));
  std::filesystem::remove(log);
  CliBackendSettings b = backend("serial-cli");
  b.serialize = true;
  const std::string script = "echo start >> '" + log.string() + "'; sleep 0.2; echo end >> '" + log.string() +
                             "'; echo '{\"result\":\"ok\"}'";
  auto outcomes = run_calls({{b, sh(script)}, {b, sh(script)}, {b, sh(script)}}, options());
  for (const auto& o : outcomes) EXPECT_TRUE(o.reply) << o.failure.message;
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "start\nend\nstart\nend\nstart\nend\n");
  std::filesystem::remove(log);
}

TEST(CliModelCallRun, OutputReachesTheLoopWhileTheChildWaitsForIt) {
  // The child prints a delta, then waits until the caller has seen it (the delta callback writes
  // the FIFO the child reads): the output must reach the loop while the child runs, woken by the
  // process's pump thread (SpawnOptions::on_output), not at the end.
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-cli-wake-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string seen = (dir / "seen").string();
  ASSERT_EQ(::mkfifo(seen.c_str(), 0600), 0);
  Strings deltas;
  EventLoop loop{1};
  std::optional<CliOutcome> outcome;
  std::shared_ptr<CliModelCall> call;
  loop.post([&] {
    loop.after(30'000, [&] { loop.stop(); });  // a guard against a hang, not a timing assertion
    call = std::make_shared<CliModelCall>(
        loop, backend(), sh("echo '{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"first\"}}'\n"
                           "read x < '" + seen + "'\n"
                           "echo '{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"after\"}}'",
                           CliOutput::Jsonl),
        options(), cli_model(),
        [&](const std::string& d, const std::string&) {
          deltas.push_back(d);
          if (deltas.size() == 1) std::ofstream(seen) << "seen\n";  // (opens once the child reads the FIFO)
        },
        [&](CliOutcome o) {
          outcome = std::move(o);
          loop.stop();
        });
    call->start();
  });
  loop.run();
  ASSERT_TRUE(outcome) << "the call did not finish";
  ASSERT_TRUE(outcome->reply) << outcome->failure.message;
  EXPECT_EQ(deltas, (Strings{"first", "after"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cli_model_call_test
}  // namespace pincer::agent
