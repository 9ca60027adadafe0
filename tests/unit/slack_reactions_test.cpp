// Slack reaction names (slack_reactions.h): what reactions.add is given for the emoji a model writes.
#include <gtest/gtest.h>

#include "channels/slack/slack_reactions.h"

namespace pincer::channels::slack {
namespace {

TEST(SlackReactionName, SlackNamesPassWithOrWithoutColons) {
  EXPECT_EQ(*slack_reaction_name("eyes"), "eyes");
  EXPECT_EQ(*slack_reaction_name(":white_check_mark:"), "white_check_mark");
  EXPECT_EQ(*slack_reaction_name(":+1:"), "+1");
  EXPECT_EQ(*slack_reaction_name("Thumbsup"), "thumbsup");
  EXPECT_EQ(*slack_reaction_name(":+1::skin-tone-3:"), "+1::skin-tone-3");
  EXPECT_EQ(*slack_reaction_name(" tada "), "tada");
}

TEST(SlackReactionName, CommonUnicodeEmojiMapToSlackNames) {
  EXPECT_EQ(*slack_reaction_name("👍"), "+1");
  EXPECT_EQ(*slack_reaction_name("👎"), "-1");
  EXPECT_EQ(*slack_reaction_name("✅"), "white_check_mark");
  EXPECT_EQ(*slack_reaction_name("👀"), "eyes");
  EXPECT_EQ(*slack_reaction_name("❤️"), "heart");  // with U+FE0F
  EXPECT_EQ(*slack_reaction_name("❤"), "heart");   // without
  EXPECT_EQ(*slack_reaction_name("⚠️"), "warning");
}

TEST(SlackReactionName, UnknownEmojiAndEmptyAreRefusedSayingWhatToGive) {
  const auto unknown = slack_reaction_name("🦩");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "REJECTED");
  EXPECT_NE(unknown.error().message.find("🦩"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("Slack's name"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(slack_reaction_name(""));
  EXPECT_FALSE(slack_reaction_name("::"));
  EXPECT_FALSE(slack_reaction_name("thumbs up"));  // a space is not in a name
  EXPECT_FALSE(slack_reaction_name("+1::skin-tone-9"));
}

TEST(SlackReactionName, BodyNamesChannelTimestampAndName) {
  EXPECT_EQ(reaction_body("C1", "1700000000.000100", "eyes"),
            (nlohmann::json{{"channel", "C1"}, {"timestamp", "1700000000.000100"}, {"name", "eyes"}}));
}

}  // namespace
}  // namespace pincer::channels::slack
