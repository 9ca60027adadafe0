// `pincer agent|status|health|sessions|models|channels status` and `pincer gateway call`: one-shot requests to a
// running gateway (UI-1). Data commands take --json (the gateway's payload, unchanged).
#include <iostream>
#include <memory>

#include "agent/agent_service.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/chat_renderer.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/paths.h"
#include "store/instance_lock.h"

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
              << "Sessions  " << (*r)["sessions"].value("count", 0) << "\n"
              << "Config    " << r->value("configPath", "") << "\n"
              << "State     " << r->value("stateDir", "") << "\n"
              << "Log       " << r->value("logFile", "") << "\n";
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

int run_agent_remote(const ClientFlags& f, const AgentFlags& a) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    json params = {{"message", a.message}, {"idempotencyKey", ids::uuid_v4()}};
    if (!a.agent_id.empty()) params["agentId"] = a.agent_id;
    if (!a.session_key.empty()) params["sessionKey"] = a.session_key;
    if (!a.thinking.empty()) params["thinking"] = a.thinking;
    auto r = client.call("agent", params, f.timeout(), /*until_final=*/true);
    if (!r) return request_failed("agent", r.error());
    if (f.json) return print_json(*r);
    print_agent_reply(*r);
    return 0;
  });
}

// --local: the agent runs in this process against the same state dir, without a gateway.
int run_agent_local(const ClientFlags& f, const AgentFlags& a) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  // The gateway owns the state dir while it runs (GW-1): two writers would lose session updates.
  auto lock = store::InstanceLock::acquire(paths::gateway_lock_file(state));
  if (!lock) return fail(1, "the gateway is running on this state dir; drop --local to send the turn through it");
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) return fail(2, loaded.error().message);
  log::Options log_options;
  log_options.level = "warn";  // stdout is the reply; problems go to stderr
  (void)log::init(log_options);
  EventLoop loop;
  agent::AgentService agents(loop, SystemClock::instance(), loaded->effective, state);
  int code = 0;
  json final_payload;
  agent::SendRequest req{a.session_key.empty() ? "main" : a.session_key, a.agent_id, a.message, ids::uuid_v4(), a.thinking};
  loop.post([&] {
    auto accepted = agents.send(req, [&](const agent::RunEvent& e) {
      using K = agent::RunEvent::Kind;
      if (e.kind == K::AssistantDelta && !f.json) std::cout << cli::terminal_safe(e.delta) << std::flush;
      if (e.kind == K::End) {
        if (!f.json) std::cout << "\n";
        final_payload = {{"runId", e.run_id}, {"status", "ok"},
                         {"result", {{"payloads", json::array({json{{"text", e.text}}})},
                                     {"meta", {{"sessionKey", e.session_key}, {"agentId", e.agent_id},
                                               {"provider", e.provider}, {"model", e.model}, {"stopReason", e.stop_reason}}}}}};
        loop.stop();
      } else if (e.kind == K::Error || e.kind == K::Aborted) {
        std::cerr << "\npincer: agent: " << (e.kind == K::Error ? e.error : "aborted (" + e.stop_reason + ")") << "\n";
        code = 1;
        loop.stop();
      }
    });
    if (!accepted) {
      std::cerr << "pincer: agent: " << accepted.error().message << "\n";
      code = 1;
      loop.stop();
    }
  });
  loop.run();
  if (code == 0 && f.json) print_json(final_payload);
  return code;
}

// ---- sessions / models -------------------------------------------------------------------------

int run_sessions_list(const ClientFlags& f, int limit) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    json params = json::object();
    if (limit > 0) params["limit"] = limit;
    auto r = client.call("sessions.list", params, f.timeout());
    if (!r) return request_failed("sessions.list", r.error());
    if (f.json) return print_json(*r);
    const auto& rows = (*r)["sessions"];
    if (rows.empty()) {
      std::cout << "No sessions yet. Start one with: pincer chat\n";
      return 0;
    }
    const int64_t now = r->value("ts", int64_t{0});
    for (const auto& s : rows) {
      std::cout << cli::terminal_safe(s.value("key", "?")) << "  " << age_text(now, s.value("updatedAt", int64_t{0}));
      if (s.contains("model") && s["model"].is_string()) std::cout << "  " << cli::terminal_safe(s["model"].get<std::string>());
      if (s.contains("totalTokens") && s["totalTokens"].is_number()) std::cout << "  " << s["totalTokens"] << " tokens";
      std::cout << "\n";
    }
    return 0;
  });
}

int run_sessions_show(const ClientFlags& f, const std::string& key, int limit) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("chat.history", {{"sessionKey", key}, {"limit", limit}}, f.timeout());
    if (!r) return request_failed("chat.history", r.error());
    if (f.json) return print_json(*r);
    for (const auto& m : (*r)["messages"]) {
      const std::string role = m.value("role", "?");
      std::cout << (role == "user" ? "you" : role == "assistant" ? "agent" : cli::terminal_safe(role)) << ": "
                << cli::terminal_safe(message_text(m)) << "\n";
    }
    return 0;
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
    if (models.empty()) std::cout << "No models configured. Add a provider with: pincer onboard\n";
    for (const auto& m : models) {
      std::cout << m.value("provider", "?") << "/" << m.value("id", "?");
      if (m.contains("contextWindow")) std::cout << "  ctx " << m["contextWindow"];
      std::cout << "\n";
    }
    return 0;
  });
}

int run_channels_status(const ClientFlags& f) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("channels.status", json::object(), f.timeout());
    if (!r) return request_failed("channels.status", r.error());
    if (f.json) return print_json(*r);
    const auto& list = (*r)["channels"];
    if (list.empty()) std::cout << "No channels configured (see docs/channels.md).\n";
    for (const auto& c : list) {
      std::cout << c.value("channel", "?") << "[" << c.value("accountId", "default") << "]  "
                << (c.value("running", false) ? "running" : "stopped");
      if (c.contains("bot") && !c["bot"].get<std::string>().empty()) std::cout << "  @" << c["bot"].get<std::string>();
      if (c.contains("lastError")) std::cout << "  last error: " << c["lastError"].get<std::string>();
      std::cout << "\n";
    }
    return 0;
  });
}

int run_call(const ClientFlags& f, const std::string& method, const std::string& params_text, bool until_final) {
  json params = json::object();
  if (!params_text.empty()) {
    params = json::parse(params_text, nullptr, false);
    if (params.is_discarded() || !params.is_object()) return fail(2, "--params: expected a JSON object, got " + params_text);
  }
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call(method, params, f.timeout(), until_final);
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
    on_parsed(cmd, action, [f] { return run_health(*f); });
  }
  {
    auto f = std::make_shared<ClientFlags>();
    auto* cmd = app.add_subcommand("status", "Show the running gateway's status");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f] { return run_status(*f); });
  }
  // agent
  {
    auto f = std::make_shared<ClientFlags>();
    auto a = std::make_shared<AgentFlags>();
    f->conn.timeout_ms = 600'000;
    auto* cmd = app.add_subcommand("agent", "Run one agent turn and print the reply");
    cmd->add_option("-m,--message", a->message, "The message to send")->required();
    cmd->add_option("--agent", a->agent_id, "Agent id (default: the default agent)");
    cmd->add_option("--session", a->session_key, "Session key (default: main)");
    cmd->add_option("--thinking", a->thinking, "Thinking level")
        ->check(CLI::IsMember({"off", "minimal", "low", "medium", "high"}));
    cmd->add_flag("--local", a->local, "Run the agent in this process, without a gateway");
    add_client_flags(cmd, *f);
    on_parsed(cmd, action, [f, a] { return a->local ? run_agent_local(*f, *a) : run_agent_remote(*f, *a); });
  }
  // sessions
  {
    auto* sessions = app.add_subcommand("sessions", "List, show and reset sessions");
    sessions->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto limit = std::make_shared<int>(0);
    auto* list = sessions->add_subcommand("list", "List sessions, newest first");
    list->add_option("--limit", *limit, "At most this many")->check(CLI::Range(1, 100000));
    add_client_flags(list, *f);
    on_parsed(list, action, [f, limit] { return run_sessions_list(*f, *limit); });

    auto fs = std::make_shared<ClientFlags>();
    auto key = std::make_shared<std::string>();
    auto show_limit = std::make_shared<int>(50);
    auto* show = sessions->add_subcommand("show", "Print a session's recent messages");
    show->add_option("key", *key, "Session key (e.g. main)")->required();
    show->add_option("--limit", *show_limit, "Last N messages (default 50)")->check(CLI::Range(1, 1000));
    add_client_flags(show, *fs);
    on_parsed(show, action, [fs, key, show_limit] { return run_sessions_show(*fs, *key, *show_limit); });

    auto fr = std::make_shared<ClientFlags>();
    auto reset_key = std::make_shared<std::string>();
    auto* reset = sessions->add_subcommand("reset", "Start a session over (the old transcript is archived)");
    reset->add_option("key", *reset_key, "Session key (e.g. main)")->required();
    add_client_flags(reset, *fr);
    on_parsed(reset, action, [fr, reset_key] { return run_sessions_reset(*fr, *reset_key); });
  }
  // models
  {
    auto* models = app.add_subcommand("models", "Inspect the configured models");
    models->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto* list = models->add_subcommand("list", "List the models the gateway can use");
    add_client_flags(list, *f);
    on_parsed(list, action, [f] { return run_models_list(*f); });
  }
  // channels
  {
    auto* channels = app.add_subcommand("channels", "Inspect the chat platform channels");
    channels->require_subcommand(1);
    auto f = std::make_shared<ClientFlags>();
    auto* status = channels->add_subcommand("status", "Each channel account: running, bot, last error");
    add_client_flags(status, *f);
    on_parsed(status, action, [f] { return run_channels_status(*f); });
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
    call->add_option("--params", *params, "Parameters as a JSON object");
    call->add_flag("--expect-final", *final_only, "Wait past an 'accepted' ack for the final response (agent)");
    add_client_flags(call, *f, /*json_flag=*/false);
    on_parsed(call, action, [f, method, params, final_only] { return run_call(*f, *method, *params, *final_only); });
  }
}

}  // namespace pincer::app
