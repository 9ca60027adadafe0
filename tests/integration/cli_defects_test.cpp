// Defects a new user's pass over the gateway and the CLI found: gateway.reload.mode "off" undone
// by an edit, what `status` says without a config file, the non-loopback bind warning, cron add
// without a chat to announce to, an empty --session, the provider of `models auth list`. The real
// binary with a temp PINCER_HOME.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "loopback_listener.h"

namespace pincer::test {
namespace cli_defects_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kDefectsToken = "cli-defects-token-0123456789abcdef";

std::string defects_config(const std::string& reload_mode, const std::string& members) {
  return std::string("{ gateway: { auth: { token: '") + kDefectsToken + "' }, reload: { mode: '" + reload_mode +
         "', debounceMs: 50 } }" + (members.empty() ? "" : ", " + members) + " }\n";
}

class CliDefectsTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(int port = 0) const {
    std::map<std::string, std::string> e = {{"PINCER_HOME", home_.path().string()},
                                            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
                                            {"PINCER_GATEWAY_TOKEN", "\x01"},
                                            {"PINCER_GATEWAY_URL", "\x01"},
                                            {"PINCER_GATEWAY_PORT", "\x01"}};
    if (port) e["PINCER_GATEWAY_PORT"] = std::to_string(port);
    return e;
  }
  RunResult pincer(const std::vector<std::string>& args, int port = 0) const { return run_pincer(args, env(port), 60s); }
  bool wait_log(const std::string& text, std::size_t from) { return gateway_->wait_for_stderr(text, from); }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(CliDefectsTest, ReloadModeOffIsUndoneByALaterEditWithoutARestart) {
  home_.write("pincer.json", defects_config("hybrid", ""));
  gateway_ = std::make_unique<Gateway>(home_.path());
  const int port = gateway_->port();

  // "off" with a hot change: the edit is not applied, and the gateway says so.
  std::size_t before = gateway_->process().err().size();
  home_.write("pincer.json", defects_config("off", "session: { dmScope: 'per-peer' }"));
  ASSERT_TRUE(wait_log("this edit is not applied", before));
  EXPECT_EQ(gateway_->process().err().find("config reloaded", before), std::string::npos);
  auto status = pincer({"status", "--json"}, port);
  json s = json::parse(status.out, nullptr, false);
  ASSERT_TRUE(s.is_object()) << status.out << status.err;
  EXPECT_EQ(s["config"]["matchesFile"], false) << s.dump();
  // status and doctor say why the running config is older, and how to get out of it.
  auto text = pincer({"status"}, port);
  EXPECT_NE(text.out.find("Warning   the gateway runs an older config than the file: gateway.reload.mode is \"off\""),
            std::string::npos) << text.out;
  auto doctor = pincer({"doctor"}, port);
  EXPECT_NE(doctor.out.find("runs an older config than"), std::string::npos) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find("applies edits only when it restarts"), std::string::npos) << doctor.out << doctor.err;

  // Back to "hybrid": the file is still watched, and everything changed since applies.
  before = gateway_->process().err().size();
  home_.write("pincer.json", defects_config("hybrid", "session: { dmScope: 'per-peer' }"));
  ASSERT_TRUE(wait_log("config reloaded", before)) << "an edit after \"off\" was ignored";
  EXPECT_NE(gateway_->process().err().find("session.dmScope", before), std::string::npos);
  EXPECT_EQ(gateway_->process().err().find("restarting the gateway in place", before), std::string::npos);
  status = pincer({"status", "--json"}, port);
  s = json::parse(status.out, nullptr, false);
  ASSERT_TRUE(s.is_object()) << status.out << status.err;
  EXPECT_EQ(s["config"]["matchesFile"], true) << s.dump();
}

TEST_F(CliDefectsTest, AnOutOfRangePortIsRefusedBeforeAnythingIsWritten) {
  // An empty home: a first start would create pincer.json with a new token; a bad flag must not.
  auto r = pincer({"gateway", "run", "--port", "99999"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--port: expected 0..65535, got 99999"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "pincer.json")) << r.out;
}

TEST_F(CliDefectsTest, AGatewayStartedWithReloadOffAppliesAnEditThatTurnsItOn) {
  home_.write("pincer.json", defects_config("off", ""));
  gateway_ = std::make_unique<Gateway>(home_.path());
  ASSERT_TRUE(wait_log("are not applied until one sets another mode", 0));
  const std::size_t before = gateway_->process().err().size();
  home_.write("pincer.json", defects_config("hot", "session: { dmScope: 'per-peer' }"));
  ASSERT_TRUE(wait_log("config reloaded", before)) << "the watcher did not run while the mode was off";
}

/// Holds 127.0.0.1:`port` bound but not listening while it lives: a connect there is refused at
/// once, and no other process can listen there meanwhile (no SO_REUSEADDR: a gateway's
/// reuse-address bind fails too). held() is false when the port is taken (something listens).
class DefectsPortHold {
 public:
  explicit DefectsPortHold(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~DefectsPortHold() {
    if (fd_ >= 0) ::close(fd_);
  }
  DefectsPortHold(const DefectsPortHold&) = delete;
  DefectsPortHold& operator=(const DefectsPortHold&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

TEST_F(CliDefectsTest, StatusWithoutAConfigFileSaysWhichFileAndPort) {
  // An empty PINCER_HOME and no PINCER_GATEWAY_PORT: the CLI uses the default port 18789, which
  // this test holds closed (bound, not listening) so that a gateway running on this machine
  // cannot answer in its place.
  DefectsPortHold default_port(18789);
  if (!default_port.held()) GTEST_SKIP() << "127.0.0.1:18789 is in use on this machine (a running gateway?)";
  const std::string file = (home_.path() / "pincer.json").string();
  for (const char* command : {"status", "health"}) {
    auto r = pincer({command});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("cannot reach the gateway at ws://127.0.0.1:18789"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("no config file was found at " + file + ", so the port is 18789 (the default)"),
              std::string::npos)
        << command << ": " << r.err;
  }
  auto env_port = run_pincer({"status"}, [&] {
    auto e = env();
    e["PINCER_GATEWAY_PORT"] = "1";
    return e;
  }());
  EXPECT_NE(env_port.err.find("so the port is 1 (from PINCER_GATEWAY_PORT)"), std::string::npos) << env_port.err;
  auto service = pincer({"gateway", "status"});
  EXPECT_NE(service.out.find("config:   " + file + " does not exist: port 18789 is assumed"), std::string::npos)
      << service.out;
  auto service_json = json::parse(pincer({"gateway", "status", "--json"}).out, nullptr, false);
  ASSERT_TRUE(service_json.is_object());
  EXPECT_EQ(service_json["config"]["exists"], false) << service_json.dump();

  // With a config file the note is not there (it is about a missing file only).
  home_.write("pincer.json", defects_config("hybrid", ""));
  auto with_file = pincer({"status"});
  EXPECT_NE(with_file.err.find("cannot reach the gateway"), std::string::npos) << with_file.err;
  EXPECT_EQ(with_file.err.find("no config file"), std::string::npos) << with_file.err;
  EXPECT_EQ(with_file.err.find("cannot be read"), std::string::npos) << with_file.err;

  // A file with a syntax error and the token in the environment: the CLI tries the default port
  // and says why that port (the file was not used), not only "cannot reach".
  home_.write("pincer.json", "{ gateway: { port: 18789, auth: { token: 'x' } ");
  auto broken = run_pincer({"status"}, [&] {
    auto e = env();
    e["PINCER_GATEWAY_TOKEN"] = "a-token-from-the-environment-0123";
    return e;
  }());
  EXPECT_EQ(broken.exit_code, 1) << broken.err;
  EXPECT_NE(broken.err.find("cannot reach the gateway at ws://127.0.0.1:18789"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("the config file " + file + " cannot be read ("), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("so the port is 18789 (the default): fix it"), std::string::npos) << broken.err;
}

std::string defects_read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool defects_under_tmp(const std::filesystem::path& p) {
  const std::string s = std::filesystem::weakly_canonical(p).string();
  return s.rfind("/tmp/", 0) == 0 || s.rfind("/var/tmp/", 0) == 0;
}

TEST_F(CliDefectsTest, GatewayInstallLeavesOutPrivateTmpWhenTheHomeIsUnderTmp) {
  // A state dir under /tmp (this test's own, or one made there when TMPDIR points elsewhere).
  const auto tmp_home = defects_under_tmp(home_.path()) ? home_.path()
                                                        : std::filesystem::path("/tmp") /
                                                              ("cli-defects-home-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp_home);
  const auto unit = home_.path() / "xdg" / "systemd" / "user" / "pincer-gateway.service";
  auto env_tmp = env();
  env_tmp["PINCER_HOME"] = tmp_home.string();
  auto install = run_pincer({"gateway", "install", "--no-start"}, env_tmp, 60s);
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::string text = defects_read(unit);
  EXPECT_EQ(text.find("\nPrivateTmp=yes\n"), std::string::npos) << text;
  const auto comment = text.find("# PrivateTmp=yes is left out: the service uses ");
  ASSERT_NE(comment, std::string::npos) << text;
  const std::string comment_line = text.substr(comment, text.find('\n', comment) - comment);
  EXPECT_NE(comment_line.find(tmp_home.string()), std::string::npos) << comment_line;
  EXPECT_NE(comment_line.find("(under /tmp)"), std::string::npos) << comment_line;
  EXPECT_NE(text.find("\nProtectSystem=full\n"), std::string::npos) << "the rest of the hardening stays\n" << text;
  EXPECT_NE(install.err.find("pincer: warning: " + tmp_home.string() + " is under /tmp"), std::string::npos)
      << install.err;
  EXPECT_NE(install.err.find("/tmp is emptied at reboot"), std::string::npos) << install.err;
  std::error_code ec;
  if (tmp_home != home_.path()) std::filesystem::remove_all(tmp_home, ec);

  // A home elsewhere (next to the binary under test) keeps PrivateTmp=yes …
  const auto lasting = std::filesystem::path(pincer_binary()).parent_path() /
                       ("cli-defects-home-" + std::to_string(::getpid()));
  if (defects_under_tmp(lasting)) GTEST_SKIP() << "the binary under test is under /tmp: no lasting place to compare";
  std::filesystem::create_directories(lasting);
  auto env_lasting = env();
  env_lasting["PINCER_HOME"] = lasting.string();
  auto kept = run_pincer({"gateway", "install", "--no-start"}, env_lasting, 60s);
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  text = defects_read(unit);
  EXPECT_NE(text.find("\nPrivateTmp=yes\n"), std::string::npos) << text;
  EXPECT_EQ(kept.err.find("warning"), std::string::npos) << kept.err;
  // … unless an agent's workspace is under /tmp.
  const auto tmp_workspace = std::filesystem::path("/tmp") / ("cli-defects-ws-" + std::to_string(::getpid()));
  {
    std::ofstream(lasting / "pincer.json") << "{ agents: { defaults: { workspace: '" << tmp_workspace.string()
                                           << "' } } }\n";
  }
  auto workspace = run_pincer({"gateway", "install", "--no-start"}, env_lasting, 60s);
  EXPECT_EQ(workspace.exit_code, 0) << workspace.err;
  text = defects_read(unit);
  EXPECT_EQ(text.find("\nPrivateTmp=yes\n"), std::string::npos) << text;
  EXPECT_NE(workspace.err.find(tmp_workspace.string() + " is under /tmp"), std::string::npos) << workspace.err;
  std::filesystem::remove_all(lasting, ec);
}

TEST_F(CliDefectsTest, ANonLoopbackBindIsWarnedAboutOnStderrAndInTheLog) {
  home_.write("pincer.json", defects_config("hybrid", ""));
  gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--host", "0.0.0.0"});
  const std::string said = "the gateway listens on 0.0.0.0:" + std::to_string(gateway_->port()) +
                           " (every interface), not only on this machine: every device on the network can reach it "
                           "(it still requires the token)";
  ASSERT_TRUE(wait_log("pincer: warning: " + said, 0));
  bool logged = false;
  for (int i = 0; i < 200 && !logged; ++i) {  // the log file is written by the gateway's logger thread
    logged = defects_read(home_.path() / "logs" / "gateway.log").find(said) != std::string::npos;
    if (!logged) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(logged) << defects_read(home_.path() / "logs" / "gateway.log");
  gateway_.reset();

  // Loopback (the default): no such warning.
  gateway_ = std::make_unique<Gateway>(home_.path());
  const std::size_t listening = gateway_->process().err().size();
  auto status = pincer({"status"}, gateway_->port());  // the gateway is up and has said what it says at start
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(gateway_->process().err().find("every device on the network"), std::string::npos)
      << gateway_->process().err().substr(0, listening);
}

TEST_F(CliDefectsTest, CronAddWarnsWhenTheReplyHasNoChatToGoTo) {
  home_.write("pincer.json", defects_config("hybrid", ""));
  auto r = pincer({"cron", "add", "--name", "plants", "--every", "1h", "--message", "Water the plants"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // added anyway: a chat may exist before it runs
  EXPECT_NE(r.out.find("Added "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("pincer: warning: cron add: agent main has no chat to announce to yet"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--channel CHANNEL --to CHAT"), std::string::npos) << r.err;

  // Not delivered on purpose: nothing to say.
  auto quiet = pincer({"cron", "add", "--every", "1h", "--message", "x", "--no-deliver"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("warning"), std::string::npos) << quiet.err;
  // Once the agent has heard from a chat, its reply has somewhere to go.
  home_.write("channels/last-route.json",
              R"({"main": {"channel": "telegram", "accountId": "default", "to": "123", "threadId": ""}})");
  auto routed = pincer({"cron", "add", "--every", "1h", "--message", "x"});
  EXPECT_EQ(routed.exit_code, 0) << routed.err;
  EXPECT_EQ(routed.err.find("warning"), std::string::npos) << routed.err;
}

TEST_F(CliDefectsTest, AnEmptySessionKeyIsRefusedNamingTheFlag) {
  home_.write("pincer.json", defects_config("hybrid", ""));
  const std::vector<std::vector<std::string>> commands = {{"agent", "-m", "hi", "--session", ""},
                                                          {"agent", "--local", "-m", "hi", "--session", ""},
                                                          {"chat", "--session", ""},
                                                          {"acp", "--session", ""},
                                                          {"sandbox", "explain", "--session", ""},
                                                          {"tools", "explain", "--session", ""}};
  for (const auto& args : commands) {
    auto r = pincer(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--session: an empty session key is refused"), std::string::npos) << args[0] << ": " << r.err;
  }
  auto cron = pincer({"cron", "add", "--every", "1h", "--message", "x", "--session", ""});
  EXPECT_EQ(cron.exit_code, 2) << cron.out << cron.err;
  EXPECT_NE(cron.err.find("--session: expected main or isolated, got an empty value"), std::string::npos) << cron.err;
}

TEST_F(CliDefectsTest, ModelsAuthListHasAProviderColumn) {
  home_.write("pincer.json", defects_config("hybrid", "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', "
                                                      "models: [ { id: 'mock-1' } ] } } }"));
  home_.write("k.key", "KeyValue0123456789abcdef\n");
  const std::string key = (home_.path() / "k.key").string();
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "mock", "--id", "mock:work", "--key-file", key}).exit_code, 0);
  ASSERT_EQ(pincer({"models", "auth", "add", "--provider", "openai", "--key-file", key}).exit_code, 0);
  auto text = pincer({"models", "auth", "list"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("  ID              PROVIDER  TYPE     STATE\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  mock:work       mock      api_key  usable"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  openai:default  openai    api_key  usable"), std::string::npos) << text.out;
  const json listed = json::parse(pincer({"models", "auth", "list", "--json"}).out, nullptr, false);
  ASSERT_TRUE(listed.is_object());
  ASSERT_EQ(listed["profiles"].size(), 2u) << listed.dump();
  for (const auto& p : listed["profiles"]) {
    EXPECT_EQ(p["provider"], p["id"].get<std::string>().substr(0, p["id"].get<std::string>().find(':'))) << p.dump();
  }
}

TEST_F(CliDefectsTest, ARefusedProviderConnectionIsANetworkFailureAndStillFailsOver) {
  MockLlm mock;
  const std::string dead = "http://127.0.0.1:" + std::to_string(closed_loopback_port()) + "/v1";
  home_.write("pincer.json",
              defects_config("hybrid", "models: { providers: { "
                                       "dead: { baseUrl: '" + dead + "', apiKey: 'k', api: 'openai-completions', "
                                       "models: [ { id: 'gone-model' } ] }, "
                                       "mock: { baseUrl: '" + mock.base_url() + "', apiKey: 'k', api: 'openai-completions', "
                                       "models: [ { id: 'mock-model' } ] } } }, "
                                       "agents: { defaults: { model: { primary: 'dead/gone-model', "
                                       "fallbacks: ['mock/mock-model'] } } }"));
  auto r = pincer({"agent", "--local", "-m", "hello ECHO:answered-by-fallback"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("answered-by-fallback"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("connection refused (ECONNREFUSED) (failover reason network"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failover: dead/gone-model → mock/mock-model (network: connection refused"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("failover reason timeout"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cli_defects_test
}  // namespace pincer::test
