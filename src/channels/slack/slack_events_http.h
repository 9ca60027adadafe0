// Slack's HTTP Events API mode (channels.slack.mode "http"; https://api.slack.com/apis/events-api,
// https://api.slack.com/authentication/verifying-requests-from-slack), pure: request signing,
// the kinds of request Slack POSTs to the app's Request URL, and a bounded record of event ids.
//
// Slack signs each request: `X-Slack-Request-Timestamp: <Unix seconds>` and `X-Slack-Signature:
// v0=<hex HMAC-SHA256(signing secret, "v0:<timestamp>:<raw body>")>`. A request is authentic when
// the signature matches (compared in constant time) and the timestamp is within 5 minutes of the
// gateway's clock (a replay of a captured request is stale after that). Events come as JSON
// (`url_verification` once when the URL is set, then `event_callback`), slash commands and
// interactivity as application/x-www-form-urlencoded (interactivity: a `payload` field of JSON).
// Slack retries an event it got no 2xx for within 3 s (`X-Slack-Retry-Num`, the same event_id).
//
// Pure functions are thread-safe; SlackEventIds is owned by one channel on the event loop.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pincer::channels::slack {

/// How far a request's timestamp may be from the gateway's clock, seconds (either way).
inline constexpr int64_t kSlackRequestWindowS = 300;
/// OpenClaw's default Request URL path (channels.slack.webhookPath).
inline constexpr std::string_view kSlackDefaultWebhookPath = "/slack/events";

/// "v0=<hex>" of HMAC-SHA256(signing_secret, "v0:<timestamp>:<body>").
std::string slack_request_signature(std::string_view signing_secret, std::string_view timestamp, std::string_view body);

/// Checks a request's signature and timestamp (headers by lower-cased name, as the gateway's
/// routes get them) at wall time `now_s`. nullopt = authentic; else why not (missing or malformed
/// header, a timestamp outside ±kSlackRequestWindowS, a signature that does not match).
std::optional<std::string> verify_slack_request(std::string_view signing_secret,
                                                const std::map<std::string, std::string>& headers,
                                                std::string_view body, int64_t now_s);

/// application/x-www-form-urlencoded → a JSON object of strings ('+' is a space, %XX decoded; a
/// later key replaces an earlier one).
nlohmann::json parse_form_body(std::string_view body);

/// What one authentic request is.
struct SlackHttpRequest {
  enum class Kind { UrlVerification, EventCallback, SlashCommand, Interactive, Other, Invalid };
  Kind kind = Kind::Invalid;
  std::string challenge;   ///< UrlVerification: to echo back
  std::string event_id;    ///< EventCallback: Slack's id of the event ("" when absent)
  nlohmann::json payload;  ///< EventCallback: the callback ({team_id, event, event_id}); SlashCommand: the form's fields
};
/// Classifies a body by its Content-Type: JSON `url_verification` / `event_callback` (other JSON
/// types: Other); a form with `command` (SlashCommand) or `payload` (Interactive). Invalid: a
/// JSON body that is not an object, or a form without either.
SlackHttpRequest classify_slack_request(std::string_view content_type, std::string_view body);

/// The event ids handled most recently (at most `capacity`): Slack's retries of one event carry
/// its event_id again.
class SlackEventIds {
 public:
  explicit SlackEventIds(std::size_t capacity = 2000) : capacity_(capacity) {}
  /// True when `id` was added before; otherwise adds it (dropping the oldest past capacity).
  bool seen_or_add(const std::string& id);

 private:
  std::size_t capacity_;
  std::deque<std::string> order_;
  std::set<std::string> ids_;
};

}  // namespace pincer::channels::slack
