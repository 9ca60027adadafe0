#include "channels/channel_run.h"

namespace pincer::channels {

ChannelRun::ChannelRun(EventLoop& loop, std::string label, std::function<void()> stop_owner)
    : loop_(loop), label_(std::move(label)), stop_owner_(std::move(stop_owner)) {}

ChannelRun::~ChannelRun() { end(); }

void ChannelRun::begin(std::function<void(const std::string& why)> on_failed) {
  end();
  on_failed_ = std::move(on_failed);
  alive_ = std::make_shared<bool>(true);
  permanent_ = false;
}

void ChannelRun::end() {
  if (alive_) *alive_ = false;
  alive_.reset();
}

void ChannelRun::fail(const std::string& why, FailureKind kind) {
  last_error_ = why;
  if (!alive_) return;  // no run (ended): nothing to report
  if (kind == FailureKind::Permanent) permanent_ = true;
  if (!*alive_) return;  // reported already
  *alive_ = false;       // nothing of this run reacts any more
  // Reported from the loop, not inside the callback that found the failure.
  std::weak_ptr<int> life = life_;
  loop_.post([this, life, run = alive_, why] {
    if (!life.lock() || alive_ != run) return;  // gone, or ended / restarted meanwhile
    auto f = on_failed_;
    if (stop_owner_) stop_owner_();
    end();
    if (f) f(label_ + ": " + why);
  });
}

void ChannelRun::add_status(nlohmann::json& status) const {
  status["running"] = running();
  if (!last_error_.empty()) status["lastError"] = last_error_;
}

}  // namespace pincer::channels
