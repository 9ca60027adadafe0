// `pincer agent|status|health|sessions|models|channels status` and `pincer gateway call`: one-shot requests to a
// running gateway (UI-1); `channels status`'s display is channels_status.cpp. Data commands take --json (the gateway's payload, unchanged).
#include <future>
#include <iostream>
#include <iterator>
#include <memory>

#include "agent/agent_service.h"
#include "core/json5.h"
#include "llm/ndjson_parser.h"
#include "agent/agents_config.h"
#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "agent/silent_reply.h"
#include "app/channels_status.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "app/sessions_local.h"
#include "cli/chat_renderer.h"
#include "cli/config_checks.h"  // reload_off_note
#include "cli/invoked_command.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/redact.h"
#include "core/utf8.h"
#include "gateway/methods/agents.h"  // patch_config_file
#include "store/atomic_file.h"
#include "store/file_util.h"
#include "store/instance_lock.h"
#include "store/session_keys.h"

namespace pincer::app {
namespace {

using nlohmann::json;

std::string duration_text(int64_t ms) {
  int64_t s = ms / 1000;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  if (s < 86400) return std::to_string(s / 3600) + "h" + std::to_string((s % 3600) / 60) + "m";
  return std::to_string(s / 86400) + "d" + std::to_string((s % 86400) / 3600) + "h";
}

std::string age_text(int64_t now_ms, int64_t then_ms) {
  if (then_ms <= 0) return "-";
  return duration_text(std::max<int64_t>(0, now_ms - then_ms)) + " ago";
}

// ---- health / status ---------------------------------------------------------------------------

int run_health(const ClientFlags& f) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("health", json::object(), f.timeout());
    if (!r) return request_failed("health", r.error());
    if (f.json) return print_json(*r);
    std::cout << (r->value("ok", false) ? "ok" : "NOT OK") << " · pincer " << r->value("version", "?") << " · up "
              << duration_text(r->value("uptimeMs", int64_t{0})) << " · "
              << (*r)["connections"].value("clients", 0) << " client(s) · " << f.url_shown << "\n";
    // set-heartbeats {enabled:false} pauses every beat while the gateway runs: say so (AT-1).
    for (const auto& agent : r->value("agents", json::array())) {
      const json beat = agent.value("heartbeat", json::object());
      if (!beat.is_object() || !beat.value("enabled", false) || !beat.value("paused", false)) continue;
      std::cout << "heartbeats paused (set-heartbeats); resume them with: " << cli::invoked_command()
                << " gateway call set-heartbeats --params '{\"enabled\":true}'\n";
      break;
    }
    return r->value("ok", false) ? 0 : 1;
  });
}

int run_status(const ClientFlags& f) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("status", json::object(), f.timeout());
    if (!r) return request_failed("status", r.error());
    if (f.json) return print_json(*r);
    const json& gw = (*r)["gateway"];
    std::cout << "Gateway   " << f.url_shown << " (pid " << r->value("pid", 0) << ", up "
              << duration_text(r->value("uptimeMs", int64_t{0})) << ", pincer " << r->value("version", "?") << ")\n"
              << "Bind      " << gw.value("bind", "?") << ":" << gw.value("port", 0) << ", auth " << gw.value("authMode", "?") << "\n"
              << "Clients   " << (*r)["connections"].value("clients", 0) << "\n"
              << "Sessions  " << (*r)["sessions"].value("count", 0) << "\n";
    if (const json d = (*r)["sessions"].value("defaults", json::object()); d.value("contextTokens", json()).is_number()) {
      std::cout << "Context   " << d["contextTokens"].get<int64_t>() << " tokens ("
                << (d.contains("model") && d["model"].is_string() ? d["model"].get<std::string>() : "") << ")\n";
      if (d.contains("contextWarning")) std::cout << "Warning   " << d.value("contextWarning", "") << "\n";
    }
    // AT-1: each agent's heartbeat: its interval, the next beat and how the last one ended.
    const int64_t now = r->value("ts", int64_t{0});
    for (const auto& hb : (*r)["heartbeat"].value("agents", json::array())) {
      std::cout << "Heartbeat " << cli::terminal_safe(hb.value("agentId", "?")) << ": ";
      if (!hb.value("enabled", false)) {
        std::cout << "off\n";
        continue;
      }
      if (hb.value("paused", false)) {  // set-heartbeats {enabled:false}, until resumed or restarted
        std::cout << "paused (set-heartbeats; every " << cli::terminal_safe(hb.value("every", "?")) << " once resumed)\n";
        continue;
      }
      std::cout << "every " << cli::terminal_safe(hb.value("every", "?"));
      if (hb.value("nextDueAtMs", json()).is_number_integer())
        std::cout << ", next in " << duration_text(std::max<int64_t>(0, hb["nextDueAtMs"].get<int64_t>() - now));
      if (hb.value("lastStatus", json()).is_string()) {
        std::cout << ", last " << cli::terminal_safe(hb["lastStatus"].get<std::string>());
        if (hb.value("lastReason", json()).is_string()) std::cout << " (" << cli::terminal_safe(hb["lastReason"].get<std::string>()) << ")";
        if (hb.value("lastRunAtMs", json()).is_number_integer())
          std::cout << " " << duration_text(std::max<int64_t>(0, now - hb["lastRunAtMs"].get<int64_t>())) << " ago";
      }
      std::cout << "\n";
    }
    std::cout
              << "Config    " << r->value("configPath", "") << "\n"
              << "State     " << r->value("stateDir", "") << "\n"
              << "Log       " << r->value("logFile", "") << "\n";
    // The config the gateway runs may not be the file (a rejected reload): say so and how to fix it.
    const json cfg = r->value("config", json::object());
    if (const json rejected = cfg.value("lastRejectedReload", json()); rejected.is_object() && !cfg.value("matchesFile", true)) {
      std::cout << "Warning   the gateway runs an older config: its reload of " << r->value("configPath", "")
                << " was rejected: " << rejected.value("reason", "") << "\n"
                << "          fix: " << rejected.value("fix", "") << "\n";
    } else if (!cfg.value("matchesFile", true)) {  // not applied: reload.mode "off", or a reload about to happen
      if (const std::string off = cli::reload_off_note(r->value("configPath", ""), config::process_env()); !off.empty()) {
        std::cout << "Warning   the gateway runs an older config than the file: " << off << "\n";
      }
    }
    return 0;
  });
}

// ---- agent -------------------------------------------------------------------------------------

struct AgentFlags {
  std::string message, agent_id, session_key, thinking;
  bool local = false;
};

void print_agent_reply(const json& final_payload) {
  for (const auto& p : final_payload["result"].value("payloads", json::array())) {
    std::cout << cli::terminal_safe(p.value("text", "")) << "\n";  // model text: no terminal escapes
  }
}

// Ctrl-C aborts the run on the gateway (the partial reply is printed); a second Ctrl-C quits.
// An exec of this run that waits for the owner's approval (TL-3) is said on stderr, with how to
// answer it, instead of a silent wait (called on the client's I/O thread).
void print_approval_wait(const std::string& run_id, const std::string& event, const json& payload) {
  if (event != "exec.approval.requested" || !payload.is_object()) return;
  const json request = payload.value("request", json::object());
  if (!request.is_object() || request.value("runId", "") != run_id) return;
  const std::string id = cli::terminal_safe(payload.value("id", ""));
  std::cerr << "pincer: waiting for approval to run: " << cli::terminal_safe(request.value("command", "")) << "\n"
            << "  answer it in the web chat, or:\n"
            << "    " + cli::invoked_command() + " gateway call exec.approval.resolve --params '{\"id\":\"" << id
            << "\",\"decision\":\"allow-once\"}'   (or allow-always, deny)\n"
            << std::flush;
}

int run_agent_remote(const ClientFlags& f, const AgentFlags& a) {
  const std::string run_id = ids::uuid_v4();
  auto on_event = [run_id](const std::string& event, const json& payload) { print_approval_wait(run_id, event, payload); };
  return with_gateway(f, [&](cli::GatewayClient& client) {
    json params = {{"message", a.message}, {"idempotencyKey", run_id}};
    if (!a.agent_id.empty()) params["agentId"] = a.agent_id;
    if (!a.session_key.empty()) params["sessionKey"] = a.session_key;
    if (!a.thinking.empty()) params["thinking"] = a.thinking;
    std::string session_key = a.session_key.empty() ? "main" : a.session_key;
    if (!a.agent_id.empty() && session_key.rfind("agent:", 0) != 0) session_key = "agent:" + a.agent_id + ":" + session_key;

    InterruptCounter interrupts;
    auto answer = std::make_shared<std::promise<Result<json>>>();  // outlives an early return
    auto result = answer->get_future();
    client.call_async("agent", params, [answer](Result<json> r) { answer->set_value(std::move(r)); }, /*until_final=*/true);
    const auto deadline = std::chrono::steady_clock::now() + f.timeout();
    bool abort_sent = false;
    while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (InterruptCounter::count() >= 2) return 130;
      if (InterruptCounter::count() == 1 && !abort_sent) {
        abort_sent = true;
        std::cerr << "\npincer: aborting the run (Ctrl-C again to quit)\n";
        client.call_async("chat.abort", {{"sessionKey", session_key}, {"runId", run_id}});
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return request_failed("agent", Error{"TIMEOUT", "no answer within the timeout; the run goes on in the gateway"});
      }
    }
    auto r = result.get();
    if (!r && abort_sent) return fail(130, "run aborted", "ABORTED");
    if (!r && r.error().code == "GATEWAY_STOPPING") {
      // The run journal keeps an accepted message (GW-10): it is answered after the next start.
      return fail(1, r.error().message + "; your message is kept and is answered when the gateway starts again (" +
                         "see the reply with: " + cli::invoked_command() + " sessions show " + session_key + ")", r.error().code);
    }
    if (!r && r.error().code == "CLOSED") {  // killed or crashed mid-run: the journal resumes it (SS-6)
      return fail(1, "agent: " + r.error().message + ": the gateway went away during the run; a message it had " +
                         "accepted is resumed when it starts again (see the reply with: " + cli::invoked_command() + " sessions show " +
                         session_key + ")", r.error().code);
    }
    // The gateway refused an argument (an unknown --agent, a session key it does not take …):
    // invalid arguments, exit 2, as `chat --agent` exits for the same agent (docs/cli.md).
    if (!r && r.error().code == "INVALID_REQUEST") {
      return fail(2, "agent: " + r.error().message + (f.json ? "" : " [INVALID_REQUEST]"), r.error().code);
    }
    if (!r) return request_failed("agent", r.error());
    if (f.json) print_json(*r);
    else print_agent_reply(*r);
    if (abort_sent) return 130;
    // A slash command that failed (an unknown model, a bad /tree id …) is a failure for scripts too.
    const json& meta = r->contains("result") && (*r)["result"].is_object() ? (*r)["result"].value("meta", json::object()) : json();
    return r->value("summary", "") == "command" && meta.is_object() && meta.value("ok", true) == false ? 1 : 0;
  }, on_event);
}

// --local: the agent runs in this process against the same state dir, without a gateway.
int run_agent_local(const ClientFlags& f, const AgentFlags& a) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  // The gateway owns the state dir while it runs (GW-1): two writers would lose session updates.
  auto lock = store::InstanceLock::acquire(paths::gateway_lock_file(state));
  if (!lock) {
    // Only a lock held by a gateway means one runs; a read-only or missing state dir is said as it is.
    if (lock.error().code == "GATEWAY_ALREADY_RUNNING") {
      return fail(1, "the gateway is running on this state dir; drop --local to send the turn through it");
    }
    return fail(1, "--local needs to write the state dir " + state.string() + ": " + lock.error().message);
  }
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) return fail(2, loaded.error().message);
  for (const auto& secret : config::sensitive_values(loaded->effective)) redact::add_secret(secret);
  log::Options log_options;
  log_options.level = "warn";  // stdout is the reply; problems go to stderr
  (void)log::init(log_options);
  EventLoop loop;
  agent::AgentService agents(loop, SystemClock::instance(), loaded->effective, state);
  int code = 0;
  json final_payload;
  agent::SendRequest req{a.session_key.empty() ? "main" : a.session_key, a.agent_id, a.message, ids::uuid_v4(), a.thinking,
                         agent::RunLane::Main};
  // A skill command ("/summarize …", agent/skill_command_input.h) is the model's instruction to use that skill.
  if (auto skill = agent::expand_skill_command(req.message, agents.canonical_key(req.session_key, a.agent_id))) {
    req.message = std::move(*skill);
  }
  loop.post([&] {
    if (auto command = agent::parse_chat_command(req.message)) {  // the same commands as every chat surface
      agent::CommandContext context{agents, agents.canonical_key(req.session_key, a.agent_id), {}};
      context.may_change_config = true;  // the user at this terminal owns pincer.json (/dreaming on|off)
      context.patch_config = [file = loaded->path](const json& patch) { return gateway::patch_config_file(file, patch); };
      auto answered = [&, session = context.session_key, name = command->command->name](const agent::CommandReply& r) {
        if (!f.json) std::cout << r.text << "\n";
        if (!final_payload.is_object()) {
          final_payload = {{"status", "ok"}, {"summary", "command"},
                           {"result", {{"payloads", json::array()}, {"meta", {{"sessionKey", session}, {"command", name}}}}}};
        }
        final_payload["result"]["payloads"].push_back(json{{"text", r.text}});
        final_payload["result"]["meta"]["ok"] = r.ok;
        code = r.ok ? 0 : 1;
      };
      // /compact, /tree ID: the process waits for the queued work and prints its result too.
      context.follow_up = [&, answered](const agent::CommandReply& later) {
        answered(later);
        loop.stop();
      };
      const agent::CommandReply reply = agent::run_chat_command(*command, context);
      answered(reply);
      if (!reply.follows) loop.stop();
      return;
    }
    // A silent reply (NO_REPLY) prints nothing, as through the gateway (agent/silent_reply.h).
    auto accepted = agents.send(req, agent::without_silent_replies([&, step = std::string(), printed = false](
                                                                       const agent::RunEvent& e) mutable {
      using K = agent::RunEvent::Kind;
      const auto print = [&](std::string_view text) {
        if (f.json || text.empty()) return;
        std::cout << cli::terminal_safe(std::string(text)) << std::flush;
        printed = true;
      };
      if (e.kind == K::AssistantDelta) {
        print(e.delta);
        step = e.text;
      }
      if (e.kind == K::ToolStart) step.clear();
      if (e.kind == K::End) {
        if (e.text.starts_with(step)) print(std::string_view(e.text).substr(step.size()));  // the rest held back
        if (printed) std::cout << "\n";
        final_payload = {{"runId", e.run_id}, {"status", "ok"},
                         {"result", {{"payloads", e.text.empty() ? json::array() : json::array({json{{"text", e.text}}})},
                                     {"meta", {{"sessionKey", e.session_key}, {"agentId", e.agent_id},
                                               {"provider", e.provider}, {"model", e.model}, {"stopReason", e.stop_reason}}}}}};
        loop.stop();
      } else if (e.kind == K::Error || e.kind == K::Aborted) {
        if (!f.json) std::cerr << "\n";  // after the reply's text so far
        code = fail(1, "agent: " + (e.kind == K::Error ? e.error : "aborted (" + e.stop_reason + ")"),
                    e.kind == K::Error ? "AGENT_ERROR" : "ABORTED");
        loop.stop();
      }
    }));
    if (!accepted) {
      code = fail(1, "agent: " + accepted.error().message, accepted.error().code);
      loop.stop();
    }
  });
  loop.run();
  // With --json the reply, or a command's answer even when it failed (as through the gateway).
  if (f.json && final_payload.is_object()) print_json(final_payload);
  return code;
}

// ---- sessions / models -------------------------------------------------------------------------

int print_sessions_list(const ClientFlags& f, const json& r) {
  if (f.json) return print_json(r);
  const auto& rows = r["sessions"];
  if (rows.empty()) {
    std::cout << "No sessions yet. Start one with: " + cli::invoked_command() + " chat\n";
    return 0;
  }
  const int64_t now = r.value("ts", int64_t{0});
  for (const auto& s : rows) {
    std::cout << cli::terminal_safe(s.value("key", "?")) << "  " << age_text(now, s.value("updatedAt", int64_t{0}));
    if (s.contains("model") && s["model"].is_string()) std::cout << "  " << cli::terminal_safe(s["model"].get<std::string>());
    if (s.contains("totalTokens") && s["totalTokens"].is_number()) std::cout << "  " << s["totalTokens"] << " tokens";
    std::cout << "\n";
  }
  return 0;
}

int print_session(const ClientFlags& f, const std::string& key, const json& r, bool startup_context) {
  // No such session: the same error and exit code with --json ({"ok":false,"error":…}, JsonErrors).
  if (!r.contains("sessionId")) {
    return fail(1, "no session \"" + cli::terminal_safe(key) + "\" (" + r.value("sessionKey", key) + "); see " +
                       cli::invoked_command() + " sessions list", "NOT_FOUND");
  }
  if (f.json) return print_json(r);
  for (const auto& m : r["messages"]) {
    const std::string role = m.value("role", "?");
    // The conversation only: the model's hidden context (the startup context's notes, CX-2) is
    // shown with --startup-context; branch and compaction summaries are the model's, not turns.
    if (role == "branchSummary" || role == "compactionSummary") continue;
    if (role == "custom" && m.value("display", true) == false && !startup_context) continue;
    std::cout << (role == "user" ? "you" : role == "assistant" ? "agent" : cli::terminal_safe(role)) << ": "
              << cli::terminal_safe(history_text(m)) << "\n";
  }
  return 0;
}

// Sessions are local files: without a running gateway these read them directly (offline data).
int run_sessions_list(const ClientFlags& f, int limit) {
  return with_gateway_or_local(
      f,
      [&](cli::GatewayClient& client) {
        json params = json::object();
        if (limit > 0) params["limit"] = limit;
        auto r = client.call("sessions.list", params, f.timeout());
        if (!r) return request_failed("sessions.list", r.error());
        return print_sessions_list(f, *r);
      },
      [&] {
        const auto state = paths::state_dir(config::process_env());
        return print_sessions_list(f, local_sessions_list(state, limit, SystemClock::instance().wall_ms()));
      });
}

int run_sessions_show(const ClientFlags& f, const std::string& key, int limit, bool startup_context) {
  return with_gateway_or_local(
      f,
      [&](cli::GatewayClient& client) {
        json params = {{"sessionKey", key}, {"limit", limit}};
        if (startup_context) params["includeHidden"] = true;  // the startup context is display:false
        auto r = client.call("chat.history", params, f.timeout());
        if (!r) return request_failed("chat.history", r.error());
        return print_session(f, key, *r, startup_context);
      },
      [&] {
        const auto env = config::process_env();
        const auto state = paths::state_dir(env);
        // The default agent names "main"; a config that cannot be read leaves OpenClaw's default.
        std::string default_agent = "main";
        if (auto loaded = config::load(paths::config_file(state), env)) {
          if (auto agents = agent::resolve_agents(loaded->effective, state, env)) default_agent = agents->default_id;
        }
        auto r = local_session_history(state, default_agent, key, limit);
        if (!r) return request_failed("sessions show", r.error());
        return print_session(f, key, *r, startup_context);
      });
}

int run_sessions_reset(const ClientFlags& f, const std::string& key) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("sessions.reset", {{"key", key}}, f.timeout());
    if (!r) return request_failed("sessions.reset", r.error());
    if (f.json) return print_json(*r);
    std::cout << "Reset " << r->value("key", key) << " (previous transcript archived)\n";
    return 0;
  });
}

int run_models_list(const ClientFlags& f) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("models.list", json::object(), f.timeout());
    if (!r) return request_failed("models.list", r.error());
    if (f.json) return print_json(*r);
    const auto& models = (*r)["models"];
    if (models.empty()) std::cout << "No models configured. Add a provider with: " + cli::invoked_command() + " onboard\n";
    for (const auto& m : models) {
      std::cout << m.value("provider", "?") << "/" << m.value("id", "?");
      if (m.contains("contextWindow")) std::cout << "  ctx " << m["contextWindow"];
      std::cout << "\n";
    }
    return 0;
  });
}

int run_call(const ClientFlags& f, const std::string& method, const std::string& params_arg, bool until_final) {
  if (method.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(2, "gateway call: the method name is empty: give one, e.g. " + cli::invoked_command() + " gateway call health");
  }
  // `--params -` reads standard input, `--params @FILE` a file: an image attachment does not fit
  // on a command line (the kernel's argument limit is ~128 KiB).
  std::string params_text = params_arg;
  if (params_arg == "-") {
    params_text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else if (params_arg.size() > 1 && params_arg[0] == '@') {
    auto text = store::read_file(params_arg.substr(1), 64u << 20);
    if (!text) return fail(2, "--params " + params_arg + ": " + text.error().message);
    params_text = std::move(*text);
  }
  json params = json::object();
  if (!params_text.empty()) {
    const std::string flag = "--params" + (params_arg == "-" || params_arg[0] == '@' ? " " + params_arg : std::string());
    // Deeper values would crash the CLI when sent (copied and dumped recursively): the config's limit.
    if (llm::json_nesting_exceeds(params_text, json5::kMaxDepth)) {
      return fail(2, flag + ": nesting too deep (more than " + std::to_string(json5::kMaxDepth) + " levels)");
    }
    try {
      params = json::parse(params_text);
    } catch (const json::parse_error& e) {  // where it stopped and why
      return fail(2, flag + ": not valid JSON at " + store::parse_error_line_col(params_text, e.byte) + " (line:column): " +
                         store::short_parse_error(e.what()) + "; expected a JSON object such as '{\"sessionKey\": \"main\"}'");
    } catch (const json::exception& e) {
      return fail(2, flag + ": not valid JSON: " + store::short_parse_error(e.what()));
    }
    if (!params.is_object()) {
      return fail(2, flag + ": expected a JSON object ({…}), got " + std::string(params.type_name()) +
                         " (the method's parameters are named: '{\"key\": value}')");
    }
  }
  return with_gateway(f, [&](cli::GatewayClient& client) {
    std::string error_class;  // the answer's error.code; r's code is its details.code when it has one
    auto r = client.call(method, params, f.timeout(), until_final, &error_class);
    // The gateway found the method or its parameters invalid: exit 2, as for a bad argument
    // (docs/cli.md) — INVALID_REQUEST as the answer's code, also with a more specific details.code
    // (cron's CRON_JOB_NOT_FOUND, an unknown agent id), or as the details.code of another class.
    if (!r && (error_class == "INVALID_REQUEST" || r.error().code == "INVALID_REQUEST")) {
      return fail(2, method + ": " + r.error().message + " [" + r.error().code + "]");
    }
    if (!r) return request_failed(method, r.error());
    return print_json(*r);
  });
}

}  // namespace

void register_client_commands(CLI::App& app, Action& action) {
  // health / status
  {
    auto f = std::make_shared<ClientFlags>();
    auto* cmd = app.add_subcommand("health", "Ask the running gateway whether it is healthy");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f] {
      JsonErrors json_errors(f->json);  // --json: an error (unreachable, refused) is JSON on stdout too
      return run_health(*f);
    });
  }
  {
    auto f = std::make_shared<ClientFlags>();
    auto* cmd = app.add_subcommand("status", "Show the running gateway's status");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f] {
      JsonErrors json_errors(f->json);
      return run_status(*f);
    });
  }
  // agent
  {
    auto f = std::make_shared<ClientFlags>();
    auto a = std::make_shared<AgentFlags>();
    f->conn.timeout_ms = 600'000;
    auto* cmd = app.add_subcommand("agent", "Run one agent turn and print the reply");
    cmd->add_option("-m,--message", a->message, "The message to send (- reads it from standard input)")->required();
    cmd->add_option("--agent", a->agent_id, "Agent id (default: the default agent)");
    cmd->add_option("--session", a->session_key, "Session key (default: main)")->check(session_key_check());
    cmd->add_option("--thinking", a->thinking, "Thinking level: off|minimal|low|medium|high|xhigh")->check(thinking_level_check());
    cmd->add_flag("--local", a->local, "Run the agent in this process, without a gateway");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f, a] {
      JsonErrors json_errors(f->json);  // --json: an error is JSON on stdout too
      if (a->message == "-") {  // a long message from stdin: pincer agent -m - < notes.md
        a->message.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        if (const std::string problem = utf8::describe_invalid(a->message); !problem.empty()) {
          return fail(2, "--message -: standard input is not UTF-8 text (" + problem + ")");
        }
      }
      if (!a->session_key.empty()) {
        if (auto problem = store::session_key_problem(a->session_key)) return fail(2, "--session: " + *problem);
      }
      if (agent::is_blank_message(a->message)) {
        return fail(2, "--message: empty; give the text to send (or - to read it from standard input)");
      }
      return a->local ? run_agent_local(*f, *a) : run_agent_remote(*f, *a);
    });
  }
  // sessions
  {
    auto* sessions = app.add_subcommand("sessions", "List, show and reset sessions");
    sessions->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto limit = std::make_shared<int>(0);
    auto* list = sessions->add_subcommand("list", "List sessions, newest first");
    list->add_option("--limit", *limit, "At most this many")->check(whole_number_check(1, 100000, "sessions", "N"));
    add_client_flags(list, *f);
    on_parsed(list, action, [f, limit] {
      JsonErrors json_errors(f->json);
      return run_sessions_list(*f, *limit);
    });

    auto fs = std::make_shared<ClientFlags>();
    auto key = std::make_shared<std::string>();
    auto show_limit = std::make_shared<int>(50);
    auto* show = sessions->add_subcommand("show", "Print a session's recent messages");
    show->add_option("key", *key, "Session key (e.g. main)")->required();
    show->add_option("--limit", *show_limit, "Last N messages (default 50)")->check(whole_number_check(1, 1000, "messages", "N"));
    auto startup = std::make_shared<bool>(false);
    show->add_flag("--startup-context", *startup, "Also print the notes the session started with (hidden from the chat)");
    add_client_flags(show, *fs);
    on_parsed(show, action, [fs, key, show_limit, startup] {
      JsonErrors json_errors(fs->json);
      return run_sessions_show(*fs, *key, *show_limit, *startup);
    });

    auto fr = std::make_shared<ClientFlags>();
    auto reset_key = std::make_shared<std::string>();
    auto* reset = sessions->add_subcommand("reset", "Start a session over (the old transcript is archived)");
    reset->add_option("key", *reset_key, "Session key (e.g. main)")->required();
    add_client_flags(reset, *fr);
    on_parsed(reset, action, [fr, reset_key] {
      JsonErrors json_errors(fr->json);
      return run_sessions_reset(*fr, *reset_key);
    });
  }
  // models
  {
    auto* models = app.add_subcommand("models", "Inspect the configured models");
    models->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto* list = models->add_subcommand("list", "List the models the gateway can use");
    add_client_flags(list, *f);
    on_parsed(list, action, [f] {
      JsonErrors json_errors(f->json);
      return run_models_list(*f);
    });
  }
  // channels
  {
    auto* channels = app.add_subcommand("channels", "Inspect the chat platform channels");
    channels->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto* status = channels->add_subcommand("status", "Each channel account: running, bot, last error");
    auto probe = std::make_shared<bool>(false);
    status->add_flag("--probe", *probe, "Also check each account against its platform now (e.g. Telegram getMe)");
    add_client_flags(status, *f);
    on_parsed(status, action, [f, probe] {
      JsonErrors json_errors(f->json);
      return run_channels_status(*f, *probe);
    });
  }
  // gateway call (raw RPC, as `openclaw gateway call`)
  {
    auto* gateway = app.get_subcommand("gateway");
    auto f = std::make_shared<ClientFlags>();
    auto method = std::make_shared<std::string>();
    auto params = std::make_shared<std::string>();
    auto final_only = std::make_shared<bool>(false);
    auto* call = gateway->add_subcommand("call", "Call any gateway method and print its JSON result");
    call->add_option("method", *method, "Method name, e.g. health")->required();
    call->add_option("--params", *params, "Parameters as a JSON object; @FILE reads a file, - standard input");
    call->add_flag("--expect-final", *final_only, "Wait past an 'accepted' ack for the final response (agent)");
    add_client_flags(call, *f, /*json_flag=*/false);
    on_parsed(call, action, [f, method, params, final_only] { return run_call(*f, *method, *params, *final_only); });
  }
}

}  // namespace pincer::app
