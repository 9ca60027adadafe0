// Config safety and doctor findings of a new-user tester (H7): `config unset` of a provider the
// primary model uses when an auth profile names it, validate of a model whose provider is not
// configured or of a bare model id no provider lists, `config unset gateway.auth.token` while this
// home's gateway runs with it, and what doctor and onboard say with and without a running
// gateway. The real binary with a temp PINCER_HOME.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gateway_process.h"

namespace pincer::test {
namespace config_safety_h7_test {  // named: the unity build puts several test files in one unit
namespace {

constexpr const char* kToken = "h7-gateway-token-0123456789abcdef";
constexpr const char* kProviders =
    "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' }, { id: 'same' } ] }, "
    "other: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'other-1' }, { id: 'same' } ] } } }";

class ConfigSafetyH7Test : public ::testing::Test {
 protected:
  RunResult pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& extra = {}) const {
    return run_pincer(args, isolated_cli_env(home_.path(), extra), 60s);
  }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", "{ gateway: { port: 1, auth: { token: '" + std::string(kToken) + "' } }" +
                                   (members.empty() ? "" : ", " + members) + " }\n");
  }
  std::string config_text() const {
    std::ifstream in(home_.path() / "pincer.json");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  TempDir home_;
};

// Item 1: an auth profile naming a provider does not make its models resolvable (runs resolve
// models from models.providers only): unset refuses to remove the provider the primary model
// uses, naming the agent and the model, and validate refuses a file without it.
TEST_F(ConfigSafetyH7Test, UnsetKeepsAProviderThePrimaryUsesEvenWhenAnAuthProfileNamesIt) {
  write_config(std::string(kProviders) + ", agents: { defaults: { model: { primary: 'other/other-1' } } }");
  home_.write("agents/main/agent/auth-profiles.json",
              R"({"version":1,"profiles":{"other:a":{"type":"api_key","provider":"other","key":"k-0123456789"}}})");
  const std::string before = config_text();
  auto r = pincer({"config", "unset", "models.providers.other"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("models.providers.other: not removed, the config would still refer to it"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("agents.defaults.model.primary: \"other/other-1\" names the provider \"other\", which is not configured"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(the primary model of agent \"main\")"), std::string::npos) << r.err;
  EXPECT_EQ(config_text(), before);

  // The same file written by hand: validate refuses it (every turn would fail MODEL_NOT_FOUND).
  write_config("models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' } ] } } }, "
               "agents: { defaults: { model: { primary: 'other/other-1' } } }");
  auto v = pincer({"config", "validate"});
  EXPECT_EQ(v.exit_code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("agents.defaults.model.primary: \"other/other-1\" names the provider \"other\", which is not configured"),
            std::string::npos)
      << v.err;
  EXPECT_NE(v.err.find("an auth profile names that provider, but runs resolve models from models.providers only"),
            std::string::npos)
      << v.err;
}

// Item 4: a bare model id resolves when exactly one configured provider lists it (as runs
// resolve it); none or several fail every turn: an error for a primary, a warning for a fallback.
TEST_F(ConfigSafetyH7Test, ABareModelIdIsAnErrorUnlessExactlyOneProviderListsIt) {
  write_config(std::string(kProviders) + ", agents: { defaults: { model: { primary: 'x' } } }");
  auto none = pincer({"config", "validate"});
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_NE(none.err.find("agents.defaults.model.primary: \"x\" (the primary model of agent \"main\") names no provider, "
                          "and no configured provider lists a model \"x\""),
            std::string::npos)
      << none.err;

  write_config(std::string(kProviders) + ", agents: { defaults: { model: { primary: 'same' } } }");
  auto several = pincer({"config", "validate"});
  EXPECT_EQ(several.exit_code, 2) << several.out << several.err;
  EXPECT_NE(several.err.find("several configured providers list it, so runs cannot choose: write one of \"mock/same\", "
                             "\"other/same\""),
            std::string::npos)
      << several.err;

  write_config(std::string(kProviders) + ", agents: { defaults: { model: { primary: 'mock-1', fallbacks: ['y'] } } }");
  auto one = pincer({"config", "validate"});
  EXPECT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_EQ(one.err.find("model.primary"), std::string::npos) << one.err;  // it resolves: nothing to say
  EXPECT_NE(one.err.find("warning: agents.defaults.model.fallbacks[0]: \"y\" (a fallback model of agent \"main\") names no "
                         "provider"),
            std::string::npos)
      << one.err;
  EXPECT_NE(one.err.find("runs skip this fallback"), std::string::npos) << one.err;

  // config set writes it (the provider may come next) and says validate refuses it.
  auto set = pincer({"config", "set", "agents.defaults.model.primary", "x"});
  EXPECT_EQ(set.exit_code, 0) << set.out << set.err;
  EXPECT_NE(set.err.find("`config validate` refuses the file until that is fixed"), std::string::npos) << set.err;
}

// Item 3: doctor on a fresh home speaks of the configured bind, not of a listening gateway.
TEST_F(ConfigSafetyH7Test, DoctorWithNoGatewayRunningSaysWhereItWillListen) {
  write_config("");
  auto r = pincer({"doctor", "--json"});
  EXPECT_NE(r.out.find("will listen on loopback only (gateway.bind), auth token; no gateway of this home runs now"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_EQ(r.out.find("\"listens on loopback only"), std::string::npos) << r.out;
}

// Item 2: while this home's gateway runs with the file's token, an edit that leaves the file
// without the secret of its auth mode is refused (the gateway would reject it, keep its token, and
// lock this CLI out); when it happened anyway, doctor names that cause, not "another home".
TEST_F(ConfigSafetyH7Test, TheTokenTheRunningGatewayUsesIsNotRemovedAndDoctorSaysWhyTheCliIsLockedOut) {
  write_config("");
  Gateway gw(home_.path());
  const std::string before = config_text();
  auto unset = pincer({"config", "unset", "gateway.auth.token"});
  EXPECT_EQ(unset.exit_code, 2) << unset.out << unset.err;
  EXPECT_NE(unset.err.find("gateway.auth.token: not removed: this home's gateway is running (pid"), std::string::npos)
      << unset.err;
  EXPECT_NE(unset.err.find("could no longer connect to it"), std::string::npos) << unset.err;
  auto mode = pincer({"config", "set", "gateway.auth.mode", "password"});
  EXPECT_EQ(mode.exit_code, 2) << mode.out << mode.err;
  EXPECT_NE(mode.err.find("gateway.auth.mode: not set: this home's gateway is running"), std::string::npos) << mode.err;
  EXPECT_EQ(config_text(), before);
  // With the token in this shell's PINCER_GATEWAY_TOKEN the CLI still reaches it: written.
  auto with_env = pincer({"config", "unset", "gateway.auth.token", "--json"}, {{"PINCER_GATEWAY_TOKEN", kToken}});
  EXPECT_EQ(with_env.exit_code, 0) << with_env.out << with_env.err;
  EXPECT_EQ(config_text().find(kToken), std::string::npos);

  // The token gone from the file: the gateway keeps its own; doctor names the true cause.
  ASSERT_TRUE(gw.wait_for_stderr("config reload rejected"));
  // Its log names the file and the reason, and does not first list the rejected edit as a change.
  const std::string log = gw.process().err();
  EXPECT_NE(log.find("config reload rejected (" + (home_.path() / "pincer.json").string() + "), the running config is kept:"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("config changed:"), std::string::npos) << log;
  auto locked = pincer({"doctor", "--json"}, {{"PINCER_GATEWAY_PORT", std::to_string(gw.port())}});
  EXPECT_NE(locked.out.find("this home's gateway (pid"), std::string::npos) << locked.out << locked.err;
  EXPECT_NE(locked.out.find("no longer holds (it was changed or removed while the gateway ran)"), std::string::npos)
      << locked.out;
  EXPECT_EQ(locked.out.find("another home"), std::string::npos) << locked.out;
}

// Item 2, a new token while this home's gateway runs with gateway.reload.mode "hot": written,
// with a warning that the gateway keeps the old one (and so this CLI cannot reach it) until it
// restarts.
TEST_F(ConfigSafetyH7Test, ANewTokenTheRunningGatewayDoesNotRestartWithIsWarnedOf) {
  home_.write("pincer.json", "{ gateway: { port: 1, reload: { mode: 'hot' }, auth: { token: '" + std::string(kToken) + "' } } }\n");
  Gateway gw(home_.path());
  auto set = pincer({"config", "set", "gateway.auth.token", "h7-new-token-0123456789abcdefghij"});
  EXPECT_EQ(set.exit_code, 0) << set.out << set.err;
  EXPECT_NE(set.err.find("warning: this home's gateway (pid"), std::string::npos) << set.err;
  EXPECT_NE(set.err.find("runs with gateway.reload.mode \"hot\", so it does not restart with the new gateway.auth settings"),
            std::string::npos)
      << set.err;
  EXPECT_NE(config_text().find("h7-new-token-0123456789abcdefghij"), std::string::npos);
  // Another key: no such warning.
  auto other = pincer({"config", "set", "session.dmScope", "main"});
  EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
  EXPECT_EQ(other.err.find("reload.mode"), std::string::npos) << other.err;
  // An applied edit is logged with its changed paths.
  EXPECT_TRUE(gw.wait_for_stderr("config changed: session.dmScope")) << gw.process().err();
}

// Item 3 with this home's gateway running: doctor's bind is the listening gateway's, and onboard
// says the gateway runs (and where), not "Start the gateway".
TEST_F(ConfigSafetyH7Test, DoctorAndOnboardSayThatThisHomesGatewayRuns) {
  write_config("");
  Gateway gw(home_.path());
  auto doctor = pincer({"doctor", "--json"}, {{"PINCER_GATEWAY_PORT", std::to_string(gw.port())}});
  EXPECT_NE(doctor.out.find("listens on loopback only, auth token"), std::string::npos) << doctor.out << doctor.err;
  EXPECT_EQ(doctor.out.find("will listen"), std::string::npos) << doctor.out;

  auto onboard = pincer({"onboard", "--non-interactive", "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1",
                         "--api-key-env", "MOCK_KEY", "--model", "m"});
  EXPECT_NE(onboard.out.find("The gateway already runs for this home (pid"), std::string::npos)
      << onboard.exit_code << onboard.out << onboard.err;
  EXPECT_NE(onboard.out.find("ws://127.0.0.1:" + std::to_string(gw.port())), std::string::npos) << onboard.out;
  EXPECT_EQ(onboard.out.find("Start the gateway"), std::string::npos) << onboard.out;
}

}  // namespace
}  // namespace config_safety_h7_test
}  // namespace pincer::test
