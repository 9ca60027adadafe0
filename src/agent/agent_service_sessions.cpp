// AgentService's session and catalogue queries and edits for the gateway methods and the CLI:
// chat.history, sessions.list/reset/delete, session status (/status), thinking level, models,
// agents and session defaults. The run path (send → start → finished) stays in agent_service.cpp.
#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "agent/agent_service_impl.h"
#include "agent/agents_config.h"
#include "agent/attachments.h"
#include "agent/memory_flush.h"
#include "agent/model_registry.h"
#include "agent/session_history.h"
#include "agent/workspace.h"
#include "core/ids.h"
#include "store/session_keys.h"
#include "store/session_tree.h"
#include "store/transcript.h"

namespace pincer::agent {

using nlohmann::json;

Result<json> AgentService::history(const std::string& session_key, int limit, bool entry_ids) {
  const std::string key = canonical_key(session_key);
  const std::string agent_id = store::agent_id_from_session_key(key);
  store::SessionIndex& index = index_for(agent_id);
  json out = {{"sessionKey", key}, {"messages", json::array()}, {"thinkingLevel", "off"}};
  const store::SessionEntry* entry = index.get(key);
  if (!entry) return out;
  out["sessionId"] = entry->session_id();
  auto file = store::transcript_path(store::sessions_dir(impl_->state_dir, agent_id), entry->session_id());
  if (!file || !std::filesystem::exists(*file)) return out;
  auto contents = store::read_transcript(*file);
  if (!contents) return Error{"SESSION_UNAVAILABLE", "cannot read session " + key + ": " + contents.error().message};
  store::SessionContext ctx = store::build_context(contents->entries);
  // A turn cut off by a crash (no run of this session is going on here) reads as interrupted;
  // it is recorded as such, the same way the next run would (start()).
  if (!impl_->lanes.contains(key)) {
    if (auto marker = interrupted_turn_marker(contents->entries, impl_->clock.wall_ms(), read_partial_reply(*file))) {
      auto w = store::TranscriptWriter::open(*file, *contents, impl_->clock, store::FsyncPolicy::None);
      if (auto r = w ? w->append_message(*marker) : Result<std::string>(w.error()); !r) {
        spdlog::error("session {}: cannot mark its interrupted turn: {}", key, r.error().message);
      } else {
        std::error_code ec;
        std::filesystem::remove(partial_reply_path(*file), ec);
        ctx.entry_ids.push_back(*r);
      }
      ctx.messages.push_back(std::move(*marker));
      ctx.entry_ids.resize(ctx.messages.size());
    }
  }
  out["thinkingLevel"] = ctx.thinking_level;
  const size_t n = ctx.messages.size();
  const size_t first = limit > 0 && n > static_cast<size_t>(limit) ? n - static_cast<size_t>(limit) : 0;
  const std::vector<bool> hidden = hidden_messages(ctx.messages);  // CX-10: flush turns, NO_REPLY
  for (size_t i = first; i < n; ++i) {
    if (hidden[i]) continue;
    out["messages"].push_back(ctx.messages[i]);
    resolve_image_refs(out["messages"].back(), file->parent_path());  // chat.history shows the image
    json& m = out["messages"].back();
    if (entry_ids && m.is_object() && i < ctx.entry_ids.size() && !ctx.entry_ids[i].empty()) {
      m["__openclaw"] = {{"id", ctx.entry_ids[i]}, {"seq", i + 1}};
    }
  }
  return out;
}

json AgentService::list_sessions(int limit) {
  json rows = json::array();
  for (const auto& agent : impl_->agents.agents) {
    for (const auto& listing : index_for(agent.id).list()) {
      json row = listing.entry.json();
      row["key"] = listing.key;
      row["agentId"] = agent.id;
      // As OpenClaw: the window of the model the session runs on (its /model override included).
      const std::string model = row.value("modelOverride", ""), provider = row.value("providerOverride", "");
      const std::string ref = model.empty() || provider.empty() ? model : provider + "/" + model;
      if (auto w = agent_window(agent, impl_->models, ref)) row["contextTokens"] = w->tokens;
      else if (auto primary = agent_window(agent, impl_->models)) row["contextTokens"] = primary->tokens;
      rows.push_back(std::move(row));
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const json& a, const json& b) { return a.value("updatedAt", 0) > b.value("updatedAt", 0); });
  const size_t total = rows.size();
  if (limit > 0 && rows.size() > static_cast<size_t>(limit)) rows.erase(rows.begin() + limit, rows.end());
  return json{{"ts", impl_->clock.wall_ms()}, {"count", rows.size()}, {"totalCount", total}, {"sessions", rows}};
}

namespace {

Result<json> archive_session(AgentService& self, store::SessionIndex& index, const std::filesystem::path& dir,
                             const std::string& key, store::ArchiveReason reason, const Clock& clock,
                             std::filesystem::path* archived_to = nullptr) {
  const store::SessionEntry* entry = index.get(key);
  if (!entry) return Error{"SESSION_NOT_FOUND", "no session " + key};
  const std::string old_id = entry->session_id();
  if (auto file = store::transcript_path(dir, old_id); file && std::filesystem::exists(*file)) {
    auto archived = store::archive_transcript(*file, reason, clock.wall_ms());
    if (!archived) return archived.error();
    if (archived_to) *archived_to = *archived;
  }
  // Its images go with it, unless another session uses them too (attachments.h).
  if (const int gone = release_session_media(dir, old_id); gone > 0) {
    spdlog::info("session {} ({}): {} media file(s) deleted", key, old_id, gone);
  }
  (void)self;
  return json{{"ok", true}, {"key", key}, {"previousSessionId", old_id}};
}

}  // namespace

Result<json> AgentService::reset_session(const std::string& session_key) {
  const std::string key = canonical_key(session_key);
  const std::string agent_id = store::agent_id_from_session_key(key);
  if (impl_->lanes.contains(key)) (void)abort(key, "", "reset");
  store::SessionIndex& index = index_for(agent_id);
  std::filesystem::path transcript;
  auto archived = archive_session(*this, index, store::sessions_dir(impl_->state_dir, agent_id), key,
                                  store::ArchiveReason::Reset, impl_->clock, &transcript);
  if (!archived) return archived;
  archive_to_memory(key, agent_id, (*archived)["previousSessionId"].get<std::string>(), transcript);  // MM-9
  const std::string new_id = ids::uuid_v4();
  if (auto up = index.upsert(key, store::OrderedJson{{"sessionId", new_id}, {"sessionStartedAt", impl_->clock.wall_ms()}},
                             // A new CLI session too, and no token counts of the old transcript (a fresh
                             // session listed with the old one's 3 426 tokens: the new-user pass).
                             {store::MergePolicy::TouchActivity, {"cliSessionIds", "totalTokens", "inputTokens", "outputTokens"}});
      !up) {
    return up.error();
  }
  if (auto st = index.save(); !st) return st.error();
  (*archived)["sessionId"] = new_id;
  return archived;
}

void discard_unused_session(store::SessionIndex& index, const std::string& key, const std::string& session_id,
                            const std::filesystem::path& file) {
  const store::SessionEntry* entry = index.get(key);
  if (!entry || entry->session_id() != session_id) return;  // replaced meanwhile (sessions.reset …)
  auto contents = store::read_transcript(file);
  if (!contents) return;
  for (const auto& e : contents->entries) {
    if (e.type == "message") return;  // something was said: the session stays
  }
  index.remove(key);
  if (auto st = index.save(); !st) {
    spdlog::warn("session {}: the refused first message leaves it in the index ({})", key, st.error().message);
    return;
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
  // The images stored for the refused message (attachment_blocks) go with it: its links under
  // media/by-session/<id>/, and each file no other session links.
  const int media = release_session_media(file.parent_path(), session_id);
  spdlog::info("session {}: removed again, its first message was refused before it was recorded{}", key,
               media > 0 ? " (with " + std::to_string(media) + " stored attachment file(s))" : std::string());
}

Result<json> AgentService::delete_session(const std::string& session_key) {
  const std::string key = canonical_key(session_key);
  const std::string agent_id = store::agent_id_from_session_key(key);
  if (impl_->lanes.contains(key)) (void)abort(key, "", "deleted");
  store::SessionIndex& index = index_for(agent_id);
  auto archived = archive_session(*this, index, store::sessions_dir(impl_->state_dir, agent_id), key,
                                  store::ArchiveReason::Deleted, impl_->clock);
  if (!archived) return archived;
  index.remove(key);
  if (auto st = index.save(); !st) return st.error();
  (*archived)["deleted"] = true;
  return archived;
}

json AgentService::session_status(const std::string& session_key) {
  const std::string key = canonical_key(session_key);
  const std::string agent_id = store::agent_id_from_session_key(key);
  json out = {{"sessionKey", key}, {"agentId", agent_id}, {"model", ""}, {"messages", 0}};
  const AgentSettings* spec = impl_->agents.find(agent_id);
  if (!spec) spec = &impl_->agents.default_agent();
  if (auto model = impl_->models.resolve(spec->model.primary)) {
    out["model"] = model->provider + "/" + model->id;
    out["reasoning"] = model->reasoning;
  } else {
    out["modelError"] = model.error().message;
  }
  if (std::string warning = window_warning(*spec, impl_->models); !warning.empty()) out["contextWarning"] = warning;
  std::string thinking = spec->thinking_default.empty() ? "off" : spec->thinking_default;
  store::SessionIndex& index = index_for(agent_id);
  if (const store::SessionEntry* entry = index.get(key)) {
    out["sessionId"] = entry->session_id();
    if (const auto* level = entry->field("thinkingLevel"); level && level->is_string()) thinking = level->get<std::string>();
    if (const auto* pin = entry->field("authProfileOverride"); pin && pin->is_string()) out["authProfile"] = pin->get<std::string>();
    if (const auto* m = entry->field("modelOverride"); m && m->is_string()) {  // /model, sessions.patch
      const auto* p = entry->field("providerOverride");
      if (auto model = impl_->models.resolve((p && p->is_string() ? p->get<std::string>() + "/" : "") + m->get<std::string>())) {
        out["model"] = model->provider + "/" + model->id;
        out["reasoning"] = model->reasoning;
      }
    }
    auto file = store::transcript_path(store::sessions_dir(impl_->state_dir, agent_id), entry->session_id());
    if (file && std::filesystem::exists(*file)) {
      if (auto contents = store::read_transcript(*file)) {
        // Only the conversation's own messages: not the startup context (a custom entry added at
        // the session's start), summaries or other custom entries, nor the hidden flush turns; nor
        // a turn's tool steps (an assistant message that stopped to call tools, its results).
        const std::vector<json> messages = store::build_context(contents->entries).messages;
        const std::vector<bool> hidden = hidden_messages(messages);
        std::size_t count = 0;
        for (std::size_t i = 0; i < messages.size(); ++i) {
          const std::string role = messages[i].is_object() ? messages[i].value("role", "") : "";
          const bool tool_step = role == "assistant" && messages[i].value("stopReason", "") == "toolUse";
          if (!hidden[i] && !tool_step && (role == "user" || role == "assistant")) ++count;
        }
        out["messages"] = count;
      }
    }
  }
  out["thinkingLevel"] = thinking;
  // The window of the model this session uses (a /model override included).
  if (auto w = agent_window(*spec, impl_->models, out.value("model", ""))) out["contextTokens"] = w->tokens;
  out["running"] = active_run(key) != nullptr;
  if (auto it = impl_->last_failover.find(key); it != impl_->last_failover.end()) out["lastFailover"] = it->second;
  return out;
}

Status AgentService::set_session_thinking(const std::string& session_key, const std::string& level) {
  if (!thinking_level(level)) {
    return Error{"INVALID_REQUEST", "unknown thinking level \"" + level + "\" (off|minimal|low|medium|high|xhigh)"};
  }
  const std::string key = canonical_key(session_key);
  store::SessionIndex& index = index_for(store::agent_id_from_session_key(key));
  store::OrderedJson patch = {{"thinkingLevel", level}};
  if (!index.get(key)) patch["sessionId"] = ids::uuid_v4();
  store::UpsertOptions options;
  options.policy = store::MergePolicy::PreserveActivity;
  if (auto up = index.upsert(key, patch, options); !up) return up.error();
  return index.save();
}

store::OrderedJson delivery_patch(const std::string& channel, const std::string& to, const std::string& account_id,
                                  const std::string& thread_id) {
  store::OrderedJson context = {{"channel", channel}, {"to", to}, {"accountId", account_id}};
  store::OrderedJson patch = {{"lastChannel", channel}, {"lastTo", to}, {"lastAccountId", account_id}};
  if (!thread_id.empty()) {
    context["threadId"] = thread_id;
    patch["lastThreadId"] = thread_id;
  }
  patch["deliveryContext"] = std::move(context);
  return patch;
}

void AgentService::note_delivery(const std::string& key, const std::string& agent_id, const tools::approvals::ExecOrigin& origin) {
  if (origin.channel.empty() || origin.chat_id.empty()) return;  // a gateway client's turn has no address
  store::SessionIndex& index = index_for(agent_id);
  const store::SessionEntry* entry = index.get(key);
  if (!entry) return;
  const store::OrderedJson patch = delivery_patch(origin.channel, origin.chat_id, origin.account_id, origin.thread_id);
  store::UpsertOptions options;
  options.policy = store::MergePolicy::PreserveActivity;
  if (origin.thread_id.empty() && entry->field("lastThreadId")) options.remove_fields.push_back("lastThreadId");
  // The usual case (the same chat again) writes nothing.
  bool same = options.remove_fields.empty();
  for (const auto& item : patch.items()) {
    const store::OrderedJson* was = entry->field(item.key());
    same = same && was != nullptr && *was == item.value();
  }
  if (!same && index.upsert(key, patch, options)) schedule_index_save(agent_id);
}

Status AgentService::set_session_delivery(const std::string& session_key, const std::string& channel,
                                          const std::string& to, const std::string& account_id) {
  if (channel.empty() || to.empty()) return Error{"INVALID_REQUEST", "a delivery address needs a channel and a recipient"};
  const std::string key = canonical_key(session_key);
  store::SessionIndex& index = index_for(store::agent_id_from_session_key(key));
  store::OrderedJson patch = delivery_patch(channel, to, account_id, "");
  const store::SessionEntry* entry = index.get(key);
  if (!entry) patch["sessionId"] = ids::uuid_v4();
  store::UpsertOptions options;
  options.policy = store::MergePolicy::PreserveActivity;
  // The new address has no thread: a thread of the old chat must not follow it (as note_delivery).
  if (entry && entry->field("lastThreadId")) options.remove_fields.push_back("lastThreadId");
  if (auto up = index.upsert(key, patch, options); !up) return up.error();
  return index.save();
}

json AgentService::list_models() const {
  return json{{"models", impl_->models.list()}};
}

namespace {

// The thinking levels a Pincer run understands (AgentSettings::thinking_default), as OpenClaw's
// clients list them ({id, label}).
json thinking_levels() {
  json levels = json::array();
  for (const char* id : {"off", "minimal", "low", "medium", "high", "xhigh"}) levels.push_back({{"id", id}, {"label", id}});
  return levels;
}

}  // namespace

json AgentService::list_agents() const {
  json agents = json::array();
  for (const auto& a : impl_->agents.agents) {
    json row = {{"id", a.id}, {"workspace", a.workspace.string()}, {"thinkingDefault", a.thinking_default}};
    if (!a.name.empty()) row["name"] = a.name;
    // OpenClaw's AgentSummary.model: clients read model.primary (absent when none is configured).
    json model = json::object();
    if (!a.model.primary.empty()) model["primary"] = a.model.primary;
    if (!a.model.fallbacks.empty()) model["fallbacks"] = a.model.fallbacks;
    row["model"] = std::move(model);
    agents.push_back(std::move(row));
  }
  return json{{"defaultId", impl_->agents.default_id}, {"mainKey", "main"}, {"scope", "per-sender"}, {"agents", agents}};
}

json AgentService::session_defaults(const std::string& agent_id) const {
  const AgentSettings* agent = agent_id.empty() ? &impl_->agents.default_agent() : impl_->agents.find(agent_id);
  if (!agent) agent = &impl_->agents.default_agent();
  const std::string& ref = agent->model.primary;
  json out = {{"agentId", agent->id}, {"modelProvider", nullptr}, {"model", nullptr}, {"contextTokens", nullptr},
              {"thinkingDefault", agent->thinking_default}, {"thinkingLevels", thinking_levels()}};
  json options = json::array();
  for (const auto& level : out["thinkingLevels"]) options.push_back(level["label"]);
  out["thinkingOptions"] = std::move(options);
  if (const ModelEntry* entry = ref.empty() ? nullptr : impl_->models.find(ref)) {
    out["modelProvider"] = entry->spec.provider;
    out["model"] = entry->spec.id;
    out["contextWindow"] = entry->spec.context_window;
    out["contextTokens"] = context::effective_window(entry->spec.context_window, agent->context_tokens).tokens;
    if (std::string warning = window_warning(*agent, impl_->models); !warning.empty()) out["contextWarning"] = warning;
  } else if (!ref.empty()) {  // configured but unknown: name it, as the run's error will
    auto split = ref.find('/');
    out["modelProvider"] = split == std::string::npos ? json(nullptr) : json(ref.substr(0, split));
    out["model"] = split == std::string::npos ? ref : ref.substr(split + 1);
  }
  return out;
}

}  // namespace pincer::agent
