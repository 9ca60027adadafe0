#include "agent/subagents.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <future>

#include <spdlog/spdlog.h>

#include "agent/agent_service_impl.h"
#include "agent/agents_config.h"
#include "context/context_engine.h"
#include "core/ids.h"
#include "core/saturating.h"
#include "store/session_keys.h"

namespace pincer::agent {

using nlohmann::json;

Subagents& AgentService::subagents() { return *subagents_; }

namespace {

bool sa_blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

std::string sa_first_line(const std::string& text, std::size_t max) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > max) {
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    line = line.substr(0, cut) + "…";
  }
  return line;
}

std::string sa_trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

// ---- the tools' backend: worker thread → loop ----

class Subagents::Backend : public tools::SubagentsBackend {
 public:
  Backend(EventLoop& loop, Subagents& owner, std::shared_ptr<bool> alive) : loop_(loop), owner_(owner), alive_(std::move(alive)) {}

  Result<json> call(std::string_view tool, const json& args, const tools::ToolContext& ctx) override {
    SubagentCaller caller{ctx.session_key, ctx.agent_id, ctx.run_id, ctx.lane};
    auto promise = std::make_shared<std::promise<Result<json>>>();
    auto answer = promise->get_future();
    loop_.post([&owner = owner_, promise, name = std::string(tool), args, caller, alive = alive_] {
      if (!*alive) return promise->set_value(Error{"UNAVAILABLE", "the gateway is stopping"});
      try {
        if (name == "sessions_spawn") return promise->set_value(owner.spawn(args, caller));
        if (name == "subagents") return promise->set_value(owner.tool_call(args, caller));
        promise->set_value(Error{"INVALID_REQUEST", "unknown subagent tool " + name});
      } catch (const std::exception& e) {
        promise->set_value(Error{"UNAVAILABLE", std::string("subagents: ") + e.what()});
      }
    });
    if (answer.wait_for(std::chrono::milliseconds(kSubagentCallTimeoutMs)) != std::future_status::ready) {
      return Error{"UNAVAILABLE", "the gateway did not answer within 30 s"};
    }
    return answer.get();
  }

 private:
  EventLoop& loop_;
  Subagents& owner_;
  std::shared_ptr<bool> alive_;
};

Subagents::Subagents(AgentService& agents) : agents_(agents), alive_(std::make_shared<bool>(true)) {
  backend_ = std::make_unique<Backend>(agents_.impl_->loop, *this, alive_);
  agents_.impl_->session_backends.subagents = backend_.get();
}

Subagents::~Subagents() {
  *alive_ = false;
  if (agents_.impl_ && agents_.impl_->session_backends.subagents == backend_.get()) {
    agents_.impl_->session_backends.subagents = nullptr;
  }
}

tools::SubagentsBackend& Subagents::backend() { return *backend_; }

void Subagents::set_sink_factory(std::function<RunEventSink(const SendRequest&)> factory) {
  sink_factory_ = std::move(factory);
}

RunEventSink Subagents::sink_for(const SendRequest& request) const {
  if (sink_factory_) return sink_factory_(request);
  return [](const RunEvent&) {};
}

// ---- spawning ----

Result<json> Subagents::spawn(const json& args, const SubagentCaller& caller) {
  AgentService::Impl& s = *agents_.impl_;
  const std::string task = args.contains("task") && args["task"].is_string() ? args["task"].get<std::string>() : "";
  if (sa_blank(task)) return Error{"INVALID_REQUEST", "\"task\" is required (what the subagent should do)"};
  if (caller.session_key.empty()) return Error{"INVALID_REQUEST", "the calling run has no session"};
  const std::string parent_key = agents_.canonical_key(caller.session_key);
  const std::string requester = store::agent_id_from_session_key(parent_key);
  const SubagentSettings settings = subagent_settings(s.config, requester);
  const int depth = session_depth(agents_.index_for(requester).get(parent_key));

  SpawnCheck check;
  check.caller_depth = depth;
  check.active_children = active_children(parent_key);
  check.requester_agent = requester;
  check.target_agent = args.value("agentId", "");
  for (const auto& a : s.agents.agents) check.configured_agents.push_back(a.id);
  if (auto st = check_spawn(check, settings); !st) return st.error();
  const std::string target = check.target_agent.empty() ? requester : store::normalize_agent_id(check.target_agent);

  const std::string cleanup = args.value("cleanup", "keep");
  if (cleanup != "keep" && cleanup != "delete") {
    return Error{"INVALID_REQUEST", "cleanup must be \"keep\" or \"delete\", got \"" + cleanup + "\""};
  }
  const std::string thinking = args.value("thinking", "");
  if (!thinking.empty() && !thinking_level(thinking)) {
    return Error{"INVALID_REQUEST", "unknown thinking level \"" + thinking + "\" (off|minimal|low|medium|high|xhigh)"};
  }
  const std::string model = args.value("model", "");
  if (!model.empty()) {
    if (auto m = s.models.resolve(model); !m) return Error{"INVALID_REQUEST", "model: " + m.error().message};
  }
  int64_t timeout_s = settings.run_timeout_seconds;
  if (args.contains("runTimeoutSeconds") && !args["runTimeoutSeconds"].is_null()) {
    const json& t = args["runTimeoutSeconds"];
    if (!t.is_number_integer() || t.get<int64_t>() < 0) {
      return Error{"INVALID_REQUEST", "runTimeoutSeconds must be a non-negative integer (0 = the agent's timeout)"};
    }
    timeout_s = t.get<int64_t>();
  }
  const std::string label = sa_trim(args.value("label", ""));
  const int child_depth = depth + 1;
  const int64_t now = s.clock.wall_ms();
  const std::string child_key = subagent_session_key(target, ids::uuid_v4());

  // The child's session exists before its run: its entry records who spawned it (restarts too).
  store::SessionIndex& index = agents_.index_for(target);
  store::OrderedJson entry = {{"sessionId", ids::uuid_v4()},
                              {"sessionStartedAt", now},
                              {"spawnedBy", parent_key},
                              {"spawnDepth", child_depth},
                              {"subagentRole", to_string(subagent_role(child_depth, settings.max_spawn_depth))},
                              // MA-3 subagentControlScope: may this session control (kill/steer) children of its own
                              {"subagentControlScope",
                               subagent_role(child_depth, settings.max_spawn_depth) == SubagentRole::Leaf ? "none" : "children"}};
  if (!label.empty()) entry["label"] = label;
  if (auto up = index.upsert(child_key, entry); !up) return up.error();
  auto undo = [&] {
    index.remove(child_key);
    if (auto st = index.save(); !st) spdlog::error("subagents: {}", st.error().message);
  };
  if (auto st = index.save(); !st) {
    index.remove(child_key);
    return Error{"UNAVAILABLE", "cannot save the sessions index: " + st.error().message};
  }
  // Context hook (CX-1 / item 7): the parent agent's engine may prepare state for the child.
  const AgentSettings* parent_spec = s.agents.find(requester);
  auto engine = context::make_engine(parent_spec ? parent_spec->context_engine : std::string(context::kDefaultEngineId),
                                     context::EngineConfig{});
  if (auto st = engine->prepare_subagent_spawn({parent_key, child_key, "isolated", saturating_mul(timeout_s, 1000)}); !st) {
    undo();
    return Error{"UNAVAILABLE", "the context engine refused the spawn: " + st.error().message};
  }

  SendRequest r;
  r.session_key = child_key;
  r.agent_id = target;
  r.message = subagent_task_message(task, child_depth, settings.max_spawn_depth);
  r.run_id = ids::uuid_v4();
  r.thinking = thinking;
  r.lane = RunLane::Subagent;
  r.model = model;
  r.timeout_ms = saturating_mul(timeout_s, 1000);
  RunOrigin parent_origin;  // the child acts for the same sender as its parent run
  if (auto o = run_origins_.find(caller.run_id); o != run_origins_.end()) parent_origin = o->second;
  r.origin = parent_origin.origin;
  r.sender_is_owner = parent_origin.sender_is_owner;
  auto journal_id = s.journal.accept("subagent", send_request_json(r));
  if (!journal_id) {
    undo();
    return Error{"UNAVAILABLE", "cannot record the spawn in the run journal: " + journal_id.error().message};
  }
  const json notes = {{"parentKey", parent_key}, {"parentAgentId", requester}, {"label", label},
                      {"task", task},            {"cleanup", cleanup},          {"depth", child_depth},
                      {"timeoutSeconds", timeout_s}, {"startedAt", now}};
  if (auto st = s.journal.note(*journal_id, notes); !st) spdlog::error("run journal: {}", st.error().message);
  r.journal_ids = {*journal_id};
  auto accepted = agents_.send(r, sink_for(r));
  if (!accepted) {
    if (auto st = s.journal.answered(*journal_id, "error"); !st) spdlog::error("run journal: {}", st.error().message);
    undo();
    return accepted.error();
  }
  Child c;
  c.run_id = r.run_id;
  c.child_key = child_key;
  c.parent_key = parent_key;
  c.agent_id = target;
  c.parent_agent_id = requester;
  c.label = label;
  c.task = task;
  c.depth = child_depth;
  c.cleanup_delete = cleanup == "delete";
  c.timeout_seconds = timeout_s;
  c.started_ms = now;
  c.origin = parent_origin.origin;
  c.sender_is_owner = parent_origin.sender_is_owner;
  add(std::move(c));
  watch(r.run_id);
  spdlog::info("subagent {} spawned by {} (depth {}): session {}", r.run_id, parent_key, child_depth, child_key);
  const SubagentRole role = subagent_role(child_depth, settings.max_spawn_depth);
  return json{{"status", "accepted"},
              {"runId", r.run_id},
              {"childSessionKey", child_key},
              {"mode", "run"},
              {"cleanup", cleanup},
              {"depth", child_depth},
              {"role", to_string(role)},
              {"note", "The subagent runs in the background; its result comes back to this session as a message when "
                       "it ends. Go on with other work or end your turn; do not poll for it."}};
}

Subagents::Child& Subagents::add(Child child) {
  const std::string id = child.run_id;
  order_.push_back(id);
  Child& stored = children_[id] = std::move(child);
  // Keep every running child and the most recent ended ones.
  std::size_t ended = 0;
  for (const auto& [rid, c] : children_) ended += c.status != "running" ? 1 : 0;
  for (auto it = order_.begin(); ended > kSubagentRecentKept && it != order_.end();) {
    auto c = children_.find(*it);
    if (c != children_.end() && c->second.status != "running") {
      children_.erase(c);
      it = order_.erase(it);
      --ended;
    } else {
      ++it;
    }
  }
  return stored;
}

void Subagents::watch(const std::string& run_id) {
  const bool known = agents_.when_finished(run_id, [this, alive = alive_, run_id](const RunEvent& e) {
    if (*alive) on_end(run_id, e);
  });
  if (!known) spdlog::warn("subagent {}: its run is unknown to the service; no announce", run_id);
}

int Subagents::active_children(const std::string& parent_key) const {
  int n = 0;
  for (const auto& [id, c] : children_) n += c.parent_key == parent_key && !c.continuation && c.status == "running" ? 1 : 0;
  return n;
}

// ---- the end of a child: announce exactly once ----

void Subagents::on_end(const std::string& run_id, const RunEvent& e) {
  auto it = children_.find(run_id);
  if (it == children_.end() || it->second.announced) return;
  Child& c = it->second;
  if (e.kind == RunEvent::Kind::Aborted && e.stop_reason == "shutdown") {
    c.status = "interrupted";  // its journal entry stays unfinished: resume_unfinished() reruns it
    return;
  }
  const int kind = e.kind == RunEvent::Kind::End ? 0 : e.kind == RunEvent::Kind::Error ? 1 : 2;
  const ChildOutcome outcome = child_outcome(kind, e.stop_reason, e.error);
  c.status = outcome.status;
  c.ended_ms = agents_.impl_->clock.wall_ms();
  context_hook_ended(c, outcome.status);
  const bool delete_after = c.cleanup_delete && !c.continuation;
  const std::string key = c.child_key;
  announce(c, outcome, e);  // (may drop old records: `c` is not used after it)
  if (delete_after) {
    // After the announce is queued (it carries the result): the child's session goes (archived).
    agents_.impl_->loop.post([this, alive = alive_, key] {
      if (!*alive) return;
      if (auto r = agents_.delete_session(key); !r) spdlog::warn("subagent session {}: not deleted: {}", key, r.error().message);
    });
  }
}

void Subagents::announce(Child& c, const ChildOutcome& outcome, const RunEvent& e) {
  c.announced = true;
  AgentService::Impl& s = *agents_.impl_;
  const std::string parent_agent = store::agent_id_from_session_key(c.parent_key);
  const store::SessionEntry* parent_entry = agents_.index_for(parent_agent).get(c.parent_key);
  const bool parent_is_subagent = parent_entry && parent_entry->field("spawnedBy") != nullptr;
  AnnounceInput in;
  in.child_session_key = c.child_key;
  in.child_session_id = e.session_id;
  in.run_id = c.run_id;
  in.task_label = c.label.empty() ? sa_first_line(c.task, 120) : c.label;
  in.outcome = outcome;
  in.timeout_seconds = c.timeout_seconds;
  in.result = outcome.status == "ok" ? e.text : "";
  in.runtime_ms = std::max<int64_t>(0, (c.ended_ms ? c.ended_ms : s.clock.wall_ms()) - c.started_ms);
  in.input_tokens = e.usage.input;
  in.output_tokens = e.usage.output;
  in.requester_is_subagent = parent_is_subagent;
  SendRequest a;
  a.session_key = c.parent_key;
  a.message = announce_message(in);
  a.run_id = "announce-" + c.run_id;
  a.lane = parent_is_subagent ? RunLane::Subagent : RunLane::Main;
  a.origin = c.origin;  // the parent run's chat and sender
  a.channel = c.origin.channel;
  a.sender_is_owner = c.sender_is_owner;
  a.source = "subagent.announce";  // journaled: a restart resumes it (AgentService::resume_unfinished)
  auto accepted = agents_.send(a, sink_for(a));
  if (!accepted) {
    spdlog::error("subagent {}: its result could not be announced to {}: {}", c.run_id, c.parent_key, accepted.error().message);
    return;
  }
  spdlog::info("subagent {} {}: announced to {}{}", c.run_id, outcome.status, c.parent_key,
               accepted->queued ? " (queued behind its running turn)" : "");
  if (!parent_is_subagent) return;
  // The parent is a subagent itself: the turn that processes this result is announced upward too.
  for (auto id = order_.rbegin(); id != order_.rend(); ++id) {
    auto p = children_.find(*id);
    if (p == children_.end() || p->second.child_key != c.parent_key) continue;
    Child next = p->second;
    next.run_id = a.run_id;
    next.status = "running";
    next.announced = false;
    next.continuation = true;
    next.cleanup_delete = false;
    next.started_ms = s.clock.wall_ms();
    next.ended_ms = 0;
    add(std::move(next));
    watch(a.run_id);
    break;
  }
}

void Subagents::context_hook_ended(const Child& c, const std::string& reason) {
  const AgentSettings* spec = agents_.impl_->agents.find(c.parent_agent_id);
  auto engine = context::make_engine(spec ? spec->context_engine : std::string(context::kDefaultEngineId), context::EngineConfig{});
  engine->on_subagent_ended({c.child_key, reason});
}

// ---- list, kill, steer ----

std::vector<Subagents::Child*> Subagents::resolve(const std::string& parent_key, const std::string& target, bool running_only) {
  std::vector<Child*> mine;
  for (const auto& id : order_) {
    auto it = children_.find(id);
    if (it != children_.end() && it->second.parent_key == parent_key && !it->second.continuation) mine.push_back(&it->second);
  }
  std::vector<Child*> out;
  const std::string t = sa_trim(target);
  if (t.empty()) return out;
  if (t == "all") {
    out = mine;
  } else if (t == "last") {
    if (!mine.empty()) out.push_back(mine.back());
  } else if (std::all_of(t.begin(), t.end(), [](unsigned char ch) { return std::isdigit(ch); }) && t.size() < 6) {
    const std::size_t i = std::stoul(t);
    if (i >= 1 && i <= mine.size()) out.push_back(mine[i - 1]);
  } else {
    for (Child* c : mine) {
      if (c->run_id == t || c->child_key == t || (!c->label.empty() && c->label == t) ||
          (t.size() >= 6 && c->run_id.compare(0, t.size(), t) == 0)) {
        out.push_back(c);
      }
    }
  }
  if (running_only) std::erase_if(out, [](const Child* c) { return c->status != "running"; });
  return out;
}

json Subagents::row(const Child& c, std::size_t index) const {
  const int64_t now = agents_.impl_->clock.wall_ms();
  json r = {{"index", index},       {"runId", c.run_id},   {"sessionKey", c.child_key},
            {"agentId", c.agent_id}, {"label", c.label},    {"task", sa_first_line(c.task, 120)},
            {"status", c.status},   {"depth", c.depth},    {"startedAt", c.started_ms},
            {"runtimeMs", std::max<int64_t>(0, (c.ended_ms ? c.ended_ms : now) - c.started_ms)}};
  if (c.ended_ms) r["endedAt"] = c.ended_ms;
  return r;
}

json Subagents::list(const std::string& parent_key) const {
  json active = json::array(), recent = json::array();
  std::size_t index = 0;
  for (const auto& id : order_) {
    auto it = children_.find(id);
    if (it == children_.end() || it->second.parent_key != parent_key || it->second.continuation) continue;
    ++index;
    (it->second.status == "running" ? active : recent).push_back(row(it->second, index));
  }
  return json{{"requesterSessionKey", parent_key}, {"active", active}, {"recent", recent}, {"total", index}};
}

Result<json> Subagents::kill(const std::string& parent_key, const std::string& target) {
  auto found = resolve(parent_key, target, true);
  if (found.empty()) {
    return Error{"NOT_FOUND", "no running subagent of this session matches \"" + target + "\" (list shows them)"};
  }
  json killed = json::array();
  std::vector<std::string> keys;
  for (Child* c : found) {
    const std::string run_id = c->run_id, key = c->child_key;  // (abort may end the run at once)
    if (auto r = agents_.abort(key, run_id, "killed"); r && !r->empty()) killed.push_back(run_id);
    keys.push_back(key);
  }
  // The stop cascades: each killed child's own running children (OpenClaw's cascade stop), without
  // announces of their own (their parent is stopped; its "aborted" notice covers them).
  std::function<void(const std::string&)> descend = [&](const std::string& parent) {
    for (Child* d : resolve(parent, "all", true)) {
      d->announced = true;
      d->status = "aborted";
      const std::string run_id = d->run_id, key = d->child_key;
      if (auto r = agents_.abort(key, run_id, "killed"); r && !r->empty()) killed.push_back(run_id);
      descend(key);
    }
  };
  for (const auto& key : keys) descend(key);
  return json{{"status", "ok"}, {"killed", killed}};
}

Result<json> Subagents::steer(const std::string& parent_key, const std::string& target, const std::string& message) {
  if (sa_trim(target) == "all") return Error{"INVALID_REQUEST", "steer one subagent at a time (not \"all\")"};
  if (sa_blank(message)) return Error{"INVALID_REQUEST", "steer needs a message for the subagent"};
  auto found = resolve(parent_key, target, true);
  if (found.empty()) {
    return Error{"NOT_FOUND", "no running subagent of this session matches \"" + target + "\" (list shows them)"};
  }
  if (found.size() > 1) return Error{"INVALID_REQUEST", "\"" + target + "\" matches several subagents: use a run id or index"};
  Child& c = *found.front();
  if (!agents_.steer(c.child_key, c.run_id, message)) {
    return Error{"NOT_RUNNING", "subagent " + c.run_id + " is not in a turn now (still queued, or finishing): try again, or kill it"};
  }
  return json{{"status", "ok"}, {"runId", c.run_id}, {"sessionKey", c.child_key}};
}

Result<json> Subagents::tool_call(const json& args, const SubagentCaller& caller) {
  const std::string parent_key = agents_.canonical_key(caller.session_key);
  const std::string action = args.value("action", "list");
  const std::string target = args.contains("target") && args["target"].is_string() ? args["target"].get<std::string>()
                             : args.contains("target") && args["target"].is_number_integer()
                                 ? std::to_string(args["target"].get<int64_t>())
                                 : "";
  if (action == "list") return list(parent_key);
  if (target.empty()) return Error{"INVALID_REQUEST", "subagents: " + action + " needs a target (a run id, index, label or \"all\")"};
  if (action == "kill") return kill(parent_key, target);
  if (action == "steer") return steer(parent_key, target, args.value("message", ""));
  return Error{"INVALID_REQUEST", "subagents: unknown action \"" + action + "\" (list, kill, steer)"};
}

std::pair<std::string, bool> Subagents::chat_command(const std::string& parent_key, const std::string& arg) {
  const std::string a = sa_trim(arg);
  const auto sp = a.find_first_of(" \t");
  const std::string word = a.substr(0, sp);
  const std::string rest = sp == std::string::npos ? "" : sa_trim(a.substr(sp));
  const std::string usage = "Usage: /subagents [list | kill ID|all | steer ID TEXT] (ID: the number /subagents list shows, or a run id)";
  if (word.empty() || word == "list") {
    const json l = list(parent_key);
    if (l["total"].get<std::size_t>() == 0) return {"No subagents in this session.", true};
    std::string text = "Subagents of this session:";
    for (const char* part : {"active", "recent"}) {
      for (const auto& r : l[part]) {
        const std::string name = r.value("label", "").empty() ? r.value("task", "") : r.value("label", "");
        text += "\n  " + std::to_string(r.value("index", 0)) + ". " + r.value("status", "") + " · " + name + " · " +
                std::to_string(r.value("runtimeMs", int64_t{0}) / 1000) + " s · " + r.value("runId", "").substr(0, 8);
      }
    }
    return {text, true};
  }
  if (word == "kill") {
    if (rest.empty()) return {usage, false};
    auto r = kill(parent_key, rest);
    if (!r) return {"⚠️ " + r.error().message, false};
    return {"Stopped " + std::to_string((*r)["killed"].size()) + " subagent(s); each reports back as aborted.", true};
  }
  if (word == "steer") {
    const auto sp2 = rest.find_first_of(" \t");
    if (rest.empty() || sp2 == std::string::npos) return {usage, false};
    auto r = steer(parent_key, rest.substr(0, sp2), sa_trim(rest.substr(sp2)));
    if (!r) return {"⚠️ " + r.error().message, false};
    return {"Sent to subagent " + (*r)["runId"].get<std::string>().substr(0, 8) + ".", true};
  }
  return {usage, false};
}

void Subagents::note_run(const std::string& run_id, const tools::approvals::ExecOrigin& origin, bool sender_is_owner) {
  if (origin.channel.empty() && sender_is_owner) return;  // the defaults: nothing to remember
  run_origins_[run_id] = RunOrigin{origin, sender_is_owner};
  agents_.when_finished(run_id, [this, alive = alive_, run_id](const RunEvent&) {
    if (*alive) run_origins_.erase(run_id);
  });
}

// ---- restarts ----

void Subagents::resume_unfinished() {
  AgentService::Impl& s = *agents_.impl_;
  for (JournalEntry& e : agents_.take_unfinished("subagent")) {
    const json& n = e.notes;
    SendRequest r = send_request_from_json(e.request);
    if (r.run_id.empty()) r.run_id = e.id;
    Child c;
    c.run_id = r.run_id;
    c.child_key = agents_.canonical_key(r.session_key, r.agent_id);
    c.agent_id = store::agent_id_from_session_key(c.child_key);
    c.parent_key = n.value("parentKey", "");
    c.parent_agent_id = n.value("parentAgentId", store::agent_id_from_session_key(c.parent_key));
    c.label = n.value("label", "");
    c.task = n.value("task", "");
    c.depth = n.value("depth", 1);
    c.cleanup_delete = n.value("cleanup", "keep") == "delete";
    c.timeout_seconds = n.value("timeoutSeconds", int64_t{0});
    c.started_ms = n.value("startedAt", e.accepted_ms);
    c.origin = r.origin;  // the child inherited its parent's (spawn)
    c.sender_is_owner = r.sender_is_owner;
    auto give_up = [&](const std::string& why) {
      spdlog::warn("subagent {} (session {}) not resumed: {}", c.run_id, c.child_key, why);
      if (auto st = s.journal.answered(e.id, "abandoned"); !st) spdlog::error("run journal: {}", st.error().message);
      if (c.parent_key.empty()) return;
      RunEvent failed;
      failed.kind = RunEvent::Kind::Error;
      failed.run_id = c.run_id;
      failed.error = why;
      c.status = "error";
      c.ended_ms = s.clock.wall_ms();
      Child& stored = add(std::move(c));
      announce(stored, {"error", why}, failed);
    };
    if (e.resumes >= kMaxResumes) {
      give_up("it was cut off by a gateway restart again after being resumed");
      continue;
    }
    if (c.parent_key.empty()) {
      give_up("its journal entry does not name the parent session");
      continue;
    }
    r.journal_ids = {e.id};
    r.resume = true;
    if (auto st = s.journal.resumed(e.id); !st) {
      spdlog::error("run journal: {}", st.error().message);
      continue;
    }
    auto accepted = agents_.send(r, sink_for(r));
    if (!accepted) {
      give_up(accepted.error().message);
      continue;
    }
    spdlog::info("subagent {}: resumed after a restart (session {})", c.run_id, c.child_key);
    const std::string id = c.run_id;
    add(std::move(c));
    watch(id);
  }
}

}  // namespace pincer::agent
