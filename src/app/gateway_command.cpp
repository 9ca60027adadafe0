#include "app/gateway_command.h"

#include "app/client_support.h"
#include "app/commands.h"
#include "app/config_reloader.h"

#include <algorithm>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "agent/silent_reply.h"
#include "agent/subagents.h"
#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "app/cron_runtime.h"
#include "app/heartbeat_runtime.h"
#include "app/channel_pairing_methods.h"
#include "app/hooks_runtime.h"
#include "app/mcp_runtime.h"  // MCP servers' tools (IX-2)
#include "interop/openai_http/openai_http_service.h"
#include "app/message_runtime.h"         // session tools + message tool (TL-1, MA-2)
#include "agent/session_tools_backend.h"  // (same)
#include "channels/channel_checks.h"
#include "channels/channel_manager.h"
#include "channels/dm_scope_check.h"
#include "cli/config_checks.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/paths.h"
#include "core/redact.h"
#include "core/secret_rules.h"
#include "gateway/methods/agents.h"  // patch_config_file
#include "gateway/net_server.h"
#include "gateway/protocol/constants.h"
#include "gateway/run_event_bridge.h"
#include "store/background_sync.h"
#include "store/atomic_file.h"
#include "store/instance_lock.h"
#include "tools/process_guard.h"

namespace pincer::app {
namespace {

using nlohmann::json;

bool is_loopback_host(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost" || host.rfind("127.", 0) == 0;
}

/// First run: no pincer.json and no token from flags/env. Writes a config with a fresh random
/// token so that the gateway is never started without auth by accident, and the address the
/// gateway was started with (--port, --bind, --host), so that the CLI's later commands, which read
/// the file, find it there (--port 0, "any free port", keeps 18789).
Result<std::string> create_first_config(const std::filesystem::path& path, const GatewayRunFlags& flags) {
  const std::string token = ids::random_token(32);
  const int port = flags.port && *flags.port > 0 ? *flags.port : 18789;
  const std::string bind = flags.host ? "custom" : flags.bind.value_or("loopback");
  const std::string text =
      "// Pincer configuration (JSON5). Reference: docs/configuration.md\n"
      "{\n"
      "  gateway: {\n"
      "    port: " + std::to_string(port) + ",\n"
      "    bind: \"" + bind + "\",  // loopback | lan | custom\n" +
      (flags.host ? "    customBindHost: \"" + *flags.host + "\",\n" : std::string()) +
      "    auth: {\n"
      "      mode: \"token\",\n"
      "      // Clients send this in connect.params.auth.token. Keep it secret.\n"
      "      token: \"" + token + "\",\n"
      "    },\n"
      "  },\n"
      "}\n";
  if (auto st = store::write_file_atomic(path, text, 0600); !st) return st.error();
  return token;
}

/// Warns (stderr) for each of the state dir and the config file that other users can read:
/// they hold the gateway's secrets, sessions and transcripts (doctor says the same).
void warn_loose_permissions(const std::filesystem::path& state, const std::filesystem::path& config_path) {
  for (const auto& p : {state, config_path}) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || (st.st_mode & 0077) == 0) continue;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    std::cerr << "pincer: warning: " << p.string() << " is mode " << mode
              << ": other users on this machine can read the gateway's secrets and transcripts; chmod "
              << (S_ISDIR(st.st_mode) ? "700 " : "600 ") << p.string() << "\n";
  }
}

}  // namespace

static cli::GatewayAuthFlags auth_flags(const GatewayRunFlags& flags) {
  return {flags.auth, flags.token, flags.token_flag, flags.password, flags.password_flag};
}

/// The gateway's settings from flags > env > config (GW-1, AU-1): port, bind address, auth. Errors
/// carry the exit code as their code ("1": unsafe or impossible, "2": invalid) and one clear line.
/// Also used before an in-process restart, so that a config change that cannot run is rejected
/// while the running gateway keeps going.
static Result<gateway::GatewaySettings> gateway_settings(const GatewayRunFlags& flags, const config::EnvLookup& env,
                                                  const config::LoadedConfig& loaded, const std::filesystem::path& state) {
  const std::filesystem::path& config_path = loaded.path;
  const json& cfg = loaded.effective;
  const json& gw = cfg["gateway"];
  std::optional<std::string> env_token = env("PINCER_GATEWAY_TOKEN");
  std::optional<std::string> env_password = env("PINCER_GATEWAY_PASSWORD");
  gateway::GatewaySettings s;
  s.state_dir = state;
  s.config_path = config_path;
  s.config = cfg;
  s.config_written = loaded.written;
  s.config_hash = loaded.hash;
  s.config_exists = loaded.exists;

  // Port: flag > env > config.
  auto port = cli::gateway_port(gw, env);  // the one resolution `pincer onboard` and doctor print
  if (!port) return Error{"2", port.error().message};
  s.port = *port;
  if (flags.port) {
    if (*flags.port < 0 || *flags.port > 65535) return Error{"2", "--port: expected 0..65535, got " + std::to_string(*flags.port)};
    s.port = *flags.port;
  }

  // Bind: loopback → 127.0.0.1, lan → 0.0.0.0, custom → gateway.customBindHost / --host.
  if (flags.host && flags.bind && *flags.bind != "custom") {  // which one was meant cannot be guessed
    return Error{"2", "--bind " + *flags.bind + " contradicts --host " + *flags.host +
                          " (--host binds that address: drop --bind, or pass --bind custom)"};
  }
  std::string bind = flags.host ? "custom" : flags.bind.value_or(gw.value("bind", "loopback"));
  if (bind == "loopback") s.bind_host = "127.0.0.1";
  else if (bind == "lan") s.bind_host = "0.0.0.0";
  else if (bind == "custom") {
    s.bind_host = flags.host.value_or(gw.value("customBindHost", ""));
    if (s.bind_host.empty()) return Error{"2", "gateway.bind is \"custom\" but gateway.customBindHost is not set (or pass --host)"};
    unsigned char addr[sizeof(in6_addr)];
    if (::inet_pton(AF_INET, s.bind_host.c_str(), addr) != 1 && ::inet_pton(AF_INET6, s.bind_host.c_str(), addr) != 1) {
      return Error{"2", "--host: expected an IPv4 or IPv6 address, got \"" + s.bind_host + "\""};
    }
  } else {
    return Error{"2", "--bind: expected one of loopback|lan|custom, got \"" + bind + "\""};
  }

  // Auth: mode and secrets (flag > env > config).
  const json& auth = gw["auth"];
  s.auth.mode = flags.auth.value_or(auth.value("mode", "token"));
  if (s.auth.mode != "none" && s.auth.mode != "token" && s.auth.mode != "password" && s.auth.mode != "trusted-proxy") {
    return Error{"2", "--auth: expected one of none|token|password|trusted-proxy, got \"" + s.auth.mode + "\""};
  }
  s.auth.token = flags.token.value_or(env_token.value_or(auth.value("token", "")));
  s.auth.password = flags.password.value_or(env_password.value_or(auth.value("password", "")));
  if (auth.contains("trustedProxy")) {
    const json& tp = auth["trustedProxy"];
    s.auth.trusted_user_header = tp.value("userHeader", "");
    std::transform(s.auth.trusted_user_header.begin(), s.auth.trusted_user_header.end(),
                   s.auth.trusted_user_header.begin(), [](unsigned char c) { return std::tolower(c); });
    s.auth.trusted_required_headers = tp.value("requiredHeaders", std::vector<std::string>{});
    for (auto& h : s.auth.trusted_required_headers) {
      std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
    }
    s.auth.trusted_allow_users = tp.value("allowUsers", std::vector<std::string>{});
  }
  s.auth.trusted_proxies = gw.value("trustedProxies", std::vector<std::string>{});
  for (std::size_t i = 0; i < s.auth.trusted_proxies.size(); ++i) {
    if (!gateway::valid_trusted_proxy_entry(s.auth.trusted_proxies[i])) {
      return Error{"2", "gateway.trustedProxies[" + std::to_string(i) + "]: expected an IP address or CIDR range (e.g. "
                        "127.0.0.1, 10.0.0.0/8), got \"" + s.auth.trusted_proxies[i] + "\""};
    }
  }
  s.auth.loopback_bind = is_loopback_host(s.bind_host);
  s.drain_timeout_ms = gw.value("drainTimeoutMs", int64_t{30000});
  if (gw.contains("controlUi")) s.auth.allowed_origins = gw["controlUi"].value("allowedOrigins", std::vector<std::string>{});
  if (gw.contains("controlUi")) s.control_ui = gateway::control_ui_settings(gw["controlUi"], env("HOME").value_or(""));
  const json& rl = auth["rateLimit"];
  s.auth_rate_limit = {rl.value("maxAttempts", 10), rl.value("windowMs", int64_t{60000}),
                       rl.value("lockoutMs", int64_t{300000}), rl.value("exemptLoopback", true)};

  // AU-1: never expose an unauthenticated gateway beyond loopback.
  const std::string where = s.bind_host + ":" + std::to_string(s.port);
  const bool has_secret = (s.auth.mode == "token" && !s.auth.token.empty()) ||
                          (s.auth.mode == "password" && !s.auth.password.empty()) || s.auth.mode == "trusted-proxy";
  if (!is_loopback_host(s.bind_host) && !has_secret) {
    return Error{"1", "refusing to bind gateway to " + where +
                       " without auth: set gateway.auth.mode to token or password with its secret, or bind loopback"};
  }
  // The one auth check (cli/config_checks.h), naming the flag, variable or key that gave the secret.
  if (auto problem = cli::gateway_auth_problem(cli::gateway_secret(cfg, env, auth_flags(flags)), config_path);
      !problem.empty()) {
    return Error{"2", problem};
  }
  if (s.auth.mode == "trusted-proxy" && (s.auth.trusted_proxies.empty() || s.auth.trusted_user_header.empty())) {
    return Error{"2", "gateway.auth.mode is \"trusted-proxy\" but gateway.trustedProxies or "
                   "gateway.auth.trustedProxy.userHeader is not set"};
  }
  return s;
}

/// The checks of cli/config_checks.h as the gateway makes them: gateway auth with its flags; not
/// the Control UI root (without a built UI the gateway still runs and its UI answers 503); model
/// references naming no configured provider are warnings (warned at start by
/// model_reference_warnings; each turn says it too).
static cli::ConfigCheckOptions gateway_check_options(const GatewayRunFlags& flags) {
  cli::ConfigCheckOptions options;
  options.flags = auth_flags(flags);
  options.check_control_ui_root = false;
  options.model_refs_are_errors = false;
  return options;
}

/// Every error cli/config_checks.h finds in `loaded`, one line each, or "" — the gateway refuses
/// to restart or reload with any of them.
static std::string config_check_errors(const GatewayRunFlags& flags, const config::EnvLookup& env,
                                       const config::LoadedConfig& loaded) {
  std::string out;
  for (const auto& e : cli::check_config(loaded.effective, loaded.path, env, gateway_check_options(flags)).errors) {
    out += (out.empty() ? "" : "\n") + e;
  }
  return out;
}

/// Whether `host:port` can be bound now (a port another process holds cannot).
static Status can_listen(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"LISTEN_FAILED", std::string("socket: ") + std::strerror(errno)};
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc = -1;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET6, host.c_str(), &a.sin6_addr);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  const int err = errno;
  ::close(fd);
  if (rc != 0) {
    return Error{"LISTEN_FAILED", "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(err) +
                                      (err == EADDRINUSE ? gateway::kPortInUseHint : "")};
  }
  return Ok{};
}

/// One life of the gateway; `restart` is set when it stopped to start again (SIGUSR1 or a
/// config change that needs it).
static int run_gateway_once(const GatewayRunFlags& flags, bool& restart) {
  // A flag that is wrong whatever the config says is refused before anything is written (a first
  // start would otherwise create pincer.json with a new token, then stop).
  if (flags.port && (*flags.port < 0 || *flags.port > 65535)) {
    return fail(2, "--port: expected 0..65535, got " + std::to_string(*flags.port));
  }
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  const auto config_path = paths::config_file(state);
  {
    // --bind custom without --host: with no pincer.json yet there is no gateway.customBindHost
    // either (the same words as gateway_settings).
    std::error_code exists_ec;
    if (flags.bind && *flags.bind == "custom" && !flags.host && !std::filesystem::exists(config_path, exists_ec)) {
      return fail(2, "gateway.bind is \"custom\" but gateway.customBindHost is not set (or pass --host)");
    }
    if (flags.host && flags.bind && *flags.bind != "custom") {
      return fail(2, "--bind " + *flags.bind + " contradicts --host " + *flags.host +
                         " (--host binds that address: drop --bind, or pass --bind custom)");
    }
    unsigned char host_addr[sizeof(in6_addr)];
    if (flags.host && ::inet_pton(AF_INET, flags.host->c_str(), host_addr) != 1 &&
        ::inet_pton(AF_INET6, flags.host->c_str(), host_addr) != 1) {
      return fail(2, "--host: expected an IPv4 or IPv6 address, got \"" + *flags.host + "\"");
    }
  }

  std::optional<std::string> env_token = env("PINCER_GATEWAY_TOKEN");
  std::optional<std::string> env_password = env("PINCER_GATEWAY_PASSWORD");

  // Everything the gateway writes (config, sessions, logs) is private to the user.
  ::umask(0077);
  std::error_code ec;
  std::filesystem::create_directories(state, ec);

  // GW-1: one gateway per state dir — taken before anything is written, so that two first starts
  // racing on an empty state dir cannot both create a config with different tokens.
  auto lock = store::InstanceLock::acquire(paths::gateway_lock_file(state));
  if (!lock) return fail(1, lock.error().message);

  if (!std::filesystem::exists(config_path, ec) && !flags.token && !env_token && !flags.password && !env_password &&
      flags.auth.value_or("token") == "token") {
    auto created = create_first_config(config_path, flags);
    if (!created) return fail(1, created.error().message);
    std::cout << "pincer: created " << config_path.string() << " with a new gateway token (gateway.auth.token)\n";
  }

  // Every problem at once, as `config validate` lists them (the one report, cli/config_checks.h),
  // each naming the file; then what only the flags and the bind decide (gateway_settings).
  auto report = cli::check_config_file(config_path, env, gateway_check_options(flags));
  std::vector<std::string> problems;
  for (const auto& e : report.problems.errors) problems.push_back(cli::naming_file(e, config_path));
  Result<gateway::GatewaySettings> settings = Error{"2", ""};
  if (report.loaded) {
    settings = gateway_settings(flags, env, *report.loaded, state);
    // Unsafe or impossible whatever else the file says (exit 1), or invalid: added unless the
    // checks named it already (the auth sentence is in both).
    const auto& errors = report.problems.errors;
    if (!settings && std::find(errors.begin(), errors.end(), settings.error().message) == errors.end()) {
      problems.push_back(settings.error().message);
    }
  }
  const int refused = !settings && settings.error().code == "1" ? 1 : 2;
  if (problems.size() == 1) return fail(refused, problems.front());  // one clear line
  if (!problems.empty()) {
    for (const auto& line : problems) std::cerr << "pincer: " << line << "\n";
    for (const auto& w : report.problems.warnings) std::cerr << "pincer: warning: " << w << "\n";
    return fail(refused, "the gateway does not start with an invalid configuration (" + config_path.string() + "; `" +
                             invoked_command() + " config validate` lists the same)");
  }
  const config::LoadedConfig* loaded = &*report.loaded;
  const json& cfg = loaded->effective;
  gateway::GatewaySettings s = std::move(*settings);
  // Where the secret it checks comes from (never the secret): `config set/unset` reads it to tell
  // whether the file's secret is the one in use (cli/config_auth_guard.h).
  lock->record_auth(s.auth.mode, cli::gateway_secret(cfg, env, auth_flags(flags)).source);
  warn_loose_permissions(state, config_path);  // once the start is sure: a refusal stays one line
  const std::string where = s.bind_host + ":" + std::to_string(s.port);
  // Reachable from other machines with a guessable secret: start (the owner chose it) but say so.
  const std::size_t secret_size = s.auth.mode == "token" ? s.auth.token.size() : s.auth.password.size();
  const std::size_t strong_size = s.auth.mode == "token" ? secrets::kStrongTokenChars : secrets::kStrongPasswordChars;
  if (!is_loopback_host(s.bind_host) && secrets::secret_strength(s.auth.mode, secret_size) != secrets::Strength::Strong) {
    std::cerr << "pincer: warning: the gateway listens on " << where << " and its " << s.auth.mode << " is only "
              << secret_size << " characters; use " << strong_size << " or more (pincer doctor explains)\n";
  }
  // Every secret the config holds (also those from "${ENV}") is masked wherever it would show.
  redact::add_secret(s.auth.token);
  redact::add_secret(s.auth.password);
  for (const auto& secret : config::sensitive_values(cfg)) redact::add_secret(secret);

  const json& logging = cfg["logging"];
  const std::string log_file = logging.value("file", "");
  s.log_file = log_file.empty() ? paths::gateway_log_file(state) : std::filesystem::path(log_file);
  std::filesystem::create_directories(s.log_file.parent_path(), ec);
  if (auto st = log::init({logging.value("level", "info"), s.log_file, logging.value("consoleStyle", "pretty"), true});
      !st) {
    return fail(1, st.error().message);
  }

  EventLoop loop;
  gateway::Gateway gateway(s, SystemClock::instance());
  agent::AgentService agents(loop, SystemClock::instance(), cfg, state);
  gateway.attach(&loop, &agents);
  gateway::attach_approval_events(gateway, agents);
  // Chat platforms (channels.*): started once the loop runs; a channel that cannot be built
  // (e.g. no botToken) stops the start-up with the config path named.
  channels::ChannelManager channel_manager(loop, SystemClock::instance(), agents, cfg, state, gateway.http_routes());
  channel_manager.set_config_patcher(
      [&gateway](const json& patch) { return gateway::patch_config_file(gateway.settings().config_path, patch); });
  if (auto st = channel_manager.start(); !st) return fail(2, st.error().message);
  // Cron jobs (AT-2): resumes its cut-off runs, runs missed ones, arms the timer.
  CronRuntime cron(loop, agents, channel_manager, gateway, cfg, state);
  cron.start();
  // The heartbeat (AT-1): a timer only while some agent has heartbeats on.
  HeartbeatRuntime heartbeat(loop, agents, channel_manager, gateway, cfg, state);
  heartbeat.start();
  // Inbound webhooks (AT-3): a route on this port only while hooks.enabled.
  HooksRuntime hooks(loop, agents, channel_manager, gateway, heartbeat.scheduler(), cfg, state);
  hooks.start();
  // MCP servers' tools (IX-2): started by the first run that could use them; mcp.status.
  McpRuntime mcp(loop, agents, gateway, cfg, state.string());
  // The OpenAI-compatible HTTP API (IX-4): routes on this port only while gateway.http.endpoints.* is on.
  interop::openai_http::OpenAiHttpService openai_http(gateway, agents, cfg);
  // Session tools (TL-1, MA-2) and the `message` tool: the backends of every run from now on.
  agent::SessionToolsBackend session_tools(loop, agents);
  MessageRuntime message_runtime(loop, agents, channel_manager, cfg, state);
  session_tools.set_announcer(message_runtime.session_announcer());
  agents.session_backends().sessions = &session_tools;
  agents.session_backends().messages = &message_runtime;
  // Subagents (MA-3): their runs' and announce turns' events go to operators; children a restart
  // cut off run again (before the generic resume below, which would rerun them unannounced).
  // An announce turn of a session that answers a chat also sends its visible reply there (outbox).
  agents.subagents().set_sink_factory([&gateway, &channel_manager](const agent::SendRequest& r) -> agent::RunEventSink {
    auto operators = gateway::make_run_event_sink(gateway);
    if (r.origin.channel.empty() || r.run_id.rfind("announce-", 0) != 0) return operators;
    return [operators, &channel_manager, r](const agent::RunEvent& e) {
      operators(e);
      const std::string text = e.kind == agent::RunEvent::Kind::End ? agent::visible_reply_text(e.text) : "";
      if (text.empty()) return;
      if (auto st = channel_manager.announce(e.agent_id, r.origin.channel, r.origin.account_id, r.origin.chat_id,
                                             r.origin.thread_id, text, r.run_id); !st) {
        spdlog::warn("subagent announce {}: the reply was not sent to {}: {}", r.run_id, r.origin.channel, st.error().message);
      }
    };
  });
  agents.subagents().resume_unfinished();
  // Runs of gateway clients a restart cut off run again; their events go to every operator (SS-6).
  agents.resume_unfinished([&gateway](const agent::SendRequest&) { return gateway::make_run_event_sink(gateway); });
  gateway.set_pending_work([&agents, &channel_manager] { return agents.running_runs() + channel_manager.deliveries_pending(); });
  gateway.set_channels_status([&channel_manager] { return channel_manager.status(); });
  gateway.set_channels_probe([&channel_manager](int64_t timeout_ms, std::function<void(json)> done) {
    channel_manager.probe(timeout_ms, std::move(done));
  });
  register_channel_pairing_methods(gateway, state);  // channels.pairing.* (the Control UI)
  // Edits of pincer.json apply while running (CF-2, CH-7).
  // Before an in-process restart: the new settings must resolve, a new address be free, and every
  // channel account build — else the change is rejected and this gateway keeps running.
  auto preflight = [&flags, &env, &state, &channel_manager, host = s.bind_host, port = s.port](
                       const config::LoadedConfig& next) -> Status {
    if (std::string errors = config_check_errors(flags, env, next); !errors.empty()) {
      return Error{"CONFIG_INVALID", std::move(errors)};
    }
    auto settings = gateway_settings(flags, env, next, state);
    if (!settings) return Error{"CONFIG_INVALID", settings.error().message};
    if ((settings->bind_host != host || settings->port != port) && settings->port != 0) {
      if (auto st = can_listen(settings->bind_host, settings->port); !st) return st;
    }
    return channel_manager.validate(next.effective);
  };
  // Every edit, hot ones too, must pass what `config validate` checks (sandbox binds, time zone …).
  auto checks = [&flags, &env](const config::LoadedConfig& next) -> Status {
    if (std::string errors = config_check_errors(flags, env, next); !errors.empty()) {
      return Error{"CONFIG_INVALID", std::move(errors)};
    }
    return Ok{};
  };
  ConfigReloader reloader(loop, config_path, env, cfg, gateway, agents, channel_manager, preflight, checks);
  reloader.on_hot_applied([&cron, &heartbeat, &hooks, &mcp, &message_runtime, &openai_http](const json& next) {
    message_runtime.reconfigure(next);  // session tools + message tool
    cron.reconfigure(next);
    heartbeat.reconfigure(next);
    hooks.reconfigure(next);
    mcp.reconfigure(next);
    openai_http.reconfigure(next);
  });
  reloader.start();
  gateway::ServerOptions options;
  options.host = s.bind_host;
  options.port = s.port;
  // A client that cannot connect during the drain is told the gateway is stopping (cli/connection.cpp).
  options.on_stopping = [&](bool restarting) { lock->record_stopping(restarting); };
  options.on_listening = [&](int port) {
    gateway.set_listening_port(port);
    lock->record_listening(s.bind_host, port);  // clients that miss it name this address
    const std::string host = s.bind_host.find(':') != std::string::npos ? "[" + s.bind_host + "]" : s.bind_host;
    std::printf("pincer gateway listening on ws://%s:%d (auth: %s, state: %s)\n", host.c_str(), port,
                s.auth.mode.c_str(), state.c_str());
    // The web chat UI is served on the same port; a wildcard bind is opened through loopback.
    const std::string web_host = s.bind_host == "0.0.0.0" ? "127.0.0.1" : s.bind_host == "::" ? "[::1]" : host;
    const gateway::ControlUiSettings& ui = s.control_ui;
    std::printf("pincer web chat: http://%s:%d%s/\n", web_host.c_str(), port,
                ui.enabled() && ui.base_path.empty() ? std::string(gateway::kWebChatPrefix).c_str() : "");
    if (ui.enabled()) {
      if (auto st = gateway::check_control_ui_root(ui.root); !st) {
        std::fprintf(stderr, "pincer: error: %s (the Control UI answers 503 until it is fixed)\n", st.error().message.c_str());
        spdlog::error("config: {}", st.error().message);
      } else {
        std::printf("openclaw control ui: http://%s:%d%s/ (from %s)\n", web_host.c_str(), port, ui.base_path.c_str(),
                    ui.root.c_str());
      }
    }
    auto agents_config = agent::resolve_agents(cfg, state, env);
    if (agents_config && agents_config->default_agent().model.primary.empty()) {
      std::printf("pincer: no model configured yet: run `%s onboard` to choose a provider\n", invoked_command().c_str());
    }
    // Each warning is said once on the terminal (a `pincer: warning:` line) and kept in the log file.
    for (const auto& w : loaded->warnings) {  // a repeated key: the later value replaced the earlier one
      std::fprintf(stderr, "pincer: warning: %s\n", w.c_str());
      log::warn_to_file_only("config: " + w);
    }
    for (const auto& w : agent::model_reference_warnings(cfg)) {  // a typo in a model name fails every turn
      std::fprintf(stderr, "pincer: warning: %s\n", w.c_str());
      log::warn_to_file_only("config: " + w);
    }
    for (const auto& w : cli::mcp_server_warnings(cfg)) {  // a server the gateway lists as disabled
      std::fprintf(stderr, "pincer: warning: %s\n", w.c_str());
      log::warn_to_file_only("config: " + w);
    }
    for (const auto& w : channels::group_role_warnings(cfg)) {  // Discord roles on another channel let nobody in
      std::fprintf(stderr, "pincer: warning: %s\n", w.c_str());
      log::warn_to_file_only("config: " + w);
    }
    for (const auto& w : channels::dm_scope_warnings(cfg, state)) {  // DMs of several people in one session
      std::fprintf(stderr, "pincer: warning: %s\n", w.c_str());
      log::warn_to_file_only("config: " + w);
    }
    if (!is_loopback_host(s.bind_host)) {  // lan, or a custom address
      const std::string exposed =
          "the gateway listens on " + host + ":" + std::to_string(port) +
          (s.bind_host == "0.0.0.0" || s.bind_host == "::" ? " (every interface)" : "") +
          ", not only on this machine: every device on the network can reach it (it still requires the " +
          s.auth.mode + "); bind loopback (gateway.bind, --bind) to keep it local";
      std::fprintf(stderr, "pincer: warning: %s\n", exposed.c_str());
      log::warn_to_file_only(exposed);
    }
    std::fflush(stdout);
    spdlog::info("gateway {} listening on {}:{} (auth {})", s.version, s.bind_host, port, s.auth.mode);
  };
  if (auto st = gateway::run_server(loop, gateway, options, &restart); !st) {
    log::error_to_file_only(st.error().message);  // the log says why the gateway is gone; stderr once (below)
    log::flush();
    return fail(1, st.error().message);
  }
  spdlog::info(restart ? "gateway stopped for a restart" : "gateway stopped");
  log::flush();
  return 0;
}

int run_gateway(const GatewayRunFlags& flags) {
  // The environment holds provider keys: no process of the same user (the agent's own exec
  // commands included) may read /proc/<pid>/environ or attach to the gateway (issue 22 §3).
  tools::process_guard::protect_this_process();
  for (;;) {
    bool restart = false;
    const int code = run_gateway_once(flags, restart);
    store::wait_for_background_syncs();  // the last turns' transcripts and journal are on disk
    if (!restart || code != 0) return code;
  }
}

void register_gateway_commands(CLI::App& app, Action& action) {
  auto* gateway = app.add_subcommand("gateway", "Run and manage the gateway");
  gateway->require_subcommand(1);
  auto flags = std::make_shared<GatewayRunFlags>();
  auto* run = gateway->add_subcommand("run", "Run the gateway in the foreground (stop with Ctrl-C / SIGTERM)");
  run->add_option("--port", flags->port, "Port to listen on (0 = any free port; default gateway.port or 18789)");
  run->add_option("--bind", flags->bind, "loopback | lan | custom (default gateway.bind or loopback)")
      ->check(CLI::IsMember({"loopback", "lan", "custom"}));
  run->add_option("--host", flags->host, "Address to bind (implies --bind custom; with --bind loopback or lan: an error)");
  run->add_option("--auth", flags->auth, "none | token | password | trusted-proxy (default gateway.auth.mode)")
      ->check(CLI::IsMember({"none", "token", "password", "trusted-proxy"}));
  add_secret_option(run, "token", flags->token, "Gateway token (default PINCER_GATEWAY_TOKEN or gateway.auth.token)",
                    &flags->token_flag);
  add_secret_option(run, "password", flags->password,
                    "Gateway password (default PINCER_GATEWAY_PASSWORD or gateway.auth.password)", &flags->password_flag);
  on_parsed(run, action, [flags] { return run_gateway(*flags); });
}

}  // namespace pincer::app
