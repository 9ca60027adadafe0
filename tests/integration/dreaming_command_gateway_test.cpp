// `/dreaming` through the gateway's chat surfaces against the real binary: a client holding
// operator.admin turns dreaming on (pincer.json written, the user's comment kept), one with only
// operator.write is refused and changes nothing; `pincer agent -m "/dreaming status"` shows it.
#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace dreaming_command_gateway_test {  // named: the unity build joins test files
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kToken = "dreaming-command-token-0123456789abcdef";

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<WsClient> client_with(int port, const std::vector<std::string>& scopes) {
  auto c = std::make_unique<WsClient>(port);
  EXPECT_TRUE(c->recv());
  c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, scopes)}});
  auto res = c->recv_response("c1");
  EXPECT_TRUE(res && (*res)["ok"] == true) << (res ? res->dump() : "no answer");
  return c;
}

/// The text of the command's answer: the `chat` final event of chat_turn.
std::string command_reply(WsClient& c, const std::string& text, const std::string& run_id) {
  auto frames = chat_turn(c, "main", text, run_id);
  if (frames.empty()) return "";
  std::string out;
  for (const auto& b : frames.back()["payload"]["message"].value("content", json::array())) out += b.value("text", "");
  return out;
}

TEST(DreamingCommandGateway, AdminTurnsItOnWriteOnlyClientsAreRefused) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", "// my own notes stay\n" + mock_config({.token = kToken,
                                                                    .provider = {.base_url = mock.base_url(),
                                                                                 .models = "{ id: 'mock-model' }",
                                                                                 .api = ""}}));
  Gateway gateway(home.path());
  const std::string before = read_all(home.path() / "pincer.json");

  auto writer = client_with(gateway.port(), {"operator.read", "operator.write"});
  const std::string refused = command_reply(*writer, "/dreaming on", "dream-1");
  EXPECT_NE(refused.find("requires owner status for channel callers (commands.ownerAllowFrom) or operator.admin"),
            std::string::npos)
      << refused;
  EXPECT_EQ(read_all(home.path() / "pincer.json"), before) << "a client without operator.admin changed the config";
  EXPECT_NE(command_reply(*writer, "/dreaming status", "dream-2").find("- enabled: off"), std::string::npos);

  auto admin = client_with(gateway.port(), {"operator.admin"});
  const std::string on = command_reply(*admin, "/dreaming on", "dream-3");
  EXPECT_EQ(on.rfind("Dreaming enabled.\n\nDreaming status:\n- enabled: on", 0), 0u) << on;
  const std::string after = read_all(home.path() / "pincer.json");
  EXPECT_NE(after.find("// my own notes stay"), std::string::npos) << after;
  auto parsed_on = run_pincer({"config", "get", "plugins.entries.memory-core.config.dreaming.enabled"},
                              {{"PINCER_HOME", home.path().string()}}, 30s);
  EXPECT_EQ(parsed_on.out, "true\n") << parsed_on.err;
}

}  // namespace
}  // namespace dreaming_command_gateway_test
}  // namespace pincer::test
