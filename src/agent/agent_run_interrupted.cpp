// An interrupted turn (a gateway killed or crashed mid-run, SS-6): the streamed text checkpointed
// beside the transcript while a reply streams, and the assistant entry that closes the turn when the
// session is next loaded (declared in agent_run.h).
#include <algorithm>
#include <cstdio>

#include "agent/agent_run.h"
#include "store/atomic_file.h"
#include "core/json_dump.h"

namespace pincer::agent {

using nlohmann::json;

std::filesystem::path partial_reply_path(const std::filesystem::path& transcript) {
  auto path = transcript;
  path += ".partial";
  return path;
}

std::string read_partial_reply(const std::filesystem::path& transcript) {
  auto bytes = store::read_file(partial_reply_path(transcript), 64u << 20);
  if (!bytes) return {};
  json doc = json::parse(*bytes, nullptr, false);
  return doc.is_object() && doc.contains("text") && doc["text"].is_string() ? doc["text"].get<std::string>() : "";
}

void AgentRun::checkpoint_partial(const std::string& text) {
  // The streamed text so far goes beside the transcript, so that a kill -9 loses at most about a
  // second of it: a timer writes it kPartialFirstMs after the first delta, then at most once a
  // second. A reply that ends sooner never touches the disk (most do, on a fast local model).
  // Temp + rename without fsync: a process death keeps the page cache; this is best effort,
  // never a reason to fail the turn.
  partial_text_ = text;
  if (partial_timer_) return;
  const int64_t now = clock_.steady_ms();
  const int64_t delay = partial_written_ ? std::max<int64_t>(0, partial_written_at_ + 1000 - now) : kPartialFirstMs;
  std::weak_ptr<AgentRun> weak = weak_from_this();
  partial_timer_ = loop_.after(delay, [weak] {
    auto self = weak.lock();
    if (!self) return;
    self->partial_timer_.reset();
    if (!self->finished_) self->write_partial();
  });
}

void AgentRun::write_partial() {
  partial_written_at_ = clock_.steady_ms();
  partial_written_ = true;
  const auto path = partial_reply_path(transcript_.path());
  auto tmp = path;
  tmp += ".tmp";
  const std::string doc = json_dump::compact(json{{"runId", in_.run_id}, {"text", partial_text_}});
  if (FILE* f = std::fopen(tmp.c_str(), "wb")) {
    const bool ok = std::fwrite(doc.data(), 1, doc.size(), f) == doc.size();
    if (std::fclose(f) == 0 && ok) std::rename(tmp.c_str(), path.c_str());
    else std::remove(tmp.c_str());
  }
}

void AgentRun::drop_partial() {
  if (partial_timer_) {
    loop_.cancel(*partial_timer_);
    partial_timer_.reset();
  }
  partial_text_.clear();
  if (!partial_written_) return;
  partial_written_ = false;
  std::remove(partial_reply_path(transcript_.path()).c_str());
}

std::optional<json> interrupted_turn_marker(const std::vector<store::TranscriptEntry>& entries, int64_t now_ms,
                                            const std::string& partial_text) {
  return interrupted_turn_marker(store::build_context(entries), now_ms, partial_text);
}

std::optional<json> interrupted_turn_marker(const store::SessionContext& context, int64_t now_ms,
                                            const std::string& partial_text) {
  for (auto it = context.messages.rbegin(); it != context.messages.rend(); ++it) {
    const std::string role = it->is_object() ? it->value("role", "") : "";
    if (role == "assistant") return std::nullopt;
    if (role != "user" && role != "toolResult") continue;  // summaries and notices end no turn
    llm::AssistantMessage marker;
    marker.provider = context.provider;
    marker.model = context.model_id;
    marker.stop_reason = llm::StopReason::Aborted;
    marker.error_message = kInterruptedTurnMessage;
    marker.timestamp = now_ms;
    if (!partial_text.empty()) marker.content.emplace_back(llm::TextContent{partial_text});
    return llm::to_json(marker);
  }
  return std::nullopt;
}

}  // namespace pincer::agent
