// Interactive onboarding (src/cli/onboard.h) with scripted answers: a bad answer is asked again
// with the reason instead of ending the setup, and a re-run offers the file's values as defaults.
#include <filesystem>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "cli/onboard.h"
#include "core/ids.h"

namespace pincer::cli {
namespace {

struct Asked {
  std::string question, default_value;
};

/// A Prompt answering from `script` by question (in order for repeated questions; "" = accept the
/// default), recording what was asked.
Prompt scripted(std::map<std::string, std::vector<std::string>> script, std::vector<Asked>& asked) {
  auto answers = std::make_shared<std::map<std::string, std::vector<std::string>>>(std::move(script));
  return [answers, &asked](const std::string& q, const std::string& def, const std::vector<std::string>&) -> std::string {
    asked.push_back({q, def});
    auto& list = (*answers)[q];
    if (list.empty()) return def;
    std::string a = list.front();
    list.erase(list.begin());
    return a.empty() ? def : a;
  };
}

class OnboardPromptTest : public ::testing::Test {
 protected:
  std::filesystem::path state_ = std::filesystem::temp_directory_path() / ("pincer-onboard-" + ids::random_token(8));
  config::EnvLookup env_ = [this](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return state_.string();
    return std::nullopt;
  };
  OnboardOptions options() const {
    OnboardOptions o;
    o.ollama_url = "http://127.0.0.1:1";  // nothing answers: no Ollama found
    o.probe_timeout = std::chrono::milliseconds(300);
    o.workspace = (state_ / "workspace").string();
    return o;
  }
  void TearDown() override { std::filesystem::remove_all(state_); }
};

TEST_F(OnboardPromptTest, ABadPortIsAskedAgainWithTheReason) {
  std::vector<Asked> asked;
  testing::internal::CaptureStdout();
  auto r = onboard(options(), state_, env_,
                   scripted({{"Model provider", {"custom"}},
                             {"Base URL of the API", {"not a url", "http://127.0.0.1:8080/v1"}},
                             {"Gateway port", {"80a", "70000", "18805"}},
                             {"Model id", {"qwen3"}}},
                            asked));
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->port, 18805);
  EXPECT_EQ(r->base_url, "http://127.0.0.1:8080/v1");
  EXPECT_NE(out.find("Gateway port: expected a port number 1..65535, got \"80a\"; please type it again."), std::string::npos)
      << out;
  EXPECT_NE(out.find("got \"70000\""), std::string::npos) << out;
  EXPECT_NE(out.find("Base URL of the API: expected http(s)://host[:port][/path], got \"not a url\""), std::string::npos)
      << out;
  EXPECT_EQ(r->to_json().contains("apiKey"), false) << "no key: no empty apiKey";
}

TEST_F(OnboardPromptTest, ARerunOffersTheConfiguredValuesAsDefaults) {
  std::vector<Asked> first;
  ASSERT_TRUE(onboard(options(), state_, env_,
                      scripted({{"Model provider", {"custom"}},
                                {"Base URL of the API", {"http://10.1.2.3:9000/v1"}},
                                {"Environment variable holding the API key (\"-\" for none)", {"LAB_KEY"}},
                                {"Model id", {"lab-model"}}},
                               first)));
  std::vector<Asked> again;
  auto r = onboard(options(), state_, env_, scripted({}, again));  // Enter at every question
  ASSERT_TRUE(r) << r.error().message;
  std::map<std::string, std::string> defaults;
  for (const auto& a : again) defaults[a.question] = a.default_value;
  EXPECT_EQ(defaults["Model provider"], "custom");
  EXPECT_EQ(defaults["Base URL of the API"], "http://10.1.2.3:9000/v1");
  EXPECT_EQ(defaults["Environment variable holding the API key (\"-\" for none)"], "LAB_KEY");
  EXPECT_EQ(defaults["Model id"], "lab-model");
  EXPECT_EQ(r->model, "custom/lab-model");
}

}  // namespace
}  // namespace pincer::cli
