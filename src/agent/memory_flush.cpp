// The memory flush before compaction and the silent reply (CX-10); see memory_flush.h.
#include "agent/memory_flush.h"

#include <algorithm>
#include <cctype>

#include "context/budget.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

constexpr std::string_view kTargetHint = "Store durable memories only in memory/YYYY-MM-DD.md (create memory/ if needed).";
constexpr std::string_view kAppendHint =
    "If memory/YYYY-MM-DD.md already exists, APPEND new content only and do not overwrite existing entries.";
constexpr std::string_view kReadOnlyHint =
    "Treat workspace bootstrap/reference files such as MEMORY.md, SOUL.md, and AGENTS.md as read-only during this "
    "flush; never overwrite, replace, or edit them.";

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string with_hints(std::string text) {
  text = trim(text);
  for (auto hint : {kTargetHint, kAppendHint, kReadOnlyHint}) {
    if (text.find(hint) == std::string::npos) text += (text.empty() ? "" : "\n\n") + std::string(hint);
  }
  if (text.find(kSilentReplyToken) == std::string::npos) {
    text += "\n\nIf no user-visible reply is needed, start with " + std::string(kSilentReplyToken) + ".";
  }
  return text;
}

}  // namespace

bool hidden_from_history(const json& message) {
  if (!message.is_object()) return false;
  const std::string role = message.value("role", "");
  if (role != "user" && role != "assistant") return false;
  const json content = message.value("content", json());
  std::string text;
  bool tool_call = false;
  if (content.is_string()) text = content.get<std::string>();
  for (const auto& block : content.is_array() ? content : json::array()) {
    if (!block.is_object()) continue;
    if (block.value("type", "") == "toolCall") tool_call = true;
    if (block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
      text += block["text"].get<std::string>();
    }
  }
  if (role == "assistant") return !tool_call && (is_silent_reply(text) || is_token_only_text(text, kHeartbeatToken));
  return text.starts_with("Pre-compaction memory flush.");
}

bool is_memory_flush_prompt(std::string_view text) {
  // The hints with their day: "memory/" + YYYY-MM-DD + the rest of the hint.
  const auto has_hint = [text](std::string_view hint) {
    const std::size_t day = hint.find("YYYY-MM-DD");
    const std::string_view head = hint.substr(0, day), tail = hint.substr(day + 10);
    for (std::size_t at = text.find(head); at != std::string_view::npos; at = text.find(head, at + 1)) {
      const std::string_view rest = text.substr(at + head.size());
      if (rest.size() >= 10 + tail.size() && rest.substr(10, tail.size()) == tail) return true;
    }
    return false;
  };
  return has_hint(kTargetHint) && has_hint(kAppendHint);
}

std::vector<bool> hidden_messages(const std::vector<json>& messages) {
  std::vector<bool> hidden(messages.size(), false);
  bool in_flush = false;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    if (m.is_object() && m.value("role", "") == "user") {
      std::string text;
      const json content = m.value("content", json());
      if (content.is_string()) text = content.get<std::string>();
      for (const auto& block : content.is_array() ? content : json::array()) {
        if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
          text += block["text"].get<std::string>();
        }
      }
      in_flush = is_memory_flush_prompt(text);
    }
    hidden[i] = in_flush || hidden_from_history(m);
  }
  return hidden;
}

MemoryFlushSettings memory_flush_settings(const json& config) {
  MemoryFlushSettings out;
  const json* mf = nullptr;
  if (config.is_object() && config.contains("agents") && config["agents"].is_object()) {
    const json& a = config["agents"];
    if (a.contains("defaults") && a["defaults"].is_object() && a["defaults"].contains("compaction") &&
        a["defaults"]["compaction"].is_object() && a["defaults"]["compaction"].contains("memoryFlush") &&
        a["defaults"]["compaction"]["memoryFlush"].is_object()) {
      mf = &a["defaults"]["compaction"]["memoryFlush"];
    }
  }
  if (!mf) return out;
  if (mf->contains("enabled") && (*mf)["enabled"].is_boolean()) out.enabled = (*mf)["enabled"].get<bool>();
  if (mf->contains("softThresholdTokens") && (*mf)["softThresholdTokens"].is_number_integer()) {
    out.soft_threshold_tokens = std::max<int64_t>(0, (*mf)["softThresholdTokens"].get<int64_t>());
  }
  if (mf->contains("prompt") && (*mf)["prompt"].is_string()) out.prompt = (*mf)["prompt"].get<std::string>();
  if (mf->contains("systemPrompt") && (*mf)["systemPrompt"].is_string()) {
    out.system_prompt = (*mf)["systemPrompt"].get<std::string>();
  }
  return out;
}

int64_t memory_flush_threshold(const MemoryFlushSettings& settings, int64_t window_tokens, int64_t reserve_tokens) {
  const int64_t budget = context::prompt_budget(window_tokens, reserve_tokens);
  const int64_t soft = std::min(settings.soft_threshold_tokens, budget / 2);
  return std::max<int64_t>(1, budget - soft);
}

bool memory_flush_due(const MemoryFlushSettings& settings, int64_t last_total_tokens, int64_t window_tokens,
                      int64_t reserve_tokens, int64_t compactions, std::optional<int64_t> flushed_at_compactions) {
  if (!settings.enabled || window_tokens <= 0 || last_total_tokens <= 0) return false;
  if (flushed_at_compactions && *flushed_at_compactions == compactions) return false;  // done in this cycle
  return last_total_tokens >= memory_flush_threshold(settings, window_tokens, reserve_tokens);
}

std::string memory_flush_prompt(const MemoryFlushSettings& settings, std::string_view stamp, std::string_view time_line) {
  std::string base = settings.prompt;
  if (trim(base).empty()) {
    base = "Pre-compaction memory flush. " + std::string(kTargetHint) + " " + std::string(kReadOnlyHint) + " " +
           std::string(kAppendHint) +
           " Do NOT create timestamped variant files (e.g., YYYY-MM-DD-HHMM.md); always use the canonical "
           "YYYY-MM-DD.md filename. If nothing to store, reply with " + std::string(kSilentReplyToken) + ".";
  }
  std::string text = replace_all(with_hints(base), "YYYY-MM-DD", stamp);
  if (!time_line.empty() && text.find("Current time:") == std::string::npos) text += "\n" + std::string(time_line);
  return text;
}

std::string memory_flush_system_prompt(const MemoryFlushSettings& settings, std::string_view stamp) {
  std::string base = settings.system_prompt;
  if (trim(base).empty()) {
    base = "Pre-compaction memory flush turn. The session is near auto-compaction; capture durable memories to "
           "disk. " + std::string(kTargetHint) + " " + std::string(kReadOnlyHint) + " " + std::string(kAppendHint) +
           " You may reply, but usually " + std::string(kSilentReplyToken) + " is correct.";
  }
  return replace_all(with_hints(base), "YYYY-MM-DD", stamp);
}

}  // namespace pincer::agent
