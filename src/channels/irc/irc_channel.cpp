#include "channels/irc/irc_channel.h"

#include <spdlog/spdlog.h>

#include "core/clock.h"

namespace pincer::channels::irc {

using nlohmann::json;

namespace {

int64_t steady_now() { return SystemClock::instance().steady_ms(); }

/// A server's msgid tag is used as the dedupe id only when it looks like one.
bool usable_msgid(const std::string& id) {
  if (id.empty() || id.size() > 100) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("-_.:+/=").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

IrcChannel::IrcChannel(EventLoop& loop, IrcSettings settings)
    : loop_(loop), settings_(std::move(settings)), conn_(loop), session_(settings_.session), flood_(settings_.flood) {}

IrcChannel::~IrcChannel() { stop(); }

ChannelCapabilities IrcChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Plain;
  c.unit = delivery::LengthUnit::Utf8Bytes;
  c.text_limit = kMaxLineBytes - kRelayOverheadBytes - kTypicalTargetBytes;  // 342: one PRIVMSG line
  c.groups = true;
  c.threads = false;
  c.typing = false;
  return c;
}

void IrcChannel::after(int64_t delay_ms, std::function<void()> fn) {
  std::weak_ptr<bool> alive = alive_;
  loop_.after(delay_ms, [alive, fn = std::move(fn)] {
    if (auto a = alive.lock(); a && *a) fn();
  });
}

void IrcChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  host_ = &host;
  on_failed_ = std::move(on_failed);
  alive_ = std::make_shared<bool>(true);
  permanent_failure_ = false;
  flood_.reset();
  pump_waiting_ = false;
  ping_sent_ms_ = 0;
  last_rx_ms_ = steady_now();
  connected_at_ms_ = SystemClock::instance().wall_ms();
  spdlog::info("irc[{}]: connecting to {}:{}{}", settings_.account_id, settings_.host, settings_.port, settings_.tls ? " (TLS)" : "");
  // The session is reset now, not on connect: nothing is sent before registration completes.
  std::vector<std::string> hello = session_.start();
  conn_.open(settings_.host, settings_.port, settings_.tls,
             {[this, hello = std::move(hello)] {
                for (const std::string& line : hello) conn_.write(line);
              },
              [this](std::string line) { on_line(line); },
              [this](std::string why) { fail(why); }});
  after(settings_.register_timeout_ms, [this] {
    if (!session_.registered()) fail("no registration within " + std::to_string(settings_.register_timeout_ms) + " ms");
  });
  after(settings_.keepalive_tick_ms, [this] { keepalive(); });
}

void IrcChannel::stop() {
  if (alive_) *alive_ = false;
  alive_.reset();
  if (conn_.is_open()) {
    if (auto quit = build_line("QUIT", {"bye"})) conn_.write(*quit);
    conn_.close_after_flush();
  } else {
    conn_.close();
  }
  queue_.clear();  // as with every channel, no callback runs after stop(); the outbox resumes them
}

void IrcChannel::fail(const std::string& why, bool permanent) {
  if (!alive_ || !*alive_) return;
  *alive_ = false;
  permanent_failure_ = permanent;
  last_error_ = why;
  conn_.close();
  // Lines not sent: their replies are retried by reply delivery once we are back.
  std::deque<Queued> dropped;
  dropped.swap(queue_);
  for (auto& q : dropped) {
    if (q.done) q.done(Error{"UNAVAILABLE", "irc: " + why});
  }
  if (auto f = on_failed_) f("irc[" + settings_.account_id + "]: " + why);
}

void IrcChannel::keepalive() {
  const int64_t now = steady_now();
  if (ping_sent_ms_ != 0 && now - ping_sent_ms_ > settings_.ping_timeout_ms) {
    return fail("no answer to PING within " + std::to_string(settings_.ping_timeout_ms) + " ms");
  }
  if (ping_sent_ms_ == 0 && now - last_rx_ms_ > settings_.ping_idle_ms && conn_.is_open()) {
    if (auto ping = build_line("PING", {"pincer"})) conn_.write(*ping);
    ping_sent_ms_ = now;
  }
  after(settings_.keepalive_tick_ms, [this] { keepalive(); });
}

void IrcChannel::on_line(const std::string& raw) {
  last_rx_ms_ = steady_now();
  ping_sent_ms_ = 0;
  auto message = parse_line(raw);
  if (!message) {
    spdlog::debug("irc[{}]: unparsable line ignored", settings_.account_id);
    return;
  }
  SessionOutput out = session_.handle(*message);
  for (const std::string& line : out.send) conn_.write(line);
  for (const std::string& note : out.notes) spdlog::info("irc[{}]: {}", settings_.account_id, note);
  if (out.fatal) return fail(*out.fatal, out.credentials_refused);
  if (out.registered) {
    last_error_.clear();
    spdlog::info("irc[{}]: registered on {} as {}", settings_.account_id, settings_.host, session_.nick());
    pump();
  }
  if (out.message) deliver(std::move(*out.message));
}

void IrcChannel::deliver(InboundPrivmsg msg) {
  ++messages_received_;
  InboundMessage m;
  m.channel = id_;
  m.account_id = settings_.account_id;
  m.is_group = msg.is_group;
  m.chat_id = msg.chat;
  const Prefix& p = msg.sender;
  m.sender_id = p.user.empty() || p.host.empty() ? p.nick : p.nick + "!" + p.user + "@" + p.host;
  m.sender_username = p.nick;
  m.sender_name = p.nick;
  m.sender_origin = p.host;  // a nick change (a new sender id) keeps it: one pairing request per host
  m.message_id = usable_msgid(msg.msgid) ? msg.msgid : std::to_string(connected_at_ms_) + "-" + std::to_string(++seq_);
  m.text = msg.is_group ? strip_address(msg.text, session_.nick(), session_.casemapping()) : msg.text;
  if (msg.action) m.text = "*" + m.text + "*";
  m.mentions_bot = msg.mentions_bot;
  m.ts_ms = SystemClock::instance().wall_ms();
  if (m.text.empty()) return;
  if (host_) host_->on_inbound(std::move(m));
}

void IrcChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  const std::string& target = message.chat_id;
  if (!alive_ || !*alive_ || !session_.registered()) return done(Error{"UNAVAILABLE", "irc: not connected"});
  const std::vector<std::string> texts = split_privmsg(message.text, target);
  std::vector<std::string> lines;
  for (const std::string& text : texts) {
    auto line = build_line("PRIVMSG", {target, text});
    if (!line) return done(Error{"REJECTED", "irc: not a valid target: " + target});
    lines.push_back(std::move(*line));
  }
  const std::string id = std::to_string(connected_at_ms_) + "-out-" + std::to_string(++sends_);
  if (lines.empty()) {
    if (privmsg_text_budget(target) == 0) return done(Error{"REJECTED", "irc: not a valid target: " + target});
    return done(id);  // nothing visible to send
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    queue_.push_back({std::move(lines[i]), i + 1 == lines.size() ? std::move(done) : nullptr, id});
  }
  pump();
}

void IrcChannel::pump() {
  if (pump_waiting_ || !session_.registered()) return;
  while (!queue_.empty()) {
    const int64_t wait = flood_.take(steady_now());
    if (wait > 0) {
      pump_waiting_ = true;
      after(wait, [this] {
        pump_waiting_ = false;
        pump();
      });
      return;
    }
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    conn_.write(std::move(q.line));
    ++lines_sent_;
    if (q.done) q.done(q.id);  // may queue and pump the next chunk of the reply (re-entrant)
    if (!alive_ || !*alive_ || pump_waiting_) return;
  }
}

json IrcChannel::status() const {
  json joined = json::array();
  for (const auto& c : session_.joined()) joined.push_back(c);
  json s = {{"channel", id_},
            {"accountId", settings_.account_id},
            {"running", alive_ && *alive_},
            {"connected", conn_.is_open()},
            {"registered", session_.registered() && conn_.is_open()},
            {"server", settings_.host + ":" + std::to_string(settings_.port)},
            {"tls", settings_.tls},
            {"nick", session_.nick()},
            {"joined", joined},
            {"messagesReceived", messages_received_},
            {"linesSent", lines_sent_},
            {"linesQueued", queue_.size()}};
  if (!last_error_.empty()) s["lastError"] = last_error_;
  return s;
}

}  // namespace pincer::channels::irc
