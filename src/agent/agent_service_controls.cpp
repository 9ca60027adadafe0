// Session controls of AgentService (issue 12 item 7): sessions.patch and sessions.preview, the
// per-session model and thinking level (SS-3, AG-6, AG-7), automatic resets (SS-5) and the turn
// context of a run (CX-4). Kept out of agent_service.cpp, which owns lanes and runs; these
// functions use only the service's accessors.
#include <algorithm>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "agent/agent_service_impl.h"
#include "agent/agents_config.h"
#include "agent/auth_profile_pin.h"
#include "agent/recall_hooks.h"
#include "agent/session_memory_archive.h"
#include "agent/session_reset.h"
#include "agent/system_prompt.h"
#include "agent/time_zone.h"
#include "agent/workspace.h"
#include "core/ids.h"
#include "core/utf8.h"
#include "store/session_keys.h"
#include "store/transcript.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxLabelChars = 512;
/// Marks the model_change / thinking_level_change entries Pincer writes for a sessions.json
/// setting: sessions.json stays the authority over them (a cleared setting must not come back
/// from the transcript); unmarked ones (a transcript from OpenClaw or pi) are the SS-3 fallback.
constexpr const char* kOriginField = "origin";
constexpr const char* kOriginSession = "pincer-session";

/// The last model_change / thinking_level_change on the active branch (SS-3): "provider/model"
/// and the level, "" when the branch has none.
struct TranscriptState {
  std::string model_ref;
  std::string thinking;
};

/// True when `e` is a change transcript_state reads (not one Pincer wrote for a sessions.json setting).
bool transcript_state_candidate(const store::TranscriptEntry& e) {
  return (e.type == "model_change" || e.type == "thinking_level_change") &&
         e.raw.value(kOriginField, "") != kOriginSession;
}

TranscriptState transcript_state(const std::vector<store::TranscriptEntry>& entries) {
  TranscriptState st;
  // Most transcripts hold no such change: then no branch walk (an index of every entry per turn).
  if (std::none_of(entries.begin(), entries.end(), transcript_state_candidate)) return st;
  for (const store::TranscriptEntry* e : store::active_branch(entries)) {
    if (e->raw.value(kOriginField, "") == kOriginSession) continue;
    if (e->type == "model_change") {
      const std::string provider = e->raw.value("provider", ""), model = e->raw.value("modelId", "");
      if (!model.empty()) st.model_ref = provider.empty() ? model : provider + "/" + model;
    } else if (e->type == "thinking_level_change") {
      st.thinking = e->raw.value("thinkingLevel", "");
    }
  }
  return st;
}

std::string string_field(const store::SessionEntry* entry, const char* name) {
  if (!entry) return "";
  const auto* v = entry->field(name);
  return v && v->is_string() ? v->get<std::string>() : "";
}

/// The session's model override as a reference: OpenClaw's providerOverride + modelOverride.
std::string override_ref(const store::SessionEntry* entry) {
  const std::string model = string_field(entry, "modelOverride");
  if (model.empty()) return "";
  const std::string provider = string_field(entry, "providerOverride");
  return provider.empty() ? model : provider + "/" + model;
}

/// Text of a pi message for a preview: user text blocks joined by "\n", assistant text blocks.
std::string preview_text(const json& m) {
  if (m.contains("content") && m["content"].is_string()) return m["content"].get<std::string>();
  std::string out;
  if (m.contains("content") && m["content"].is_array()) {
    for (const auto& b : m["content"]) {
      if (b.is_object() && b.value("type", "") == "text" && b.contains("text") && b["text"].is_string()) {
        if (!out.empty()) out += "\n";
        out += b["text"].get<std::string>();
      }
    }
  }
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// Cuts to at most `limit` characters (code points), "..." included (OpenClaw's preview rule).
std::string cut_chars(const std::string& text, std::size_t limit) {
  std::size_t chars = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
  }
  if (chars <= limit) return text;
  std::size_t keep = limit > 3 ? limit - 3 : 0, seen = 0;
  for (i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == keep) break;
  }
  return text.substr(0, i) + "...";
}

}  // namespace

void AgentService::reset_if_stale(const std::string& key, const std::string& channel) {
  if (active_run(key)) return;
  const json& cfg = config();
  const json session_cfg = cfg.is_object() ? cfg.value("session", json::object()) : json::object();
  const ResetPolicy policy = resolve_reset_policy(session_cfg, reset_type_of(key), channel);
  if (policy.mode == ResetMode::None) return;  // OpenClaw: mode none never resets, idleMinutes or not
  store::SessionIndex& index = index_for(store::agent_id_from_session_key(key));
  const store::SessionEntry* entry = index.get(key);
  if (!entry) return;
  const auto* started_field = entry->field("sessionStartedAt");
  const int64_t last = entry->updated_at();
  const int64_t started = started_field && started_field->is_number() ? started_field->get<int64_t>() : last;
  const auto why = stale_reason(policy, clock().wall_ms(), started, last, host_utc_offset_minutes);
  if (!why) return;
  auto reset = reset_session(key);
  if (!reset) {
    spdlog::error("session {}: {} reset failed: {}", key, *why, reset.error().message);
    return;
  }
  spdlog::info("session {}: {} reset (session.reset); previous session {} archived", key, *why,
               reset->value("previousSessionId", ""));
}

bool AgentService::flush_first(Pending& p, const RunInputs& in, const std::vector<store::TranscriptEntry>& entries) {
  if (in.frame) {  // a message too large for the window is refused by its run (message_fit.h): no flush call first
    llm::UserMessage user;
    user.content.emplace_back(llm::TextContent{p.request.message});
    user.content.insert(user.content.end(), in.attachments.begin(), in.attachments.end());
    const int64_t window = in.context_window > 0 ? in.context_window : in.model.context_window;
    if (!context::fit_message(llm::Message(std::move(user)), *in.frame, window, in.reserve_tokens).fits()) return false;
  }
  store::SessionIndex& index = index_for(p.agent_id);
  int64_t compactions = 0;
  auto prompt = memory_flush_before(config(), index.get(p.key), entries, in, clock().wall_ms(), compactions);
  if (!prompt) return false;
  store::UpsertOptions options;
  options.policy = store::MergePolicy::PreserveActivity;
  if (auto up = index.upsert(p.key, store::OrderedJson{{"memoryFlushAt", clock().wall_ms()},
                                                       {"memoryFlushCompactionCount", compactions}},
                             options);
      !up) {
    spdlog::warn("session {}: no memory flush (cannot record it: {})", p.key, up.error().message);
    return false;
  }
  schedule_index_save(p.agent_id);
  // Its events go nowhere; a compaction the flush run itself makes belongs to this cycle (else
  // the next turn would flush again at once, the history still near the threshold).
  Pending flush{p.request, p.key, p.agent_id, [this, key = p.key, agent_id = p.agent_id, compactions](const RunEvent& e) mutable {
                  if (e.kind != RunEvent::Kind::Compaction || e.data.value("phase", "") != "end" ||
                      !e.data.value("compacted", false)) {
                    return;
                  }
                  store::UpsertOptions keep;
                  keep.policy = store::MergePolicy::PreserveActivity;
                  if (index_for(agent_id).upsert(key, store::OrderedJson{{"memoryFlushCompactionCount", ++compactions}}, keep)) {
                    schedule_index_save(agent_id);
                  }
                }};
  flush.request.message = std::move(*prompt);
  flush.request.memory_flush = true;
  flush.request.journal_ids.clear();  // the user's journal entries belong to the user's run (SS-6)
  flush.request.run_id = "memory-flush-" + ids::uuid_v4();
  spdlog::info("session {}: memory flush before run {} (run {})", p.key, p.request.run_id, flush.request.run_id);
  const std::string key = p.key;
  impl_->lanes[key].queue.push_front(std::move(p));
  start(std::move(flush));
  return true;
}

void AgentService::archive_to_memory(const std::string& key, const std::string& agent_id,
                                     const std::string& session_id, const std::filesystem::path& transcript) {
  const AgentSettings* agent = impl_->agents.find(agent_id);
  if (transcript.empty() || !agent || !archive_enabled(config())) return;
  if (!impl_->memory.settings_for(agent->id, agent->workspace).enabled) return;
  ArchiveJob job = archive_job_for(*agent, impl_->models, config(), clock().wall_ms());
  job.transcript = transcript;
  job.session_key = key;
  job.session_id = session_id;
  impl_->archiver.archive(job);
}

void AgentService::apply_session_state(const std::string& key, const std::string& request_thinking,
                                       const std::vector<store::TranscriptEntry>& entries,
                                       const store::SessionContext& ctx, store::TranscriptWriter& writer,
                                       RunInputs& in) {
  store::SessionIndex& index = index_for(in.agent_id);
  const store::SessionEntry* entry = index.get(key);
  const TranscriptState recorded = transcript_state(entries);

  // Model: the session override, else the transcript's last explicit change, else as resolved.
  std::string ref = override_ref(entry);
  if (ref.empty()) ref = recorded.model_ref;
  if (!ref.empty()) {
    if (auto model = resolve_model(ref)) {
      in.model = std::move(*model);
    } else {
      spdlog::warn("session {}: model {} no longer resolves ({}); using {}/{}", key, ref, model.error().message,
                   in.model.provider, in.model.id);
    }
  }
  // The transcript records every switch (SS-2), whatever caused it.
  if (!ctx.model_id.empty() && (ctx.provider != in.model.provider || ctx.model_id != in.model.id)) {
    const json fields = {{"provider", in.model.provider}, {"modelId", in.model.id}, {kOriginField, kOriginSession}};
    if (auto r = writer.append("model_change", fields); !r) {
      spdlog::warn("session {}: cannot record the model change: {}", key, r.error().message);
    }
  }

  // Thinking: the run's own level, else the session's, else the transcript's, else the agent's.
  std::string thinking = request_thinking;
  const std::string session_level = string_field(entry, "thinkingLevel");
  if (thinking.empty()) thinking = session_level;
  if (thinking.empty()) thinking = recorded.thinking;
  if (thinking.empty()) thinking = agent_default_thinking(in.agent_id);
  in.thinking = thinking_level(thinking).value_or(llm::ThinkingLevel::Off);
  if (!session_level.empty() && request_thinking.empty() && ctx.thinking_level != session_level && !entries.empty()) {
    const json fields = {{"thinkingLevel", session_level}, {kOriginField, kOriginSession}};
    if (auto r = writer.append("thinking_level_change", fields); !r) {
      spdlog::warn("session {}: cannot record the thinking level: {}", key, r.error().message);
    }
  }
}

std::function<std::string(int64_t, bool)> AgentService::turn_context_for(const std::string& key,
                                                                        const std::string& truncation_warning) const {
  TurnContext tc;
  tc.now_ms = clock().wall_ms();
  const json& cfg = config();
  std::string zone;
  if (cfg.contains("agents") && cfg["agents"].is_object() && cfg["agents"].contains("defaults") &&
      cfg["agents"]["defaults"].is_object()) {
    zone = cfg["agents"]["defaults"].value("userTimezone", "");
  }
  if (!zone.empty()) {
    if (auto offset = time_zone_offset_minutes(zone, tc.now_ms)) {
      tc.utc_offset_minutes = *offset;
      tc.time_zone = zone;
    } else {
      spdlog::warn("session {}: agents.defaults.userTimezone \"{}\" is not a time zone of this host; using host time",
                   key, zone);
      zone.clear();
    }
  }
  if (zone.empty()) tc.utc_offset_minutes = host_utc_offset_minutes(tc.now_ms);
  return [tc, truncation_warning](int64_t message_ms, bool current) {
    TurnContext at = tc;
    at.now_ms = message_ms;
    if (current) at.bootstrap_warning = truncation_warning;
    return build_turn_context(at);
  };
}

Result<json> AgentService::patch_session(const std::string& session_key, const json& params) {
  if (!params.is_object()) return Error{"INVALID_REQUEST", "sessions.patch: params must be an object"};
  static const std::vector<std::string> kKnown = {"key", "sessionKey", "label", "thinkingLevel", "model"};
  for (const auto& [name, value] : params.items()) {
    if (std::find(kKnown.begin(), kKnown.end(), name) == kKnown.end()) {
      return Error{"INVALID_REQUEST", "sessions.patch: \"" + name +
                                          "\" is not a session setting Pincer has (label, thinkingLevel, model)"};
    }
  }
  const std::string key = canonical_key(session_key);
  const std::string agent_id = store::agent_id_from_session_key(key);
  store::OrderedJson patch = store::OrderedJson::object();
  store::UpsertOptions options;
  options.policy = store::MergePolicy::PreserveActivity;
  std::optional<llm::ModelSpec> new_model;
  if (params.contains("label")) {
    const json& v = params["label"];
    if (v.is_null()) options.remove_fields.push_back("label");
    else if (!v.is_string()) return Error{"INVALID_REQUEST", "sessions.patch: label must be a string or null"};
    else {
      const std::string label = trim(utf8::replace_invalid(v.get<std::string>()));
      const auto control = std::find_if(label.begin(), label.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      });
      if (label.empty()) options.remove_fields.push_back("label");
      else if (label.size() > kMaxLabelChars) return Error{"INVALID_REQUEST", "sessions.patch: label is longer than 512 bytes"};
      else if (control != label.end()) {  // a NUL or a newline would break the lists that show it
        char code[8];
        std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned char>(*control));
        return Error{"INVALID_REQUEST", std::string("sessions.patch: label contains a control character (") + code + ")"};
      }
      else patch["label"] = label;
    }
  }
  if (params.contains("thinkingLevel")) {
    const json& v = params["thinkingLevel"];
    if (v.is_null()) options.remove_fields.push_back("thinkingLevel");
    else if (!v.is_string() || !thinking_level(v.get<std::string>())) {
      return Error{"INVALID_REQUEST", "sessions.patch: thinkingLevel must be off|minimal|low|medium|high|xhigh or null"};
    } else patch["thinkingLevel"] = v.get<std::string>();
  }
  if (params.contains("model")) {
    const json& v = params["model"];
    if (v.is_null() || (v.is_string() && trim(v.get<std::string>()).empty())) {
      options.remove_fields.push_back("providerOverride");
      options.remove_fields.push_back("modelOverride");
    } else if (!v.is_string()) {
      return Error{"INVALID_REQUEST", "sessions.patch: model must be a string or null"};
    } else {
      // `provider/model@profileId` also pins an auth profile (OpenClaw's syntax; auth_profile_pin.h).
      const ModelRefWithProfile ref = split_model_profile(v.get<std::string>());
      auto model = resolve_model(ref.model);
      if (!model) return Error{"INVALID_REQUEST", "sessions.patch: model: " + model.error().message};
      auto profiles = impl_->auth_profiles_for(agent_id)->load();
      if (!ref.profile.empty()) {
        if (!profiles) return Error{"INVALID_REQUEST", "sessions.patch: model: " + profiles.error().message};
        if (auto st = check_pinnable_profile(*profiles, ref.profile, model->provider); !st) {
          return Error{"INVALID_REQUEST", "sessions.patch: model: " + st.error().message};
        }
        patch["authProfileOverride"] = ref.profile;
        patch["authProfileOverrideSource"] = "user";
      } else if (const store::SessionEntry* e = index_for(agent_id).get(key)) {
        // A pin for another provider's profile goes with the old model (OpenClaw clears it too).
        const std::string pin = string_field(e, "authProfileOverride");
        if (!pin.empty() && (!profiles || !check_pinnable_profile(*profiles, pin, model->provider))) {
          options.remove_fields.push_back("authProfileOverride");
          options.remove_fields.push_back("authProfileOverrideSource");
        }
      }
      patch["providerOverride"] = model->provider;
      patch["modelOverride"] = model->id;
      new_model = std::move(*model);
    }
  }
  store::SessionIndex& index = index_for(agent_id);
  if (!index.get(key)) {
    patch["sessionId"] = ids::uuid_v4();
    patch["sessionStartedAt"] = clock().wall_ms();
  }
  auto updated = index.upsert(key, patch, options);
  if (!updated) return updated.error();
  if (auto st = index.save(); !st) return st.error();

  // The model the session's next run uses (and the running one, when it is still clean).
  const store::SessionEntry* entry = index.get(key);
  std::string ref = override_ref(entry);
  if (ref.empty()) ref = agent_primary_model(agent_id);
  json resolved = {{"modelProvider", nullptr}, {"model", nullptr}};
  if (auto m = resolve_model(ref)) resolved = {{"modelProvider", m->provider}, {"model", m->id}};
  bool live = false;
  if (new_model) {
    if (AgentRun* run = active_run(key)) live = run->switch_model(*new_model);
  }
  return json{{"ok", true},          {"path", index.path().string()}, {"key", key}, {"entry", entry->json()},
              {"resolved", resolved}, {"liveSwitch", live}};
}

json AgentService::preview_sessions(const std::vector<std::string>& keys, int limit, int max_chars) {
  const std::size_t max_items = static_cast<std::size_t>(std::clamp(limit, 1, 200));
  const std::size_t chars = static_cast<std::size_t>(std::clamp(max_chars, 20, 800));
  json previews = json::array();
  for (std::size_t k = 0; k < keys.size() && k < 64; ++k) {
    const std::string& requested = keys[k];
    json preview = {{"key", requested}, {"status", "missing"}, {"items", json::array()}};
    if (store::session_key_problem(requested)) {
      previews.push_back(std::move(preview));
      continue;
    }
    const std::string key = canonical_key(requested);
    const std::string agent_id = store::agent_id_from_session_key(key);
    const store::SessionEntry* entry = index_for(agent_id).get(key);
    auto file = entry ? store::transcript_path(store::sessions_dir(state_dir(), agent_id), entry->session_id())
                      : Result<std::filesystem::path>(Error{"SESSION_NOT_FOUND", ""});
    if (!entry || !file) {
      previews.push_back(std::move(preview));
      continue;
    }
    if (!std::filesystem::exists(*file)) {
      preview["status"] = "empty";
      previews.push_back(std::move(preview));
      continue;
    }
    auto contents = store::read_transcript(*file);
    if (!contents) {
      preview["status"] = "error";
      previews.push_back(std::move(preview));
      continue;
    }
    const auto messages = store::build_context(contents->entries).messages;
    json items = json::array();
    for (auto it = messages.rbegin(); it != messages.rend() && items.size() < max_items; ++it) {
      const std::string role = it->is_object() ? it->value("role", "") : "";
      if (role != "user" && role != "assistant") continue;
      std::string text = trim(preview_text(*it));
      if (text.empty()) continue;
      items.insert(items.begin(), json{{"role", role}, {"text", cut_chars(text, chars)}});
    }
    preview["status"] = items.empty() ? "empty" : "ok";
    preview["items"] = std::move(items);
    previews.push_back(std::move(preview));
  }
  return json{{"ts", clock().wall_ms()}, {"previews", std::move(previews)}};
}

}  // namespace pincer::agent
