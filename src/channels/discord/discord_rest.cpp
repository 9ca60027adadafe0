#include "channels/discord/discord_rest.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "channels/discord/discord_api.h"
#include "core/clock.h"

namespace pincer::channels::discord {

using nlohmann::json;

DiscordRest::DiscordRest(EventLoop& loop, std::string api_root, std::string token)
    : loop_(loop), api_root_(std::move(api_root)), token_(std::move(token)), http_(loop) {
  while (!api_root_.empty() && api_root_.back() == '/') api_root_.pop_back();
}

DiscordRest::~DiscordRest() {
  *alive_ = false;
  cancel_all();
}

void DiscordRest::call(const std::string& method, const std::string& path, json body,
                       std::function<void(const RestAnswer&)> done) {
  const std::string key = route_key(method, path);
  queues_[key].waiting.push_back({method, path, std::move(body), std::move(done)});
  pump(key);
}

void DiscordRest::call_raw(const std::string& method, const std::string& path, std::string content_type,
                           std::string body, std::function<void(const RestAnswer&)> done) {
  const std::string key = route_key(method, path);
  queues_[key].waiting.push_back({method, path, json(), std::move(done), std::move(content_type), std::move(body)});
  pump(key);
}

void DiscordRest::cancel_all() {
  for (auto& [key, id] : in_flight_) http_.cancel(id);
  in_flight_.clear();
  queues_.clear();
}

json DiscordRest::stats() const {
  std::size_t queued = 0;
  for (const auto& [key, q] : queues_) queued += q.waiting.size();
  return {{"queued", queued}, {"rateLimited", rate_limited_}, {"routes", queues_.size()}};
}

void DiscordRest::pump(const std::string& key) {
  auto it = queues_.find(key);
  if (it == queues_.end()) return;
  Queue& q = it->second;
  if (q.busy || q.timer_set || q.waiting.empty()) return;
  const int64_t now = SystemClock::instance().steady_ms();
  const int64_t until = std::max(q.held_until_ms, global_until_ms_);
  if (until > now) {
    q.timer_set = true;
    std::weak_ptr<bool> alive = alive_;
    loop_.after(until - now, [this, alive, key] {
      auto a = alive.lock();
      if (!a || !*a) return;
      if (auto i = queues_.find(key); i != queues_.end()) i->second.timer_set = false;
      pump(key);
    });
    return;
  }
  send(key);
}

void DiscordRest::send(const std::string& key) {
  Queue& q = queues_[key];
  q.busy = true;
  const Request& r = q.waiting.front();
  net::HttpRequestSpec spec;
  spec.method = r.method;
  spec.url = api_root_ + "/v10" + r.path;
  spec.headers = {{"Authorization", "Bot " + token_},
                  {"User-Agent", std::string("DiscordBot (https://github.com/pincer, ") + PINCER_VERSION + ")"}};
  if (!r.content_type.empty()) {
    spec.headers.push_back({"Content-Type", r.content_type});
    spec.body = r.raw_body;  // copied: a 429 sends the same request again
  } else if (!r.body.is_null()) {
    spec.headers.push_back({"Content-Type", "application/json"});
    spec.body = r.body.dump();
  } else if (r.method != "GET" && r.method != "DELETE") {
    spec.headers.push_back({"Content-Length", "0"});
  }
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = 30'000;
  auto head = std::make_shared<net::HttpResponseHead>();
  auto buffer = std::make_shared<std::string>();
  std::weak_ptr<bool> alive = alive_;
  in_flight_[key] = http_.start(
      std::move(spec),
      {[head](const net::HttpResponseHead& h) { *head = h; },
       [buffer](std::string_view d) {
         if (buffer->size() < (4u << 20)) buffer->append(d);
       },
       [this, alive, key, head, buffer](const std::optional<net::TransportError>& e) {
         auto a = alive.lock();
         if (!a || !*a) return;
         if (e && e->cancelled) return;
         in_flight_.erase(key);
         auto it = queues_.find(key);
         if (it == queues_.end() || it->second.waiting.empty()) return;
         Queue& q = it->second;
         q.busy = false;
         RestAnswer answer;
         if (e) {
           answer.transport_error = e->what;
         } else {
           answer.status = head->status;
           answer.body = buffer->empty() ? json() : json::parse(*buffer, nullptr, false);
           if (answer.body.is_discarded()) answer.body = json();
           const RateLimitInfo rl = parse_rate_limit(head->status, *head, answer.body);
           const int64_t now = SystemClock::instance().steady_ms();
           if (rl.limited) {
             ++rate_limited_;
             spdlog::warn("discord: rate limited on {} ({}), retrying in {} ms", key, rl.global ? "global" : "route",
                          rl.retry_after_ms);
             if (rl.global) global_until_ms_ = now + rl.retry_after_ms;
             else q.held_until_ms = now + rl.retry_after_ms;
             return pump(key);  // the same request again, after the wait
           }
           q.held_until_ms = rl.remaining == 0 ? now + rl.reset_after_ms : 0;
         }
         Request done_request = std::move(q.waiting.front());
         q.waiting.pop_front();
         if (done_request.done) done_request.done(answer);
         if (!a || !*a) return;
         pump(key);
         // A global hold ended for everyone: the other queues were parked behind it.
         if (global_until_ms_ != 0 && global_until_ms_ <= SystemClock::instance().steady_ms()) {
           global_until_ms_ = 0;
           for (auto& [k, other] : queues_) {
             if (k != key) pump(k);
           }
         }
       }});
}

}  // namespace pincer::channels::discord
