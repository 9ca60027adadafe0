#include "channels/channel_manager.h"

#include <cctype>
#include <string_view>

#include <spdlog/spdlog.h>

#include "channels/irc/irc_channel.h"
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
  std::string last_failure;
  InboundOutcome on_inbound(InboundMessage message) override {
    failures = 0;  // it works again: the next failure starts the backoff over
    return manager->pipeline_.handle(*channel, std::move(message));
  }
};

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
      pipeline_(loop, clock, agents, delivery_, pairing_, effective) {}

ChannelManager::~ChannelManager() { stop(); }

Channel* ChannelManager::find(const std::string& channel, const std::string& account_id) {
  for (auto& a : accounts_) {
    if (a->spec.channel == channel && a->spec.account_id == account_id) return a->channel.get();
  }
  return nullptr;
}

namespace {
std::optional<std::string> route_path_problem(const std::string& path);

/// Why `secret` cannot be a Telegram webhook secret_token, or nullopt: at least 16 characters
/// (as every other secret of Pincer), at most 256 of A-Z a-z 0-9 _ - (what Telegram accepts).
std::optional<std::string> telegram_secret_problem(const std::string& secret) {
  const std::string how = " (Telegram sends it back with every update; e.g. `openssl rand -hex 24`)";
  if (secret.size() < 16) return "required with webhookUrl, at least 16 characters" + how;
  if (secret.size() > 256) return "at most 256 characters" + how;
  for (const char c : secret) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return "may contain only letters, digits, _ and - (Telegram's rule)";
    }
  }
  return std::nullopt;
}
}  // namespace

Result<std::unique_ptr<ChannelManager::Account>> ChannelManager::build(const ChannelAccount& spec) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  auto a = std::make_unique<Account>();
  a->manager = this;
  a->spec = spec;
  if (spec.channel == "telegram") {
    telegram::TelegramSettings s;
    s.account_id = spec.account_id;
    s.token = c.value("botToken", "");
    if (s.token.empty()) return Error{"CONFIG_INVALID", at + ".botToken: required to run the Telegram channel"};
    s.api_root = c.value("apiRoot", s.api_root);
    s.poll_timeout_s = c.value("pollTimeoutSeconds", s.poll_timeout_s);
    s.offset_file = state_dir_ / "channels" / "telegram" / (s.account_id + ".offset");
    s.webhook_url = c.value("webhookUrl", "");
    s.webhook_path = c.value("webhookPath", s.webhook_path);
    s.webhook_secret = c.value("webhookSecret", "");
    if (auto problem = route_path_problem(s.webhook_path)) return Error{"CONFIG_INVALID", at + ".webhookPath: " + *problem};
    if (!s.webhook_url.empty()) {
      // Without it anyone who finds the path could post updates in the owner's name (as OpenClaw,
      // webhookUrl requires webhookSecret).
      if (auto problem = telegram_secret_problem(s.webhook_secret)) return Error{"CONFIG_INVALID", at + ".webhookSecret: " + *problem};
    }
    auto channel = std::make_unique<telegram::TelegramChannel>(loop_, s);
    if (!s.webhook_url.empty()) {
      a->route = channel->route();
      a->route_prefix = s.webhook_path;
    }
    a->channel = std::move(channel);
  } else if (spec.channel == "irc") {
    auto s = irc::irc_settings_from_json(c, at);
    if (!s) return s.error();
    s->account_id = spec.account_id;
    a->channel = std::make_unique<irc::IrcChannel>(loop_, std::move(*s));
  } else if (spec.channel == "webhook") {
    webhook::WebhookSettings s;
    s.account_id = spec.account_id;
    s.secret = c.value("secret", "");
    if (s.secret.size() < 16) {
      return Error{"CONFIG_INVALID", at + ".secret: required, at least 16 characters (it signs every request)"};
    }
    s.path = c.value("path", s.path);
    if (auto problem = route_path_problem(s.path)) return Error{"CONFIG_INVALID", at + ".path: " + *problem};
    s.sync = c.value("mode", "sync") == "sync";
    s.callback_url = c.value("callbackUrl", "");
    if (!s.sync && s.callback_url.empty()) {
      return Error{"CONFIG_INVALID", at + ".callbackUrl: required when the mode is \"callback\""};
    }
    s.max_body_bytes = c.value("maxBodyBytes", s.max_body_bytes);
    s.reply_timeout_ms = c.value("replyTimeoutSeconds", int64_t{120}) * 1000;
    s.replay_file = state_dir_ / "channels" / "webhook" / (s.account_id + ".replay.json");
    auto channel = std::make_unique<webhook::WebhookChannel>(loop_, std::move(s));
    a->route = channel->route();
    a->route_prefix = a->route.path_prefix;
    a->channel = std::move(channel);
  } else {
    return Error{"CONFIG_INVALID", at + ": no channel named \"" + spec.channel + "\" (available: telegram, irc, webhook)"};
  }
  return a;
}

namespace {

/// Why `path` cannot be an HTTP route on the gateway's port, or nullopt when it can: it must be a
/// plain path, and neither the gateway's probes nor the web chat's files (whose first segment has a
/// dot: /index.html, /app.mjs …) may be shadowed.
std::optional<std::string> route_path_problem(const std::string& path) {
  if (path.size() < 2 || path[0] != '/') return "must start with / and name a path, e.g. /hooks/pincer";
  for (const char c : path) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("/-._~").find(c) == std::string_view::npos) {
      return "may contain only letters, digits and / - . _ ~, got \"" + path + "\"";
    }
  }
  for (const std::string probe : {"/health", "/healthz", "/ready", "/readyz"}) {
    if (path == probe || path.rfind(probe + "/", 0) == 0) return "is the gateway's own " + probe + " endpoint";
  }
  const std::string first = path.substr(1, path.find('/', 1) - 1);
  if (first.find('.') != std::string::npos || first.empty()) return "would shadow a file of the web chat (" + path + ")";
  return std::nullopt;
}

/// What two accounts must not share: an HTTP path on the gateway's port, a Telegram bot token (one
/// bot polled twice gets 409 conflicts and splits the updates).
struct Exclusive {
  std::string what;   ///< how the error names it: "the path /x", "the same bot token" …
  std::string value;  ///< "" = nothing taken
  std::string config_path;
};

Status check_exclusive(const std::vector<Exclusive>& taken) {
  for (std::size_t i = 0; i < taken.size(); ++i) {
    for (std::size_t j = i + 1; j < taken.size(); ++j) {
      if (!taken[i].value.empty() && taken[i].what == taken[j].what && taken[i].value == taken[j].value) {
        return Error{"CONFIG_INVALID", taken[j].config_path + ": " + taken[j].what + " is already used by " + taken[i].config_path};
      }
    }
  }
  return Ok{};
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<Exclusive> exclusives(const ChannelAccount& spec, const std::string& route_prefix) {
  std::vector<Exclusive> out = {{"the path " + route_prefix, route_prefix, spec.config_path}};
  const json& c = spec.config;
  if (spec.channel == "telegram") out.push_back({"the same bot token", c.value("botToken", ""), spec.config_path});
  if (spec.channel == "irc" && c.contains("host") && c.contains("nick")) {
    // Two accounts with one nick on one server would take it from each other at every reconnect.
    out.push_back({"the same nick on the same server",
                   lower(c.value("host", "")) + ":" + std::to_string(c.value("port", 0)) + "/" + lower(c.value("nick", "")),
                   spec.config_path});
  }
  return out;
}

}  // namespace

Status ChannelManager::start() {
  std::vector<std::unique_ptr<Account>> built;
  std::vector<Exclusive> taken;
  for (const auto& spec : list_channel_accounts(config_.value("channels", json::object()))) {
    auto a = build(spec);
    if (!a) return a.error();
    for (auto& e : exclusives(spec, (*a)->route_prefix)) taken.push_back(std::move(e));
    built.push_back(std::move(*a));
  }
  if (auto st = check_exclusive(taken); !st) return st;
  accounts_ = std::move(built);
  if (auto loaded = outbox_.load(); !loaded) spdlog::error("outbox: {}", loaded.error().message);
  for (auto& a : accounts_) start_account(*a);
  delivery_.resume();
  return Ok{};
}

Status ChannelManager::reload(const json& effective) {
  const auto specs = list_channel_accounts(effective.value("channels", json::object()));
  // Build every new or changed account first: a config that cannot run changes nothing.
  std::vector<std::unique_ptr<Account>> next;
  std::vector<Exclusive> taken;
  std::vector<std::unique_ptr<Account>*> kept;  // into accounts_
  for (const auto& spec : specs) {
    std::unique_ptr<Account>* same = nullptr;
    for (auto& a : accounts_) {
      if (a->spec.channel == spec.channel && a->spec.account_id == spec.account_id && a->spec.config == spec.config) same = &a;
    }
    if (same) {
      kept.push_back(same);
      for (auto& e : exclusives(spec, (*same)->route_prefix)) taken.push_back(std::move(e));
      next.push_back(nullptr);
      continue;
    }
    auto a = build(spec);
    if (!a) return a.error();
    for (auto& e : exclusives(spec, (*a)->route_prefix)) taken.push_back(std::move(e));
    next.push_back(std::move(*a));
  }
  if (auto st = check_exclusive(taken); !st) return st;

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
    if (!a->channel_started) start_account(*a);
  }
  return Ok{};
}

Status ChannelManager::validate(const json& effective) {
  std::vector<Exclusive> taken;
  for (const auto& spec : list_channel_accounts(effective.value("channels", json::object()))) {
    auto a = build(spec);  // built, never started
    if (!a) return a.error();
    for (auto& e : exclusives(spec, (*a)->route_prefix)) taken.push_back(std::move(e));
  }
  return check_exclusive(taken);
}

void ChannelManager::start_account(Account& a) {
  spdlog::info("channel {}[{}] starting", a.spec.channel, a.spec.account_id);
  if (!a.route_prefix.empty() && !a.route_added) {
    routes_.add(a.route);
    a.route_added = true;
  }
  a.channel_started = true;
  a.started_at_ms = clock_.wall_ms();
  Account* account = &a;
  a.channel->start(a, [this, account](const std::string& why) {
    account->last_failure = why;
    account->channel->stop();
    delivery_.channel_stopped(account->spec.channel, account->spec.account_id);
    const int64_t delay = std::min<int64_t>(300'000, 1000LL << std::min(account->failures++, 8));
    ++account->restarts;
    spdlog::error("{}; restarting in {} ms", why, delay);
    account->restart_timer = loop_.after(delay, [this, account] {
      account->restart_timer.reset();
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
      if (!c.contains("probe")) c["probe"] = {{"ok", false}, {"error", "timed out"}};
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
    list.push_back(std::move(s));
  }
  return {{"channels", list}, {"pipeline", pipeline_.stats()}};
}

}  // namespace pincer::channels
