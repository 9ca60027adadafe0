#include "agent/agent_service.h"
#include "agent/agent_service_impl.h"
#include "agent/chat_commands.h"

#include <array>

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "agent/agents_config.h"
#include "agent/cache_trace.h"
#include "agent/exec_gate.h"
#include "agent/run_tool_settings.h"
#include "agent/model_registry.h"
#include "agent/memory_flush.h"
#include "tools/tool_search.h"
#include "agent/recall_hooks.h"
#include "agent/active_recall_hook.h"
#include "agent/attachments.h"
#include "agent/session_history.h"
#include "agent/subagents.h"
#include "agent/agent_skills.h"
#include "agent/system_prompt.h"
#include "agent/workspace.h"
#include "context/message_fit.h"
#include "core/ids.h"
#include "core/saturating.h"
#include "store/session_keys.h"
#include "store/session_recovery.h"
#include "store/session_tree.h"
#include "store/transcript.h"
#include "tools/process_table.h"
#include "tools/policy/policy_pipeline.h"
#include "tools/registry.h"
#include "tools/sessions/session_tools.h"

extern char** environ;

namespace pincer::agent {

using nlohmann::json;

const char* to_string(RunLane lane) {
  switch (lane) {
    case RunLane::Main: return "main";
    case RunLane::Subagent: return "subagent";
    case RunLane::Cron: return "cron";
    case RunLane::Nested: return "nested";
  }
  return "main";
}

// AgentService::Impl is in agent_service_impl.h; the lane methods (abort, steer, waiting) in agent_lanes.cpp.

namespace {

std::shared_ptr<const std::map<std::string, std::string>> process_environment() {
  // Read once: the gateway never changes its own environment; every run shares it.
  static const auto env = [] {
    auto out = std::make_shared<std::map<std::string, std::string>>();
    for (char** e = environ; e && *e; ++e) {
      std::string kv(*e);
      if (auto eq = kv.find('='); eq != std::string::npos) (*out)[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return std::shared_ptr<const std::map<std::string, std::string>>(std::move(out));
  }();
  return env;
}

// CX-3: the bootstrap truncation notice, `once` per (session, set of cuts) or `always`.
std::string truncation_warning(const std::string& mode_name, const BootstrapLoad& load, const std::string& scope) {
  static TruncationWarnings once(TruncationWarningMode::kOnce), always(TruncationWarningMode::kAlways);
  const auto mode = parse_truncation_warning_mode(mode_name).value_or(TruncationWarningMode::kOnce);
  if (mode == TruncationWarningMode::kOff) return "";
  return (mode == TruncationWarningMode::kAlways ? always : once).warning_for(load, scope);
}

}  // namespace

AgentService::AgentService(EventLoop& loop, const Clock& clock, json config, std::filesystem::path state_dir)
    : impl_(std::make_unique<Impl>(loop, clock, std::move(config), std::move(state_dir))),
      subagents_(std::make_unique<Subagents>(*this)) {}  // MA-3: sets session_backends().subagents

void AgentService::reconfigure(json config) {
  impl_->configure(std::move(config));
  pump();  // a higher maxConcurrent may start waiting runs now
}

AgentService::~AgentService() {
  abort_all("shutdown");
  flush_indexes();
}

void AgentService::schedule_index_save(const std::string& agent_id) {
  // Activity and token counts after each turn are batched: at most one atomic write (with its
  // fsync) per index per kIndexSaveDelayMs, and a final one at shutdown.
  if (!impl_->pending_saves.insert(agent_id).second) return;
  impl_->loop.after(kIndexSaveDelayMs, [this, agent_id] {
    impl_->pending_saves.erase(agent_id);
    store::SessionIndex& index = index_for(agent_id);
    if (auto st = index.save(); !st) spdlog::error("cannot save {}: {}", index.path().string(), st.error().message);
  });
}

void AgentService::flush_indexes() {
  for (auto& [agent_id, index] : impl_->indexes) {
    if (index && index->dirty()) {
      if (auto st = index->save(); !st) spdlog::error("cannot save {}: {}", index->path().string(), st.error().message);
    }
  }
  impl_->pending_saves.clear();
}

std::string AgentService::canonical_key(const std::string& session_key, const std::string& agent_id) const {
  return impl_->agents.session_key(session_key, agent_id);
}

store::SessionIndex& AgentService::index_for(const std::string& agent_id) {
  auto& slot = impl_->indexes[agent_id];
  if (!slot) slot = std::make_unique<store::SessionIndex>(store::session_index_path(impl_->state_dir, agent_id), impl_->clock);
  if (auto st = slot->load(); !st) {
    // A corrupt index must not stop the agent nor lose its sessions: move it aside (kept for
    // inspection) and rebuild it from the transcripts beside it (store/session_recovery.h).
    auto recovery = store::recover_index(*slot, agent_id, st.error().message);
    if (recovery) {
      spdlog::error("sessions index of agent {} could not be read ({}); moved it to {} and rebuilt it from the "
                    "transcripts: {} session(s) recovered{}", agent_id, st.error().message, recovery->kept_at.string(),
                    recovery->recovered,
                    recovery->without_key ? " (" + std::to_string(recovery->without_key) +
                                                " without their key, listed as agent:" + agent_id + ":recovered:<sessionId>)"
                                          : std::string());
    } else {
      spdlog::error("sessions index of agent {}: {} (and it could not be rebuilt: {})", agent_id, st.error().message,
                    recovery.error().message);
    }
  }
  return *slot;
}

Result<SendAccepted> AgentService::send(const SendRequest& request, RunEventSink sink) {
  if (!request.compact && request.branch_to.empty() && is_blank_message(request.message) && request.attachments.empty()) {
    return Error{"INVALID_REQUEST", "message or attachment required"};
  }
  if (auto problem = store::session_key_problem(request.session_key)) return Error{"INVALID_REQUEST", "sessionKey: " + *problem};
  const std::string key = canonical_key(request.session_key, request.agent_id);
  const std::string agent_id = store::agent_id_from_session_key(key);
  // Resolve the model now so that a misconfiguration is answered to the caller, not as an event.
  if (impl_->agents_error) return *impl_->agents_error;
  const AgentSettings* spec = impl_->agents.find(agent_id);
  if (!spec) {  // a typo must not quietly start sessions (and directories) for a phantom agent
    std::string known;
    for (const auto& a : impl_->agents.agents) known += (known.empty() ? "" : ", ") + a.id;
    return Error{"INVALID_REQUEST", "unknown agent \"" + agent_id + "\" (agents: " + known + ")"};
  }
  if (auto model = impl_->models.resolve(spec->model.primary); !model) return model.error();
  if (!impl_->lanes.contains(key)) reset_if_stale(key, request.channel);  // SS-5, on arrival

  SendRequest journaled = request;  // recorded before the caller acknowledges it (SS-6)
  if (!request.source.empty() && request.journal_ids.empty()) {
    json record = send_request_json(request);
    if (!request.attachments.empty()) {  // by reference: the bytes go beside the transcripts now
      auto refs = journal_media(agent_id, request.attachments);
      if (!refs) return refs.error();
      record["media"] = std::move(*refs);
    }
    auto id = impl_->journal.accept(request.source, std::move(record));
    if (!id) return Error{"UNAVAILABLE", "cannot record the request in the run journal: " + id.error().message};
    journaled.journal_ids = {*id};
  }
  Lane& lane = impl_->lanes[key];
  const bool queued = lane.active != nullptr || !lane.queue.empty();
  lane.queue.push_back(Pending{std::move(journaled), key, agent_id, std::move(sink)});
  impl_->run_session[request.run_id] = key;
  impl_->ready.push_back(key);
  // Start on the next loop turn: the caller's acknowledgement goes out before the run's work.
  impl_->loop.post([this] { pump(); });
  return SendAccepted{request.run_id, key, agent_id, queued};
}

void AgentService::pump() {
  if (impl_->draining) return;  // stopping: queued runs start at the next start (journal)
  // start() may end a run at once (a model that does not resolve …), and finished() pumps again
  // and changes `ready` under this loop: the nested call returns at once, and the scan starts
  // over after every start() (its iterators may be gone).
  if (impl_->pumping) return;
  impl_->pumping = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{impl_->pumping};
  // Start queued runs while global slots are free; a session with an active run waits (QL-1).
  for (auto it = impl_->ready.begin(); it != impl_->ready.end();) {
    Lane& lane = impl_->lanes[*it];
    if (lane.active || lane.queue.empty()) {
      if (lane.queue.empty()) {
        it = impl_->ready.erase(it);
      } else {
        ++it;
      }
      continue;
    }
    const auto global = static_cast<std::size_t>(lane.queue.front().request.lane);
    if (impl_->running[global] >= impl_->limits[global]) {  // its global lane is full: wait
      ++it;
      continue;
    }
    Pending next = std::move(lane.queue.front());
    lane.queue.pop_front();
    impl_->ready.erase(it);
    start(std::move(next));
    it = impl_->ready.begin();
  }
}

void AgentService::start(Pending p) {
  Impl& s = *impl_;
  const std::string key = p.key;
  auto fail = [&](const std::string& message) {
    RunEvent e;
    e.kind = RunEvent::Kind::Error;
    e.run_id = p.request.run_id;
    e.session_key = key;
    e.agent_id = p.agent_id;
    e.error = message;
    e.stop_reason = "error";
    e.ts = s.clock.wall_ms();
    p.sink(e);
    journal_finished(p.request, e);
    finished(key, e);
  };

  const AgentSettings* spec = s.agents.find(p.agent_id);
  if (!spec) spec = &s.agents.default_agent();
  auto model = s.models.resolve(spec->model.primary);
  if (!model) return fail(model.error().message);
  if (auto ws = ensure_workspace(spec->workspace, s.workspace_stamps[spec->workspace.string()]); !ws) {
    return fail(ws.error().message);
  }

  // Tools allowed for this run: the policy pipeline (TL-2), logged per tool.
  tools::policy::PolicyOrigin origin;
  origin.agent_id = p.agent_id;
  origin.provider = model->provider;
  origin.model = model->id;
  origin.channel = p.request.origin.channel;
  origin.is_group = p.request.origin.is_group;
  origin.group_id = p.request.origin.chat_id;
  origin.sender_is_owner = p.request.sender_is_owner;
  origin.subagent = p.request.lane == RunLane::Subagent;
  auto decision = s.tool_decisions.decide(s.tools, s.shared_config, origin);  // kept per origin (tool_decision_cache.h)
  if (!decision) return fail(decision.error().message);
  for (const auto& v : decision->verdicts) {
    if (!v.allowed) spdlog::debug("run {}: tool {} removed by {}: {}", p.request.run_id, v.tool, v.layer, v.reason);
  }
  const memory::MemorySettings memory_settings = s.memory.settings_for(spec->id, spec->workspace);
  if (!memory_settings.enabled) {  // memory.backend none / memory.search.enabled false: no memory tools
    tools::policy::remove_group(*decision, "memory", "memory", memory::disabled_reason(memory_settings));
  }
  if (p.request.origin.reactions) tools::offer_message_reactions(decision->tools);  // CH-8
  auto tools = std::make_optional(std::move(decision->tools));

  // Session: the index entry, then the transcript (created on first use).
  store::SessionIndex& index = index_for(p.agent_id);
  const store::SessionEntry* entry = index.get(key);
  const std::string subagent_note = apply_subagent_envelope(s.config, entry, *tools);  // MA-3: tools + prompt
  std::string session_id = entry ? entry->session_id() : ids::uuid_v4();
  const std::filesystem::path dir = store::sessions_dir(s.state_dir, p.agent_id);
  auto file = store::transcript_path(dir, session_id);
  if (!file) return fail(file.error().message);

  std::vector<llm::Message> history;  // (the engine holds it: see `loaded`)
  context::SessionHistory loaded;
  std::optional<store::TranscriptWriter> writer;
  // The transcript as read (model/thinking state, SS-3), held for the rest of this function.
  std::shared_ptr<const ParsedTranscript> transcript;
  static const std::vector<store::TranscriptEntry> kNoEntries;
  const std::vector<store::TranscriptEntry>* entries_read = &kNoEntries;
  std::optional<int64_t> resume_ms;  // the unanswered user message's time when continuing its turn
  bool created_transcript = false;   // this turn starts the session (see `discard` below)
  if (std::filesystem::exists(*file)) {
    const uint64_t full_reads = s.transcripts.stats().full_reads;
    auto read = s.transcripts.load(*file);  // only what was appended since the last turn (transcript_cache.h)
    if (!read) return fail("cannot read session " + key + ": " + read.error().message);
    transcript = std::move(*read);
    if (s.transcripts.stats().full_reads != full_reads) {
      for (const auto& w : transcript->contents.warnings) spdlog::warn("{}:{}: {}", file->string(), w.line, w.message);
    }
    auto w = store::TranscriptWriter::open(*file, transcript->contents, s.clock, store::FsyncPolicy::None);
    if (!w) return fail("cannot open session " + key + ": " + w.error().message);
    // A journaled turn rerun after a restart continues where its transcript stops (SS-6).
    if (p.request.resume) resume_ms = unanswered_turn(transcript->context, p.request.message);
    // The previous turn never ended (the gateway was killed mid-run): say so in the transcript
    // before the next turn, so neither the model nor a client takes the lost request as pending.
    auto marker = resume_ms ? std::nullopt : interrupted_turn_marker(transcript->context, s.clock.wall_ms(), "");
    if (marker) marker = interrupted_turn_marker(transcript->context, s.clock.wall_ms(), read_partial_reply(*file));  // + what had streamed
    if (marker) {
      auto r = w->append_message(*marker);
      if (!r) return fail("cannot save session " + key + ": " + r.error().message);
      spdlog::warn("session {}: its last turn was interrupted (no reply was saved); marked it so", key);
      auto reread = s.transcripts.load(*file);  // now with the marker
      if (!reread) return fail("cannot read session " + key + ": " + reread.error().message);
      transcript = std::move(*reread);
    }
    std::error_code ec;
    std::filesystem::remove(partial_reply_path(*file), ec);  // in the transcript now, or stale
    loaded = transcript->history;
    for (auto& m : loaded.messages) {  // image references → the stored bytes (attachments.h)
      const auto* u = std::get_if<llm::UserMessage>(m.message.get());
      if (!u || !has_unresolved_image_refs(u->content)) continue;
      llm::Message copy = *m.message;  // the cached message stays as stored (shared, immutable)
      resolve_image_refs(std::get<llm::UserMessage>(copy).content, dir);
      m.message = std::make_shared<const llm::Message>(std::move(copy));
    }
    writer.emplace(std::move(*w));
    // This turn's lines reach the cache as values: the next turn neither reads nor parses them.
    writer->set_observer([cache = &s.transcripts, path = *file](store::AppendedLine& line) { cache->adopt(path, line); });
    entries_read = &transcript->contents.entries;
  } else {
    created_transcript = true;
    store::TranscriptCreateOptions options;
    options.session_id = session_id;
    options.cwd = spec->workspace.string();
    options.session_key = key;  // a damaged index is rebuilt with it (store/session_recovery.h)
    options.fsync = store::FsyncPolicy::None;
    auto w = store::TranscriptWriter::create(*file, options, s.clock);
    if (!w) return fail("cannot create session " + key + ": " + w.error().message);
    writer.emplace(std::move(*w));
  }
  if (!entry) {
    // A new session is recorded at once (its transcript exists from now on).
    if (auto up = index.upsert(key, store::OrderedJson{{"sessionId", session_id}, {"sessionStartedAt", s.clock.wall_ms()}}); !up) {
      return fail(up.error().message);
    }
    if (auto st = index.save(); !st) {
      // Without its index entry the new transcript would be unreachable: fail the turn visibly.
      index.remove(key);
      std::error_code ec;
      std::filesystem::remove(*file, ec);
      return fail("cannot save the sessions index: " + st.error().message + "; the message was not sent");
    }
  }

  if (p.request.lane == RunLane::Main && !p.request.compact && !p.request.memory_flush) {
    note_delivery(key, p.agent_id, p.request.origin);  // where this chat's replies go (SS-1)
  }
  if (!p.request.compact && !p.request.memory_flush && p.request.branch_to.empty() &&
      p.request.lane == RunLane::Main) {  // CX-2 daily notes, MM-3 capture (recall_hooks.h)
    add_startup_context(s.config, spec->workspace, s.clock.wall_ms(), *writer, loaded, key);
    if (memory_settings.enabled) capture_user_message(s.config, spec->workspace, s.clock.wall_ms(), p.request.message, key);
  }
  RunInputs in;
  in.run_id = p.request.run_id;
  if (!p.request.attachments.empty()) {  // images stored beside the transcript (attachments.h)
    auto blocks = attachment_blocks(p.request.attachments, dir / "media", session_id);
    if (!blocks) return fail(blocks.error().message);
    in.attachments = std::move(*blocks);
  }
  in.session_key = key;
  in.agent_id = p.agent_id;
  in.session_id = session_id;
  // CLI backends: the CLI session of each backend, resumed next turn (agent_run_cli.cpp).
  if (const store::OrderedJson* ids = entry ? entry->field("cliSessionIds") : nullptr; ids && ids->is_object()) {
    for (const auto& [backend, id] : ids->items()) {
      if (id.is_string()) in.cli_sessions[backend] = id.get<std::string>();
    }
  }
  in.on_cli_session = [this, key, agent_id = p.agent_id](const std::string& backend, const std::string& id) {
    store::SessionIndex& idx = index_for(agent_id);
    const store::SessionEntry* e = idx.get(key);
    if (!e) return;
    store::OrderedJson ids = e->field("cliSessionIds") && e->field("cliSessionIds")->is_object() ? *e->field("cliSessionIds") : store::OrderedJson::object();
    if (id.empty()) ids.erase(backend);  // the CLI forgot it
    else ids[backend] = id;
    if (idx.upsert(key, store::OrderedJson{{"cliSessionIds", ids}}, {store::MergePolicy::PreserveActivity, {}})) schedule_index_save(agent_id);
  };
  in.model = std::move(*model);
  in.tools = std::move(*tools);
  in.hooks.gate_tool_call = make_exec_gate(s.approvals, {p.request.run_id, key, p.agent_id, spec->workspace,
                                                         to_string(p.request.lane), p.request.origin,
                                                         p.request.sender_is_owner});
  in.workspace = spec->workspace;
  static const store::SessionContext kNoContext;
  // Model + thinking (SS-3, AG-7).
  apply_session_state(key, p.request.thinking, *entries_read, transcript ? transcript->context : kNoContext, *writer, in);
  in.timeout_ms = p.request.timeout_ms > 0 ? p.request.timeout_ms : saturating_mul(spec->timeout_seconds, 1000);
  if (!p.request.model.empty()) {  // a cron job's own model (AT-2)
    auto own = s.models.resolve(p.request.model);
    if (!own) return fail(own.error().message);
    in.model = std::move(*own);
  }
  in.cron = s.cron_backend;
  // PV-5: the run's model, its auth profiles, then the agent's fallbacks (model_failover.h).
  // A profile pinned with `/model …@profile` goes first while usable (auth_profile_pin.h).
  const store::SessionEntry* pinned = index.get(key);
  const store::OrderedJson* pin = pinned ? pinned->field("authProfileOverride") : nullptr;
  in.failover = make_model_failover(in.model, spec->model.fallbacks, s.models, s.auth_profiles_for(p.agent_id), s.clock.wall_ms(),
                                    pin && pin->is_string() ? pin->get<std::string>() : std::string());
  in.model = in.failover->current().model;
  // The context engine (CX-1) holds the history; the effective window caps every budget. Made
  // for the model the run starts with — the session's (/model), a cron job's own, with its auth
  // profile — not the agent's default: its window and its summariser are that model's.
  const context::EngineConfig engine = engine_config(*spec, in.model);
  in.context_window = engine.window_tokens;
  in.reserve_tokens = engine.compaction.reserve_tokens;
  in.engine = context::make_engine(spec->context_engine, engine);
  if (memory_settings.enabled && p.request.lane == RunLane::Main && !p.request.compact && !p.request.memory_flush && p.request.branch_to.empty() &&
      !resume_ms && p.request.source != "subagent.announce") attach_active_recall(s.recall, s.config, s.models, loaded, p.request.message, in);  // DR-6
  in.engine->bootstrap(std::move(loaded));
  in.oauth = s.oauth;
  in.session_backends = s.session_backends;
  in.lane = to_string(p.request.lane);
  in.origin = {p.request.origin.channel, p.request.origin.account_id, p.request.origin.chat_id, p.request.origin.thread_id,
               p.request.origin.message_id};
  in.tool_env = process_environment();
  in.processes = &s.processes;
  in.memory = memory_settings.enabled ? &s.memory : nullptr;
  if (auto st = apply_tool_settings(in, s.shared_config); !st) return fail(st.error().message);  // exec limits, sandbox
  const bool plain_run = !p.request.compact && !p.request.memory_flush && p.request.branch_to.empty();
  std::vector<const tools::Tool*> catalogued;  // offered through tool_search (tools/tool_search.h)
  if (plain_run) {
    // Tools decided per tool during the run (MCP servers come and go; tool_search itself): every
    // layer of the policy but the profile.
    tools::policy::PolicyOrigin dynamic_origin = origin;
    dynamic_origin.skip_profile = true;
    auto config = in.config ? in.config : s.shared_config;
    auto allowed = [config, dynamic_origin](const tools::Tool& tool) {
      auto d = tools::policy::decide(std::vector<const tools::Tool*>{&tool}, *config, dynamic_origin);
      return d && !d->tools.empty();
    };
    // MCP servers' tools (IX-2), not in a sandboxed run: the servers run on the host.
    auto mcp = s.dynamic_tools && !in.sandbox ? s.dynamic_tools->open_run(allowed) : nullptr;
    if (tools::tool_search_enabled(s.config)) catalogued = tools::take_catalogued_builtins(in.tools);
    if (mcp || !catalogued.empty()) in.dynamic_tools = tools::make_searchable_tool_set(catalogued, std::move(mcp), allowed);
  }
  SystemPromptInput prompt;
  prompt.agent_id = spec->id;
  prompt.agent_name = spec->name;
  prompt.tools = prompt_tools(in.tools);
  if (!catalogued.empty()) prompt.tools.push_back(tool_search_prompt_line(catalogued));
  prompt.workspace = spec->workspace;
  BootstrapLoad bootstrap = load_bootstrap(spec->workspace, s.agents.bootstrap_max_chars, s.agents.bootstrap_total_max_chars);
  prompt.context_files = bootstrap.files;
  prompt.os = runtime_os();
  prompt.model = in.model.provider + "/" + in.model.id;
  prompt.thinking = "";  // volatile per session (/think): not in the cached prefix
  prompt.memory_citations = memory_settings.citations;
  auto skill_run = attach_skills(s.shared_config, s.state_dir, key, spec->id, in, prompt);  // SK-2..4 (agent_skills.h)
  in.system_prompt = build_system_prompt(prompt) + subagent_note;
  in.hooks.before_request = make_cache_trace_hook(s.config, s.state_dir, session_id, key, in.run_id, s.clock);  // CX-11
  in.turn_context = turn_context_for(key, truncation_warning(s.agents.bootstrap_truncation_warning, bootstrap, key + ":" + session_id));

  std::optional<BranchPlan> branch;  // /tree ID (SS-4): planned on the entries as read
  if (!p.request.branch_to.empty()) {
    if (p.request.resume) branch = finished_branch_switch(*entries_read, p.request.run_id);  // exactly once (SS-6)
    if (!branch) {
      auto plan = store::plan_branch_switch(*entries_read, p.request.branch_to);
      if (!plan) return fail(plan.error().message);
      branch = make_branch_plan(*plan);
    }
  }

  if (p.request.memory_flush) {
    in.system_prompt += "\n\n" + memory_flush_system_text(s.config, s.clock.wall_ms());
    in.silent = true;
    restrict_to_flush_tools(s.config, s.clock.wall_ms(), in, s.flush_write_tools);  // append only
  } else if (!p.request.compact && p.request.branch_to.empty() && p.request.lane == RunLane::Main &&
             !s.aborted_in_flush.contains(p.request.run_id)) {
    in.frame = s.frames.get(key, in.system_prompt, in.tools);  // the flush check's and the run's
    // CX-10: the silent flush turn runs first; this one waits at the head of the lane.
    if (flush_first(p, in, *entries_read)) return;
  }
  ++s.running[static_cast<std::size_t>(p.request.lane)];
  subagents_->note_run(p.request.run_id, p.request.origin, p.request.sender_is_owner);  // MA-3: children inherit it
  // A brand-new session whose first message is refused before anything is recorded (too large
  // for the window, AgentRun::refuse_oversized) is removed again: no empty session is left behind.
  std::optional<std::pair<std::string, std::filesystem::path>> discard;
  if (!entry && created_transcript) discard.emplace(session_id, *file);
  auto sink = [this, key, request = p.request, user_sink = std::move(p.sink), skill_run, discard](const RunEvent& e) {
    skill_run->observe(e);  // skill uses and their outcome (SK-4)
    if (e.kind == RunEvent::Kind::Failover) impl_->last_failover[key] = e.data;  // for /status (PV-5)
    if (e.kind == RunEvent::Kind::Compaction) note_compaction(key, e);
    user_sink(e);
    if (e.kind == RunEvent::Kind::End || e.kind == RunEvent::Kind::Error || e.kind == RunEvent::Kind::Aborted) {
      journal_finished(request, e);  // after the sink: a channel's reply is in its outbox now
      const bool refused = e.kind == RunEvent::Kind::Error && (e.error_reason == context::kMessageTooLargeReason ||
                                                               e.error_reason == context::kContextWindowTooSmallReason);
      // Defer: the run is still on the stack.
      impl_->loop.post([this, key, e, discard = refused ? discard : std::nullopt] {
        if (discard) discard_unused_session(index_for(e.agent_id), key, discard->first, discard->second);
        finished(key, e);
      });
    }
  };
  auto run = std::make_shared<AgentRun>(s.loop, s.http, s.clock, std::move(in), std::move(history), std::move(*writer),
                                        std::move(sink), nullptr);
  s.lanes[key].active = run;
  s.lanes[key].active_lane = p.request.lane;
  spdlog::info("run {} started: session {} agent {} model {}/{}", p.request.run_id, key, p.agent_id,
               run->inputs().model.provider, run->inputs().model.id);
  json journal_only_media = json::array();  // the journal's copies of files: not needed once the turn is recorded
  for (const auto& id : p.request.journal_ids) {
    if (const JournalEntry* e = s.journal.find(id); e && e->request.is_object() && e->request.contains("media")) {
      for (const auto& r : e->request["media"]) journal_only_media.push_back(r);
    }
  }
  if (p.request.compact) run->start_compaction(p.request.message);
  else if (branch) run->start_branch_switch(std::move(*branch));
  else if (resume_ms) run->resume(*resume_ms, unanswered_tool_calls(transcript->context));  // calls cut off: an error result each
  else run->start(p.request.memory_flush ? p.request.message : take_system_events(key) + p.request.message);
  // After the start, which sends the model request: the journal's write is not on the turn's path
  // (a run that already ended has answered its entries, and started() ignores those).
  for (const auto& id : p.request.journal_ids) {
    if (auto st = s.journal.started(id, p.request.run_id); !st) spdlog::error("run journal: {}", st.error().message);
  }
  if (!journal_only_media.empty()) remove_journal_only_refs(journal_only_media, dir);  // the user message is written
  if (auto a = s.aborted_in_flush.find(p.request.run_id); a != s.aborted_in_flush.end()) {
    const std::string reason = a->second;  // aborted during its memory flush (CX-10)
    s.aborted_in_flush.erase(a);
    run->abort(reason);
  }
}

void AgentService::note_compaction(const std::string& key, const RunEvent& e) {
  // As OpenClaw after a compaction: the session's token count is the estimate after it.
  if (e.data.value("phase", "") != "end" || !e.data.value("compacted", false)) return;
  const int64_t after = e.data.value("tokensAfter", int64_t{0});
  if (after <= 0) return;
  store::SessionIndex& index = index_for(e.agent_id);
  store::UpsertOptions options;
  options.remove_fields = {"inputTokens", "outputTokens"};  // the last call's; no longer what the context holds
  if (index.get(key) && index.upsert(key, store::OrderedJson{{"totalTokens", after}}, options)) schedule_index_save(e.agent_id);
}

void AgentService::finished(const std::string& key, const RunEvent& terminal) {
  Impl& s = *impl_;
  auto lane = s.lanes.find(key);
  if (lane != s.lanes.end() && lane->second.active && lane->second.active->inputs().run_id == terminal.run_id) {
    lane->second.active.reset();
    --s.running[static_cast<std::size_t>(lane->second.active_lane)];
    // Remember the turn in the index (activity, model, usage).
    store::SessionIndex& index = index_for(terminal.agent_id);
    store::OrderedJson patch = {{"modelProvider", terminal.provider}, {"model", terminal.model}};
    // A run without a model call (/compact, /status …) leaves the last turn's counts (or the
    // compaction's estimate, note_compaction) in place instead of writing zeros.
    if (terminal.usage.total_tokens > 0) {
      patch["inputTokens"] = terminal.usage.input;
      patch["outputTokens"] = terminal.usage.output;
      patch["totalTokens"] = terminal.usage.total_tokens;
    }
    if (terminal.thinking_stepped_down) patch["thinkingLevel"] = terminal.thinking;  // AG-7: remember what works
    if (index.get(key) && index.upsert(key, patch)) schedule_index_save(terminal.agent_id);
    if (terminal.reset_session) (void)reset_session(key);  // CX-9: the context could not be made to fit
  }
  spdlog::info("run {} {}: {} in, {} out tokens{}", terminal.run_id,
               terminal.kind == RunEvent::Kind::End       ? "finished"
               : terminal.kind == RunEvent::Kind::Aborted ? "aborted (" + terminal.stop_reason + ")"
                                                          : "failed",
               terminal.usage.input, terminal.usage.output, terminal.error.empty() ? "" : ": " + terminal.error);
  s.run_session.erase(terminal.run_id);
  s.aborted_in_flush.erase(terminal.run_id);  // (a run that failed before it could start)
  s.approvals.cancel_run(terminal.run_id);
  s.recent[terminal.run_id] = terminal;
  s.recent_order.push_back(terminal.run_id);
  while (s.recent_order.size() > 1000) {
    s.recent.erase(s.recent_order.front());
    s.recent_order.pop_front();
  }
  if (auto w = s.waiters.find(terminal.run_id); w != s.waiters.end()) {
    auto callbacks = std::move(w->second);
    s.waiters.erase(w);
    for (auto& cb : callbacks) cb(terminal);
  }
  if (lane != s.lanes.end() && !lane->second.active && !lane->second.queue.empty()) s.ready.push_back(key);
  if (lane != s.lanes.end() && !lane->second.active && lane->second.queue.empty()) s.lanes.erase(lane);
  pump();
}


tools::approvals::ApprovalManager& AgentService::approvals() { return impl_->approvals; }

// Accessors for agent_service_controls.cpp.
const Clock& AgentService::clock() const { return impl_->clock; }
const std::filesystem::path& AgentService::state_dir() const { return impl_->state_dir; }
const json& AgentService::config() const { return impl_->config; }
Result<llm::ModelSpec> AgentService::resolve_model(const std::string& ref) const { return impl_->models.resolve(ref); }
std::string AgentService::agent_default_thinking(const std::string& agent_id) const {
  const AgentSettings* a = impl_->agents.find(agent_id);
  return (a ? *a : impl_->agents.default_agent()).thinking_default;
}
std::string AgentService::agent_primary_model(const std::string& agent_id) const {
  const AgentSettings* a = impl_->agents.find(agent_id);
  return (a ? *a : impl_->agents.default_agent()).model.primary;
}
void AgentService::set_dynamic_tools(tools::DynamicToolSource* source) { impl_->dynamic_tools = source; }

tools::DynamicToolSource* AgentService::dynamic_tools() const { return impl_->dynamic_tools; }

AgentRun* AgentService::active_run(const std::string& key) const {
  auto lane = impl_->lanes.find(key);
  return lane == impl_->lanes.end() ? nullptr : lane->second.active.get();
}

}  // namespace pincer::agent
