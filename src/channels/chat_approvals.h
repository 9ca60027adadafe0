// Exec approvals in the chat a run came from (SPEC TL-3): when a run started from a channel
// needs an approval, the request is posted to that chat with a short code; the owner (a sender in
// `commands.ownerAllowFrom`) answers there with
//   /approve <code> once | always [1h|30m|session] | deny
// and the outcome is posted back. Other senders' answers are refused. The request also reaches
// the gateway's approval clients (terminal, web chat), whichever answers first decides.
// On a channel with buttons (Telegram's inline keyboard) the request also carries Allow once /
// Allow always / Deny buttons whose data is OpenClaw's `tga1:e:<o|a|d>:<approval id>`; a press
// from the owner resolves it, every press is acknowledged (answer_callback), and once decided —
// by any means, or the timeout — the request's message is edited to show the outcome (the
// buttons go) instead of posting a second message.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "channels/channel.h"
#include "channels/reply_delivery.h"

namespace pincer::channels {

/// Whether `m`'s sender is listed in `commands.ownerAllowFrom` of `config` ("<id>", "@username",
/// "<channel>:<id>", "*").
bool sender_is_owner(const nlohmann::json& config, const InboundMessage& m);

class ChatApprovals {
 public:
  ChatApprovals(agent::AgentService& agents, ReplyDelivery& delivery);
  ~ChatApprovals();
  ChatApprovals(const ChatApprovals&) = delete;
  ChatApprovals& operator=(const ChatApprovals&) = delete;

  void reconfigure(const nlohmann::json& config) { config_ = config; }

  /// True when `m` is an `/approve` answer (handled: resolved or refused, with a reply).
  bool handle(Channel& channel, const InboundMessage& m);

  /// A button press (m.callback_id set): resolves the approval it names when `m`'s sender is the
  /// owner; always acknowledges the press. Presses of other buttons are acknowledged and ignored.
  void handle_press(Channel& channel, const InboundMessage& m);

 private:
  /// A request posted with buttons: where, and its text, to edit it once decided.
  struct Asked {
    std::string channel, account, chat, message_id;  ///< message_id "" = the send is in flight
    std::string text;                                ///< markdown as posted
    std::string outcome;                             ///< set when decided before the send finished
  };
  void on_event(const std::string& event, const nlohmann::json& payload);
  void post(const nlohmann::json& request, const std::string& text, const std::string& id);
  /// Posts with buttons when the channel has them and the text fits one message; else post().
  void ask(const nlohmann::json& request, const std::string& text, const std::string& approval_id);
  /// Edits an asked request's message to `text` + `outcome`; false when none was posted with buttons.
  bool conclude(const std::string& approval_id, const std::string& outcome);
  void edit(const Asked& asked, const std::string& outcome);

  agent::AgentService& agents_;
  ReplyDelivery& delivery_;
  nlohmann::json config_;
  int listener_ = 0;
  std::map<std::string, Asked> asked_;  ///< by approval id
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  ///< false once destroyed: late sends do nothing
};

}  // namespace pincer::channels
