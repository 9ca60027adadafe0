// Channel messages in the run journal (agent/run_journal.h, SS-6): how the inbound pipeline
// records a message before its channel acknowledges it (the Telegram offset, a webhook's 200)
// and what it needs to answer it in the same chat after a restart. Pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "channels/channel.h"

namespace pincer::channels {

/// The journal's source name for channel messages.
inline constexpr const char* kChannelJournalSource = "channel";

/// {message:{…every InboundMessage field…}, sessionKey, agentId}.
nlohmann::json inbound_journal_request(const InboundMessage& m, const std::string& session_key, const std::string& agent_id);
/// The message of inbound_journal_request (missing fields empty).
InboundMessage inbound_message_from_journal(const nlohmann::json& request);
/// The platform identity of a message: "<channel>\x1f<account>\x1f<chat>\x1f<thread>\x1f<message id>"
/// ("" when the message has no id): a redelivery after a restart is recognised by it.
std::string inbound_journal_key(const InboundMessage& m);

}  // namespace pincer::channels
