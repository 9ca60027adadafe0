// The secrets of a configuration (src/core/config_secrets.cpp; issue 22 items 6 and 9): every
// value the schema marks sensitive is found (also when it came from "${ENV}"), and the view
// clients get from config.get shows env references as written and no URL userinfo.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "core/config.h"
#include "test_helpers.h"

namespace pincer::config {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("pincer-cfgsec-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

using pincer::test_helpers::env_of;

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(ConfigSecrets, EverySensitiveValueIsFoundIncludingFromTheEnvironment) {
  const auto file = write_temp("sensitive.json", R"({
    gateway: { auth: { token: "${GW_TOKEN}", password: "gateway-password-1" } },
    models: { providers: {
      a: { baseUrl: "https://a.example/v1", apiKey: "${A_KEY}", headers: { "X-Org": "org-header-value" } },
      b: { baseUrl: "https://b.example/v1", apiKey: "b-literal-key-123" } } },
    channels: {
      telegram: { botToken: "123456:telegram-bot-token", webhookSecret: "tg-webhook-secret-16",
                  accounts: { second: { botToken: "654321:second-bot-token" } } },
      webhook: { secret: "webhook-hmac-secret-16" },
      irc: { host: "irc.example", nick: "bot", password: "irc-server-pass",
             sasl: { username: "bot", password: "irc-sasl-pass" }, nickserv: { password: "irc-nickserv-pass" } } } })");
  auto cfg = load(file, env_of({{"GW_TOKEN", "gateway-token-from-env"}, {"A_KEY", "provider-key-from-env"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  const auto values = sensitive_values(cfg->effective);
  for (const char* v : {"gateway-token-from-env", "gateway-password-1", "provider-key-from-env", "org-header-value",
                        "b-literal-key-123", "123456:telegram-bot-token", "tg-webhook-secret-16", "654321:second-bot-token",
                        "webhook-hmac-secret-16", "irc-server-pass", "irc-sasl-pass", "irc-nickserv-pass"}) {
    EXPECT_TRUE(has(values, v)) << v;
  }
  // Nothing that is not a secret.
  for (const char* v : {"https://a.example/v1", "irc.example", "bot"}) EXPECT_FALSE(has(values, v)) << v;
  // Each sensitive value in the schema is one the redaction of config.get also hides.
  const std::string shown = redact(cfg->effective).dump();
  for (const auto& v : values) EXPECT_EQ(shown.find(v), std::string::npos) << v;
}

TEST(ConfigSecrets, ClientsSeeEnvReferencesAsWrittenAndNoUrlUserinfo) {
  const auto file = write_temp("view.json", R"({
    models: { providers: { a: { baseUrl: "${A_BASE}", apiKey: "${A_KEY}" },
                           b: { baseUrl: "https://user:pa55word@b.example/v1" },
                           c: { baseUrl: "https://c.example/$${NOT_A_REF}" } } },
    channels: { webhook: { secret: "webhook-hmac-secret-16", callbackUrl: "https://hooks.example/cb?k=${CB_KEY}" } } })");
  auto cfg = load(file, env_of({{"A_BASE", "https://proxy.example/v1?key=base-url-key"},
                                {"A_KEY", "provider-key-from-env"},
                                {"CB_KEY", "callback-key-from-env"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  ASSERT_EQ(cfg->effective["models"]["providers"]["a"]["baseUrl"], "https://proxy.example/v1?key=base-url-key");
  const json view = redact_for_clients(cfg->effective, cfg->written);
  const json& p = view["models"]["providers"];
  EXPECT_EQ(p["a"]["baseUrl"], "${A_BASE}");
  EXPECT_EQ(p["a"]["apiKey"], kRedacted);  // sensitive: redacted, not even the reference
  EXPECT_EQ(p["b"]["baseUrl"], "https://***@b.example/v1");
  EXPECT_EQ(p["c"]["baseUrl"], "https://c.example/${NOT_A_REF}");  // an escape is no substitution
  EXPECT_EQ(view["channels"]["webhook"]["callbackUrl"], "https://hooks.example/cb?k=${CB_KEY}");
  EXPECT_EQ(view["channels"]["webhook"]["secret"], kRedacted);
  const std::string dumped = view.dump();
  for (const char* leaked : {"base-url-key", "provider-key-from-env", "callback-key-from-env", "pa55word"}) {
    EXPECT_EQ(dumped.find(leaked), std::string::npos) << leaked << " in " << dumped;
  }
  // Defaults still show (they were never written).
  EXPECT_EQ(view["gateway"]["port"], 18789);
  // Without a written document (a gateway started from code) the effective values are redacted only.
  EXPECT_EQ(redact_for_clients(cfg->effective, nullptr)["models"]["providers"]["b"]["baseUrl"], "https://***@b.example/v1");
}

// Issue 22 item 14: an empty (or otherwise invalid) header name in requiredHeaders is refused at
// validation instead of silently making every proxied request fail (or pass) on nothing.
TEST(ConfigSecrets, RequiredProxyHeadersMustBeHeaderNames) {
  auto doc = [](const std::string& header) {
    return json{{"gateway",
                 {{"auth", {{"mode", "trusted-proxy"},
                            {"trustedProxy", {{"userHeader", "x-forwarded-user"}, {"requiredHeaders", {header}}}}}}}}};
  };
  EXPECT_TRUE(validate(doc("x-proxy-auth")).ok());
  for (const char* bad : {"", " ", "x proxy", "x:y"}) {
    auto st = validate(doc(bad));
    ASSERT_FALSE(st.ok()) << "[" << bad << "]";
    EXPECT_NE(st.error().message.find("gateway.auth.trustedProxy.requiredHeaders[0]"), std::string::npos)
        << st.error().message;
  }
}

}  // namespace
}  // namespace pincer::config
