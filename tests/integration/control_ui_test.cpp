// OpenClaw's Control UI served from gateway.controlUi.root by the real `pincer` binary (issue 23),
// over HTTP: a small stand-in root (index.html with an inline script, assets, a root public file)
// checks the serving rules — content types, no-cache + Last-Modified revalidation, the SPA
// fallback only for page requests, no path out of the root, the bootstrap JSON behind the token,
// where Pincer's web chat moves, basePath, and a root that is not a built Control UI. The real UI
// in a browser: tests/compat/control-ui.test.mjs.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace control_ui_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "control-ui-http-token-0123456789";
constexpr const char* kIndex =
    "<!doctype html>\n<html data-openclaw-control-ui-build-id=\"abc\" lang=\"en\">\n<head>"
    "<link rel=\"icon\" href=\"./favicon.svg\"><script>globalThis.x = 1;</script>"
    "<script type=\"module\" src=\"./assets/app-1.js\"></script></head><body>UI</body></html>\n";

class ControlUiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(ui_.path()) / "control-ui";
    fs::create_directories(root_ / "assets");
    write(root_ / "index.html", kIndex);
    write(root_ / "assets/app-1.js", "console.log('ui');\n");
    write(root_ / "assets/style.css", "body{}\n");
    write(root_ / "favicon.svg", "<svg/>");
    write(ui_.path() / "secret.txt", "outside the root");
    fs::create_symlink(ui_.path() / "secret.txt", root_ / "assets/leak.js");
  }
  void start(const std::string& control_ui) {
    home_.write("pincer.json", std::string("{ gateway: { auth: { mode: 'token', token: '") + kToken +
                                   "' }, controlUi: " + control_ui + " } }");
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  static void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
  int port() const { return gateway_->port(); }

  TempDir ui_, home_;
  fs::path root_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(ControlUiTest, ServesTheUiAtTheRootAndMovesTheWebChat) {
  start("{ root: '" + root_.string() + "' }");
  EXPECT_TRUE(gateway_->process().wait_for_stdout("pincer web chat: http://127.0.0.1:" + std::to_string(port()) + "/pincer/"));
  auto index = http_request(port(), "GET", "/");
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(index.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_EQ(index.headers["cache-control"], "no-cache");
  EXPECT_EQ(index.headers["x-frame-options"], "DENY");
  EXPECT_NE(index.body.find("<html data-openclaw-control-ui-base-path=\"\" data-openclaw-terminal-enabled=\"false\" lang=\"en\">"),
            std::string::npos)
      << index.body;  // the build id of a configured root is dropped
  EXPECT_NE(index.body.find("src=\"/assets/app-1.js\""), std::string::npos);
  EXPECT_NE(index.body.find("href=\"/favicon.svg\""), std::string::npos);
  // The inline script is allowed by its hash, not by 'unsafe-inline'; WebSockets only to this host.
  const std::string csp = index.headers["content-security-policy"];
  EXPECT_NE(csp.find("script-src 'self' 'sha256-"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("script-src 'self' 'unsafe-inline'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("connect-src 'self' ws://127.0.0.1:" + std::to_string(port())), std::string::npos) << csp;

  auto js = http_request(port(), "GET", "/assets/app-1.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log('ui');\n");
  EXPECT_EQ(js.headers["content-type"], "application/javascript; charset=utf-8");
  EXPECT_EQ(js.headers["cache-control"], "no-cache");
  EXPECT_EQ(js.headers["x-content-type-options"], "nosniff");
  const std::string modified = js.headers["last-modified"];
  ASSERT_FALSE(modified.empty());
  EXPECT_EQ(http_request(port(), "GET", "/assets/app-1.js", {{"If-Modified-Since", modified}}).status, 304);
  EXPECT_EQ(http_request(port(), "GET", "/assets/app-1.js", {{"If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"}}).status, 200);
  EXPECT_EQ(http_request(port(), "GET", "/assets/style.css").headers["content-type"], "text/css; charset=utf-8");
  EXPECT_EQ(http_request(port(), "GET", "/favicon.svg").headers["content-type"], "image/svg+xml");
  EXPECT_EQ(http_request(port(), "GET", "/__openclaw__/favicon.svg").status, 200);
  // An asset under a deep route resolves to assets/ (OpenClaw's rule).
  EXPECT_EQ(http_request(port(), "GET", "/chat/main/assets/app-1.js").body, "console.log('ui');\n");

  // SPA fallback: a page route gets index.html; a missing asset, or a non-page request, 404.
  auto route = http_request(port(), "GET", "/chat/main", {{"Accept", "text/html,application/xhtml+xml"}});
  EXPECT_EQ(route.status, 200);
  EXPECT_NE(route.body.find("<body>UI</body>"), std::string::npos);
  EXPECT_EQ(http_request(port(), "GET", "/assets/missing.js").status, 404);
  EXPECT_EQ(http_request(port(), "GET", "/chat/main", {{"Accept", "application/json"}}).status, 404);
  // Nothing outside the root: dot segments, encoded ones, a symlink pointing out.
  for (const char* path : {"/../secret.txt", "/%2e%2e/secret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/assets/leak.js",
                           "/assets/..%2f..%2fsecret.txt", "/a%00b.js", "/assets/%zz.js"}) {
    auto r = http_request(port(), "GET", path, {{"Accept", "application/json"}});
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body.find("outside the root"), std::string::npos) << path;
  }
  EXPECT_EQ(http_request(port(), "POST", "/").status, 404);  // not the UI's: Pincer's own 404

  // The bootstrap JSON: behind the gateway's auth (Bearer), as OpenClaw; never by query token.
  EXPECT_EQ(http_request(port(), "GET", "/control-ui-config.json").status, 401);
  EXPECT_EQ(http_request(port(), "GET", std::string("/control-ui-config.json?token=") + kToken).status, 401);
  EXPECT_EQ(http_request(port(), "GET", "/control-ui-config.json", {{"Authorization", "Bearer wrong"}}).status, 401);
  auto config = http_request(port(), "GET", "/control-ui-config.json", {{"Authorization", std::string("Bearer ") + kToken}});
  ASSERT_EQ(config.status, 200) << config.body;
  const json body = json::parse(config.body);
  EXPECT_EQ(body["basePath"], "");
  EXPECT_EQ(body["assistantAgentId"], "main");
  EXPECT_EQ(body["terminalEnabled"], false);
  EXPECT_EQ(body["pluginAssetsRequireAuth"], true);
  EXPECT_EQ(http_request(port(), "GET", "/__openclaw__/control-ui-config.json",
                         {{"Authorization", std::string("Bearer ") + kToken}}).status, 200);

  // Pincer's web chat under /pincer/; probes stay where they are.
  auto chat = http_request(port(), "GET", "/pincer/");
  EXPECT_EQ(chat.status, 200);
  EXPECT_NE(chat.body.find("src=\"./app.mjs\""), std::string::npos);
  EXPECT_EQ(http_request(port(), "GET", "/pincer/app.mjs").status, 200);
  auto bare = http_request(port(), "GET", "/pincer");
  EXPECT_EQ(bare.status, 302);
  EXPECT_EQ(bare.headers["location"], "/pincer/");
  EXPECT_EQ(http_request(port(), "GET", "/health").body, R"({"ok":true,"status":"live"})");
}

TEST_F(ControlUiTest, BasePathKeepsTheWebChatAtTheRoot) {
  start("{ root: '" + root_.string() + "', basePath: '/openclaw/' }");
  auto bare = http_request(port(), "GET", "/openclaw?x=1");
  EXPECT_EQ(bare.status, 302);
  EXPECT_EQ(bare.headers["location"], "/openclaw/?x=1");
  auto index = http_request(port(), "GET", "/openclaw/");
  ASSERT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("data-openclaw-control-ui-base-path=\"/openclaw\""), std::string::npos);
  EXPECT_NE(index.body.find("src=\"/openclaw/assets/app-1.js\""), std::string::npos);
  EXPECT_EQ(http_request(port(), "GET", "/openclaw/assets/app-1.js").status, 200);
  auto config = http_request(port(), "GET", "/openclaw/control-ui-config.json",
                             {{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(json::parse(config.body)["basePath"], "/openclaw");
  // Pincer's web chat stays at /.
  EXPECT_NE(http_request(port(), "GET", "/").body.find("src=\"./app.mjs\""), std::string::npos);
  EXPECT_EQ(http_request(port(), "GET", "/pincer/").status, 404);
}

TEST_F(ControlUiTest, ARootThatIsNotABuiltControlUiIsAClearError) {
  fs::remove(root_ / "index.html");
  start("{ root: '" + root_.string() + "' }");
  auto err = gateway_->process().wait_for_stdout("pincer web chat");  // start-up lines are out
  ASSERT_TRUE(err);
  auto r = http_request(port(), "GET", "/");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find(root_.string() + " has no index.html"), std::string::npos) << r.body;
  // doctor says the same, with the fix.
  auto doctor = run_pincer({"doctor", "--json"}, {{"PINCER_HOME", home_.path().string()}}, 30s);
  const json findings = json::parse(doctor.out)["findings"];
  bool found = false;
  for (const auto& f : findings) {
    if (f["check"] != "control-ui") continue;
    found = true;
    EXPECT_EQ(f["status"], "fail");
    EXPECT_NE(f["message"].get<std::string>().find("has no index.html"), std::string::npos) << f.dump();
  }
  EXPECT_TRUE(found) << doctor.out;
  EXPECT_NE(gateway_->process().err().find("gateway.controlUi.root: " + root_.string() + " has no index.html"),
            std::string::npos)
      << gateway_->process().err();
}

}  // namespace
}  // namespace control_ui_test
}  // namespace pincer::test
