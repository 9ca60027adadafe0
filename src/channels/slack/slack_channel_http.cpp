// SlackChannel in HTTP Events API mode (slack_channel.h "HTTP Events API mode", slack_events_http.h).
#include <chrono>

#include <spdlog/spdlog.h>

#include "channels/slack/slack_channel.h"

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

net::HttpRouteResponse slack_http_answer(int status, json body) {
  net::HttpRouteResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

}  // namespace

net::HttpRoute SlackChannel::route() {
  net::HttpRoute r;
  r.path_prefix = settings_.webhook_path;
  r.max_body_bytes = 1 << 20;
  r.body_type = "";  // events are JSON, slash commands and interactivity forms
  r.handle = [this](const net::HttpRouteRequest& request, net::HttpResponder respond) {
    handle_http(request, std::move(respond));
  };
  return r;
}

void SlackChannel::handle_http(const net::HttpRouteRequest& request, net::HttpResponder respond) {
  if (request.method != "POST") return respond(slack_http_answer(405, {{"ok", false}, {"error", "POST only"}}));
  if (!run_.running() || !connected_) {
    return respond(slack_http_answer(503, {{"ok", false}, {"error", "the Slack account is not running"}}));
  }
  const int64_t now_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (auto refused = verify_slack_request(settings_.signing_secret, request.headers, request.body, now_s)) {
    ++http_refused_;
    spdlog::warn("slack[{}]: refused a request to {} from {}: {}", settings_.account_id, request.path,
                 request.remote_address, *refused);
    return respond(slack_http_answer(401, {{"ok", false}, {"error", *refused}}));
  }
  ++http_requests_;
  auto type = request.headers.find("content-type");
  const SlackHttpRequest r = classify_slack_request(type == request.headers.end() ? "" : type->second, request.body);
  switch (r.kind) {
    case SlackHttpRequest::Kind::UrlVerification:
      spdlog::info("slack[{}]: answered Slack's url_verification at {}", settings_.account_id, request.path);
      return respond(slack_http_answer(200, {{"challenge", r.challenge}}));
    case SlackHttpRequest::Kind::EventCallback: {
      if (request.headers.count("x-slack-retry-num")) ++http_retries_;
      if (!r.event_id.empty() && http_event_ids_.seen_or_add(r.event_id)) {
        ++replays_ignored_;
        spdlog::debug("slack[{}]: event {} already handled (a retry)", settings_.account_id, r.event_id);
        return respond(slack_http_answer(200, {{"ok", true}}));
      }
      std::weak_ptr<bool> alive = run_.token();
      on_event(r.payload);  // taken by the pipeline before the answer: a lost answer's retry is a known event
      if (!ChannelRun::live(alive)) return respond(slack_http_answer(503, {{"ok", false}, {"error", "stopped"}}));
      return respond(slack_http_answer(200, {{"ok", true}}));
    }
    case SlackHttpRequest::Kind::SlashCommand: {
      const auto note = on_slash(r.payload);
      if (note) return respond(slack_http_answer(200, *note));  // shown to the person, ephemeral
      net::HttpRouteResponse empty;  // acknowledged; the replies follow on the response_url or in the chat
      empty.content_type = "text/plain; charset=utf-8";
      return respond(std::move(empty));
    }
    case SlackHttpRequest::Kind::Interactive:
    case SlackHttpRequest::Kind::Other:
      return respond(slack_http_answer(200, {{"ok", true}}));  // not handled: acknowledged so Slack does not retry
    case SlackHttpRequest::Kind::Invalid: break;
  }
  respond(slack_http_answer(400, {{"ok", false}, {"error", "not a Slack event or command"}}));
}

}  // namespace pincer::channels::slack
