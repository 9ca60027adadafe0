#include "channels/channel_manager.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "channels/channel_checks.h"
#include "channels/discord/discord_channel.h"
#include "channels/slack/slack_channel.h"
#include "channels/irc/irc_channel.h"
#include "channels/matrix/matrix_settings.h"
#include "channels/email/email_channel.h"
#include "channels/telegram/telegram_channel.h"
#include "channels/webhook/webhook_channel.h"

namespace pincer::channels {

using nlohmann::json;

/// One account: what it was built from, the channel, its host adapter and its restart state.
struct ChannelManager::Account : ChannelHost {
  ChannelManager* manager = nullptr;
  ChannelAccount spec;
  std::unique_ptr<Channel> channel;
  std::string route_prefix;  ///< HTTP route on the gateway's port ("" = none)
  net::HttpRoute route;
  bool route_added = false;
  bool channel_started = false;
  std::optional<EventLoop::TimerId> restart_timer;
  int failures = 0;  ///< consecutive, for the backoff
  int restarts = 0;  ///< total, for status
  int64_t started_at_ms = 0;  ///< wall time of the last start (a reload that keeps it running keeps it)
  int64_t restart_at_ms = 0;  ///< wall time of the restart a failure scheduled (0 = none pending)
  std::string last_failure;
  bool held = false;  ///< stopped by a permanent failure: no restart until a config reload
  InboundOutcome on_inbound(InboundMessage message) override {
    failures = 0;  // it works again: the next failure starts the backoff over
    return manager->pipeline_.handle(*channel, std::move(message));
  }
};

std::optional<int64_t> restart_delay_after_failure(int failures, bool permanent) {
  if (permanent) return std::nullopt;
  return std::min<int64_t>(300'000, int64_t{1000} << std::clamp(failures, 0, 9));
}

ChannelManager::ChannelManager(EventLoop& loop, const Clock& clock, agent::AgentService& agents, const json& effective,
                               const std::filesystem::path& state_dir, net::HttpRoutes& routes)
    : loop_(loop),
      clock_(clock),
      config_(effective),
      state_dir_(state_dir),
      routes_(routes),
      outbox_(state_dir / "channels" / "outbox.jsonl"),
      pairing_(state_dir / "channels" / "pairing.json"),
      delivery_(loop, outbox_, [this](const std::string& c, const std::string& a) { return find(c, a); }),
      pipeline_(loop, clock, agents, delivery_, pairing_, effective),
      last_routes_(state_dir / "channels" / "last-route.json"),
      docks_(state_dir / "channels" / "docks.json") {
  pipeline_.set_last_routes(&last_routes_);
  pipeline_.set_session_docks(&docks_);
}

Status ChannelManager::announce(const std::string& agent_id, std::string channel, std::string account, std::string to,
                                std::string thread, const std::string& markdown, const std::string& id) {
  if (channel.empty() || channel == "last") {
    auto last = last_routes_.get(agent_id);
    if (!last) return Error{"NOT_FOUND", "no chat to announce to: agent " + agent_id + " has not heard from any channel yet"};
    channel = last->channel;
    if (to.empty()) {
      to = last->chat_id;
      thread = last->thread_id;
      if (account.empty()) account = last->account_id;
    }
  }
  if (to.empty()) return Error{"NOT_FOUND", "no recipient to announce to on " + channel};
  Channel* target = nullptr;
  for (auto& a : accounts_) {
    if (a->spec.channel != channel || !a->channel || (!account.empty() && a->spec.account_id != account)) continue;
    target = a->channel.get();
    break;
  }
  if (!target)
    return Error{"NOT_FOUND", "no running " + channel + " account" + (account.empty() ? "" : " '" + account + "'") +
                                  " to announce to"};
  if (target->capabilities().single_reply) {
    // A sync webhook answers only the request that waits for it: an announce would be queued and
    // then fail with no caller to take it (and the run would count as delivered).
    return Error{"UNSUPPORTED", channel + " answers only the request waiting for it (mode \"sync\"), so it cannot "
                                "announce to " + to + "; use a chat channel, or the webhook's \"callback\" mode"};
  }
  return delivery_.deliver(*target, id, to, thread, markdown);
}

ChannelManager::~ChannelManager() { stop(); }

Channel* ChannelManager::running_account(const std::string& channel, const std::string& account_id) {
  for (auto& a : accounts_) {
    if (a->spec.channel != channel || !a->channel || (!account_id.empty() && a->spec.account_id != account_id)) continue;
    if (a->channel->status().value("running", false)) return a->channel.get();
  }
  return nullptr;
}

Channel* ChannelManager::find(const std::string& channel, const std::string& account_id) {
  for (auto& a : accounts_) {
    if (a->spec.channel == channel && a->spec.account_id == account_id) return a->channel.get();
  }
  return nullptr;
}

namespace {

/// One status for every problem of channel_problems (one line each), or Ok.
Status problems_status(const json& effective) {
  const auto problems = channel_problems(effective);
  if (problems.empty()) return Ok{};
  std::string message;
  for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
  return Error{"CONFIG_INVALID", message};
}

}  // namespace

Result<std::unique_ptr<ChannelManager::Account>> ChannelManager::build(const ChannelAccount& spec) {
  auto a = std::make_unique<Account>();
  a->manager = this;
  a->spec = spec;
  if (spec.channel == "telegram") {
    auto s = telegram_settings_of(spec, state_dir_);
    if (!s) return s.error();
    auto channel = std::make_unique<telegram::TelegramChannel>(loop_, *s);
    if (!s->webhook_url.empty()) {
      a->route = channel->route();
      a->route_prefix = s->webhook_path;
    }
    a->channel = std::move(channel);
  } else if (spec.channel == "discord") {
    auto s = discord_settings_of(spec, state_dir_);
    if (!s) return s.error();
    a->channel = std::make_unique<discord::DiscordChannel>(loop_, std::move(*s));
  } else if (spec.channel == "slack") {
    auto s = slack_settings_of(spec, state_dir_);
    if (!s) return s.error();
    const bool http = s->http_mode;
    auto channel = std::make_unique<slack::SlackChannel>(loop_, std::move(*s));
    if (http) {  // the HTTP Events API's Request URL
      a->route = channel->route();
      a->route_prefix = a->route.path_prefix;
    }
    a->channel = std::move(channel);
  } else if (spec.channel == "matrix") {
    auto s = matrix::matrix_settings_of(spec, state_dir_);
    if (!s) return s.error();
    a->channel = std::make_unique<matrix::MatrixChannel>(loop_, std::move(*s));
  } else if (spec.channel == "email") {
    auto s = email::email_settings_of(spec, state_dir_);
    if (!s) return s.error();
    a->channel = std::make_unique<email::EmailChannel>(loop_, std::move(*s));
  } else if (spec.channel == "irc") {
    auto s = irc::irc_settings_from_json(spec.config, spec.config_path);
    if (!s) return s.error();
    s->account_id = spec.account_id;
    a->channel = std::make_unique<irc::IrcChannel>(loop_, std::move(*s));
  } else if (spec.channel == "webhook") {
    auto s = webhook_settings_of(spec, state_dir_);
    if (!s) return s.error();
    auto channel = std::make_unique<webhook::WebhookChannel>(loop_, std::move(*s));
    a->route = channel->route();
    a->route_prefix = a->route.path_prefix;
    a->channel = std::move(channel);
  } else {
    return check_account(spec).error();
  }
  return a;
}

Status ChannelManager::start() {
  if (auto st = problems_status(config_); !st) return st;
  std::vector<std::unique_ptr<Account>> built;
  for (const auto& spec : list_channel_accounts(config_.value("channels", json::object()))) {
    auto a = build(spec);
    if (!a) return a.error();
    built.push_back(std::move(*a));
  }
  accounts_ = std::move(built);
  if (auto loaded = outbox_.load(); !loaded) spdlog::error("outbox: {}", loaded.error().message);
  for (auto& a : accounts_) start_account(*a);
  delivery_.resume();
  // Messages a crash left unanswered (the run journal, SS-6); one whose reply is in the outbox
  // (ids "<run id>…") is being finished by it.
  pipeline_.resume([this](const std::string& run_id) {
    auto it = outbox_.pending().lower_bound(run_id);
    return it != outbox_.pending().end() && it->first.compare(0, run_id.size(), run_id) == 0;
  });
  return Ok{};
}

Status ChannelManager::reload(const json& effective) {
  if (auto st = problems_status(effective); !st) return st;
  const auto specs = list_channel_accounts(effective.value("channels", json::object()));
  // Build every new or changed account first: a config that cannot run changes nothing.
  std::vector<std::unique_ptr<Account>> next;
  std::vector<std::unique_ptr<Account>*> kept;  // into accounts_
  for (const auto& spec : specs) {
    std::unique_ptr<Account>* same = nullptr;
    for (auto& a : accounts_) {
      if (a->spec.channel == spec.channel && a->spec.account_id == spec.account_id && a->spec.config == spec.config) same = &a;
    }
    if (same) {
      kept.push_back(same);
      next.push_back(nullptr);
      continue;
    }
    auto a = build(spec);
    if (!a) return a.error();
    next.push_back(std::move(*a));
  }

  // Stop what goes away or changes, then start what is new, in config order.
  std::vector<std::unique_ptr<Account>> result;
  for (auto& a : accounts_) {
    bool keep = false;
    for (auto* k : kept) keep = keep || k == &a;
    if (!keep) {
      spdlog::info("channel {}[{}] stopped (config changed)", a->spec.channel, a->spec.account_id);
      stop_account(*a);
    }
  }
  std::size_t k = 0;
  for (auto& n : next) {
    if (n) {
      result.push_back(std::move(n));
    } else {
      result.push_back(std::move(*kept[k++]));
    }
  }
  accounts_ = std::move(result);
  config_ = effective;
  pipeline_.reconfigure(effective);
  for (auto& a : accounts_) {
    if (!a->channel_started || a->held) start_account(*a);  // held: its token may be fixed now
  }
  return Ok{};
}

Status ChannelManager::validate(const json& effective) { return problems_status(effective); }

void ChannelManager::start_account(Account& a) {
  spdlog::info("channel {}[{}] starting", a.spec.channel, a.spec.account_id);
  if (!a.route_prefix.empty() && !a.route_added) {
    routes_.add(a.route);
    a.route_added = true;
  }
  a.channel_started = true;
  if (a.held) a.failures = 0;  // a reload after a permanent failure: a fresh start
  a.held = false;
  a.started_at_ms = clock_.wall_ms();
  delivery_.channel_started(a.spec.channel, a.spec.account_id);  // parked replies try again
  Account* account = &a;
  a.channel->start(a, [this, account](const std::string& why) {
    account->last_failure = why;
    const bool permanent = account->channel->failed_permanently();
    account->channel->stop();
    delivery_.channel_stopped(account->spec.channel, account->spec.account_id);
    const auto next = restart_delay_after_failure(account->failures++, permanent);
    if (!next) {  // the platform refused the credentials: retrying cannot help
      account->held = true;
      delivery_.channel_held(account->spec.channel, account->spec.account_id);
      spdlog::error("{}; not retried until the config changes (fix it and save the config)", why);
      return;
    }
    const int64_t delay = *next;
    ++account->restarts;
    spdlog::error("{}; restarting in {} ms", why, delay);
    account->restart_at_ms = clock_.wall_ms() + delay;
    account->restart_timer = loop_.after(delay, [this, account] {
      account->restart_timer.reset();
      account->restart_at_ms = 0;
      start_account(*account);
    });
  });
}

void ChannelManager::stop_account(Account& a) {
  if (a.restart_timer) loop_.cancel(*a.restart_timer);
  a.restart_timer.reset();
  if (a.route_added) routes_.remove(a.route_prefix);
  a.route_added = false;
  a.channel->stop();
  a.channel_started = false;
  delivery_.channel_stopped(a.spec.channel, a.spec.account_id);
}

void ChannelManager::stop() {
  for (auto& a : accounts_) stop_account(*a);
}

void ChannelManager::probe(int64_t timeout_ms, std::function<void(json)> done) {
  struct Pending {
    json status;
    std::size_t waiting = 0;
    std::function<void(json)> done;
    std::optional<EventLoop::TimerId> timer;
  };
  auto p = std::make_shared<Pending>();
  p->status = status();
  p->done = std::move(done);
  auto finish = [this, p] {
    if (!p->done) return;
    if (p->timer) loop_.cancel(*p->timer);
    for (auto& c : p->status["channels"]) {
      if (!c.contains("probe") && c.value("enabled", true)) c["probe"] = {{"ok", false}, {"error", "timed out"}};
    }
    auto done = std::move(p->done);
    p->done = nullptr;
    done(std::move(p->status));
  };
  p->waiting = accounts_.size();
  if (p->waiting == 0) return finish();
  p->timer = loop_.after(timeout_ms, [p, finish] {
    p->timer.reset();
    finish();
  });
  for (std::size_t i = 0; i < accounts_.size(); ++i) {
    accounts_[i]->channel->probe([p, i, finish](json result) {
      if (!p->done || p->status["channels"][i].contains("probe")) return;
      p->status["channels"][i]["probe"] = std::move(result);
      if (--p->waiting == 0) finish();
    });
  }
}

std::size_t ChannelManager::pending() const { return pipeline_.pending() + outbox_.pending().size(); }

json ChannelManager::status() const {
  json list = json::array();
  for (const auto& a : accounts_) {
    json s = a->channel->status();
    s["restarts"] = a->restarts;
    s["startedAt"] = a->started_at_ms;
    if (a->spec.config.contains("name")) s["name"] = a->spec.config["name"];
    if (!a->last_failure.empty()) s["lastFailure"] = a->last_failure;
    if (a->restart_timer && a->restart_at_ms > 0) s["restartAt"] = a->restart_at_ms;  // stopped, restarting then
    if (a->held) s["permanentFailure"] = true;  // stopped until the config is reloaded
    list.push_back(std::move(s));
  }
  // Accounts `enabled: false` turns off are listed too (after the running ones), never probed.
  for (const auto& d : list_disabled_channel_accounts(config_.value("channels", json::object()))) {
    json s = {{"channel", d.channel}, {"accountId", d.account_id}, {"enabled", false}, {"running", false}};
    if (d.config.contains("name")) s["name"] = d.config["name"];
    list.push_back(std::move(s));
  }
  return {{"channels", list}, {"pipeline", pipeline_.stats()}};
}

}  // namespace pincer::channels
