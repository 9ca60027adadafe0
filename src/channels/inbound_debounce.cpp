// Inbound debounce (inbound_debounce.h): settings, the merge of held lines, the held batches.
#include "channels/inbound_debounce.h"

#include <algorithm>

namespace pincer::channels {

using nlohmann::json;

InboundDebounceSettings InboundDebounceSettings::from_config(const json& effective_config) {
  InboundDebounceSettings s;
  if (!effective_config.is_object()) return s;
  const auto messages = effective_config.find("messages");
  if (messages == effective_config.end() || !messages->is_object()) return s;
  const auto inbound = messages->find("inbound");
  if (inbound == messages->end() || !inbound->is_object()) return s;
  if (auto d = inbound->find("debounceMs"); d != inbound->end() && d->is_number_integer() && d->get<int64_t>() >= 0) {
    s.debounce_ms = d->get<int64_t>();
  }
  if (auto b = inbound->find("byChannel"); b != inbound->end() && b->is_object()) {
    for (const auto& [channel, ms] : b->items()) {
      if (ms.is_number_integer() && ms.get<int64_t>() >= 0) s.by_channel[channel] = ms.get<int64_t>();
    }
  }
  return s;
}

int64_t InboundDebounceSettings::window_ms(const std::string& channel, int64_t channel_default) const {
  if (auto it = by_channel.find(channel); it != by_channel.end()) return it->second;
  if (debounce_ms) return *debounce_ms;
  return std::max<int64_t>(0, channel_default);
}

bool may_hold(const InboundMessage& m) {
  if (!m.media.empty() || !m.callback_id.empty()) return false;
  const auto first = m.text.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string::npos) return false;  // nothing but whitespace
  return m.text[first] != '/';                     // a command (or a command-like line) goes at once
}

std::string debounce_key(const InboundMessage& m) {
  const char sep = '\x1f';
  return m.channel + sep + m.account_id + sep + m.chat_id + sep + m.thread_id + sep + m.topic_id + sep + m.sender_id;
}

InboundMessage merge_inbound_lines(std::vector<InboundMessage> lines) {
  InboundMessage out = std::move(lines.back());
  lines.pop_back();
  if (lines.empty()) return out;
  std::string text;
  std::vector<std::string> merged;
  for (const InboundMessage& l : lines) {
    text += l.text;
    text += '\n';
    out.mentions_bot = out.mentions_bot || l.mentions_bot;
    out.resumed = out.resumed || l.resumed;
    merged.insert(merged.end(), l.merged_journal_ids.begin(), l.merged_journal_ids.end());
    if (!l.journal_id.empty()) merged.push_back(l.journal_id);
  }
  out.text = text + out.text;
  merged.insert(merged.end(), out.merged_journal_ids.begin(), out.merged_journal_ids.end());
  out.merged_journal_ids = std::move(merged);
  return out;
}

std::vector<std::string> journal_ids_of(const InboundMessage& m) {
  std::vector<std::string> out;
  for (const auto& id : m.merged_journal_ids) {
    if (!id.empty()) out.push_back(id);
  }
  if (!m.journal_id.empty()) out.push_back(m.journal_id);
  return out;
}

InboundDebounce::InboundDebounce(std::shared_ptr<StreamTimers> timers, const Clock& clock, Flush flush)
    : timers_(std::move(timers)), clock_(clock), flush_(std::move(flush)) {}

InboundDebounce::~InboundDebounce() {
  for (const auto& [key, h] : batches_) {
    if (h.timer) timers_->cancel(*h.timer);
  }
}

void InboundDebounce::hold(const std::string& key, const std::string& session_key, const std::string& agent_id,
                           InboundMessage m, int64_t window_ms, int64_t max_wait_ms) {
  window_ms = std::max<int64_t>(1, window_ms);
  if (auto it = batches_.find(key); it != batches_.end()) {
    const Held& h = it->second;
    const bool fits = h.batch.session_key == session_key && h.batch.lines.size() < kDebounceMaxLines &&
                      h.bytes + m.text.size() <= kDebounceMaxBytes;
    if (!fits) flush(key);
  }
  auto [it, fresh] = batches_.try_emplace(key);
  Held& h = it->second;
  if (fresh) {
    h.batch.session_key = session_key;
    h.batch.agent_id = agent_id;
    const int64_t bound = max_wait_ms > 0 ? max_wait_ms : kDebounceMaxWaitWindows * window_ms;
    h.deadline_ms = clock_.steady_ms() + std::max(window_ms, bound);
  }
  h.bytes += m.text.size();
  h.batch.lines.push_back(std::move(m));
  ++held_;
  schedule(key, h, window_ms);
}

void InboundDebounce::schedule(const std::string& key, Held& h, int64_t window_ms) {
  if (h.timer) timers_->cancel(*h.timer);
  const int64_t delay = std::clamp<int64_t>(h.deadline_ms - clock_.steady_ms(), 0, window_ms);
  h.timer = timers_->after(delay, [this, key] {
    if (auto it = batches_.find(key); it != batches_.end()) {
      it->second.timer.reset();
      flush(key);
    }
  });
}

void InboundDebounce::flush(const std::string& key) {
  auto it = batches_.find(key);
  if (it == batches_.end()) return;
  if (it->second.timer) timers_->cancel(*it->second.timer);
  Batch batch = std::move(it->second.batch);
  held_ -= batch.lines.size();
  batches_.erase(it);
  flush_(std::move(batch));  // may hold again (a new batch under the same key is a new entry)
}

std::vector<InboundMessage> InboundDebounce::take_session(const std::string& session_key) {
  std::vector<InboundMessage> out;
  for (auto it = batches_.begin(); it != batches_.end();) {
    if (it->second.batch.session_key != session_key) {
      ++it;
      continue;
    }
    if (it->second.timer) timers_->cancel(*it->second.timer);
    held_ -= it->second.batch.lines.size();
    for (auto& l : it->second.batch.lines) out.push_back(std::move(l));
    it = batches_.erase(it);
  }
  return out;
}

}  // namespace pincer::channels
