// What a Discord, Slack or Matrix account says when it cannot start because its API URL is wrong:
// a server that answers 404 to everything (no such API there), or nothing listening. The reason
// must name the URL and the key to check, and must not blame the token (the new-user pass saw
// "GET /gateway/bot failed: HTTP 404" and a refused connection phrased as a bot-token failure).
// Real sockets on loopback; the channels' full sessions are tests/{discord,slack,matrix}_emulator.
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>

#include "channels/discord/discord_channel.h"
#include "channels/matrix/matrix_channel.h"
#include "channels/slack/slack_channel.h"
#include "../support/loopback_listener.h"
#include "scripted_http_server.h"

using namespace pincer;

namespace {

/// An HTTP server on 127.0.0.1 that answers every request 404 (HTML, like a web server that is not
/// the API).
class NotFoundServer : public test::ScriptedHttpServer {
 public:
  NotFoundServer() : ScriptedHttpServer({}, {404, "<html>not here</html>", "text/html"}) {}
};

/// A loopback port nothing listens on (bound, then closed).
int closed_port() {
  int port = 0;
  const int fd = test::listen_on_loopback(port);
  ::close(fd);
  return port;
}

class NullHost final : public channels::ChannelHost {
 public:
  channels::InboundOutcome on_inbound(channels::InboundMessage) override { return {}; }
};

/// Starts `channel` and returns the reason it failed with ("" when it did not fail in 30 s), and
/// whether the channel called the failure permanent.
std::pair<std::string, bool> start_failure(EventLoop& loop, channels::Channel& channel) {
  NullHost host;
  std::optional<std::string> why;
  loop.post([&] {
    channel.start(host, [&](const std::string& w) {
      why = w;
      loop.stop();
    });
    loop.after(30'000, [&] { loop.stop(); });  // a safety net only
  });
  loop.run();
  const bool permanent = channel.failed_permanently();
  channel.stop();
  return {why.value_or(""), permanent};
}

}  // namespace

TEST(ChannelStartupErrors, DiscordApiRootThatIsNotDiscordsApi) {
  NotFoundServer server;
  EventLoop loop;
  channels::discord::DiscordSettings s;
  s.token = "bot-token";
  s.api_root = server.root() + "/api";
  channels::discord::DiscordChannel channel(loop, s);
  auto [why, permanent] = start_failure(loop, channel);
  EXPECT_EQ(why, "discord[default]: GET " + server.root() + "/api/v10/gateway/bot answered HTTP 404: check "
                 "channels.discord.apiRoot (Discord's is https://discord.com/api)");
  EXPECT_FALSE(permanent);  // a server that is down for a while answers like this too
}

TEST(ChannelStartupErrors, SlackApiRootThatIsNotSlacksAndOneThatRefusesConnections) {
  {
    NotFoundServer server;
    EventLoop loop;
    channels::slack::SlackSettings s;
    s.bot_token = "xoxb-1";
    s.app_token = "xapp-1";
    s.api_root = server.root() + "/api";
    s.config_path = "channels.slack.accounts.work";
    channels::slack::SlackChannel channel(loop, s);
    auto [why, permanent] = start_failure(loop, channel);
    EXPECT_EQ(why, "slack[default]: POST " + server.root() + "/api/auth.test answered HTTP 404: check "
                   "channels.slack.accounts.work.apiRoot (Slack's is https://slack.com/api)");
    EXPECT_FALSE(permanent);
  }
  EventLoop loop;
  channels::slack::SlackSettings s;
  s.bot_token = "xoxb-1";
  s.app_token = "xapp-1";
  s.api_root = "http://127.0.0.1:" + std::to_string(closed_port()) + "/api";
  channels::slack::SlackChannel channel(loop, s);
  auto [why, permanent] = start_failure(loop, channel);
  EXPECT_EQ(why.rfind("slack[default]: cannot reach the Slack Web API at " + s.api_root + ": ", 0), 0u) << why;
  EXPECT_EQ(why.find("token"), std::string::npos) << why;
  EXPECT_FALSE(permanent);
}

TEST(ChannelStartupErrors, MatrixHomeserverThatIsNotAHomeserver) {
  NotFoundServer server;
  EventLoop loop;
  channels::matrix::MatrixSettings s;
  s.homeserver = server.root();
  s.access_token = "syt_token";
  channels::matrix::MatrixChannel channel(loop, s);
  auto [why, permanent] = start_failure(loop, channel);
  EXPECT_EQ(why, "matrix[default]: GET " + server.root() +
                     "/_matrix/client/v3/account/whoami answered HTTP 404: is channels.matrix.homeserver the URL of a "
                     "Matrix homeserver?");
  EXPECT_FALSE(permanent);
}
