// Issue 22 §5, §12, §14: the failed-auth limiter and what a client without scopes sees, attacked
// over real sockets against the real binary — as a client behind a same-host reverse proxy, a
// DNS-rebinding page in the owner's browser, a holder of a read-only device token guessing the
// shared token, and a zero-scope client looking around.

#include <cstring>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "test_device.h"
#include "ws_client.h"

namespace pincer::test {
namespace gateway_auth_attack_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "auth-attack-token-0123456789";

std::string config(const std::string& auth_extra, const std::string& gateway_extra = "") {
  return std::string("{ gateway: { auth: { mode: 'token', token: '") + kToken + "', " + auth_extra + " }, " +
         gateway_extra + " } }";
}

/// One connect attempt with `token` and extra upgrade headers; returns the connect response.
json attempt(int port, const std::string& token, const std::map<std::string, std::string>& headers = {},
             const std::vector<std::string>& scopes = {"operator.read"}) {
  WsClient c(port, headers);
  c.recv();
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(token, scopes)}});
  return c.recv_response("c1").value_or(json());
}

std::string code_of(const json& res) { return res.value("error", json::object()).value("details", json::object()).value("code", ""); }

TEST(AuthLimiterBehindProxy, ClientsBehindATrustedProxyAreLimitedEachByTheirOwnAddress) {
  TempDir home;
  home.write("pincer.json", config("rateLimit: { maxAttempts: 2 }", "trustedProxies: ['127.0.0.1']"));
  Gateway gw(home.path());
  // nginx on the same host: every connection comes from 127.0.0.1 with the client in X-Forwarded-For
  // (a forged left part is ignored: the rightmost untrusted hop counts).
  const std::map<std::string, std::string> mallory = {{"X-Forwarded-For", "10.9.9.9, 203.0.113.7"}};
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-1", mallory)), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-2", {{"X-Forwarded-For", "1.1.1.1, 203.0.113.7"}})), "AUTH_TOKEN_MISMATCH");
  auto locked = attempt(gw.port(), kToken, mallory);
  EXPECT_EQ(code_of(locked), "AUTH_RATE_LIMITED") << locked.dump();
  // Another client behind the same proxy is not locked out by Mallory.
  EXPECT_EQ(attempt(gw.port(), kToken, {{"X-Forwarded-For", "198.51.100.4"}})["ok"], true);
  // A trusted proxy that names no client: unknown, and never mistaken for the local proxy itself.
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-3", {{"X-Forwarded-For", "127.0.0.1"}})), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-4", {{"X-Forwarded-For", "garbage"}})), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), kToken, {{"X-Forwarded-For", "127.0.0.1"}})), "AUTH_RATE_LIMITED");
}

TEST(AuthLimiterBehindProxy, ProxiedConnectionsAreNotExemptEvenWithoutTrustedProxies) {
  TempDir home;
  home.write("pincer.json", config("rateLimit: { maxAttempts: 2 }"));
  Gateway gw(home.path());
  const std::map<std::string, std::string> proxied = {{"X-Forwarded-For", "203.0.113.7"}};
  attempt(gw.port(), "guess-1", proxied);
  attempt(gw.port(), "guess-2", proxied);
  EXPECT_EQ(code_of(attempt(gw.port(), kToken, proxied)), "AUTH_RATE_LIMITED");
  // The local CLI (a direct loopback client) stays exempt.
  EXPECT_EQ(attempt(gw.port(), kToken)["ok"], true);
  // The owner is told how to tell the clients apart.
  EXPECT_NE(gw.process().err().find("is not in gateway.trustedProxies"), std::string::npos) << gw.process().err();
}

TEST(BrowserOrigin, ADnsRebindingPageCannotEvenTryThePassword) {
  TempDir home;
  home.write("pincer.json", "{ gateway: { auth: { mode: 'password', password: 'correct horse battery' } } }");
  Gateway gw(home.path());
  const std::string host = "rebind.example:" + std::to_string(gw.port());
  WsClient c(gw.port(), {{"Host", host}, {"Origin", "http://" + host}});
  c.recv();
  json params = connect_params("", {"operator.admin"});
  params["auth"] = {{"password", "correct horse battery"}};  // refused before the password is looked at
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = c.recv_response("c1");
  ASSERT_TRUE(res);
  EXPECT_EQ(code_of(*res), "CONTROL_UI_ORIGIN_NOT_ALLOWED") << res->dump();
  EXPECT_EQ(c.wait_closed()->code, 1008);
}

TEST(BrowserOrigin, HostHeadersThatOnlyStartLikeLoopbackAreNotLoopback) {
  TempDir home;
  home.write("pincer.json", "{ gateway: { auth: { mode: 'none' } } }");
  Gateway gw(home.path());
  for (const char* host : {"[::1]evil.example", "127.0.0.1:evil.example", "localhost:80:81"}) {
    WsClient c(gw.port(), {{"Host", host}, {"Origin", std::string("http://") + host}});
    c.recv();
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params("", {"operator.admin"})}});
    auto res = c.recv_response("c1");
    ASSERT_TRUE(res) << host;
    EXPECT_EQ(code_of(*res), "CONTROL_UI_ORIGIN_NOT_ALLOWED") << host << ": " << res->dump();
  }
  const std::string own = "127.0.0.1:" + std::to_string(gw.port());
  EXPECT_EQ(attempt(gw.port(), "", {{"Host", own}, {"Origin", "http://" + own}})["ok"], true);  // the web chat
}

TEST(BrowserOrigin, TheOwnersBrowserIsLimitedButDoesNotLockOutTheCli) {
  TempDir home;
  home.write("pincer.json", config("rateLimit: { maxAttempts: 2 }"));  // exemptLoopback: default true
  Gateway gw(home.path());
  const std::string own = "127.0.0.1:" + std::to_string(gw.port());
  const std::map<std::string, std::string> page = {{"Host", own}, {"Origin", "http://" + own}};
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-1", page)), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-2", page)), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), kToken, page)), "AUTH_RATE_LIMITED");
  EXPECT_EQ(attempt(gw.port(), kToken)["ok"], true);  // the terminal on the same machine
}

// ---- a read-only device token must not wipe the count of guesses at the shared token ----

TEST(AuthLimiterScopes, AReadOnlyDeviceTokenDoesNotResetSharedSecretFailures) {
  TempDir home;
  home.write("pincer.json", config("rateLimit: { maxAttempts: 3, exemptLoopback: false }"));
  Gateway gw(home.path());
  TestDevice device;  // tests/support/test_device.h
  auto paired = device.connect(gw.port(), connect_params(kToken, {"operator.read"}));  // silent local pairing
  ASSERT_EQ(paired["ok"], true) << paired.dump();
  const std::string device_token = paired["payload"]["auth"]["deviceToken"];
  // The holder of that read-only token guesses the shared (admin) token, logging in between.
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-1")), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-2")), "AUTH_TOKEN_MISMATCH");
  json with_device_token = connect_params("", {"operator.read"});
  with_device_token["auth"] = {{"deviceToken", device_token}};
  ASSERT_EQ(device.connect(gw.port(), with_device_token)["ok"], true);
  EXPECT_EQ(code_of(attempt(gw.port(), "guess-3")), "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(code_of(attempt(gw.port(), kToken, {}, {"operator.admin"})), "AUTH_RATE_LIMITED");
  // Device tokens are counted on their own: the device still gets in.
  EXPECT_EQ(device.connect(gw.port(), with_device_token)["ok"], true);
}

// ---- §12: a client without scopes learns nothing about others ----

TEST(ZeroScopeClient, SeesNeitherPresenceNorHealthDetails) {
  TempDir home;
  home.write("pincer.json", config(""));
  Gateway gw(home.path());
  WsClient reader(gw.port());
  reader.recv();
  reader.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, {"operator.read"})}});
  auto r = reader.recv_response("c1");
  ASSERT_TRUE(r && (*r)["ok"] == true);
  EXPECT_TRUE((*r)["payload"]["snapshot"].contains("stateDir"));

  WsClient nobody(gw.port());
  nobody.recv();
  nobody.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, {})}});
  auto hello = nobody.recv_response("c1");
  ASSERT_TRUE(hello && (*hello)["ok"] == true) << (hello ? hello->dump() : "");
  const json& snapshot = (*hello)["payload"]["snapshot"];
  EXPECT_EQ(snapshot["presence"], json::array());
  EXPECT_EQ(snapshot["health"], json::object());
  EXPECT_FALSE(snapshot.contains("stateDir"));
  EXPECT_FALSE(snapshot.contains("configPath"));
  auto health = nobody.request("health");
  EXPECT_EQ(health["payload"]["ok"], true);
  EXPECT_EQ(health["payload"]["status"], "live");
  EXPECT_FALSE(health["payload"].contains("sessions"));
  EXPECT_FALSE(health["payload"].contains("channels"));

  // A web chat connects from another address: the reader is told (presence), the zero-scope client is not.
  json webchat = connect_params(kToken, {"operator.read"});
  webchat["client"] = {{"id", "webchat-ui"}, {"version", "1"}, {"platform", "web"}, {"mode", "webchat"}};
  WsClient other(gw.port(), {}, "127.0.0.1");
  other.recv();
  other.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", webchat}});
  ASSERT_TRUE(other.recv_response("c1"));
  bool reader_saw = false;
  for (int i = 0; i < 50 && !reader_saw; ++i) {
    auto e = reader.recv(std::chrono::milliseconds(200));
    reader_saw = e && (*e)["event"] == "presence";
  }
  ASSERT_TRUE(reader_saw);
  nobody.request("health");  // answered after anything queued before it
  for (const auto& e : nobody.events()) EXPECT_NE(e["event"], "presence") << e.dump();
  for (const auto& e : nobody.events()) EXPECT_NE(e["event"], "health") << e.dump();
}

}  // namespace
}  // namespace gateway_auth_attack_test
}  // namespace pincer::test
