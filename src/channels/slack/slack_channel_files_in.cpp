// SlackChannel's files in (slack_channel.h "Files in"): a message waits in inbound_ until its files
// are fetched (fetch_inbound_file, with the bot token), then goes to the pipeline; the messages
// behind it wait, so the pipeline sees them in the order Slack sent them.
#include "channels/slack/slack_channel.h"

namespace pincer::channels::slack {

bool SlackChannel::waiting_inbound(const std::string& conversation, const std::string& ts) const {
  for (const auto& p : inbound_) {
    if (p.message.chat_id == conversation && p.message.message_id == ts) return true;
  }
  return false;
}

void SlackChannel::pump_inbound() {
  std::weak_ptr<bool> alive = run_.token();
  while (!inbound_.empty() && !fetching_) {
    if (!inbound_.front().files.empty()) return fetch_next_file();
    InboundMessage m = std::move(inbound_.front().message);
    inbound_.pop_front();
    const std::string chat = m.chat_id, ts = m.message_id;
    if (host_) host_->on_inbound(std::move(m));  // journaled before it returns
    if (!ChannelRun::live(alive)) return;
    remember_handled(chat, ts);
    save_state();
  }
}

void SlackChannel::fetch_next_file() {
  if (inbound_.empty() || inbound_.front().files.empty() || !http_) return;
  PendingInbound& p = inbound_.front();
  InboundFile file = std::move(p.files.front());
  p.files.erase(p.files.begin());
  file.headers.emplace_back("Authorization", "Bearer " + settings_.bot_token);
  fetching_ = true;
  const std::string ts = p.message.message_id;
  fetch_inbound_file(*http_, file, run_.token(), "slack[" + settings_.account_id + "]", [this, ts](FetchedFile got) {
    fetching_ = false;
    if (inbound_.empty() || inbound_.front().message.message_id != ts) return pump_inbound();
    add_fetched_file(inbound_.front().message, std::move(got));
    pump_inbound();
  });
}

}  // namespace pincer::channels::slack
