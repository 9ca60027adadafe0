#include "channels/chat_approvals.h"

#include <sstream>

#include <spdlog/spdlog.h>

#include "core/ids.h"

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

ChatApprovals::~ChatApprovals() { agents_.approvals().remove_listener(listener_); }

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
    post(request, text.str(), "approval-" + payload.value("id", "") + "-ask");
  } else if (event == "exec.approval.resolved") {
    const json decision = payload.value("decision", json(nullptr));
    if (payload.value("cancelled", false)) return;
    const std::string what = decision.is_null()          ? "timed out: the command was not run"
                             : decision == "deny"        ? "denied: the command was not run"
                             : decision == "allow-once"  ? "approved once"
                                                         : "approved (always)";
    post(request, "Approval " + what + ".", "approval-" + payload.value("id", "") + "-done");
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
  auto st = agents_.approvals().resolve(code, *decision, scope, ttl, m.channel + ":" + m.sender_id);
  if (!st) answer(st.error().message);
  return true;
}

}  // namespace pincer::channels
