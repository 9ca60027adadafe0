#include "channels/slack/slack_web_api.h"

#include <spdlog/spdlog.h>

#include "core/percent_encoding.h"

namespace pincer::channels::slack {

using nlohmann::json;

SlackWebApi::SlackWebApi(EventLoop& loop, std::string api_root) : loop_(loop), api_root_(std::move(api_root)), http_(loop) {
  while (!api_root_.empty() && api_root_.back() == '/') api_root_.pop_back();
}

SlackWebApi::~SlackWebApi() { cancel_all(); }

namespace {

constexpr const char* kSlackWebApiJson = "application/json; charset=utf-8";

std::string slack_web_api_form_escape(const std::string& s) { return percent_encode(s); }

}  // namespace

void SlackWebApi::call(const std::string& method, const std::string& token, json body,
                       std::function<void(const WebApiAnswer&)> done) {
  queue_.push_back({method, token, "", body.is_null() ? "{}" : body.dump(), kSlackWebApiJson, std::move(done)});
  pump();
}

void SlackWebApi::call_url(const std::string& url, json body, std::function<void(const WebApiAnswer&)> done) {
  queue_.push_back({"", "", url, body.dump(), kSlackWebApiJson, std::move(done)});
  pump();
}

void SlackWebApi::call_form(const std::string& method, const std::string& token,
                            const std::vector<std::pair<std::string, std::string>>& fields,
                            std::function<void(const WebApiAnswer&)> done) {
  std::string body;
  for (const auto& [key, value] : fields) {
    body += (body.empty() ? "" : "&") + slack_web_api_form_escape(key) + "=" + slack_web_api_form_escape(value);
  }
  queue_.push_back({method, token, "", std::move(body), "application/x-www-form-urlencoded", std::move(done)});
  pump();
}

void SlackWebApi::post_bytes(const std::string& url, std::string bytes, const std::string& content_type,
                             std::function<void(const WebApiAnswer&)> done) {
  queue_.push_back({"", "", url, std::move(bytes), content_type, std::move(done)});
  pump();
}

void SlackWebApi::cancel_all() {
  *alive_ = false;
  alive_ = std::make_shared<bool>(true);
  if (in_flight_) http_.cancel(*in_flight_);
  in_flight_.reset();
  if (hold_timer_) loop_.cancel(*hold_timer_);
  hold_timer_.reset();
  queue_.clear();
  busy_ = false;
}

json SlackWebApi::stats() const { return {{"queued", queue_.size()}, {"rateLimited", rate_limited_}}; }

void SlackWebApi::pump() {
  if (busy_ || hold_timer_ || queue_.empty()) return;
  busy_ = true;
  const Call& c = queue_.front();
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = c.method.empty() ? c.url : api_root_ + "/" + c.method;
  spec.headers = {{"Content-Type", c.content_type}};
  if (!c.token.empty()) spec.headers.push_back({"Authorization", "Bearer " + c.token});
  spec.body = c.body;
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = 30'000;
  auto head = std::make_shared<net::HttpResponseHead>();
  auto buffer = std::make_shared<std::string>();
  std::weak_ptr<bool> alive = alive_;
  in_flight_ = http_.start(
      std::move(spec),
      {[head](const net::HttpResponseHead& h) { *head = h; },
       [buffer](std::string_view d) {
         if (buffer->size() < (4u << 20)) buffer->append(d);
       },
       [this, alive, head, buffer](const std::optional<net::TransportError>& e) {
         auto a = alive.lock();
         if (!a || !*a || (e && e->cancelled)) return;
         in_flight_.reset();
         busy_ = false;
         if (queue_.empty()) return;
         WebApiAnswer answer;
         if (e) {
           answer.transport_error = e->what;
         } else {
           answer.status = head->status;
           answer.body = json::parse(*buffer, nullptr, false);
           if (answer.body.is_discarded()) answer.body = json();
           if (auto wait = retry_after_ms(answer, *head)) {
             ++rate_limited_;
             spdlog::warn("slack: {} rate limited, retrying in {} ms",
                          queue_.front().method.empty() ? "a response_url POST" : queue_.front().method, *wait);
             hold_timer_ = loop_.after(*wait, [this, alive] {
               auto again = alive.lock();
               if (!again || !*again) return;
               hold_timer_.reset();
               pump();  // the same call again
             });
             return;
           }
         }
         Call done = std::move(queue_.front());
         queue_.pop_front();
         if (done.done) done.done(answer);
         if (!a || !*a) return;
         pump();
       }});
}

}  // namespace pincer::channels::slack
