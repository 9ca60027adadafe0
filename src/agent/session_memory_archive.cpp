// The `/new` archive (MM-9): extractive file first, LLM summary after; see session_memory_archive.h.
#include "agent/session_memory_archive.h"

#include <spdlog/spdlog.h>

#include "agent/recall_hooks.h"
#include "agent/session_history.h"
#include "agent/time_zone.h"
#include "context/compaction.h"
#include "context/summarizer.h"
#include "llm/messages.h"
#include "memory/daily_notes.h"
#include "memory/session_archive.h"
#include "store/transcript.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

// The text blocks of a pi message's content (a string or an array of blocks).
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& block : content) {
    if (block.is_object() && block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
      if (!out.empty()) out += "\n";
      out += block["text"].get<std::string>();
    }
  }
  return out;
}

std::string when_label(int64_t now_ms, int offset, const std::string& zone) {
  const int64_t local_min = ((now_ms / 60'000 + offset) % 1440 + 1440) % 1440;
  char hhmm[8];
  std::snprintf(hhmm, sizeof hhmm, "%02d:%02d", static_cast<int>(local_min / 60), static_cast<int>(local_min % 60));
  std::string label = memory::date_stamp(now_ms, offset) + " " + hhmm + " ";
  if (!zone.empty()) return label + zone;
  char off[16];
  std::snprintf(off, sizeof off, "UTC%c%02d:%02d", offset < 0 ? '-' : '+', std::abs(offset) / 60, std::abs(offset) % 60);
  return label + off;
}

constexpr const char* kArchiveInstructions =
    "This session has ended. Your summary is saved as a note in the assistant's long-term memory and read in "
    "later sessions: keep the facts learned about the user and their work, decisions, preferences, and open "
    "todos; leave out small talk.";

}  // namespace

ArchiveJob archive_job_for(const AgentSettings& agent, const ModelRegistry& models, const json& config, int64_t now_ms) {
  ArchiveJob job;
  job.workspace = agent.workspace;
  job.now_ms = now_ms;
  job.utc_offset_minutes = user_utc_offset_minutes(config, now_ms);
  if (config.is_object() && config.contains("agents") && config["agents"].is_object() &&
      config["agents"].contains("defaults") && config["agents"]["defaults"].is_object()) {
    const json& d = config["agents"]["defaults"];
    if (d.contains("userTimezone") && d["userTimezone"].is_string() &&
        time_zone_offset_minutes(d["userTimezone"].get<std::string>(), now_ms)) {
      job.zone = d["userTimezone"].get<std::string>();
    }
  }
  if (auto model = models.resolve(agent.model.primary)) {
    job.window_tokens = engine_config(agent, *model).window_tokens;
    job.model = std::move(*model);
  }
  return job;
}

bool archive_enabled(const json& config) {
  if (!config.is_object() || !config.contains("memory") || !config["memory"].is_object()) return true;
  const json& m = config["memory"];
  if (!m.contains("archive") || !m["archive"].is_object()) return true;
  const json& a = m["archive"];
  return !(a.contains("enabled") && a["enabled"].is_boolean() && !a["enabled"].get<bool>());
}

SessionArchiver::SessionArchiver(net::HttpClient& http) : http_(http) {}

SessionArchiver::~SessionArchiver() {
  for (auto& [id, s] : active_) s->cancel();
  if (!active_.empty()) spdlog::info("{} session archive summaries cut short; their extractive notes stay", active_.size());
}

std::optional<std::filesystem::path> SessionArchiver::archive(const ArchiveJob& job) {
  auto contents = store::read_transcript(job.transcript);
  if (!contents) {
    spdlog::warn("session {}: no memory archive: cannot read {}: {}", job.session_key, job.transcript.string(),
                 contents.error().message);
    return std::nullopt;
  }
  const store::SessionContext ctx = store::build_context(contents->entries);
  std::vector<memory::ArchiveTurn> turns;
  std::vector<std::string> serialized;
  for (const auto& m : ctx.messages) {
    const std::string role = m.is_object() ? m.value("role", "") : "";
    if (role != "user" && role != "assistant") continue;
    std::string text = content_text(m.value("content", json()));
    if (!text.empty()) turns.push_back({role, std::move(text)});
    if (auto parsed = llm::message_from_json(m)) serialized.push_back(context::serialize_for_summary(*parsed));
  }
  if (turns.empty()) return std::nullopt;
  const std::string stamp = memory::date_stamp(job.now_ms, job.utc_offset_minutes);
  const int64_t local_min = ((job.now_ms / 60'000 + job.utc_offset_minutes) % 1440 + 1440) % 1440;
  char hhmm[8];
  std::snprintf(hhmm, sizeof hhmm, "%02d%02d", static_cast<int>(local_min / 60), static_cast<int>(local_min % 60));
  const memory::ArchiveHeader header{when_label(job.now_ms, job.utc_offset_minutes, job.zone), job.session_key,
                                     job.session_id, job.reason};
  auto file = memory::create_archive_file(job.workspace, stamp, memory::archive_slug(turns, hhmm),
                                          memory::render_archive(header, memory::extractive_summary(turns), false));
  if (!file) {
    spdlog::error("session {}: cannot write its memory archive: {}", job.session_key, file.error().message);
    return std::nullopt;
  }
  spdlog::info("session {}: archived to {} (extractive; the summary follows)", job.session_key, file->string());
  if (!job.model) return *file;

  context::SummaryJob summary;
  summary.model = *job.model;
  summary.window_tokens = job.window_tokens > 0 ? job.window_tokens : job.model->context_window;
  summary.messages = std::move(serialized);
  summary.instructions = kArchiveInstructions;
  const int id = ++next_;
  const std::filesystem::path path = *file;
  auto done = [this, id, path, header, key = job.session_key](Result<std::string> text) {
    // Called on the loop by the summariser, which is still in active_: keep it alive until we return.
    auto self = active_.extract(id);
    if (!text || text->empty()) {
      spdlog::warn("session {}: the archive summary failed ({}); {} keeps the extractive one", key,
                   text ? "empty" : text.error().message, path.string());
      return;
    }
    if (auto st = memory::replace_archive_file(path, memory::render_archive(header, *text, true)); !st) {
      spdlog::warn("session {}: cannot write the archive summary: {}; the extractive one stays", key, st.error().message);
      return;
    }
    spdlog::info("session {}: archive summary written to {}", key, path.string());
  };
  auto summarizer = std::make_shared<context::Summarizer>(http_, std::move(summary), std::move(done));
  active_.emplace(id, summarizer);
  summarizer->start();
  return *file;
}

}  // namespace pincer::agent
