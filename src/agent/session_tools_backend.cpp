#include "agent/session_tools_backend.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <spdlog/spdlog.h>

#include "agent/session_tools_policy.h"
#include "core/ids.h"
#include "store/session_keys.h"

namespace pincer::agent {

using nlohmann::json;
struct SessionToolsBackend::State {
  EventLoop& loop;
  AgentService& agents;
  bool alive = true;  ///< false once the backend is destroyed (loop)
  SessionAnnouncer announcer;
  AgentToAgentStats stats;
  State(EventLoop& l, AgentService& a) : loop(l), agents(a) {}
};

namespace session_backend_detail {  // named: the unity build joins several files into one unit

using State = SessionToolsBackend::State;
using Caller = SessionToolsBackend::Caller;

constexpr auto kReadTimeout = std::chrono::seconds(30);
constexpr int kDefaultSendTimeoutSeconds = 30;

const json& config_of(const Caller& c) {
  static const json empty = json::object();
  return c.config ? *c.config : empty;
}

json refusal(const std::string& status, const std::string& error, const std::string& key = {}) {
  json out = {{"status", status}, {"error", error}};
  if (!key.empty()) out["sessionKey"] = key;
  return out;
}

/// A target session as the tools see it.
struct Target {
  std::string key, agent;
  json row;  ///< its sessions.json entry as list_sessions gives it (null: no entry yet)
  bool spawned_by_requester = false;
};

Target target_of(State& s, const Caller& c, const std::string& raw) {
  Target t;
  t.key = s.agents.canonical_key(raw, c.agent_id);
  t.agent = store::agent_id_from_session_key(t.key);
  const json all = s.agents.list_sessions(0);
  for (const auto& row : all["sessions"]) {
    if (row.value("key", "") != t.key) continue;
    t.row = row;
    t.spawned_by_requester = row.value("spawnedBy", "") == c.session_key;
  }
  return t;
}

SessionAccess access_to(const Caller& c, std::string_view action, const Target& t) {
  const json& cfg = config_of(c);
  return session_access(action, session_visibility(cfg), agent_to_agent_policy(cfg), c.agent_id, c.session_key,
                        t.agent, t.key, t.spawned_by_requester);
}

std::string channel_of(const json& row, const std::string& key) {
  for (const char* f : {"lastChannel", "channel"})
    if (row.contains(f) && row[f].is_string() && !row[f].get<std::string>().empty()) return row[f].get<std::string>();
  // agent:<id>:<channel>:direct|group|channel:<peer>…
  std::vector<std::string> parts;
  for (size_t b = 0, e; b <= key.size(); b = e + 1) {
    e = key.find(':', b);
    if (e == std::string::npos) e = key.size();
    parts.push_back(key.substr(b, e - b));
  }
  if (parts.size() >= 5 && (parts[3] == "direct" || parts[3] == "group" || parts[3] == "channel")) return parts[2];
  return "internal";
}

bool contains_any_case(const std::string& hay, const std::string& needle) {
  auto lower = [](std::string v) {
    for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return v;
  };
  return lower(hay).find(lower(needle)) != std::string::npos;
}

json do_list(State& s, const Caller& c, const json& args) {
  const int limit = args.value("limit", 50);
  const int message_limit = args.value("messageLimit", 0);
  const int64_t active_minutes = args.value("activeMinutes", int64_t{0});
  const std::string label = args.value("label", ""), agent = args.value("agentId", ""), search = args.value("search", "");
  std::vector<std::string> kinds;
  if (args.contains("kinds") && args["kinds"].is_array())
    for (const auto& k : args["kinds"]) kinds.push_back(k.get<std::string>());
  const json all = s.agents.list_sessions(0);
  const int64_t now = all.value("ts", int64_t{0});
  json rows = json::array();
  bool more = false;
  for (const auto& row : all["sessions"]) {
    Target t;
    t.key = row.value("key", "");
    t.agent = row.value("agentId", store::agent_id_from_session_key(t.key));
    t.spawned_by_requester = row.value("spawnedBy", "") == c.session_key;
    if (!access_to(c, "list", t).allowed) continue;
    const std::string kind = session_kind(t.key);
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
    if (!agent.empty() && t.agent != store::normalize_agent_id(agent)) continue;
    if (!label.empty() && row.value("label", "") != label) continue;
    if (active_minutes > 0 && row.value("updatedAt", int64_t{0}) < now - active_minutes * 60'000) continue;
    if (!search.empty() && !contains_any_case(t.key, search) && !contains_any_case(row.value("label", ""), search) &&
        !contains_any_case(row.value("displayName", ""), search))
      continue;
    if (static_cast<int>(rows.size()) >= limit) {
      more = true;
      break;
    }
    json out = {{"key", t.key}, {"kind", kind}, {"channel", channel_of(row, t.key)}, {"agentId", t.agent},
                {"sessionId", row.value("sessionId", "")}, {"updatedAt", row.value("updatedAt", int64_t{0})}};
    for (const char* f : {"label", "displayName", "spawnedBy", "contextTokens", "totalTokens"})
      if (row.contains(f)) out[f] = row[f];
    if (row.contains("modelOverride")) out["model"] = row["modelOverride"];
    if (message_limit > 0) {
      if (auto h = s.agents.history(t.key, message_limit)) out["messages"] = history_for_tool((*h)["messages"], false)["messages"];
    }
    rows.push_back(std::move(out));
  }
  json answer = {{"count", rows.size()}, {"sessions", rows}, {"hasMore", more}, {"limitApplied", limit}};
  const SessionVisibility v = session_visibility(config_of(c));
  if (v != SessionVisibility::All)
    answer["visibility"] = {{"mode", to_string(v)}, {"restricted", true},
                            {"warning", "Some sessions may be left out: tools.sessions.visibility is " +
                                            std::string(to_string(v)) + "."}};
  return answer;
}

json do_history(State& s, const Caller& c, const json& args) {
  const Target t = target_of(s, c, args.value("sessionKey", ""));
  if (auto a = access_to(c, "history", t); !a.allowed) return refusal(a.status, a.error, t.key);
  auto h = s.agents.history(t.key, args.value("limit", 50));
  if (!h) return refusal("error", h.error().message, t.key);
  json out = history_for_tool((*h)["messages"], args.value("includeTools", false));
  out["sessionKey"] = t.key;
  return out;
}

json do_status(State& s, const Caller& c, const json& args) {
  const Target t = target_of(s, c, args.value("sessionKey", c.session_key));
  if (auto a = access_to(c, "status", t); !a.allowed) return refusal(a.status, a.error, t.key);
  bool changed = false;
  if (args.contains("model") && args["model"].is_string()) {
    const std::string m = args["model"].get<std::string>();
    auto patched = s.agents.patch_session(t.key, json{{"model", m == "default" ? json(nullptr) : json(m)}});
    if (!patched) return refusal("error", patched.error().message, t.key);
    changed = true;
  }
  json out = s.agents.session_status(t.key);
  out["ok"] = true;
  out["changedModel"] = changed;
  out["statusText"] = "Session " + t.key + " · agent " + out.value("agentId", "") + " · model " +
                      (out.value("model", "").empty() ? "(none)" : out.value("model", "")) + " · thinking " +
                      out.value("thinkingLevel", "off") + " · " + std::to_string(out.value("messages", 0)) +
                      " messages · " + (out.value("running", false) ? "running" : "idle");
  return out;
}

/// The sessions_send target: by sessionKey, by label (sessions.json "label"), or an agent's main.
/// Fills `t` or returns the refusal.
std::optional<json> resolve_send_target(State& s, const Caller& c, const json& args, Target& t) {
  const std::string agent_arg = args.contains("agentId") ? store::normalize_agent_id(args["agentId"].get<std::string>()) : "";
  if (!agent_arg.empty()) {
    bool known = false;
    const json agents = s.agents.list_agents();  // (kept: the loop must not run over a temporary)
    for (const auto& a : agents["agents"]) known = known || a.value("id", "") == agent_arg;
    if (!known) return refusal("error", "Agent \"" + agent_arg + "\" not found (pincer agents list shows the configured agents).");
  }
  if (args.contains("sessionKey")) {
    t = target_of(s, c, args["sessionKey"].get<std::string>());
    // An unknown key is a mistake, not a new session (an agent's main session may not exist yet).
    if (t.row.is_null() && t.key != store::agent_main_session_key(t.agent)) {
      return refusal("error", "No session found with key: " + t.key + " (sessions_list shows the sessions you can reach).");
    }
    return std::nullopt;
  }
  if (!args.contains("label")) {
    t = target_of(s, c, store::agent_main_session_key(agent_arg));
    return std::nullopt;
  }
  const std::string label = args["label"].get<std::string>();
  if (!agent_arg.empty() && agent_arg != c.agent_id) {
    Target probe;
    probe.agent = agent_arg;
    probe.key = store::agent_main_session_key(agent_arg);
    if (auto a = access_to(c, "send", probe); !a.allowed) return refusal(a.status, a.error);
  }
  std::vector<std::string> matches;
  const json all = s.agents.list_sessions(0);
  for (const auto& row : all["sessions"]) {
    if (row.value("label", "") != label) continue;
    if (!agent_arg.empty() && row.value("agentId", "") != agent_arg) continue;
    matches.push_back(row.value("key", ""));
  }
  if (matches.size() > 1 && agent_arg.empty()) {  // prefer the caller's own agent's session
    std::vector<std::string> own;
    for (const auto& k : matches)
      if (store::agent_id_from_session_key(k) == c.agent_id) own.push_back(k);
    if (own.size() == 1) matches = own;
  }
  if (matches.empty()) return refusal("error", "No session found with label: " + label);
  if (matches.size() > 1) {
    std::string keys;
    for (const auto& k : matches) keys += (keys.empty() ? "" : ", ") + k;
    return refusal("error", "The label \"" + label + "\" names several sessions (" + keys + "); give sessionKey or agentId.");
  }
  t = target_of(s, c, matches[0]);
  return std::nullopt;
}

void finish_exchange(const std::shared_ptr<State>& s, const char* how) {
  ++s->stats.exchanges;
  spdlog::debug("sessions_send: exchange finished ({})", how);
}

/// One turn of the exchange: `message` into `key` (agent `agent`) on the nested lane; `done` gets
/// the reply text, or nullopt when the turn failed or the backend is gone.
void run_step(const std::shared_ptr<State>& s, const std::string& agent, const std::string& key,
              const std::string& message, std::function<void(std::optional<std::string>)> done) {
  SendRequest r;
  r.session_key = key;
  r.agent_id = agent;
  r.message = message;
  r.run_id = "a2a-" + ids::uuid_v4();
  r.lane = RunLane::Nested;
  r.sender_is_owner = false;
  std::weak_ptr<State> weak = s;
  auto fired = std::make_shared<bool>(false);
  auto accepted = s->agents.send(r, [weak, done, fired](const RunEvent& e) {
    using K = RunEvent::Kind;
    if (*fired || (e.kind != K::End && e.kind != K::Error && e.kind != K::Aborted)) return;
    *fired = true;
    auto st = weak.lock();
    if (!st || !st->alive) return;
    // The sink runs inside the ending run: continue on a fresh loop turn.
    std::optional<std::string> text = e.kind == K::End ? std::optional<std::string>(e.text) : std::nullopt;
    if (!text) spdlog::warn("sessions_send: a turn of session {} did not finish: {}", e.session_key,
                            e.error.empty() ? e.stop_reason : e.error);
    st->loop.post([weak, done, text] {
      if (auto st2 = weak.lock(); st2 && st2->alive) done(text);
    });
  });
  if (!accepted) {
    spdlog::warn("sessions_send: cannot run a turn of {}: {}", key, accepted.error().message);
    done(std::nullopt);
  }
}

struct Exchange {
  AgentToAgentParties parties;
  std::string requester_agent, target_agent, original, round_one, latest;
  int max_turns = 0;
  bool exchange = true;  ///< the ping-pong and the announce step follow the reply
};

/// A subagent's session (MA-3): its entry names who spawned it, or its key says so.
bool is_subagent_session(const Target& t) {
  return (t.row.is_object() && t.row.contains("spawnedBy")) || t.key.find(":subagent:") != std::string::npos;
}

void announce_step(const std::shared_ptr<State>& s, std::shared_ptr<Exchange> x) {
  const std::string prompt = a2a_announce_context(x->parties, x->original, x->round_one, x->latest) + "\n" +
                             inter_session_message(x->parties.requester_key, x->parties.requester_channel,
                                                   "Agent-to-agent announce step.");
  run_step(s, x->target_agent, x->parties.target_key, prompt, [s, x](std::optional<std::string> reply) {
    if (reply && !reply->empty() && !is_non_deliverable_reply(*reply) && s->announcer) {
      auto st = s->announcer(x->target_agent, x->parties.target_key, *reply, "a2a-announce-" + ids::uuid_v4());
      if (st) {
        ++s->stats.announced;
      } else {
        spdlog::info("sessions_send: the announce reply of {} stays in its session: {}", x->parties.target_key,
                     st.error().message);
      }
    }
    finish_exchange(s, "announce");
  });
}

void ping_pong(const std::shared_ptr<State>& s, std::shared_ptr<Exchange> x, int turn) {
  if (turn > x->max_turns) return announce_step(s, x);
  const bool requester_turn = turn % 2 == 1;
  const std::string& key = requester_turn ? x->parties.requester_key : x->parties.target_key;
  const std::string& agent = requester_turn ? x->requester_agent : x->target_agent;
  const std::string& source_key = requester_turn ? x->parties.target_key : x->parties.requester_key;
  const std::string& source_channel = requester_turn ? x->parties.target_channel : x->parties.requester_channel;
  const std::string message = a2a_reply_context(x->parties, requester_turn, turn, x->max_turns) + "\n" +
                              inter_session_message(source_key, source_channel, x->latest);
  ++s->stats.ping_pong_turns;
  run_step(s, agent, key, message, [s, x, turn](std::optional<std::string> reply) {
    if (!reply) return finish_exchange(s, "a turn failed");
    if (reply->empty() || is_non_deliverable_reply(*reply)) return announce_step(s, x);
    x->latest = *reply;
    ping_pong(s, x, turn + 1);
  });
}

using Answer = std::function<void(Result<json>)>;

void do_send(const std::shared_ptr<State>& s, const Caller& c, const json& args, const Answer& answer) {
  Target t;
  if (auto refused = resolve_send_target(*s, c, args, t)) return answer(*refused);
  const int timeout = args.value("timeoutSeconds", kDefaultSendTimeoutSeconds);
  if (auto a = access_to(c, "send", t); !a.allowed) return answer(refusal(a.status, a.error, t.key));
  const bool same_session = t.key == c.session_key;
  if (same_session && timeout != 0)
    return answer(refusal("error", "sessions_send cannot target the calling session; use your own reply instead", t.key));
  auto x = std::make_shared<Exchange>();
  x->parties = {c.session_key, c.channel, t.key, channel_of(t.row, t.key)};
  x->requester_agent = c.agent_id;
  x->target_agent = t.agent;
  x->original = args.value("message", "");
  x->max_turns = max_ping_pong_turns(config_of(c));
  // As OpenClaw: no exchange with oneself, nor when a subagent session is on either side.
  x->exchange = !same_session && !is_subagent_session(t) && !is_subagent_session(target_of(*s, c, c.session_key));
  const std::string message = a2a_message_context(x->parties) + "\n" +
                              inter_session_message(c.session_key, c.channel, x->original);
  SendRequest r;
  r.session_key = t.key;
  r.agent_id = t.agent;
  r.message = message;
  r.run_id = "a2a-" + ids::uuid_v4();
  r.lane = RunLane::Nested;
  r.sender_is_owner = false;
  std::weak_ptr<State> weak = s;
  auto fired = std::make_shared<bool>(false);
  const std::string run_id = r.run_id;
  auto accepted = s->agents.send(r, [weak, fired, x, answer, run_id](const RunEvent& e) {
    using K = RunEvent::Kind;
    if (*fired || (e.kind != K::End && e.kind != K::Error && e.kind != K::Aborted)) return;
    *fired = true;
    auto st = weak.lock();
    if (!st || !st->alive) return;
    const std::string key = x->parties.target_key;
    if (e.kind != K::End) {
      answer(json{{"runId", run_id}, {"status", "error"}, {"sentBeforeError", true}, {"sessionKey", key},
                  {"error", e.kind == K::Error ? e.error : "the target's run was aborted (" + e.stop_reason + ")"}});
      return;
    }
    const std::string reply = e.text;
    if (reply.empty() || is_non_deliverable_reply(reply)) {
      answer(json{{"runId", run_id}, {"status", "no_reply"}, {"sessionKey", key},
                  {"message", "The target session ended its turn without a reply."}});
      return finish_exchange(st, "no reply");
    }
    if (!x->exchange) {  // a note to itself, or a subagent session on either side: no exchange
      answer(json{{"runId", run_id}, {"status", "ok"}, {"reply", reply}, {"sessionKey", key}});
      return finish_exchange(st, "no exchange");
    }
    answer(json{{"runId", run_id}, {"status", "ok"}, {"reply", reply}, {"sessionKey", key},
                {"delivery", {{"status", "pending"}, {"mode", "announce"}}}});
    x->round_one = x->latest = reply;
    st->loop.post([weak, x] {
      auto st2 = weak.lock();
      if (st2 && st2->alive) ping_pong(st2, x, 1);
    });
  });
  if (!accepted) return answer(refusal("error", accepted.error().message, t.key));
  if (timeout == 0)
    answer(json{{"runId", run_id}, {"status", "accepted"}, {"sessionKey", t.key},
                {"delivery", {{"status", "pending"}, {"mode", "announce"}}}});
}

}  // namespace session_backend_detail


SessionToolsBackend::SessionToolsBackend(EventLoop& loop, AgentService& agents)
    : state_(std::make_shared<State>(loop, agents)) {}

SessionToolsBackend::~SessionToolsBackend() {
  state_->alive = false;
  if (state_->agents.session_backends().sessions == this) state_->agents.session_backends().sessions = nullptr;
}

void SessionToolsBackend::set_announcer(SessionAnnouncer announcer) { state_->announcer = std::move(announcer); }

const AgentToAgentStats& SessionToolsBackend::stats() const { return state_->stats; }

Result<json> SessionToolsBackend::call(std::string_view tool, const json& args, const tools::ToolContext& ctx) {
  Caller c{ctx.agent_id, ctx.session_key, ctx.origin.channel, ctx.run_id, ctx.config};
  const std::string name(tool);
  auto promise = std::make_shared<std::promise<Result<json>>>();
  auto once = std::make_shared<std::atomic<bool>>(false);
  session_backend_detail::Answer answer = [promise, once](Result<json> r) {
    if (!once->exchange(true)) promise->set_value(std::move(r));
  };
  auto future = promise->get_future();
  std::weak_ptr<State> weak = state_;
  state_->loop.post([weak, name, args, c, answer] {
    auto s = weak.lock();
    if (!s || !s->alive) return answer(Error{"UNAVAILABLE", "the gateway is stopping"});
    if (c.session_key.empty()) return answer(Error{"UNAVAILABLE", "this run has no session"});
    if (name == "sessions_list") return answer(session_backend_detail::do_list(*s, c, args));
    if (name == "sessions_history") return answer(session_backend_detail::do_history(*s, c, args));
    if (name == "session_status") return answer(session_backend_detail::do_status(*s, c, args));
    if (name == "sessions_send") return session_backend_detail::do_send(s, c, args, answer);
    answer(Error{"TOOL_ARGS_INVALID", "not a session tool"});
  });
  std::chrono::milliseconds limit = session_backend_detail::kReadTimeout;
  if (name == "sessions_send") {
    const int64_t t = args.value("timeoutSeconds", int64_t{session_backend_detail::kDefaultSendTimeoutSeconds});
    limit = t == 0 ? std::chrono::milliseconds(session_backend_detail::kReadTimeout) : std::chrono::seconds(t);
  }
  // A stopped run answers at once (the first answer wins).
  auto stop = ctx.on_cancel([promise, once] {
    if (!once->exchange(true)) promise->set_value(Error{"ABORTED", "the run was stopped while waiting"});
  });
  if (future.wait_for(limit) != std::future_status::ready) {
    if (name == "sessions_send")
      return json{{"status", "timeout"}, {"sentBeforeError", true},
                  {"error", "no reply within " + std::to_string(limit.count() / 1000) +
                                " s; the message was delivered and the other session goes on"}};
    return Error{"UNAVAILABLE", "the gateway did not answer within 30 s"};
  }
  return future.get();
}

}  // namespace pincer::agent
