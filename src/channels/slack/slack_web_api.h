// Slack Web API calls (https://api.slack.com/web) over core/http_client.h: POST <apiRoot>/<method>
// with a JSON body and `Authorization: Bearer <token>` (the bot token xoxb-, or the app token
// xapp- for apps.connections.open). Calls go out one at a time in the order they were made, so the
// messages of a reply arrive in order. A rate-limited answer (HTTP 429, or {ok:false,
// error:"ratelimited"}) holds the queue for Retry-After seconds and sends the same call again: a
// reply is delayed, never dropped or reordered. Every other answer goes to the caller.
//
// Loop affinity: event-loop thread only; callbacks on the loop; none after the object is gone or
// cancel_all().
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/slack/slack_api.h"
#include "core/event_loop.h"
#include "core/http_client.h"

namespace pincer::channels::slack {

class SlackWebApi {
 public:
  /// `api_root`: e.g. https://slack.com/api (no trailing slash).
  SlackWebApi(EventLoop& loop, std::string api_root);
  ~SlackWebApi();

  /// Queues `method` (e.g. "chat.postMessage") with `body` (a JSON object) and `token`.
  void call(const std::string& method, const std::string& token, nlohmann::json body,
            std::function<void(const WebApiAnswer&)> done);
  /// Queues a POST of `body` (JSON) to the full `url` without a token — a slash command's
  /// response_url — in the same order as the calls. `done` gets the HTTP status and the body
  /// (Slack answers a response_url with "ok" text or {ok}); 429 waits as for calls.
  void call_url(const std::string& url, nlohmann::json body, std::function<void(const WebApiAnswer&)> done);
  /// Queues `method` with `fields` form-encoded (application/x-www-form-urlencoded: the methods
  /// that take only forms, e.g. files.getUploadURLExternal).
  void call_form(const std::string& method, const std::string& token, const std::vector<std::pair<std::string, std::string>>& fields,
                 std::function<void(const WebApiAnswer&)> done);
  /// Queues a POST of raw `bytes` (Content-Type `content_type`) to the full `url` without a token:
  /// a file's upload_url. `done` gets the HTTP status (Slack answers 200 when the bytes arrived).
  void post_bytes(const std::string& url, std::string bytes, const std::string& content_type,
                  std::function<void(const WebApiAnswer&)> done);
  /// Drops the queued calls and cancels the one in flight (no callback runs for them).
  void cancel_all();

  /// For status: {queued, rateLimited (rate-limited answers seen)}.
  nlohmann::json stats() const;

 private:
  struct Call {
    std::string method, token;  ///< method "" = a POST to `url`
    std::string url;
    std::string body;          ///< as sent
    std::string content_type;
    std::function<void(const WebApiAnswer&)> done;
  };
  void pump();

  EventLoop& loop_;
  std::string api_root_;
  net::HttpClient http_;
  std::deque<Call> queue_;
  bool busy_ = false;
  std::optional<net::HttpClient::RequestId> in_flight_;
  std::optional<EventLoop::TimerId> hold_timer_;
  int64_t rate_limited_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::channels::slack
