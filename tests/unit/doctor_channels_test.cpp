// `pincer doctor`'s channel findings (cli/doctor_channels.cpp) from channels.status answers.
#include <gtest/gtest.h>

#include "cli/doctor.h"

namespace pincer::cli {
namespace {

using nlohmann::json;

json status_with(json accounts_of_email) {
  return {{"channelOrder", json::array({"email", "telegram"})},
          {"channelAccounts", {{"email", std::move(accounts_of_email)},
                               {"telegram", json::array({{{"accountId", "default"}, {"running", true}}})}}}};
}

TEST(DoctorChannels, AllRunningIsOneOkLineCountingTheAccounts) {
  auto f = channel_findings(status_with(json::array({{{"accountId", "default"}, {"running", true}}})));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].status, "ok");
  EXPECT_EQ(f[0].message, "2 channel accounts running");
}

TEST(DoctorChannels, AnAccountStoppedByARefusedLoginFailsNamingTheReasonAndThatItWaitsForTheConfig) {
  auto f = channel_findings(status_with(json::array(
      {{{"accountId", "work"}, {"running", false}, {"permanentFailure", true},
        {"lastFailure", "email[work]: the IMAP server refused the login: check channels.email.accounts.work.imap.password"}}})));
  ASSERT_EQ(f.size(), 1u);  // the running telegram account adds no line when something failed
  EXPECT_EQ(f[0].check, "channels");
  EXPECT_EQ(f[0].status, "fail");
  EXPECT_NE(f[0].message.find("email[work] is stopped"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("imap.password"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("not retried until the config changes"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].fix.find("save the config"), std::string::npos) << f[0].fix;
}

TEST(DoctorChannels, ARestartingAccountFailsAndARunningOneWithALastErrorWarns) {
  auto f = channel_findings(status_with(json::array(
      {{{"accountId", "a"}, {"running", false}, {"restartAt", 123}, {"lastFailure", "cannot reach imap.example.org:993"}},
       {{"accountId", "b"}, {"running", true}, {"lastError", "IMAP: connection reset"}}})));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].status, "fail");
  EXPECT_NE(f[0].message.find("restarting with backoff"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[1].status, "warn");
  EXPECT_NE(f[1].message.find("email[b] runs but: IMAP: connection reset"), std::string::npos) << f[1].message;
}

TEST(DoctorChannels, NoAccountsOrAMalformedAnswerGiveNoFinding) {
  EXPECT_TRUE(channel_findings(json{{"channelOrder", json::array()}, {"channelAccounts", json::object()}}).empty());
  EXPECT_TRUE(channel_findings(json::array()).empty());
  EXPECT_TRUE(channel_findings(json{{"channelOrder", "email"}}).empty());
}

// The owner check's fix says where the owner's id comes from: pairing for a chat platform; a
// webhook has no pairing (its caller posts the senderId).
TEST(DoctorOwner, TheFixForAWebhookOnlySetupDoesNotPointAtPairing) {
  auto webhook = check_command_owner({{"channels", {{"webhook", {{"secret", "0123456789abcdef0123"}}}}}});
  ASSERT_TRUE(webhook);
  EXPECT_EQ(webhook->status, "warn");
  EXPECT_EQ(webhook->fix, "list yourself as the owner: pincer config set commands.ownerAllowFrom '[\"webhook:<senderId>\"]' "
                          "(your id: a webhook sender's id is the senderId its caller posts)");

  auto both = check_command_owner({{"channels",
                                    {{"webhook", {{"secret", "0123456789abcdef0123"}}},
                                     {"telegram", {{"botToken", "123:abc"}, {"allowFrom", json::array({"1001"})}}}}}});
  ASSERT_TRUE(both);
  EXPECT_NE(both->fix.find("\"telegram:1001\""), std::string::npos) << both->fix;
  EXPECT_NE(both->fix.find("(your id: `pincer pairing list` shows the ids of senders who wrote to the bot; a webhook "
                           "sender's id is the senderId its caller posts)"),
            std::string::npos)
      << both->fix;
}

}  // namespace
}  // namespace pincer::cli
