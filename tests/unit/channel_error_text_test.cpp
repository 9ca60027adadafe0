// What a chat user is told when a run fails (channels::channel_error_text; issue 22 item 6): a
// short line by the failure's reason, never the error's own text, which may quote a provider key.
#include <gtest/gtest.h>

#include "channels/reply_stream.h"

namespace pincer::channels {
namespace {

agent::RunEvent failed(const std::string& error, const std::string& reason) {
  agent::RunEvent e;
  e.kind = agent::RunEvent::Kind::Error;
  e.error = error;
  e.error_reason = reason;
  return e;
}

TEST(ChannelErrorText, AGenericLineByReasonNeverTheDetail) {
  const std::string detail = "mock/m: auth failed (HTTP 401): Invalid API key provided: Prov1derKey0fTheOwner7730xyz";
  const std::pair<const char*, const char*> cases[] = {
      {"auth", "the model provider refused the gateway's credentials"},
      {"auth_permanent", "the model provider refused the gateway's credentials"},
      {"billing", "the model provider account is out of credit"},
      {"rate_limit", "the model provider is busy or rate-limited"},
      {"timeout", "the model provider did not answer in time"},
      {"network", "the model provider could not be reached"},
      {"context_overflow", "send /new to start afresh"},
      {"model_not_found", "the configured model was not found"},
      {"context_window_too_small", "the configured model's context window is too small for the system prompt and tools"},
      {"format", "the model call failed"},
      {"", "something went wrong on the gateway"},
  };
  for (const auto& [reason, phrase] : cases) {
    const std::string text = channel_error_text(failed(detail, reason));
    EXPECT_TRUE(text.starts_with("⚠️ Sorry, I could not answer: ")) << text;
    EXPECT_NE(text.find(phrase), std::string::npos) << reason << ": " << text;
    EXPECT_NE(text.find("gateway log"), std::string::npos) << text;
    EXPECT_EQ(text.find("Prov1der"), std::string::npos) << text;
    EXPECT_EQ(text.find("HTTP 401"), std::string::npos) << text;
  }
}

TEST(ChannelErrorText, AMessageTooLargeForTheWindowIsToldAsItIs) {
  // The gateway's own text (context/message_fit.h), naming the numbers the sender needs.
  const std::string text = "This message is ~6000 tokens; the model mock/m has a context window of 4000 tokens.";
  EXPECT_EQ(channel_error_text(failed(text, "message_too_large")), "⚠️ " + text);
}

}  // namespace
}  // namespace pincer::channels
