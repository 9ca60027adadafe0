// Small core/store utilities: ids, redaction, atomic writes, the single-instance lock, paths.
#include <sys/stat.h>

#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "cli/config_auth_guard.h"
#include "core/ids.h"
#include "core/paths.h"
#include "core/redact.h"
#include "store/atomic_file.h"
#include "store/instance_lock.h"

namespace pincer {
namespace {

std::filesystem::path temp_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("pincer-unit-" + name + "-" + ids::random_token(6));
  std::filesystem::create_directories(p);
  return p;
}

TEST(Ids, UuidV4Shape) {
  static const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(std::regex_match(ids::uuid_v4(), re));
  EXPECT_NE(ids::uuid_v4(), ids::uuid_v4());
}

TEST(Ids, TokensAreBase64UrlOf32Bytes) {
  auto t = ids::random_token();
  EXPECT_EQ(t.size(), 43u);
  EXPECT_TRUE(std::regex_match(t, std::regex("^[A-Za-z0-9_-]+$")));
  EXPECT_EQ(ids::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Redact, RegisteredSecretsAndCredentialShapes) {
  redact::clear_secrets();
  redact::add_secret("my-gateway-token-123");
  redact::add_secret("abc");  // too short to register
  redact::add_secret("seven77");  // 7 bytes: below kMinSecretBytes, ordinary words stay readable
  EXPECT_EQ(redact::apply("seven77 dwarfs"), "seven77 dwarfs");
  redact::add_secret("eight888");
  EXPECT_EQ(redact::apply("x eight888 y"), "x *** y");
  EXPECT_EQ(redact::apply("token is my-gateway-token-123!"), "token is ***!");
  EXPECT_EQ(redact::apply("abc"), "abc");
  EXPECT_EQ(redact::apply("Authorization: Bearer eyJhbGciOi.xyz"), "Authorization: Bearer ***");
  EXPECT_EQ(redact::apply("key sk-proj-abcdefghijkl used"), "key *** used");
  EXPECT_EQ(redact::apply(R"({"password":"hunter22","user":"bob"})"), R"({"password":"***","user":"bob"})");
  EXPECT_EQ(redact::apply("apiKey=supersecret&x=1"), "apiKey=***&x=1");
  EXPECT_EQ(redact::apply("nothing to see here"), "nothing to see here");
  // Prose after a colon stays readable (config errors name the key, then say what is wrong)...
  EXPECT_EQ(redact::apply("gateway.auth.token: gateway token is 5 characters"), "gateway.auth.token: gateway token is 5 characters");
  EXPECT_EQ(redact::apply("channels.webhook.secret: required, at least 16"), "channels.webhook.secret: required, at least 16");
  // ...while a value that looks like a credential is still masked in that form.
  EXPECT_EQ(redact::apply("password: hunter22 ok"), "password: *** ok");
  EXPECT_EQ(redact::apply("token: abcdefghijklmnop"), "token: ***");
  redact::clear_secrets();
}

// A log line with a very long credential-shaped run used to overflow the stack of the regex
// engine (one recursion per repeated character): a remote crash for whoever gets such text logged.
TEST(Redact, LongRunsAreMaskedToTheirEndWithoutRecursingDeeply) {
  redact::clear_secrets();
  for (std::size_t n : {300u, 100000u, 2000000u}) {
    EXPECT_EQ(redact::apply("k sk-" + std::string(n, 'a') + " end"), "k *** end") << n;
    EXPECT_EQ(redact::apply("token=" + std::string(n, 'b') + " end"), "token=*** end") << n;
    EXPECT_EQ(redact::apply("Bearer " + std::string(n, 'c') + " end"), "Bearer *** end") << n;
    EXPECT_EQ(redact::apply("x" + std::string(n, ' ') + "y").size(), n + 2) << n;
  }
  // A credential right after a long one is still found.
  EXPECT_EQ(redact::apply("sk-" + std::string(400, 'a') + ",token=SECRETVALUE"), "***,token=***");
  EXPECT_EQ(redact::apply("a sk-abcdefghij b sk-klmnopqrst c"), "a *** b *** c");
}

// The patterns run only where a credential can begin (an anchor word, or a quote before a field
// name); these are the places where that shortcut could differ from a search of every position.
TEST(Redact, FindsCredentialsAfterNearMissesAndQuotedNames) {
  redact::clear_secrets();
  EXPECT_EQ(redact::apply("tokens=5 then token=abcdef123"), "tokens=5 then token=***");
  EXPECT_EQ(redact::apply("task-abcdefghijkl sk-abcdefghijkl"), "task-abcdefghijkl ***");  // \b before sk-
  EXPECT_EQ(redact::apply("right ghp_abcdefghijklmnopqrstu"), "right ***");
  EXPECT_EQ(redact::apply(R"('deviceToken': 'abc123xyz')"), R"('deviceToken': '***')");
  EXPECT_EQ(redact::apply(R"("TOKEN": abc)"), R"("TOKEN": ***)");  // quoted name: never prose
  EXPECT_EQ(redact::apply("BEARER abcdefgh"), "BEARER ***");
  EXPECT_EQ(redact::apply("ends with token"), "ends with token");
  EXPECT_EQ(redact::apply("sk-"), "sk-");
  // What must follow each anchor word (the regex is only run where it can match).
  EXPECT_EQ(redact::apply("run r1 finished: 3494 in, 6 out tokens"), "run r1 finished: 3494 in, 6 out tokens");
  EXPECT_EQ(redact::apply("password  \t = hunter2x"), "password  \t = ***");
  EXPECT_EQ(redact::apply("token'=abcdef"), "token'=***");
  EXPECT_EQ(redact::apply("xoxb-abcdefgh1 xoxq-abcdefgh1 gho_abcdefghijklmnopq ghx_abcdefghijklmnopq"),
            "*** xoxq-abcdefgh1 *** ghx_abcdefghijklmnopq");
  EXPECT_EQ(redact::apply("Bearer\tabcdefgh Bearerabcdefgh"), "Bearer\t*** Bearerabcdefgh");
}

TEST(AtomicFile, WritesReplacesAndLeavesNoTempFiles) {
  auto dir = temp_dir("atomic");
  auto file = dir / "sub" / "state.json";
  ASSERT_TRUE(store::write_file_atomic(file, "one"));
  ASSERT_TRUE(store::write_file_atomic(file, "two"));
  EXPECT_EQ(*store::read_file(file), "two");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "sub")) ++entries;
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(store::read_file(dir / "missing").error().code, "NOT_FOUND");
  EXPECT_EQ(store::read_file(file, 2).error().code, "TOO_LARGE");
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, FailureNamesThePath) {
  auto st = store::write_file_atomic("/proc/definitely/not/writable", "x");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "IO_ERROR");
  EXPECT_NE(st.error().message.find("/proc/definitely/not"), std::string::npos);
}

TEST(InstanceLock, SecondAcquireFailsUntilReleased) {
  auto dir = temp_dir("lock");
  auto lock_file = dir / "gateway.lock";
  {
    auto first = store::InstanceLock::acquire(lock_file);
    ASSERT_TRUE(first);
    auto second = store::InstanceLock::acquire(lock_file);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, "GATEWAY_ALREADY_RUNNING");
    EXPECT_NE(second.error().message.find("pid " + std::to_string(::getpid())), std::string::npos);
  }
  EXPECT_TRUE(store::InstanceLock::acquire(lock_file));
  std::filesystem::remove_all(dir);
}

TEST(InstanceLock, RecordsWhereTheGatewayListensUntilReleased) {
  auto dir = temp_dir("lock-holder");
  auto lock_file = dir / "gateway.lock";
  {
    auto lock = store::InstanceLock::acquire(lock_file);
    ASSERT_TRUE(lock);
    auto holder = store::read_lock_holder(lock_file);
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->pid, ::getpid());
    EXPECT_EQ(holder->port, 0);  // not listening yet
    lock->record_listening("127.0.0.1", 19311);
    holder = store::read_lock_holder(lock_file);
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->host, "127.0.0.1");
    EXPECT_EQ(holder->port, 19311);
    // The "already running" message still names only the PID.
    auto second = store::InstanceLock::acquire(lock_file);
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("(pid " + std::to_string(::getpid()) + ")"), std::string::npos)
        << second.error().message;
  }
  EXPECT_FALSE(store::read_lock_holder(lock_file));  // released: no gateway
  std::filesystem::remove_all(dir);
}

// Which secret the running gateway checks, recorded in its lock file (never the secret itself),
// and kept when it records its address and its stop.
TEST(InstanceLock, RecordsWhereTheGatewaysSecretComesFrom) {
  auto dir = temp_dir("lock-auth");
  auto lock_file = dir / "gateway.lock";
  {
    auto lock = store::InstanceLock::acquire(lock_file);
    ASSERT_TRUE(lock);
    EXPECT_EQ(store::read_lock_holder(lock_file)->auth_mode, "");  // not recorded (an older gateway)
    lock->record_auth("token", "--token-file");
    lock->record_listening("127.0.0.1", 19312);
    auto holder = store::read_lock_holder(lock_file);
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->port, 19312);
    EXPECT_EQ(holder->auth_mode, "token");
    EXPECT_EQ(holder->auth_source, "--token-file");
    lock->record_stopping(false);
    holder = store::read_lock_holder(lock_file);
    ASSERT_TRUE(holder);
    EXPECT_TRUE(holder->stopping);
    EXPECT_EQ(holder->auth_source, "--token-file");
    lock->record_auth("none", "");
    EXPECT_EQ(store::read_lock_holder(lock_file)->auth_mode, "none");
  }
  std::filesystem::remove_all(dir);
}

// `config unset gateway.auth.token` while this home's gateway runs (this process holds the lock
// here): refused only when the gateway checks the file's token — not when its lock file says the
// token came from --token or PINCER_GATEWAY_TOKEN (the file's was never in use) — and also for a
// file that $includes another.
TEST(ConfigAuthGuard, RefusesRemovingOnlyTheSecretTheRunningGatewayChecks) {
  auto home = temp_dir("auth-guard");
  const auto file = home / "pincer.json";
  const std::string token = "guard-token-0123456789abcdef0123456789";
  const std::string before = "{ gateway: { port: 1, auth: { token: '" + token + "' } } }\n";
  const std::string after = "{ gateway: { port: 1, auth: {} } }\n";
  std::ofstream(file) << before;
  const config::EnvLookup env = [home](const std::string& k) -> std::optional<std::string> {
    if (k == "PINCER_HOME") return home.string();
    return std::nullopt;
  };
  auto lock = store::InstanceLock::acquire(paths::gateway_lock_file(home));
  ASSERT_TRUE(lock);
  lock->record_listening("127.0.0.1", 19313);
  // An older gateway records nothing: taken to check the file's token.
  EXPECT_NE(cli::running_gateway_lockout(file, before, after, env).find("this home's gateway is running"), std::string::npos);
  lock->record_auth("token", "gateway.auth.token");
  EXPECT_NE(cli::running_gateway_lockout(file, before, after, env).find("this home's gateway is running"), std::string::npos);
  for (const char* source : {"--token", "--token-file", "PINCER_GATEWAY_TOKEN"}) {
    lock->record_auth("token", source);
    EXPECT_EQ(cli::running_gateway_lockout(file, before, after, env), "") << source;
  }
  lock->record_auth("none", "");  // --auth none: it checks no secret
  EXPECT_EQ(cli::running_gateway_lockout(file, before, after, env), "");

  // With an $include (the token in pincer.json itself): read with the included file, refused.
  lock->record_auth("token", "gateway.auth.token");
  std::ofstream(home / "session.json5") << "{ dmScope: 'main' }\n";
  const std::string inc_before =
      "{ session: { $include: './session.json5' }, gateway: { port: 1, auth: { token: '" + token + "' } } }\n";
  const std::string inc_after = "{ session: { $include: './session.json5' }, gateway: { port: 1, auth: {} } }\n";
  EXPECT_NE(cli::running_gateway_lockout(file, inc_before, inc_after, env).find("this home's gateway is running"),
            std::string::npos);
  // The token written by the included file, the file's own key removed: the secret stays.
  std::ofstream(home / "auth.json5") << "{ token: '" + token + "' }\n";
  EXPECT_EQ(cli::running_gateway_lockout(file, "{ gateway: { auth: { $include: './auth.json5', token: '" + token + "' } } }",
                                         "{ gateway: { auth: { $include: './auth.json5' } } }", env),
            "");
  std::filesystem::remove_all(home);  // the lock is released when `lock` goes
}

TEST(Paths, StateDirFromEnvironment) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const std::string& k) -> std::optional<std::string> {
      auto it = vars.find(k);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  EXPECT_EQ(paths::state_dir(env({{"PINCER_HOME", "/x/y"}, {"HOME", "/home/u"}})), "/x/y");
  EXPECT_EQ(paths::state_dir(env({{"PINCER_HOME", ""}, {"HOME", "/home/u"}})), "/home/u/.pincer");
  EXPECT_EQ(paths::config_file("/s"), "/s/pincer.json");
  EXPECT_EQ(paths::gateway_log_file("/s"), "/s/logs/gateway.log");
}

}  // namespace
}  // namespace pincer

#include "core/http_client.h"

namespace pincer {
namespace {

TEST(ParseUrl, SplitsSchemeHostPortAndTarget) {
  auto u = net::parse_url("https://api.openai.com/v1/chat/completions?x=1");
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->host, "api.openai.com");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/v1/chat/completions?x=1");
  auto v6 = net::parse_url("http://[::1]:11434");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "11434");
  EXPECT_EQ(v6->target, "/");
  EXPECT_EQ(net::parse_url("http://127.0.0.1:8080?q")->target, "/?q");
  for (const char* bad : {"ftp://x", "http://", "http://user:pw@host/", "http://h:port/", "http://[::1/", "https://h:1234567/"}) {
    EXPECT_FALSE(net::parse_url(bad)) << bad;
  }
}

}  // namespace
}  // namespace pincer
