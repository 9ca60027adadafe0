#include "channels/chat_approvals.h"

#include <sstream>

#include <spdlog/spdlog.h>

#include "core/ids.h"
#include "delivery/chunker.h"

namespace pincer::channels {

using nlohmann::json;

bool sender_is_owner(const json& config, const InboundMessage& m) {
  const json commands = config.is_object() ? config.value("commands", json::object()) : json::object();
  const json owners = commands.is_object() ? commands.value("ownerAllowFrom", json::array()) : json::array();
  if (!owners.is_array()) return false;
  for (const auto& o : owners) {
    std::string e = o.is_string() ? o.get<std::string>() : o.is_number_integer() ? std::to_string(o.get<int64_t>()) : "";
    if (e == "*") return true;
    if (e.rfind(m.channel + ":", 0) == 0) e = e.substr(m.channel.size() + 1);
    if (e.empty()) continue;
    if (e == m.sender_id) return true;
    if (e[0] == '@' && !m.sender_username.empty() && e.substr(1) == m.sender_username) return true;
  }
  return false;
}

ChatApprovals::ChatApprovals(agent::AgentService& agents, ReplyDelivery& delivery) : agents_(agents), delivery_(delivery) {
  listener_ = agents_.approvals().add_listener([this](const std::string& event, const json& payload) { on_event(event, payload); });
}

ChatApprovals::~ChatApprovals() {
  *alive_ = false;
  agents_.approvals().remove_listener(listener_);
}

namespace {

constexpr const char* kCallbackPrefix = "tga1:e:";  // OpenClaw's Telegram approval callback data (exec)

std::string outcome_text(const json& decision, const std::string& by) {
  const std::string what = decision.is_null()         ? "timed out: the command was not run"
                           : decision == "deny"       ? "denied: the command was not run"
                           : decision == "allow-once" ? "approved once"
                                                      : "approved (always)";
  return "Approval " + what + (by.empty() || decision.is_null() ? "" : " by " + by) + ".";
}

}  // namespace

void ChatApprovals::ask(const json& request, const std::string& text, const std::string& approval_id) {
  Channel* channel = delivery_.find(request.value("turnSourceChannel", ""), request.value("turnSourceAccountId", ""));
  if (!channel) return;
  const ChannelCapabilities caps = channel->capabilities();
  const std::string data = std::string(kCallbackPrefix) + "o:" + approval_id;
  delivery::ChunkOptions options;
  options.format = caps.format;
  options.unit = caps.unit;
  options.limit = caps.text_limit;
  auto chunks = delivery::chunk_text(render_for(caps.format, text), options);
  if (!caps.buttons || data.size() > 64 || !chunks || chunks->size() != 1) {
    return post(request, text, "approval-" + approval_id + "-ask");  // a command too long for one message: codes only
  }
  OutboundMessage message{request.value("turnSourceTo", ""), request.value("turnSourceThreadId", ""), (*chunks)[0], {}};
  message.buttons = {{{"Allow once", std::string(kCallbackPrefix) + "o:" + approval_id},
                      {"Allow always", std::string(kCallbackPrefix) + "a:" + approval_id},
                      {"Deny", std::string(kCallbackPrefix) + "d:" + approval_id}}};
  asked_[approval_id] = Asked{channel->id(), channel->account_id(), message.chat_id, "", text, ""};
  std::weak_ptr<bool> alive = alive_;
  channel->send_text(message, [this, alive, request, text, approval_id](Result<std::string> sent) {
    if (auto a = alive.lock(); !a || !*a) return;
    auto it = asked_.find(approval_id);
    if (it == asked_.end()) return;
    if (!sent || sent->empty()) {
      // Not lost: the outbox retries a plain post (answerable with the code).
      spdlog::warn("exec approval {}: the request with buttons was not sent ({}); posting it without",
                   approval_id, sent ? "no message id" : sent.error().message);
      const std::string outcome = it->second.outcome;
      asked_.erase(it);
      post(request, text, "approval-" + approval_id + "-ask");
      if (!outcome.empty()) post(request, outcome, "approval-" + approval_id + "-done");
      return;
    }
    it->second.message_id = *sent;
    if (!it->second.outcome.empty()) {  // decided while the send was in flight
      edit(it->second, it->second.outcome);
      asked_.erase(it);
    }
  });
}

bool ChatApprovals::conclude(const std::string& approval_id, const std::string& outcome) {
  auto it = asked_.find(approval_id);
  if (it == asked_.end()) return false;
  if (it->second.message_id.empty()) {
    it->second.outcome = outcome;  // edited when the send answers
    return true;
  }
  edit(it->second, outcome);
  asked_.erase(it);
  return true;
}

void ChatApprovals::edit(const Asked& asked, const std::string& outcome) {
  Channel* channel = delivery_.find(asked.channel, asked.account);
  if (!channel) return;
  // An edit without reply_markup also removes the buttons.
  const std::string text = render_for(channel->capabilities().format, asked.text + "\n\n**" + outcome + "**");
  const std::string chat = asked.chat, message_id = asked.message_id;
  channel->edit_text(chat, message_id, text, [chat, message_id](Status st) {
    if (!st) spdlog::warn("exec approval: cannot edit message {} in chat {}: {}", message_id, chat, st.error().message);
  });
}

void ChatApprovals::handle_press(Channel& channel, const InboundMessage& m) {
  const std::string data = m.text;
  const std::string prefix = kCallbackPrefix;
  if (data.rfind(prefix, 0) != 0 || data.size() < prefix.size() + 3 || data[prefix.size() + 1] != ':') {
    channel.answer_callback(m.callback_id, "");  // not ours (an old keyboard): stop the spinner
    return;
  }
  if (!sender_is_owner(config_, m)) {
    spdlog::warn("{}[{}]: approval button pressed by {} refused: not the owner (commands.ownerAllowFrom)", m.channel,
                 m.account_id, m.sender_id);
    channel.answer_callback(m.callback_id, "Only the owner can answer approvals.");
    return;
  }
  const char d = data[prefix.size()];
  const std::string decision = d == 'o' ? "allow-once" : d == 'a' ? "allow-always" : d == 'd' ? "deny" : "";
  const std::string id = data.substr(prefix.size() + 2);
  if (decision.empty()) {
    channel.answer_callback(m.callback_id, "Unknown decision.");
    return;
  }
  auto st = agents_.approvals().resolve(id, decision, "agent", 0, m.channel + ":" + m.sender_id, "channel");
  channel.answer_callback(m.callback_id, st ? (decision == "deny" ? "Denied." : decision == "allow-once" ? "Approved once." : "Approved always.")
                                            : st.error().message);
}

void ChatApprovals::post(const json& request, const std::string& text, const std::string& id) {
  Channel* channel = delivery_.find(request.value("turnSourceChannel", ""), request.value("turnSourceAccountId", ""));
  if (!channel) return;
  const std::string chat = request.value("turnSourceTo", "");
  if (auto st = delivery_.deliver(*channel, id, chat, request.value("turnSourceThreadId", ""), text); !st) {
    spdlog::error("exec approval: cannot post to {} chat {}: {}", channel->id(), chat, st.error().message);
  }
}

void ChatApprovals::on_event(const std::string& event, const json& payload) {
  const json& request = payload.value("request", json::object());
  if (!request.is_object() || request.value("turnSourceChannel", "").empty()) return;  // not from a chat
  const std::string code = payload.value("code", "");
  if (event == "exec.approval.requested") {
    std::ostringstream text;
    text << "⚠️ Approval needed (code **" << code << "**): the agent wants to run\n\n```\n" << request.value("command", "")
         << "\n```\nin `" << request.value("cwd", "") << "`";
    const json env = request.value("env", json::object());
    for (const auto& [k, v] : env.items()) text << "\nwith " << k << "=" << (v.is_string() ? v.get<std::string>() : v.dump());
    for (const auto& r : request.value("risks", json::array())) text << "\n• " << r.get<std::string>();
    for (const auto& r : request.value("preflight", json::array())) text << "\n• " << r.get<std::string>();
    const int64_t secs = (payload.value("expiresAtMs", int64_t{0}) - payload.value("createdAtMs", int64_t{0})) / 1000;
    text << "\n\nThe owner answers: `/approve " << code << " once`, `/approve " << code << " always` (add `1h` or `session` "
         << "to bound it) or `/approve " << code << " deny`. No answer within " << secs << "s denies it.";
    ask(request, text.str(), payload.value("id", ""));
  } else if (event == "exec.approval.resolved") {
    const json decision = payload.value("decision", json(nullptr));
    const std::string id = payload.value("id", "");
    if (payload.value("cancelled", false)) {
      (void)conclude(id, "No longer asked: the run ended.");
      return;
    }
    const std::string outcome = outcome_text(decision, payload.value("resolvedBy", ""));
    if (conclude(id, outcome)) return;
    post(request, outcome, "approval-" + id + "-done");
  }
}

bool ChatApprovals::handle(Channel& channel, const InboundMessage& m) {
  std::istringstream words(m.text);
  std::string verb, code, decision_word, extra;
  words >> verb;
  if (auto at = verb.find('@'); at != std::string::npos) verb = verb.substr(0, at);  // /approve@bot
  if (verb != "/approve") return false;
  words >> code >> decision_word;
  auto answer = [&](const std::string& text) {
    if (auto st = delivery_.deliver(channel, "approve-" + m.channel + "-" + m.message_id + "-" + ids::random_token(4), m.chat_id,
                                    m.thread_id, text);
        !st) {
      spdlog::error("{}: approval answer not queued: {}", m.channel, st.error().message);
    }
  };
  if (!sender_is_owner(config_, m)) {
    spdlog::warn("{}[{}]: /approve from {} refused: not the owner (commands.ownerAllowFrom)", m.channel, m.account_id, m.sender_id);
    answer("Only the owner can answer approvals.");
    return true;
  }
  auto decision = tools::approvals::decision_word(decision_word);
  if (code.empty() || !decision) {
    answer("Usage: /approve <code> once | always [1h|session] | deny");
    return true;
  }
  std::string scope = "agent";
  int64_t ttl = 0;
  while (words >> extra) {
    if (extra == "session") scope = "session";
    else if (auto ms = tools::approvals::parse_duration_ms(extra)) ttl = *ms;
  }
  auto st = agents_.approvals().resolve(code, *decision, scope, ttl, m.channel + ":" + m.sender_id, "channel");
  if (!st) answer(st.error().message);
  return true;
}

}  // namespace pincer::channels
