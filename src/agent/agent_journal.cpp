// AgentService's side of the run journal (agent/run_journal.h, SS-6, GW-10): the requests it
// records, the steps it marks, and resuming what a restart cut off.
#include "agent/agent_service_impl.h"

#include <algorithm>
#include <utility>

#include <set>

#include <spdlog/spdlog.h>

#include "core/utf8.h"
#include "store/session_index.h"
#include "store/session_keys.h"

namespace pincer::agent {

namespace {

std::string message_text(const json& message) {
  const json* content = message.is_object() && message.contains("content") ? &message["content"] : nullptr;
  if (!content) return "";
  if (content->is_string()) return content->get<std::string>();
  std::string text;
  if (content->is_array()) {
    for (const auto& block : *content) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
        text += block["text"].get<std::string>();
      }
    }
  }
  return text;
}

RunLane lane_named(const std::string& name) {
  for (RunLane lane : {RunLane::Main, RunLane::Subagent, RunLane::Cron, RunLane::Nested}) {
    if (name == to_string(lane)) return lane;
  }
  return RunLane::Main;
}

}  // namespace

json send_request_json(const SendRequest& r) {
  // Assigned field by field: nested initializer lists build and then copy a temporary tree per
  // level, and this runs for every accepted message.
  json origin = json::object();
  origin["channel"] = r.origin.channel;
  origin["accountId"] = r.origin.account_id;
  origin["chatId"] = r.origin.chat_id;
  origin["threadId"] = r.origin.thread_id;
  origin["senderId"] = r.origin.sender_id;
  origin["isGroup"] = r.origin.is_group;
  origin["messageId"] = r.origin.message_id;
  origin["reactions"] = r.origin.reactions;
  json j = json::object();
  j["sessionKey"] = r.session_key;
  j["agentId"] = r.agent_id;
  j["message"] = r.message;
  j["runId"] = r.run_id;
  j["thinking"] = r.thinking;
  j["lane"] = to_string(r.lane);
  j["channel"] = r.channel;
  j["origin"] = std::move(origin);
  j["senderIsOwner"] = r.sender_is_owner;
  j["model"] = r.model;
  j["timeoutMs"] = r.timeout_ms;
  if (!r.branch_to.empty()) j["branchTo"] = r.branch_to;  // a /tree switch (SS-4)
  return j;
}

SendRequest send_request_from_json(const json& j) {
  SendRequest r;
  if (!j.is_object()) return r;
  r.session_key = j.value("sessionKey", "");
  r.agent_id = j.value("agentId", "");
  r.message = j.value("message", "");
  r.run_id = j.value("runId", "");
  r.thinking = j.value("thinking", "");
  r.lane = lane_named(j.value("lane", "main"));
  r.channel = j.value("channel", "");
  const json o = j.value("origin", json::object());
  r.origin = {o.value("channel", ""), o.value("accountId", ""), o.value("chatId", ""), o.value("threadId", ""),
              o.value("senderId", ""), o.value("isGroup", false), o.value("messageId", ""), o.value("reactions", false)};
  r.sender_is_owner = j.value("senderIsOwner", true);
  r.model = j.value("model", "");
  r.timeout_ms = j.value("timeoutMs", int64_t{0});
  r.branch_to = j.value("branchTo", "");
  return r;
}

std::optional<int64_t> unanswered_turn(const store::SessionContext& ctx, const std::string& message) {
  // Walk back over what a cut-off turn leaves after its user message: tool results and the
  // assistant messages that asked for them. A final reply (or an "interrupted" marker) ends it.
  for (auto it = ctx.messages.rbegin(); it != ctx.messages.rend(); ++it) {
    const std::string role = it->is_object() ? it->value("role", "") : "";
    if (role == "toolResult") continue;
    if (role == "assistant") {
      if (it->value("stopReason", "") == "toolUse") continue;
      return std::nullopt;
    }
    if (role != "user") return std::nullopt;
    if (message_text(*it) != utf8::replace_invalid(message)) return std::nullopt;
    return it->value("timestamp", int64_t{0});
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> unanswered_tool_calls(const store::SessionContext& ctx) {
  std::set<std::string> answered;
  for (auto it = ctx.messages.rbegin(); it != ctx.messages.rend(); ++it) {
    const std::string role = it->is_object() ? it->value("role", "") : "";
    if (role == "toolResult") {
      answered.insert(it->value("toolCallId", ""));
      continue;
    }
    std::vector<std::pair<std::string, std::string>> out;
    if (role != "assistant" || it->value("stopReason", "") != "toolUse" || !(*it)["content"].is_array()) return out;
    for (const auto& block : (*it)["content"]) {
      if (!block.is_object() || block.value("type", "") != "toolCall") continue;
      const std::string id = block.value("id", "");
      if (!answered.contains(id)) out.emplace_back(id, block.value("name", ""));
    }
    return out;
  }
  return {};
}

void AgentService::Impl::open_journal() {
  auto loaded = journal.open();
  if (!loaded) {
    spdlog::error("run journal: {} (runs are refused until it can be written)", loaded.error().message);
    return;
  }
  unfinished = std::move(*loaded);
  if (!unfinished.empty()) spdlog::info("run journal: {} unfinished runs from before the restart", unfinished.size());
}

RunJournal& AgentService::journal() { return impl_->journal; }

Result<json> AgentService::journal_media(const std::string& agent_id, const std::vector<Attachment>& attachments) {
  return store_attachment_refs(attachments, store::sessions_dir(impl_->state_dir, agent_id) / "media");
}

std::vector<Attachment> AgentService::load_journal_media(const std::string& session_key, const json& refs) {
  const std::string agent_id = store::agent_id_from_session_key(canonical_key(session_key));
  return load_attachment_refs(refs, store::sessions_dir(impl_->state_dir, agent_id));
}

std::vector<JournalEntry> AgentService::take_unfinished(const std::string& source) {
  std::vector<JournalEntry> out;
  std::erase_if(impl_->unfinished, [&](JournalEntry& e) {
    if (e.source != source) return false;
    out.push_back(std::move(e));
    return true;
  });
  return out;
}

void AgentService::resume_unfinished(const std::function<RunEventSink(const SendRequest&)>& sink_for) {
  RunJournal& journal = impl_->journal;
  for (auto& e : std::exchange(impl_->unfinished, {})) {
    auto give_up = [&](const std::string& outcome, const std::string& why) {
      spdlog::warn("run journal: {} run {} ({}) not resumed: {}", e.source, e.run_id.empty() ? e.id : e.run_id,
                   e.request.value("sessionKey", ""), why);
      if (auto st = journal.answered(e.id, outcome); !st) spdlog::error("run journal: {}", st.error().message);
    };
    if (e.resumes >= kMaxResumes) {
      give_up("abandoned", "it was cut off by a restart again after being resumed");
      continue;
    }
    SendRequest request = send_request_from_json(e.request);
    if (e.request.contains("media")) {  // the attachments, read back from their files
      request.attachments = load_journal_media(canonical_key(request.session_key, request.agent_id), e.request["media"]);
    }
    request.journal_ids = {e.id};
    request.resume = true;
    if (request.run_id.empty()) request.run_id = e.id;
    if (auto st = journal.resumed(e.id); !st) {
      spdlog::error("run journal: {}", st.error().message);
      continue;  // not counted as resumed: it stays for the next start
    }
    auto accepted = send(request, sink_for(request));
    if (!accepted) {
      give_up("error", accepted.error().message);
      continue;
    }
    spdlog::info("run journal: resuming {} run {} in session {}", e.source, request.run_id, accepted->session_key);
  }
}

void AgentService::drain() {
  impl_->draining = true;
  // Nobody answers an exec approval any more: the runs waiting on one are told and go on, so
  // the drain waits for work, not for the whole drainTimeoutMs.
  approvals().deny_all_for_shutdown();
}

std::size_t AgentService::running_runs() const {
  std::size_t n = 0;
  for (int r : impl_->running) n += static_cast<std::size_t>(std::max(r, 0));
  return n;
}

void AgentService::journal_finished(const SendRequest& request, const RunEvent& terminal) {
  // A run the gateway aborts on its way down was not answered: it is resumed at the next start.
  if (terminal.kind == RunEvent::Kind::Aborted && terminal.stop_reason == "shutdown") return;
  const char* outcome = terminal.kind == RunEvent::Kind::End     ? "end"
                        : terminal.kind == RunEvent::Kind::Error ? "error"
                                                                 : "aborted";
  for (const auto& id : request.journal_ids) {
    if (auto st = impl_->journal.answered(id, outcome); !st) spdlog::error("run journal: {}", st.error().message);
  }
}

}  // namespace pincer::agent
