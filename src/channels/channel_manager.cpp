#include "channels/channel_manager.h"

#include <spdlog/spdlog.h>

#include "channels/irc/irc_channel.h"
#include "channels/telegram/telegram_channel.h"
#include "channels/webhook/webhook_channel.h"

namespace pincer::channels {

using nlohmann::json;

/// One running account: the channel, its host adapter and its restart state.
struct ChannelManager::Account : ChannelHost {
  ChannelManager* manager = nullptr;
  std::unique_ptr<Channel> channel;
  int failures = 0;  ///< consecutive, for the backoff
  int restarts = 0;  ///< total, for status
  std::string last_failure;
  InboundOutcome on_inbound(InboundMessage message) override {
    failures = 0;  // it works again: the next failure starts the backoff over
    return manager->pipeline_.handle(*channel, std::move(message));
  }
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
      s.webhook_url = t.value("webhookUrl", "");
      s.webhook_path = t.value("webhookPath", s.webhook_path);
      s.webhook_secret = t.value("webhookSecret", "");
      if (s.webhook_path.empty() || s.webhook_path[0] != '/') {
        return Error{"CONFIG_INVALID", "channels.telegram.webhookPath: must start with /"};
      }
      auto channel = std::make_unique<telegram::TelegramChannel>(loop_, s);
      if (!s.webhook_url.empty()) http_routes_.push_back(channel->route());
      auto a = std::make_unique<Account>();
      a->manager = this;
      a->channel = std::move(channel);
      accounts_.push_back(std::move(a));
    }
  }
  if (channels.contains("irc") && channels["irc"].value("enabled", true)) {
    auto s = irc::irc_settings_from_json(channels["irc"]);
    if (!s) return s.error();
    auto a = std::make_unique<Account>();
    a->manager = this;
    a->channel = std::make_unique<irc::IrcChannel>(loop_, std::move(*s));
    accounts_.push_back(std::move(a));
  }
  if (channels.contains("webhook") && channels["webhook"].value("enabled", true)) {
    const json& w = channels["webhook"];
    webhook::WebhookSettings s;
    s.secret = w.value("secret", "");
    if (s.secret.size() < 16) {
      return Error{"CONFIG_INVALID", "channels.webhook.secret: required, at least 16 characters (it signs every request)"};
    }
    s.path = w.value("path", s.path);
    if (s.path.empty() || s.path[0] != '/') return Error{"CONFIG_INVALID", "channels.webhook.path: must start with /"};
    s.sync = w.value("mode", "sync") == "sync";
    s.callback_url = w.value("callbackUrl", "");
    if (!s.sync && s.callback_url.empty()) {
      return Error{"CONFIG_INVALID", "channels.webhook.callbackUrl: required when channels.webhook.mode is \"callback\""};
    }
    s.max_body_bytes = w.value("maxBodyBytes", s.max_body_bytes);
    s.reply_timeout_ms = w.value("replyTimeoutSeconds", int64_t{120}) * 1000;
    auto channel = std::make_unique<webhook::WebhookChannel>(loop_, std::move(s));
    http_routes_.push_back(channel->route());
    auto a = std::make_unique<Account>();
    a->manager = this;
    a->channel = std::move(channel);
    accounts_.push_back(std::move(a));
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
    ++account->restarts;
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
    s["restarts"] = a->restarts;
    if (!a->last_failure.empty()) s["lastFailure"] = a->last_failure;
    list.push_back(std::move(s));
  }
  return {{"channels", list}, {"pipeline", pipeline_.stats()}};
}

}  // namespace pincer::channels
