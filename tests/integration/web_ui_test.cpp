// The web chat UI as HTTP sees it (issue #4 §4): the real `pincer` binary serves the embedded
// files of src/gateway/web_ui/ at / with security headers and ETag revalidation, keeps unknown
// paths 404, and accepts the page's WebSocket only from its own origin.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace web_ui_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "web-ui-test-token-0123456789";

class WebUiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_.write("pincer.json", std::string("{ gateway: { auth: { mode: 'token', token: '") + kToken + "' } } }");
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  int port() const { return gateway_->port(); }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port()); }

  TempDir home_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(WebUiTest, RootServesTheChatPageWithSecurityHeaders) {
  auto res = http_request(port(), "GET", "/");
  ASSERT_EQ(res.status, 200);
  EXPECT_EQ(res.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_NE(res.body.find("<script type=\"module\" src=\"./app.mjs\"></script>"), std::string::npos);
  EXPECT_EQ(res.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(res.headers["x-frame-options"], "DENY");
  EXPECT_EQ(res.headers["referrer-policy"], "no-referrer");
  EXPECT_EQ(res.headers["cache-control"], "no-cache");
  const std::string csp = res.headers["content-security-policy"];
  for (const char* part : {"default-src 'none'", "script-src 'self';", "style-src 'self';", "frame-ancestors 'none'",
                           "object-src 'none'", "base-uri 'none'"}) {
    EXPECT_NE(csp.find(part), std::string::npos) << part << " missing in " << csp;
  }
  EXPECT_NE(csp.find("connect-src 'self' ws://127.0.0.1:" + std::to_string(port()) + " wss://127.0.0.1:" +
                     std::to_string(port()) + ";"),
            std::string::npos)
      << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  const std::string etag = res.headers["etag"];
  ASSERT_GE(etag.size(), 3u);
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(etag.back(), '"');

  // A hostile Host header is not echoed into the policy.
  auto odd = http_request(port(), "GET", "/", {{"Host", "x; script-src *"}});
  EXPECT_EQ(odd.status, 200);
  EXPECT_EQ(odd.headers["content-security-policy"].find("script-src *"), std::string::npos);
  EXPECT_NE(odd.headers["content-security-policy"].find("connect-src 'self';"), std::string::npos);
}

TEST_F(WebUiTest, EveryFileOfTheUiIsServedAsItIsInTheSourceTree) {
  const std::filesystem::path dir = std::filesystem::path(PINCER_SOURCE_DIR) / "src/gateway/web_ui";
  const std::map<std::string, std::string> types = {{".html", "text/html; charset=utf-8"},
                                                    {".mjs", "text/javascript; charset=utf-8"},
                                                    {".css", "text/css; charset=utf-8"},
                                                    {".svg", "image/svg+xml"}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    auto res = http_request(port(), "GET", "/" + name);
    EXPECT_EQ(res.status, 200) << name;
    EXPECT_EQ(res.body, read_file(entry.path())) << name << " differs from the embedded copy";
    ASSERT_TRUE(types.contains(entry.path().extension().string())) << name;
    EXPECT_EQ(res.headers["content-type"], types.at(entry.path().extension().string())) << name;
    EXPECT_FALSE(res.headers["content-security-policy"].empty()) << name;
    ++files;
  }
  EXPECT_GE(files, 6);
  // The page and /index.html are the same file.
  EXPECT_EQ(http_request(port(), "GET", "/").body, http_request(port(), "GET", "/index.html").body);
  EXPECT_EQ(http_request(port(), "GET", "/?token=x").status, 200);
}

TEST_F(WebUiTest, EtagRevalidationAnswersNotModified) {
  auto first = http_request(port(), "GET", "/app.mjs");
  ASSERT_EQ(first.status, 200);
  const std::string etag = first.headers["etag"];
  ASSERT_FALSE(etag.empty());

  auto same = http_request(port(), "GET", "/app.mjs", {{"If-None-Match", etag}});
  EXPECT_EQ(same.status, 304);
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(same.headers["etag"], etag);
  EXPECT_EQ(same.headers["cache-control"], "no-cache");
  EXPECT_EQ(http_request(port(), "GET", "/app.mjs", {{"If-None-Match", "W/" + etag}}).status, 304);
  EXPECT_EQ(http_request(port(), "GET", "/app.mjs", {{"If-None-Match", "\"other\", " + etag}}).status, 304);
  EXPECT_EQ(http_request(port(), "HEAD", "/app.mjs", {{"If-None-Match", etag}}).status, 304);

  auto changed = http_request(port(), "GET", "/app.mjs", {{"If-None-Match", "\"0123\""}});
  EXPECT_EQ(changed.status, 200);
  EXPECT_EQ(changed.body, first.body);
  // Another file's tag does not match.
  EXPECT_EQ(http_request(port(), "GET", "/", {{"If-None-Match", etag}}).status, 200);
  EXPECT_NE(http_request(port(), "GET", "/").headers["etag"], etag);

  auto head = http_request(port(), "HEAD", "/");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.headers["content-length"], std::to_string(http_request(port(), "GET", "/").body.size()));
}

TEST_F(WebUiTest, UnknownPathsAndMethodsAreRefused) {
  for (const char* path : {"/nope", "/index.htm", "/App.mjs", "/web_ui/app.mjs", "/../index.html", "/%2e%2e/app.mjs",
                           "/app.mjs/", "//app.mjs", "/.gitignore"}) {
    EXPECT_EQ(http_request(port(), "GET", path).status, 404) << path;
  }
  auto post = http_request(port(), "POST", "/");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.headers["allow"], "GET, HEAD");
  // The probes are unchanged.
  auto health = http_request(port(), "GET", "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"ok":true,"status":"live"})");
  EXPECT_EQ(health.headers["content-type"], "application/json; charset=utf-8");
}

TEST_F(WebUiTest, WebSocketFromTheSameOriginConnectsAndAForeignOriginIsRefused) {
  {
    WsClient page(port(), {{"Origin", origin()}});
    ASSERT_TRUE(page.recv());  // connect.challenge
    auto params = connect_params(kToken);
    params["client"] = {{"id", "webchat-ui"}, {"version", "0.1.0"}, {"platform", "web"}, {"mode", "webchat"}};
    page.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = page.recv_response("c1");
    ASSERT_TRUE(res);
    EXPECT_EQ((*res)["ok"], true) << res->dump();
  }
  for (const std::string& foreign :
       std::vector<std::string>{"http://evil.example", "http://127.0.0.1:1", "null", origin() + ".evil.example"}) {
    WsClient c(port(), {{"Origin", foreign}});
    ASSERT_TRUE(c.recv());
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c.recv_response("c1");
    ASSERT_TRUE(res) << foreign;
    EXPECT_EQ((*res)["ok"], false) << foreign;
    EXPECT_EQ((*res)["error"]["details"]["code"], "CONTROL_UI_ORIGIN_NOT_ALLOWED") << foreign;
    auto closed = c.wait_closed();
    ASSERT_TRUE(closed) << foreign;
    EXPECT_EQ(closed->code, 1008) << foreign;
  }
}

TEST_F(WebUiTest, StartupPrintsTheWebChatUrl) {
  auto line = gateway_->process().wait_for_stdout("pincer web chat: ");
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("http://127.0.0.1:" + std::to_string(port()) + "/"), std::string::npos) << *line;
}

}  // namespace
}  // namespace web_ui_test
}  // namespace pincer::test
