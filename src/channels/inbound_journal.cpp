// The channel messages of the run journal (inbound_journal.h) and InboundPipeline's resume():
// answering, after a restart, the messages a crash or kill -9 left unanswered.
#include "channels/inbound_journal.h"

#include <spdlog/spdlog.h>

#include "channels/inbound_pipeline.h"
#include "routing/session_routing.h"

namespace pincer::channels {

using nlohmann::json;

json inbound_journal_request(const InboundMessage& m, const std::string& session_key, const std::string& agent_id) {
  return json{{"message",
               {{"channel", m.channel}, {"accountId", m.account_id}, {"isGroup", m.is_group}, {"chatId", m.chat_id},
                {"threadId", m.thread_id}, {"topicId", m.topic_id}, {"senderId", m.sender_id},
                {"senderUsername", m.sender_username}, {"senderName", m.sender_name}, {"senderOrigin", m.sender_origin},
                {"messageId", m.message_id}, {"text", m.text}, {"mentionsBot", m.mentions_bot}, {"ts", m.ts_ms},
                {"channelPeer", m.channel_peer}, {"parentChatId", m.parent_chat_id}}},
              {"sessionKey", session_key},
              {"agentId", agent_id}};
}

InboundMessage inbound_message_from_journal(const json& request) {
  InboundMessage m;
  const json j = request.is_object() ? request.value("message", json::object()) : json::object();
  if (!j.is_object()) return m;
  m.channel = j.value("channel", "");
  m.account_id = j.value("accountId", "");
  m.is_group = j.value("isGroup", false);
  m.chat_id = j.value("chatId", "");
  m.thread_id = j.value("threadId", "");
  m.topic_id = j.value("topicId", "");
  m.sender_id = j.value("senderId", "");
  m.sender_username = j.value("senderUsername", "");
  m.sender_name = j.value("senderName", "");
  m.sender_origin = j.value("senderOrigin", "");
  m.message_id = j.value("messageId", "");
  m.text = j.value("text", "");
  m.mentions_bot = j.value("mentionsBot", false);
  m.ts_ms = j.value("ts", int64_t{0});
  m.channel_peer = j.value("channelPeer", false);
  m.parent_chat_id = j.value("parentChatId", "");
  return m;
}

std::string inbound_journal_key(const InboundMessage& m) {
  if (m.message_id.empty()) return "";
  const char sep = '\x1f';
  return m.channel + sep + m.account_id + sep + m.chat_id + sep + m.thread_id + sep + m.message_id;
}

void InboundPipeline::resume(const std::function<bool(const std::string& run_id)>& reply_pending) {
  agent::RunJournal& journal = agents_.journal();
  for (auto& e : agents_.take_unfinished(kChannelJournalSource)) {
    InboundMessage m = inbound_message_from_journal(e.request);
    const std::string session_key = e.request.value("sessionKey", "");
    const std::string agent_id = e.request.value("agentId", "");
    if (e.request.contains("media")) m.media = agents_.load_journal_media(session_key, e.request["media"]);
    m.journal_id = e.id;
    m.resumed = true;
    auto finish = [&](const std::string& outcome) {
      if (auto st = journal.answered(e.id, outcome); !st) spdlog::error("run journal: {}", st.error().message);
    };
    Channel* channel = delivery_.find(m.channel, m.account_id);
    if (!channel || session_key.empty()) {
      spdlog::warn("{}[{}]: message {} from before the restart not answered: the account is not configured any more",
                   m.channel, m.account_id, m.message_id);
      finish("dropped");
      continue;
    }
    // A redelivery of the same platform message (the offset was not saved yet) is a duplicate.
    const routing::Peer peer = inbound_peer(m);
    (void)dedupe_.seen({m.channel, m.account_id, peer, m.thread_id, m.message_id});
    if (!e.run_id.empty() && reply_pending(e.run_id)) {
      // The run had answered and its reply is in the outbox, which finishes sending it.
      spdlog::info("{}[{}]: message {} was answered before the restart; its reply is being delivered", m.channel,
                   m.account_id, m.message_id);
      finish("end");
      continue;
    }
    if (e.resumes >= agent::kMaxResumes) {
      spdlog::warn("{}[{}]: message {} not answered: the gateway stopped twice while answering it", m.channel,
                   m.account_id, m.message_id);
      reply(*channel, m, "resume-" + e.id,
            "⚠️ I could not answer your message: I was restarted twice while working on it. Please send it again.");
      finish("abandoned");
      continue;
    }
    if (auto st = journal.resumed(e.id); !st) {
      spdlog::error("run journal: {}", st.error().message);
      continue;  // stays unfinished for the next start
    }
    if (const json* preview = e.notes.contains("preview") ? &e.notes["preview"] : nullptr; preview && preview->is_string()) {
      resume_previews_[e.id] = preview->get<std::string>();
    }
    spdlog::info("{}[{}]: answering message {} from before the restart (session {})", m.channel, m.account_id,
                 m.message_id, session_key);
    admit(*channel, std::move(m), session_key, agent_id);  // a held burst merges again (inbound_debounce.h)
  }
}

}  // namespace pincer::channels
