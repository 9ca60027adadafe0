#include "tools/approvals/approval_manager.h"

#include <algorithm>
#include <random>

#include <spdlog/spdlog.h>

#include "core/ids.h"

namespace pincer::tools::approvals {

using nlohmann::json;

namespace {

int security_rank(const std::string& s) { return s == "deny" ? 0 : s == "allowlist" ? 1 : 2; }
int ask_rank(const std::string& s) { return s == "off" ? 0 : s == "on-miss" ? 1 : 2; }
std::string stricter_security(const std::string& a, const std::string& b) { return security_rank(a) <= security_rank(b) ? a : b; }
std::string stricter_ask(const std::string& a, const std::string& b) { return ask_rank(a) >= ask_rank(b) ? a : b; }

/// What a run is told of an `exec` that the shutdown denied (deny_all_for_shutdown).
constexpr const char* kShutdownDenied =
    "exec denied: the gateway is shutting down, so nobody can answer the approval request; the command was not run.";

bool interactive_lane(const std::string& lane) { return lane != "cron" && lane != "heartbeat" && lane != "hook"; }

std::string short_code() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  static const char* alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  std::string out;
  for (int i = 0; i < 6; ++i) out += alphabet[std::uniform_int_distribution<int>(0, 30)(rng)];
  return out;
}

}  // namespace

struct ApprovalManager::Pending {
  std::string id, code;
  ExecCall call;
  json request;
  int64_t created_ms = 0, expires_ms = 0;
  EventLoop::TimerId timer = 0;
  bool risky = false;
  std::vector<std::string> patterns;  ///< what allow-always adds
  std::function<void(const std::string&)> done;
  std::vector<std::function<void(const std::string&)>> waiters;
};

ApprovalSettings ApprovalSettings::from_config(const json& config) {
  ApprovalSettings s;
  const json tools = config.is_object() ? config.value("tools", json::object()) : json::object();
  const json exec = tools.value("exec", json::object());
  s.security = exec.value("security", s.security);
  s.ask = exec.value("ask", s.ask);
  const json non_owner = exec.value("nonOwner", json::object());
  s.non_owner_security = non_owner.value("security", s.non_owner_security);
  s.non_owner_ask = non_owner.value("ask", s.non_owner_ask);
  const json approvals = config.is_object() ? config.value("approvals", json::object()) : json::object();
  s.mode = approvals.value("mode", s.mode);
  s.ask_fallback = approvals.value("askFallback", s.ask_fallback);
  s.timeout_ms = approvals.value("timeoutSec", s.timeout_ms / 1000) * 1000;
  return s;
}

std::string call_fingerprint(const ExecCall& call) {
  json env = json::object();
  for (const auto& [k, v] : call.env) env[k] = v;
  return json{{"command", call.command}, {"cwd", call.cwd.string()}, {"env", env}}.dump();
}

std::optional<std::string> decision_word(const std::string& raw) {
  std::string w;
  for (char c : raw) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (w == "once" || w == "o" || w == "allow-once" || w == "allow" || w == "yes" || w == "y") return "allow-once";
  if (w == "always" || w == "a" || w == "allow-always") return "allow-always";
  if (w == "deny" || w == "d" || w == "no" || w == "n") return "deny";
  return std::nullopt;
}

std::optional<int64_t> parse_duration_ms(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const std::string digits = text.substr(0, text.size() - 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
      digits.size() > 6) {
    return std::nullopt;
  }
  const int64_t n = std::stoll(digits);
  switch (unit) {
    case 's': return n * 1000;
    case 'm': return n * 60'000;
    case 'h': return n * 3'600'000;
    case 'd': return n * 86'400'000;
    default: return std::nullopt;
  }
}

ApprovalManager::ApprovalManager(EventLoop& loop, const Clock& clock, std::filesystem::path approvals_file)
    : loop_(loop), clock_(clock), file_(std::move(approvals_file)) {
  if (auto st = file_.load(); !st) spdlog::error("exec approvals: {} (every command that needs an approval is asked)", st.error().message);
}

ApprovalManager::~ApprovalManager() {
  for (auto& [id, p] : pending_) loop_.cancel(p->timer);
}

Status ApprovalManager::reload_file() {
  auto st = file_.load();
  if (!st) spdlog::error("exec approvals: {}", st.error().message);
  return st;
}

std::pair<std::string, std::string> ApprovalManager::effective_policy(const ExecCall& call) const {
  std::string security = settings_.security, ask = settings_.ask;
  if (auto s = file_.setting(call.agent_id, "security")) security = stricter_security(security, *s);
  if (auto a = file_.setting(call.agent_id, "ask")) ask = stricter_ask(ask, *a);
  if (!call.sender_is_owner) {
    security = stricter_security(security, settings_.non_owner_security);
    ask = stricter_ask(ask, settings_.non_owner_ask);
  }
  return {security, ask};
}

bool ApprovalManager::granted(const ExecCall& call) {
  const std::string fp = call_fingerprint(call);
  const int64_t now = clock_.steady_ms();
  for (Grant& g : grants_) {
    if (g.fingerprint == fp && g.agent_id == call.agent_id && (g.session_key.empty() || g.session_key == call.session_key) &&
        (g.expires_steady_ms == 0 || now < g.expires_steady_ms)) {
      ++g.use_count;
      g.last_used_wall_ms = clock_.wall_ms();
      return true;
    }
  }
  return false;
}

void ApprovalManager::drop_expired_grants() {
  const int64_t now = clock_.steady_ms();
  for (auto it = grants_.begin(); it != grants_.end();) {
    if (it->expires_steady_ms != 0 && now >= it->expires_steady_ms) {
      ended_grants_[it->id] = clock_.wall_ms();
      it = grants_.erase(it);
    } else {
      ++it;
    }
  }
  while (ended_grants_.size() > 256) ended_grants_.erase(ended_grants_.begin());
}

json ApprovalManager::grants(std::size_t limit) {
  drop_expired_grants();
  json out = json::array();
  for (const Grant& g : grants_) {
    if (out.size() >= limit) break;
    json env = json::object();
    for (const auto& [k, v] : g.env) env[k] = v;
    out.push_back({{"grantId", g.id}, {"mintedByApprovalId", g.minted_by}, {"agentId", g.agent_id},
                   {"scope", g.session_key.empty() ? "agent" : "session"},
                   {"sessionKey", g.session_key.empty() ? json(nullptr) : json(g.session_key)},
                   {"command", g.command}, {"cwd", g.cwd}, {"env", env}, {"createdAtMs", g.created_wall_ms},
                   {"expiresAtMs", g.expires_wall_ms ? json(g.expires_wall_ms) : json(nullptr)},
                   {"revokedAtMs", nullptr}, {"revokedBy", nullptr},
                   {"lastUsedAtMs", g.last_used_wall_ms ? json(g.last_used_wall_ms) : json(nullptr)},
                   {"useCount", g.use_count}});
  }
  return out;
}

std::string ApprovalManager::revoke_grant(const std::string& grant_id, const std::string& revoked_by) {
  drop_expired_grants();
  auto it = std::find_if(grants_.begin(), grants_.end(), [&](const Grant& g) { return g.id == grant_id; });
  if (it == grants_.end()) return ended_grants_.count(grant_id) ? "already-revoked" : "not-found";
  spdlog::info("exec approval grant {} ({}) revoked by {}", grant_id, it->command, revoked_by.empty() ? "?" : revoked_by);
  ended_grants_[grant_id] = clock_.wall_ms();
  grants_.erase(it);
  return "revoked";
}

void ApprovalManager::emit(const std::string& event, const json& payload) {
  auto listeners = listeners_;  // a listener may remove itself
  for (const auto& [id, l] : listeners) l(event, payload);
}

void ApprovalManager::gate(ExecCall call, GateDone done) {
  CommandAnalysis analysis = analyse_command(call.command);
  for (auto& finding : preflight_script(analysis, call.cwd)) analysis.risks.push_back("preflight: " + finding);
  const auto [security, ask_mode] = effective_policy(call);
  const std::string who = call.run_id + " (" + call.session_key + ")";
  if (security == "deny") {
    spdlog::info("exec approval: run {}: refused, tools.exec.security is deny: {}", who, call.command);
    return done("exec is disabled here (tools.exec.security: deny); the command was not run.");
  }
  const bool by_grant = granted(call);
  const std::vector<std::string> patterns = file_.patterns(call.agent_id);
  const bool by_pattern = allowlisted(analysis, patterns);
  bool must_ask = false;
  if (ask_mode == "always") {
    must_ask = !by_grant;
  } else if (security == "allowlist") {
    if (!by_pattern && !by_grant) {
      if (ask_mode == "off") {
        spdlog::info("exec approval: run {}: refused, not on the allowlist: {}", who, call.command);
        return done("exec refused: the command is not on the allowlist (tools.exec.security: allowlist, ask: off).");
      }
      must_ask = true;
    }
  } else if (ask_mode == "on-miss" && analysis.risky() && !by_grant) {
    must_ask = true;
  }
  if (!must_ask) {
    if (by_pattern && !by_grant) {
      for (const auto& c : analysis.commands) {
        for (const auto& p : patterns) {
          if (pattern_matches(p, c)) file_.touch(call.agent_id, p, call.command, clock_.wall_ms());
        }
      }
    }
    return done(std::nullopt);
  }
  if (!interactive_lane(call.lane)) {
    spdlog::warn("exec approval: run {}: refused, it needs an approval and {} runs never wait for one: {}", who,
                 call.lane, call.command);
    return done("exec refused: the command needs an approval, and a " + call.lane +
                " run never waits for a person (pre-authorise it in exec-approvals.json).");
  }
  if (settings_.mode == "off") {
    const bool run = settings_.ask_fallback == "full" || (settings_.ask_fallback == "allowlist" && by_pattern);
    spdlog::info("exec approval: run {}: approvals.mode off, askFallback {}: {} {}", who, settings_.ask_fallback,
                 run ? "runs" : "refused", call.command);
    if (run) return done(std::nullopt);
    return done("exec refused: the command needs an approval and approvals are off (approvals.askFallback: " +
                settings_.ask_fallback + ").");
  }
  if (settings_.mode == "smart" && triage_) {
    auto shared = std::make_shared<GateDone>(std::move(done));
    auto call_copy = std::make_shared<ExecCall>(call);
    auto analysis_copy = std::make_shared<CommandAnalysis>(analysis);
    auto run_ended = std::make_shared<bool>(false);
    triaging_.emplace(call.run_id, run_ended);
    triage_(call, analysis, [this, shared, call_copy, analysis_copy, run_ended](Triage t) {
      if (*run_ended) {  // aborted meanwhile (cancel_run): nothing to decide, no one to ask
        spdlog::info("exec approval: smart triage of run {} answered after the run ended; dropped: {}",
                     call_copy->run_id, call_copy->command);
        return;
      }
      for (auto [it, end] = triaging_.equal_range(call_copy->run_id); it != end; ++it) {
        if (it->second == run_ended) {
          triaging_.erase(it);
          break;
        }
      }
      spdlog::info("exec approval: smart triage of run {}: {} ({}): {}", call_copy->run_id,
                   t.verdict.empty() ? "failed" : t.verdict, t.reason, call_copy->command);
      if (t.verdict == "safe") return (*shared)(std::nullopt);
      if (t.verdict == "dangerous") {
        return (*shared)("exec refused by the approval triage as dangerous: " + (t.reason.empty() ? "no reason given" : t.reason));
      }
      ask(std::move(*call_copy), *analysis_copy, std::move(*shared));
    });
    return;
  }
  ask(std::move(call), analysis, std::move(done));
}

void ApprovalManager::ask(ExecCall call, const CommandAnalysis& analysis, GateDone done) {
  if (shutting_down_) {
    spdlog::info("exec for run {} refused without asking: the gateway is shutting down: {}", call.run_id, call.command);
    return done(std::string(kShutdownDenied));
  }
  const int64_t timeout = settings_.timeout_ms;
  const std::string command = call.command;
  // Called from finish() on the loop while the manager lives: shutting_down_ tells a deny of the
  // shutdown from the owner's.
  request(std::move(call), timeout, [this, done = std::move(done), timeout, command](const std::string& decision) {
    if (decision == "allow-once" || decision == "allow-always") return done(std::nullopt);
    if (decision.empty()) {
      return done("exec denied: nobody answered the approval request within " + std::to_string(timeout / 1000) +
                  "s, so the command was not run.");
    }
    if (shutting_down_) return done(std::string(kShutdownDenied));
    done("exec denied: the owner refused to run this command.");
  });
  (void)analysis;
}

std::string ApprovalManager::request(ExecCall call, int64_t timeout_ms, std::function<void(const std::string&)> done) {
  auto p = std::make_unique<Pending>();
  p->id = ids::uuid_v4();
  do {
    p->code = short_code();
  } while (std::any_of(pending_.begin(), pending_.end(), [&](const auto& kv) { return kv.second->code == p->code; }));
  const CommandAnalysis analysis = analyse_command(call.command);
  std::vector<std::string> preflight = preflight_script(analysis, call.cwd);
  p->risky = analysis.risky() || !preflight.empty();
  for (const auto& c : analysis.commands) {
    if (!c.text.empty()) p->patterns.push_back(c.text);
  }
  p->created_ms = clock_.wall_ms();
  p->expires_ms = p->created_ms + timeout_ms;
  const auto [security, ask_mode] = effective_policy(call);
  json argv = json::array();
  for (const auto& c : analysis.commands) argv.push_back(c.argv);
  json env = json::object();
  for (const auto& [k, v] : call.env) env[k] = v;
  p->request = {{"command", call.command},
                {"commandArgv", {"/bin/sh", "-c", call.command}},
                {"commands", argv},
                {"cwd", call.cwd.string()},
                {"env", env},
                {"agentId", call.agent_id},
                {"sessionKey", call.session_key},
                {"runId", call.run_id},
                {"host", "gateway"},
                {"security", security},
                {"ask", ask_mode},
                {"risks", analysis.risks},
                {"preflight", preflight},
                {"senderIsOwner", call.sender_is_owner},
                {"systemRunPlan", {{"argv", {"/bin/sh", "-c", call.command}}, {"cwd", call.cwd.string()},
                                   {"rawCommand", call.command}, {"agentId", call.agent_id},
                                   {"sessionKey", call.session_key}}}};
  if (!call.origin.channel.empty()) {
    p->request["turnSourceChannel"] = call.origin.channel;
    p->request["turnSourceTo"] = call.origin.chat_id;
    p->request["turnSourceAccountId"] = call.origin.account_id;
    if (!call.origin.thread_id.empty()) p->request["turnSourceThreadId"] = call.origin.thread_id;
    p->request["turnSourceSenderId"] = call.origin.sender_id;
  }
  p->call = std::move(call);
  p->done = std::move(done);
  const std::string id = p->id;
  if (shutting_down_) {  // nobody can answer any more: denied on the next turn of the loop
    p->timer = loop_.after(0, [this, id] { finish(id, "deny", "", "runtime", "shutdown"); });
  } else {
    p->timer = loop_.after(timeout_ms, [this, id] { finish(id, "", "timeout"); });
  }
  spdlog::info("exec approval {} (code {}) requested for run {} ({}): {}", id, p->code, p->call.run_id,
               p->call.session_key, p->call.command);
  json event = {{"id", id}, {"code", p->code}, {"request", p->request}, {"createdAtMs", p->created_ms},
                {"expiresAtMs", p->expires_ms}};
  pending_[id] = std::move(p);
  emit("exec.approval.requested", event);
  return id;
}

Status ApprovalManager::resolve(const std::string& id_or_code, const std::string& decision, const std::string& scope,
                                int64_t ttl_ms, const std::string& resolved_by, const std::string& resolver_kind,
                                const std::string& reason) {
  if (decision != "allow-once" && decision != "allow-always" && decision != "deny") {
    return Error{"INVALID_REQUEST", "decision must be allow-once, allow-always or deny (got \"" + decision + "\")"};
  }
  if (scope != "agent" && scope != "session") {
    return Error{"INVALID_REQUEST", "scope must be agent or session (got \"" + scope + "\")"};
  }
  auto it = pending_.find(id_or_code);
  if (it == pending_.end()) {
    it = std::find_if(pending_.begin(), pending_.end(), [&](const auto& kv) { return kv.second->code == id_or_code; });
  }
  if (it == pending_.end()) {
    return Error{"APPROVAL_NOT_FOUND", "no pending exec approval \"" + id_or_code + "\" (it may have expired or been answered)"};
  }
  Pending& p = *it->second;
  if (decision == "allow-always") {
    if (p.risky || scope == "session" || ttl_ms > 0) {
      // Risky commands never become patterns: an exact grant instead (TL-3).
      Grant g;
      g.id = ids::uuid_v4();
      g.minted_by = p.id;
      g.agent_id = p.call.agent_id;
      g.session_key = scope == "session" ? p.call.session_key : "";
      g.fingerprint = call_fingerprint(p.call);
      g.command = p.call.command;
      g.cwd = p.call.cwd.string();
      g.env = p.call.env;
      g.created_wall_ms = clock_.wall_ms();
      g.expires_steady_ms = ttl_ms > 0 ? clock_.steady_ms() + ttl_ms : 0;
      g.expires_wall_ms = ttl_ms > 0 ? g.created_wall_ms + ttl_ms : 0;
      drop_expired_grants();
      grants_.push_back(std::move(g));
    } else {
      for (const auto& pattern : p.patterns) file_.add_pattern(p.call.agent_id, pattern, clock_.wall_ms());
      if (auto st = file_.save(); !st) spdlog::error("exec approvals: cannot save {}: {}", file_.path().string(), st.error().message);
    }
  }
  const std::string id = it->first;  // a copy: finish() erases the entry that holds the key
  finish(id, decision, resolved_by, resolver_kind.empty() ? "runtime" : resolver_kind, reason.empty() ? "user" : reason);
  return Ok{};
}

void ApprovalManager::remember(const Pending& p, Ended ended) {
  ended.row = {{"id", p.id}, {"code", p.code}, {"request", p.request}, {"createdAtMs", p.created_ms},
               {"expiresAtMs", p.expires_ms}};
  ended.resolved_ms = clock_.wall_ms();
  ended_[p.id] = std::move(ended);
  ended_order_.push_back(p.id);
  if (ended_order_.size() > kMaxEnded) {
    ended_.erase(ended_order_.front());
    ended_order_.erase(ended_order_.begin());
  }
}

void ApprovalManager::finish(const std::string& id, const std::string& decision, const std::string& resolved_by,
                             const std::string& resolver_kind, const std::string& reason) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  std::unique_ptr<Pending> p = std::move(it->second);
  pending_.erase(it);
  loop_.cancel(p->timer);
  spdlog::info("exec approval {} for run {}: {}{}", id, p->call.run_id, decision.empty() ? "timed out (denied)" : decision,
               resolved_by.empty() ? "" : " by " + resolved_by);
  Ended ended;
  ended.decision = decision;
  if (decision.empty()) {  // the timer: nobody answered
    ended.status = "expired";
    ended.reason = "timeout";
  } else {
    ended.status = decision == "deny" ? "denied" : "allowed";
    ended.reason = reason.empty() ? "user" : reason;
    ended.resolved_by = resolved_by;
    ended.resolver_kind = resolver_kind.empty() ? "runtime" : resolver_kind;
  }
  remember(*p, std::move(ended));
  json event = {{"id", id}, {"decision", decision.empty() ? json(nullptr) : json(decision)}, {"ts", clock_.wall_ms()},
                {"request", p->request}};
  if (!resolved_by.empty()) event["resolvedBy"] = resolved_by;
  emit("exec.approval.resolved", event);
  if (p->done) p->done(decision);
  for (auto& w : p->waiters) w(decision);
}

json ApprovalManager::list() const {
  std::vector<const Pending*> rows;
  for (const auto& [id, p] : pending_) rows.push_back(p.get());
  std::sort(rows.begin(), rows.end(), [](const Pending* a, const Pending* b) { return a->created_ms < b->created_ms; });
  json out = json::array();
  for (const Pending* p : rows) {
    out.push_back({{"id", p->id}, {"code", p->code}, {"request", p->request}, {"createdAtMs", p->created_ms},
                   {"expiresAtMs", p->expires_ms}});
  }
  return out;
}

json ApprovalManager::get(const std::string& id) const {
  auto it = pending_.find(id);
  if (it == pending_.end()) return nullptr;
  const Pending& p = *it->second;
  return {{"id", p.id}, {"code", p.code}, {"request", p.request}, {"createdAtMs", p.created_ms}, {"expiresAtMs", p.expires_ms}};
}

json ApprovalManager::record(const std::string& id) const {
  if (json row = get(id); !row.is_null()) {
    row["status"] = "pending";
    return row;
  }
  auto it = ended_.find(id);
  if (it == ended_.end()) return nullptr;
  const Ended& e = it->second;
  json row = e.row;
  row["status"] = e.status;
  row["reason"] = e.reason;
  row["decision"] = e.decision.empty() ? json(nullptr) : json(e.decision);
  row["resolvedAtMs"] = e.resolved_ms;
  row["resolvedBy"] = e.resolved_by;
  row["resolverKind"] = e.resolver_kind;
  return row;
}

void ApprovalManager::cancel_run(const std::string& run_id) {
  for (auto [it, end] = triaging_.equal_range(run_id); it != end; ++it) *it->second = true;
  triaging_.erase(run_id);
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second->call.run_id != run_id) {
      ++it;
      continue;
    }
    loop_.cancel(it->second->timer);
    json event = {{"id", it->first}, {"decision", nullptr}, {"ts", clock_.wall_ms()}, {"request", it->second->request},
                  {"cancelled", true}};
    auto waiters = std::move(it->second->waiters);
    Ended ended;
    ended.status = "cancelled";
    ended.reason = "run-aborted";
    remember(*it->second, std::move(ended));
    it = pending_.erase(it);
    emit("exec.approval.resolved", event);
    for (auto& w : waiters) w("");
  }
}

void ApprovalManager::deny_all_for_shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  std::vector<std::string> ids;
  for (const auto& [id, p] : pending_) ids.push_back(id);
  if (!ids.empty()) spdlog::info("the gateway is shutting down: denying {} pending exec approval(s)", ids.size());
  for (const auto& id : ids) finish(id, "deny", "", "runtime", "shutdown");  // each one's run is told why
}

bool ApprovalManager::wait_decision(const std::string& id, std::function<void(const std::string&)> done) {
  if (auto r = ended_.find(id); r != ended_.end()) {
    done(r->second.decision);
    return true;
  }
  auto it = pending_.find(id);
  if (it == pending_.end()) return false;
  it->second->waiters.push_back(std::move(done));
  return true;
}

}  // namespace pincer::tools::approvals
