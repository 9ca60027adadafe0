// Interactive onboarding of a custom OpenAI-compatible server (src/cli/onboard.h): the provider
// answer is taken in any case ("Custom"), the models GET <base URL>/models lists are shown and the
// first is offered (the key from the named variable sent as a Bearer token), another id can still
// be typed, and a server that cannot be asked is a warning, not a stop. The server is a scripted
// one-request HTTP server on a loopback port.
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli/onboard.h"
#include "core/ids.h"
#include "../support/loopback_listener.h"

namespace pincer::cli {
namespace {

/// Answers one HTTP request on a loopback port with `body` (200, JSON) and keeps the request's
/// head in `request` (read after join()).
class OneShotModelsServer {
 public:
  explicit OneShotModelsServer(std::string body) : body_(std::move(body)) {
    fd_ = test::listen_on_loopback(port_);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
      }
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" + body_;
      (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(c);
    });
  }
  ~OneShotModelsServer() {
    ::shutdown(fd_, SHUT_RDWR);  // wakes an accept() that never got a client
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  void join() { thread_.join(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::string request;

 private:
  std::string body_;
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

/// A Prompt answering from `script` by question ("" or nothing left = the default), recording the
/// default each question offered.
Prompt onboard_models_script(std::map<std::string, std::vector<std::string>> script,
                             std::map<std::string, std::string>& offered) {
  auto answers = std::make_shared<std::map<std::string, std::vector<std::string>>>(std::move(script));
  return [answers, &offered](const std::string& q, const std::string& def, const std::vector<std::string>&) {
    offered[q] = def;
    auto& list = (*answers)[q];
    if (list.empty()) return def;
    std::string a = list.front();
    list.erase(list.begin());
    return a.empty() ? def : a;
  };
}

class OnboardCustomModelsTest : public ::testing::Test {
 protected:
  std::filesystem::path state_ = std::filesystem::temp_directory_path() / ("pincer-onboard-models-" + ids::random_token(8));
  config::EnvLookup env_ = [this](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return state_.string();
    if (name == "LOCAL_LLM_KEY") return "sk-local-123";
    return std::nullopt;
  };
  OnboardOptions options() const {
    OnboardOptions o;
    o.ollama_url = "http://127.0.0.1:" + std::to_string(test::closed_loopback_port());  // no Ollama
    o.probe_timeout = std::chrono::milliseconds(5000);
    o.workspace = (state_ / "workspace").string();
    return o;
  }
  void TearDown() override { std::filesystem::remove_all(state_); }
};

TEST_F(OnboardCustomModelsTest, CapitalisedCustomIsCustomAndTheServersModelsAreOffered) {
  OneShotModelsServer server(R"({"object":"list","data":[{"id":"qwen3-8b","object":"model"},{"id":"llama3.1-8b"}]})");
  std::map<std::string, std::string> offered;
  testing::internal::CaptureStdout();
  auto r = onboard(options(), state_, env_,
                   onboard_models_script({{"Model provider", {"Custom"}},
                                          {"Base URL of the API", {server.url()}},
                                          {"Environment variable holding the API key (\"-\" for none)", {"LOCAL_LLM_KEY"}},
                                          {"Gateway port", {"18806"}}},
                                         offered));
  const std::string out = testing::internal::GetCapturedStdout();
  server.join();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->provider, "custom");
  EXPECT_EQ(r->model, "custom/qwen3-8b");  // the first listed, offered and accepted
  EXPECT_EQ(offered["Model id"], "qwen3-8b");
  EXPECT_NE(out.find("Models at " + server.url() + ": qwen3-8b, llama3.1-8b"), std::string::npos) << out;
  EXPECT_NE(server.request.find("GET /v1/models "), std::string::npos) << server.request;
  EXPECT_NE(server.request.find("Bearer sk-local-123"), std::string::npos) << server.request;
}

TEST_F(OnboardCustomModelsTest, AnotherIdCanBeTypedAndAFailedProbeOnlyWarns) {
  {
    OneShotModelsServer server(R"({"data":[{"id":"qwen3-8b"}]})");
    std::map<std::string, std::string> offered;
    testing::internal::CaptureStdout();
    auto r = onboard(options(), state_, env_,
                     onboard_models_script({{"Model provider", {"custom"}},
                                            {"Base URL of the API", {server.url()}},
                                            {"Model id", {"my-own-model"}}},
                                           offered));
    (void)testing::internal::GetCapturedStdout();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->model, "custom/my-own-model");
  }
  std::filesystem::remove_all(state_);
  // Nothing answers at the URL: a warning, the id is typed.
  const std::string down = "http://127.0.0.1:" + std::to_string(test::closed_loopback_port()) + "/v1";
  std::map<std::string, std::string> offered;
  testing::internal::CaptureStdout();
  auto r = onboard(options(), state_, env_,
                   onboard_models_script({{"Model provider", {"CUSTOM"}},
                                          {"Base URL of the API", {down}},
                                          {"Model id", {"typed-model"}}},
                                         offered));
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->model, "custom/typed-model");
  EXPECT_NE(out.find("Could not list the models at " + down), std::string::npos) << out;
  bool warned = false;
  for (const auto& w : r->warnings) warned = warned || w.find("the model list of " + down + " could not be read") == 0;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace pincer::cli
