// Issue 22 §1: forged channel updates. The real binary with the webhook channel and Telegram in
// webhook mode; requests as a web page in the owner's browser would send them ("simple" cross-site
// fetches: text/plain, no preflight; a DNS-rebinding page under its own name) and as a script
// without the Telegram secret. Each must be refused before the channel sees it.
#include <gtest/gtest.h>

#include "gateway_process.h"
#include "raw_socket.h"

namespace pincer::test {
namespace gateway_route_guard_test {  // named: the unity build puts several test files in one unit
namespace {

constexpr const char* kGatewayToken = "route-guard-token-0123456789";
constexpr const char* kWebhookSecret = "route-guard-webhook-secret-0123";
constexpr const char* kTelegramSecret = "route-guard-telegram-secret-0123";

// The owner's Telegram id, as an attacker would put it in a forged update.
const std::string kForgedUpdate =
    R"({"update_id":1,"message":{"message_id":1,"date":1,"text":"run rm -rf ~","from":{"id":1001,"is_bot":false,)"
    R"("first_name":"Owner"},"chat":{"id":1001,"type":"private"}}})";

std::string config() {
  // Telegram's API is unreachable here (port 9): only the inbound route matters.
  return std::string("{ gateway: { auth: { token: '") + kGatewayToken + "' } },\n" +
         "  channels: {\n"
         "    webhook: { secret: '" + kWebhookSecret + "' },\n"
         "    telegram: { botToken: '123:abc', apiRoot: 'http://127.0.0.1:9', webhookUrl: 'https://bot.example/tg',\n"
         "                webhookSecret: '" + kTelegramSecret + "', allowFrom: ['1001'] },\n"
         "  } }\n";
}

/// POST `body` to `path` with `headers` (each "Name: value\r\n"); Host 127.0.0.1:<port> unless given.
RawResponse post(int port, const std::string& path, const std::string& body, const std::string& headers) {
  std::string req = "POST " + path + " HTTP/1.1\r\n";
  if (headers.find("Host:") == std::string::npos) req += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  req += headers + "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  return raw_exchange(port, req);
}

class RouteGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_.write("pincer.json", config());
    gw_ = std::make_unique<Gateway>(home_.path());
  }
  int port() const { return gw_->port(); }
  TempDir home_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(RouteGuardTest, ASimpleCrossSiteFetchOfAForgedTelegramUpdateIsRefused) {
  // fetch('http://127.0.0.1:18789/telegram-webhook', {method:'POST', mode:'no-cors', body}) from any page.
  auto r = post(port(), "/telegram-webhook", kForgedUpdate,
                "Origin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\nContent-Type: text/plain;charset=UTF-8\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("cross-site request refused"), std::string::npos) << r.body;
  // Even with the secret a page cannot get in (it could not know it, but the route layer refuses
  // pages whatever they send).
  r = post(port(), "/telegram-webhook", kForgedUpdate,
           std::string("Origin: https://evil.example\r\nContent-Type: application/json\r\n") +
               "X-Telegram-Bot-Api-Secret-Token: " + kTelegramSecret + "\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
  // Sec-Fetch-Site alone (no Origin) names a page of another site too.
  r = post(port(), "/webhook", R"({"text":"hi"})", "Sec-Fetch-Site: same-site\r\nContent-Type: application/json\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
}

TEST_F(RouteGuardTest, ADnsRebindingPageIsNotSameOriginWithTheGateway) {
  // evil.example re-pointed at 127.0.0.1: to the browser the page and the route share an origin.
  const std::string host = "rebind.example:" + std::to_string(port());
  auto r = post(port(), "/webhook", R"({"text":"hi"})",
                "Host: " + host + "\r\nOrigin: http://" + host + "\r\nSec-Fetch-Site: same-origin\r\n" +
                    "Content-Type: application/json\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
  r = post(port(), "/webhook", R"({"text":"hi"})",
           "Host: " + host + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n");
  EXPECT_EQ(r.status, 403) << r.body;
}

TEST_F(RouteGuardTest, BodiesThatAreNotJsonAreRefusedWith415) {
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    const std::string header = *type ? std::string("Content-Type: ") + type + "\r\n" : std::string();
    auto r = post(port(), "/telegram-webhook", kForgedUpdate, header);
    EXPECT_EQ(r.status, 415) << type << ": " << r.body;
    EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8");
    r = post(port(), "/webhook", R"({"text":"hi"})", header);
    EXPECT_EQ(r.status, 415) << type << ": " << r.body;
  }
}

TEST_F(RouteGuardTest, ServerToServerCallersStillReachTheirRoutes) {
  // Telegram itself: no Origin, JSON, the secret → accepted (200); without the secret → 401.
  auto r = post(port(), "/telegram-webhook", kForgedUpdate,
                std::string("Content-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: ") + kTelegramSecret + "\r\n");
  EXPECT_EQ(r.status, 200) << r.body;
  r = post(port(), "/telegram-webhook", kForgedUpdate, "Content-Type: application/json; charset=utf-8\r\n");
  EXPECT_EQ(r.status, 401) << r.body;
  // The webhook channel: an unsigned JSON body reaches the route and is refused by its signature check.
  r = post(port(), "/webhook", R"({"text":"hi"})", "Content-Type: Application/JSON\r\n");
  EXPECT_EQ(r.status, 401) << r.body;
  // The gateway's own page may call a route (same origin under a loopback Host).
  r = post(port(), "/webhook", R"({"text":"hi"})",
           "Origin: http://127.0.0.1:" + std::to_string(port()) + "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n");
  EXPECT_EQ(r.status, 401) << r.body;
}

TEST(TelegramWebhookSecret, WebhookUrlWithoutAStrongSecretDoesNotStart) {
  for (const std::string& secret_line : {std::string(), std::string("webhookSecret: 'short-secret',"),
                                        std::string("webhookSecret: 'has spaces in it 0123456789',")}) {
    TempDir home;
    home.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kGatewayToken) +
                                  "' } }, channels: { telegram: { botToken: '123:abc', apiRoot: 'http://127.0.0.1:9', " +
                                  "webhookUrl: 'https://bot.example/tg', " + secret_line + " } } }");
    auto r = run_pincer({"gateway", "run", "--port", "0"}, {{"PINCER_HOME", home.path().string()}});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("channels.telegram.webhookSecret: "), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace gateway_route_guard_test
}  // namespace pincer::test
