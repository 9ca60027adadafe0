// Startup context and auto-capture at the start of a run (CX-2, MM-3); see recall_hooks.h.
#include "agent/recall_hooks.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "agent/memory_flush.h"
#include "agent/session_reset.h"
#include "agent/time_zone.h"
#include "llm/messages.h"
#include "memory/capture.h"
#include "memory/daily_notes.h"
#include "tools/memory_flush_write.h"

namespace pincer::agent {

using nlohmann::json;

int user_utc_offset_minutes(const json& config, int64_t unix_ms) {
  std::string zone;
  if (config.is_object() && config.contains("agents") && config["agents"].is_object() &&
      config["agents"].contains("defaults") && config["agents"]["defaults"].is_object()) {
    const json& d = config["agents"]["defaults"];
    if (d.contains("userTimezone") && d["userTimezone"].is_string()) zone = d["userTimezone"].get<std::string>();
  }
  if (!zone.empty()) {
    if (auto offset = time_zone_offset_minutes(zone, unix_ms)) return *offset;
  }
  return host_utc_offset_minutes(unix_ms);
}

void add_startup_context(const json& config, const std::filesystem::path& workspace, int64_t now_ms,
                         store::TranscriptWriter& writer, context::SessionHistory& history, const std::string& key) {
  if (!history.messages.empty() || !history.summary.empty()) return;
  const std::string text = memory::build_startup_context(workspace, now_ms, user_utc_offset_minutes(config, now_ms),
                                                         memory::startup_context_limits(config));
  if (text.empty()) return;
  auto id = writer.append_custom_message(kStartupContextType, text, false);
  if (!id) {
    spdlog::warn("session {}: the daily notes were not added (cannot save them in the transcript: {})", key,
                 id.error().message);
    return;
  }
  // The same message the transcript gives back when the session is loaded again (byte-stable).
  const json message = {{"role", "custom"}, {"customType", kStartupContextType}, {"content", text},
                        {"display", false}, {"timestamp", 0}};
  for (const auto& converted : store::to_llm_messages({message})) {
    if (auto parsed = llm::message_from_json(converted)) history.messages.push_back({std::move(*parsed), *id});
  }
  history.live_from = history.messages.size();
}

void capture_user_message(const json& config, const std::filesystem::path& workspace, int64_t now_ms,
                          std::string_view message, const std::string& key) {
  const memory::CaptureSettings settings = memory::capture_settings(config);
  if (!settings.enabled) return;
  auto category = memory::capture_category(message, settings.max_chars);
  if (!category) return;
  const int offset = user_utc_offset_minutes(config, now_ms);
  const std::string stamp = memory::date_stamp(now_ms, offset);
  const int64_t local_min = (now_ms / 60'000 + offset) % (24 * 60);
  char hhmm[8];
  std::snprintf(hhmm, sizeof hhmm, "%02d:%02d", static_cast<int>((local_min + 1440) % 1440 / 60),
                static_cast<int>((local_min + 1440) % 60));
  const std::string line = memory::capture_line(message, *category, hhmm);
  const std::string body = line.substr(line.find(']') + 2);  // the text without time and category
  {
    std::ifstream in(memory::daily_note_path(workspace, stamp), std::ios::binary);
    std::ostringstream existing;
    existing << in.rdbuf();
    if (in && existing.str().find("] " + body + "\n") != std::string::npos) return;  // already noted today
  }
  if (auto st = memory::append_daily_note(workspace, stamp, line); !st) {
    spdlog::warn("session {}: auto-capture: {}", key, st.error().message);
    return;
  }
  spdlog::debug("session {}: auto-captured a {} note into memory/{}.md", key, *category, stamp);
}

std::optional<std::string> memory_flush_before(const json& config, const store::SessionEntry* entry,
                                               const std::vector<store::TranscriptEntry>& entries,
                                               const RunInputs& in, int64_t now_ms, int64_t& compactions) {
  const MemoryFlushSettings settings = memory_flush_settings(config);
  if (!settings.enabled || !entry || !in.engine) return std::nullopt;
  // Only a conversation is worth saving: in a new session the fixed frame and the startup
  // context alone may come near a small window (OpenClaw flushes only on a session's reported
  // usage, which a new session does not have yet).
  if (std::none_of(entries.begin(), entries.end(), [](const store::TranscriptEntry& e) {
        return e.type == "message" && e.raw.is_object() && e.raw.contains("message") && e.raw["message"].is_object() &&
               e.raw["message"].value("role", "") == "assistant";
      })) {
    return std::nullopt;
  }
  compactions = static_cast<int64_t>(
      std::count_if(entries.begin(), entries.end(), [](const store::TranscriptEntry& e) { return e.type == "compaction"; }));
  std::optional<int64_t> flushed;
  if (const auto* f = entry->field("memoryFlushCompactionCount"); f && f->is_number_integer()) flushed = f->get<int64_t>();
  const auto frame = in.frame ? in.frame : make_request_frame(in.system_prompt, in.tools);
  const int64_t window = in.context_window > 0 ? in.context_window : in.model.context_window;
  // The estimate of the next request (usage-corrected by the engine), not the run's summed usage.
  if (!memory_flush_due(settings, in.engine->estimate(*frame), window, in.reserve_tokens, compactions, flushed)) {
    return std::nullopt;
  }
  return memory_flush_prompt(settings, memory::date_stamp(now_ms, user_utc_offset_minutes(config, now_ms)), "");
}

std::string memory_flush_system_text(const json& config, int64_t now_ms) {
  return memory_flush_system_prompt(memory_flush_settings(config),
                                    memory::date_stamp(now_ms, user_utc_offset_minutes(config, now_ms)));
}

std::string flush_tool_refusal(std::string_view tool, const std::string& note_path) {
  if (tool == "read" || tool == "write") return "";
  return std::string(tool) + " is not available during the memory flush: only read, and write to " + note_path +
         " (appended), are.";
}

void restrict_to_flush_tools(const json& config, int64_t now_ms, RunInputs& in,
                             std::map<std::string, std::unique_ptr<tools::Tool>>& made) {
  const std::string path = "memory/" + memory::date_stamp(now_ms, user_utc_offset_minutes(config, now_ms)) + ".md";
  for (auto& tool : in.tools) {
    if (tool->name() != "write") continue;
    auto& append_only = made[path];
    if (!append_only) append_only = tools::make_memory_flush_write_tool(path);
    tool = append_only.get();
  }
  in.hooks.before_tool_call = [path](const llm::ToolCall& call) -> std::optional<std::string> {
    std::string refusal = flush_tool_refusal(call.name, path);
    if (refusal.empty()) return std::nullopt;
    return refusal;
  };
}

}  // namespace pincer::agent
