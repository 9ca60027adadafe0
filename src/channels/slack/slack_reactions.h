// Slack reactions (SPEC CH-8, the `message` tool's react action): the emoji a model gives → the
// name reactions.add / reactions.remove take (https://api.slack.com/methods/reactions.add), and
// the request bodies. Slack names emoji by short name without colons ("+1", "eyes",
// "white_check_mark"; a skin tone as "+1::skin-tone-3") and refuses Unicode with invalid_name, so
// the common Unicode emoji are mapped to Slack's names; any other Unicode emoji is refused here
// with a message saying to give Slack's name.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::channels::slack {

/// Slack's name for `emoji`: ":name:" and "name" → "name" (lower-cased; letters, digits, `_`, `-`,
/// `+`, `'`, and "::skin-tone-N" after a name); a common Unicode emoji (👍 👎 ❤️ 😂 👀 🔥 🎉 ✅ ❌ …,
/// with or without U+FE0F) → its Slack name ("👍" → "+1", "✅" → "white_check_mark").
/// Errors: "REJECTED" for "" and for Unicode or text Slack has no name for here, naming the emoji
/// and how to give Slack's name instead.
Result<std::string> slack_reaction_name(std::string_view emoji);

/// reactions.add / reactions.remove {channel, timestamp: message ts, name}.
nlohmann::json reaction_body(const std::string& channel, const std::string& ts, const std::string& name);

}  // namespace pincer::channels::slack
