#include "channels/slack/slack_reactions.h"

#include <array>
#include <utility>

namespace pincer::channels::slack {

namespace {

/// Common Unicode emoji (without U+FE0F) and Slack's short name for each.
constexpr std::array<std::pair<std::string_view, std::string_view>, 62> kSlackReactionNames = {{
    {"👍", "+1"},
    {"👎", "-1"},
    {"❤", "heart"},
    {"😂", "joy"},
    {"🤣", "rolling_on_the_floor_laughing"},
    {"😄", "smile"},
    {"😃", "smiley"},
    {"😀", "grinning"},
    {"😁", "grin"},
    {"😆", "laughing"},
    {"😅", "sweat_smile"},
    {"😊", "blush"},
    {"🙂", "slightly_smiling_face"},
    {"😉", "wink"},
    {"😍", "heart_eyes"},
    {"😎", "sunglasses"},
    {"🤔", "thinking_face"},
    {"😢", "cry"},
    {"😭", "sob"},
    {"😮", "open_mouth"},
    {"😱", "scream"},
    {"😡", "rage"},
    {"😴", "sleeping"},
    {"🥳", "partying_face"},
    {"🙈", "see_no_evil"},
    {"🙏", "pray"},
    {"👏", "clap"},
    {"🙌", "raised_hands"},
    {"👌", "ok_hand"},
    {"👋", "wave"},
    {"💪", "muscle"},
    {"🤝", "handshake"},
    {"🤷", "shrug"},
    {"👆", "point_up_2"},
    {"👀", "eyes"},
    {"🔥", "fire"},
    {"🎉", "tada"},
    {"✨", "sparkles"},
    {"💯", "100"},
    {"🚀", "rocket"},
    {"⭐", "star"},
    {"🌟", "star2"},
    {"✅", "white_check_mark"},
    {"✔", "heavy_check_mark"},
    {"☑", "ballot_box_with_check"},
    {"❌", "x"},
    {"❎", "negative_squared_cross_mark"},
    {"⚠", "warning"},
    {"❓", "question"},
    {"❗", "exclamation"},
    {"➕", "heavy_plus_sign"},
    {"💡", "bulb"},
    {"📌", "pushpin"},
    {"📝", "memo"},
    {"💬", "speech_balloon"},
    {"🎯", "dart"},
    {"🐛", "bug"},
    {"🤖", "robot_face"},
    {"⏳", "hourglass_flowing_sand"},
    {"⌛", "hourglass"},
    {"🆗", "ok"},
    {"💔", "broken_heart"},
}};

bool slack_reaction_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' || c == '\'';
}

/// "name" or "name::skin-tone-N" of Slack's characters (already lower-cased).
bool slack_reaction_is_name(std::string_view s) {
  const auto tone = s.find("::");
  const std::string_view base = s.substr(0, tone);
  if (base.empty() || base.size() > 100) return false;
  for (const char c : base) {
    if (!slack_reaction_name_char(c)) return false;
  }
  if (tone == std::string_view::npos) return true;
  const std::string_view rest = s.substr(tone + 2);
  return rest.size() == 11 && rest.substr(0, 10) == "skin-tone-" && rest[10] >= '2' && rest[10] <= '6';
}

}  // namespace

Result<std::string> slack_reaction_name(std::string_view emoji) {
  while (!emoji.empty() && (emoji.front() == ' ' || emoji.front() == '\t')) emoji.remove_prefix(1);
  while (!emoji.empty() && (emoji.back() == ' ' || emoji.back() == '\t')) emoji.remove_suffix(1);
  if (emoji.empty()) return Error{"REJECTED", "slack: a reaction needs an emoji"};
  std::string s(emoji);
  if (s.size() >= 2 && s.front() == ':' && s.back() == ':') s = s.substr(1, s.size() - 2);
  std::string lower = s;
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (slack_reaction_is_name(lower)) return lower;
  // Unicode: without variation selector 16 (U+FE0F, EF B8 8F), then the table.
  std::string bare = s;
  for (auto at = bare.find("\xEF\xB8\x8F"); at != std::string::npos; at = bare.find("\xEF\xB8\x8F")) bare.erase(at, 3);
  for (const auto& [unicode, name] : kSlackReactionNames) {
    if (bare == unicode) return std::string(name);
  }
  return Error{"REJECTED", "slack: no Slack emoji name is known for \"" + std::string(emoji) +
                               "\"; give Slack's name instead (e.g. \"thumbsup\" or \":white_check_mark:\")"};
}

nlohmann::json reaction_body(const std::string& channel, const std::string& ts, const std::string& name) {
  return nlohmann::json{{"channel", channel}, {"timestamp", ts}, {"name", name}};
}

}  // namespace pincer::channels::slack
