#include "channels/channel_manager.h"

#include <spdlog/spdlog.h>

#include "channels/telegram/telegram_channel.h"

namespace pincer::channels {

using nlohmann::json;

/// One running account: the channel, its host adapter and its restart state.
struct ChannelManager::Account : ChannelHost {
  ChannelManager* manager = nullptr;
  std::unique_ptr<Channel> channel;
  int failures = 0;
  std::string last_failure;
  void on_inbound(InboundMessage message) override { manager->pipeline_.handle(*channel, std::move(message)); }
};

ChannelManager::ChannelManager(EventLoop& loop, const Clock& clock, agent::AgentService& agents, const json& effective,
                               const std::filesystem::path& state_dir)
    : loop_(loop),
      clock_(clock),
      config_(effective),
      state_dir_(state_dir),
      outbox_(state_dir / "channels" / "outbox.jsonl"),
      pairing_(state_dir / "channels" / "pairing.json"),
      delivery_(loop, outbox_, [this](const std::string& c, const std::string& a) { return find(c, a); }),
      pipeline_(loop, clock, agents, delivery_, pairing_, effective) {}

ChannelManager::~ChannelManager() { stop(); }

Channel* ChannelManager::find(const std::string& channel, const std::string& account_id) {
  for (auto& a : accounts_) {
    if (a->channel->id() == channel && a->channel->account_id() == account_id) return a->channel.get();
  }
  return nullptr;
}

Status ChannelManager::start() {
  const json channels = config_.value("channels", json::object());
  if (channels.contains("telegram")) {
    const json& t = channels["telegram"];
    if (t.value("enabled", true)) {
      telegram::TelegramSettings s;
      s.token = t.value("botToken", "");
      if (s.token.empty()) return Error{"CONFIG_INVALID", "channels.telegram.botToken: required to run the Telegram channel"};
      s.api_root = t.value("apiRoot", s.api_root);
      s.poll_timeout_s = t.value("pollTimeoutSeconds", s.poll_timeout_s);
      s.offset_file = state_dir_ / "channels" / "telegram" / (s.account_id + ".offset");
      auto a = std::make_unique<Account>();
      a->manager = this;
      a->channel = std::make_unique<telegram::TelegramChannel>(loop_, s);
      accounts_.push_back(std::move(a));
    }
  }
  if (auto loaded = outbox_.load(); !loaded) spdlog::error("outbox: {}", loaded.error().message);
  for (auto& a : accounts_) start_account(*a);
  delivery_.resume();
  return Ok{};
}

void ChannelManager::start_account(Account& a) {
  spdlog::info("channel {}[{}] starting", a.channel->id(), a.channel->account_id());
  Account* account = &a;
  a.channel->start(a, [this, account](const std::string& why) {
    account->last_failure = why;
    account->channel->stop();
    const int64_t delay = std::min<int64_t>(300'000, 1000LL << std::min(account->failures++, 8));
    spdlog::error("{}; restarting in {} ms", why, delay);
    loop_.after(delay, [this, account] { start_account(*account); });
  });
}

void ChannelManager::stop() {
  for (auto& a : accounts_) a->channel->stop();
}

json ChannelManager::status() const {
  json list = json::array();
  for (const auto& a : accounts_) {
    json s = a->channel->status();
    s["restarts"] = a->failures;
    if (!a->last_failure.empty()) s["lastFailure"] = a->last_failure;
    list.push_back(std::move(s));
  }
  return {{"channels", list}, {"pipeline", pipeline_.stats()}};
}

}  // namespace pincer::channels
