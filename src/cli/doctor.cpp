#include "cli/doctor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <future>
#include <optional>

#include "agent/agents_config.h"
#include "agent/model_registry.h"
#include "channels/channel_accounts.h"
#include "cli/invoked_command.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "cli/chat_renderer.h"
#include "cli/config_checks.h"
#include "cli/config_file.h"
#include "cli/connection.h"
#include "core/paths.h"
#include "core/secret_rules.h"
#include "gateway/control_ui.h"
#include "store/instance_lock.h"

namespace pincer::cli {
namespace {

using nlohmann::json;

Finding ok(std::string check, std::string message) { return {std::move(check), "ok", std::move(message), ""}; }
Finding warn(std::string check, std::string message, std::string fix) {
  return {std::move(check), "warn", std::move(message), std::move(fix)};
}
Finding failed(std::string check, std::string message, std::string fix) {
  return {std::move(check), "fail", std::move(message), std::move(fix)};
}

struct HttpOutcome {
  int status = 0;
  std::string body;
  std::optional<std::string> transport_error;
};

// One blocking GET on a private event loop (the doctor runs outside the gateway).
HttpOutcome http_get(const std::string& url, const net::Headers& headers, int64_t timeout_ms) {
  EventLoop loop(1);
  net::HttpClient http(loop);
  HttpOutcome out;
  loop.post([&] {
    net::HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = url;
    spec.headers = headers;
    spec.connect_timeout_ms = timeout_ms;
    spec.idle_timeout_ms = timeout_ms;
    http.start(spec, {[&](const net::HttpResponseHead& h) { out.status = h.status; },
                      [&](std::string_view d) {
                        if (out.body.size() < 4096) out.body.append(d.substr(0, 4096 - out.body.size()));
                      },
                      [&](const std::optional<net::TransportError>& e) {
                        if (e) out.transport_error = e->what;
                        loop.stop();
                      }});
  });
  loop.run();
  return out;
}

std::string strip_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

json to_json(const Finding& f) {
  json j = {{"check", f.check}, {"status", f.status}, {"message", f.message}};
  if (!f.fix.empty()) j["fix"] = f.fix;
  return j;
}

std::vector<Finding> check_security(const json& effective, const config::EnvLookup& env, bool config_exists,
                                    bool gateway_running) {
  std::vector<Finding> out;
  const json& gw = effective.value("gateway", json::object());
  const json& auth = gw.value("auth", json::object());
  const std::string mode = auth.value("mode", "token");
  const std::string bind = gw.value("bind", "loopback");
  const bool loopback = bind == "loopback" ||
                        (bind == "custom" && (gw.value("customBindHost", "").rfind("127.", 0) == 0 || gw.value("customBindHost", "") == "::1"));
  // The configured bind: what the running gateway does, or what it will do once started.
  const std::string is = gateway_running ? "is" : "will be";
  if (!loopback && mode == "none") {
    out.push_back(failed("bind", "gateway.bind is \"" + bind + "\" with gateway.auth.mode \"none\": anyone on the network " +
                                     (gateway_running ? "can" : "could") + " drive your agents",
                         invoked_command() + " config set gateway.bind loopback (or set gateway.auth.mode to token)"));
  } else if (!loopback) {
    out.push_back(warn("bind", "gateway.bind is \"" + bind + "\": the gateway " + is + " reachable from other machines",
                       "prefer loopback and reach it through SSH or a VPN tunnel"));
  } else if (gateway_running) {
    out.push_back(ok("bind", "listens on loopback only, auth " + mode));
  } else {
    out.push_back(ok("bind", "will listen on loopback only (gateway.bind), auth " + mode + "; no gateway of this home runs now"));
  }
  const GatewaySecret secret = gateway_secret(effective, env, {});
  if (mode == "token") {
    const std::string& token = secret.value;
    if (token.empty() && secret.source == "gateway.auth.token" && !config_exists) {
      // `pincer gateway run` writes pincer.json with a fresh random token on its first start.
      out.push_back({"token", "info",
                     "no gateway token yet: the gateway creates one (gateway.auth.token in a new pincer.json) on its "
                     "first start",
                     ""});
    } else if (token.empty() && secret.source == "gateway.auth.token") {
      out.push_back(warn("token", "gateway.auth.token is not set and PINCER_GATEWAY_TOKEN is not set here (the gateway "
                                  "refuses to start unless its environment or --token-file gives one)",
                         "run " + invoked_command() + " onboard, or set gateway.auth.token"));
    } else if (secret.source == "gateway.auth.token" && is_env_reference(token)) {
      // Its variable is unset here: the config finding names it; the placeholder is no token.
      out.push_back(warn("token", "gateway.auth.token is " + token + ", which is not set here: not checked",
                         "set it (see the config finding above)"));
    } else if (auto problem = gateway_auth_problem(secret, {}); !problem.empty()) {
      out.push_back(failed("token", problem + "; the gateway refuses to start with it",
                           secret.source == "gateway.auth.token"
                               ? invoked_command() + " config set gateway.auth.token \"$(openssl rand -hex 24)\""
                               : "give " + secret.source + " a longer token: openssl rand -hex 24"));
    } else if (secrets::secret_strength("token", token.size()) == secrets::Strength::Weak) {
      out.push_back(warn("token", secret.source + " is " + std::to_string(token.size()) + " characters; " +
                                      std::to_string(secrets::kStrongTokenChars) + " or more is recommended",
                         "use a longer random token"));
    } else {
      out.push_back(ok("token", "gateway token (" + secret.source + ") is " + std::to_string(token.size()) + " characters"));
    }
  } else if (mode == "password") {
    if (secret.value.empty()) {
      out.push_back(failed("token", "gateway.auth.mode is \"password\" but neither gateway.auth.password nor "
                                    "PINCER_GATEWAY_PASSWORD is set here",
                           "set gateway.auth.password, or start the gateway with --password-file"));
    } else if (secrets::secret_strength("password", secret.value.size()) != secrets::Strength::Strong) {
      out.push_back(warn("token", secret.source + " is shorter than " + std::to_string(secrets::kStrongPasswordChars) +
                                      " characters", "use a longer password"));
    } else {
      out.push_back(ok("token", "gateway password (" + secret.source + ") set"));
    }
  }
  return out;
}

Finding check_permissions(const std::filesystem::path& state_dir, const std::filesystem::path& config_file) {
  std::error_code missing_ec;
  if (!std::filesystem::exists(state_dir, missing_ec) && !missing_ec) {
    // Nothing to be private yet: say so rather than "is private" about a folder that is not there.
    return {"permissions", "info",
            state_dir.string() + " does not exist yet: " + invoked_command() + " onboard or the first " +
                invoked_command() + " gateway run creates it, readable by you only (mode 700)",
            ""};
  }
  std::string loose, fix;
  for (const auto& p : {state_dir, config_file}) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;  // only files that exist get advice
    // A config "file" that is a directory is the config finding's problem: chmod would not fix it.
    if (p == config_file && S_ISDIR(st.st_mode)) continue;
    if (st.st_mode & 0077) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
      loose += (loose.empty() ? "" : ", ") + p.string() + " is mode " + mode;
      fix += (fix.empty() ? "" : " && ") + std::string(S_ISDIR(st.st_mode) ? "chmod 700 " : "chmod 600 ") + p.string();
    }
  }
  if (!loose.empty()) {
    return warn("permissions", loose + " (others on this machine can read secrets and transcripts)", fix);
  }
  return ok("permissions", state_dir.string() + " is private");
}

Finding check_state_writable(const std::filesystem::path& state_dir) {
  std::error_code ec;
  if (!std::filesystem::exists(state_dir, ec)) {
    return ok("state", state_dir.string() + " does not exist yet (the gateway creates it)");
  }
  // A real write, as the gateway's appends do: a read-only mount, a foreign owner or a full disk
  // shows here, before a turn's message and reply fail to save.
  const auto probe = state_dir / (".doctor-write-test." + std::to_string(::getpid()));
  const std::string data(4096, 'x');
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    for (std::size_t done = 0; done < data.size() && err == 0;) {  // a short write, then the error
      const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n > 0) done += static_cast<std::size_t>(n);
      else if (n < 0 && errno != EINTR) err = errno;
      else if (n == 0) err = EIO;
    }
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    ::close(fd);
    ::unlink(probe.c_str());
  }
  if (err != 0) {
    return failed("state", "cannot write in " + state_dir.string() + ": " + std::strerror(err) +
                               " (sessions and replies could not be saved)",
                  err == ENOSPC || err == EDQUOT || err == EFBIG
                      ? "free some disk space on that filesystem (or raise the file-size limit, ulimit -f)"
                                                 : "make it writable by this user (or set PINCER_HOME to a writable directory)");
  }
  struct statvfs fs {};
  if (::statvfs(state_dir.c_str(), &fs) == 0) {
    const auto free_mb = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize / (1024 * 1024);
    if (free_mb < 100) {
      return warn("state", state_dir.string() + " is writable but only " + std::to_string(free_mb) +
                               " MiB are free (a full disk fails turns)", "free some disk space on that filesystem");
    }
  }
  return ok("state", state_dir.string() + " is writable");
}

Finding check_port(int port) {
  const std::string where = "127.0.0.1:" + std::to_string(port);
  auto r = http_get("http://" + where + "/health", {}, 2000);
  if (r.transport_error) {
    if (r.transport_error->find("refused") != std::string::npos) {
      return warn("port", "nothing listens on " + where + ": the gateway is not running", "start it with: " +
          invoked_command() + " gateway run");
    }
    return failed("port", where + ": " + *r.transport_error, "free the port or set gateway.port");
  }
  auto body = json::parse(r.body, nullptr, false);
  if (r.status == 200 && body.is_object() && body.value("status", "") == "live") {
    return ok("port", "a gateway answers on " + where);
  }
  return failed("port", where + " is used by another program (HTTP " + std::to_string(r.status) + " on /health)",
                "stop it, or choose another port: " + invoked_command() + " config set gateway.port 18790");
}

Finding check_provider(const json& effective, int64_t timeout_ms) {
  auto agents = agent::resolve_agents(effective, {});
  if (!agents) return failed("provider", agents.error().message, "fix agents in pincer.json");
  const std::string primary = agents->default_agent().model.primary;
  if (primary.empty()) {
    return failed("provider", "no model configured for the default agent (agents.defaults.model.primary is empty)",
                  "run " + invoked_command() + " onboard to choose a provider and model");
  }
  auto registry = agent::ModelRegistry::from_config(effective);
  auto spec = registry.resolve(primary);
  if (!spec) return failed("provider", spec.error().message, invoked_command() +
      " config set agents.defaults.model.primary <provider/model>");
  const std::string base = strip_slash(spec->base_url);
  std::string url;
  net::Headers headers(spec->headers.begin(), spec->headers.end());
  if (spec->api == "anthropic-messages") {
    // limit=1000: Anthropic's largest page (its default is 20), so the model check below sees them all.
    url = (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0 ? base : base + "/v1") + "/models?limit=1000";
    if (!spec->api_key.empty()) headers.emplace_back("x-api-key", spec->api_key);
    headers.emplace_back("anthropic-version", "2023-06-01");
  } else if (spec->api == "ollama") {
    url = base + "/api/tags";
  } else if (spec->api == "google-generative-ai") {
    url = base + "/models";  // Gemini's models.list; the key goes in a header, never the URL
    if (!spec->api_key.empty()) headers.emplace_back("x-goog-api-key", spec->api_key);
  } else {
    url = base + "/models";
    if (!spec->api_key.empty()) headers.emplace_back("Authorization", "Bearer " + spec->api_key);
  }
  const std::string name = "provider \"" + spec->provider + "\" (" + base + ")";
  auto r = http_get(url, headers, timeout_ms);
  if (r.transport_error) {
    return failed("provider", name + " is unreachable: " + *r.transport_error,
                  "check models.providers." + spec->provider + ".baseUrl and your network/proxy");
  }
  if (r.status == 401 || r.status == 403) {
    return failed("provider", name + " rejected the API key (HTTP " + std::to_string(r.status) + ")",
                  "check models.providers." + spec->provider + ".apiKey (or the environment variable it names)");
  }
  if (r.status < 200 || r.status >= 300) {
    return warn("provider", name + " answered HTTP " + std::to_string(r.status) + " to " + url,
                "the server may not list models; try a turn: " + invoked_command() + " agent -m hi");
  }
  // The list the server just gave: a configured model it does not name fails every turn with it.
  // Only a whole list says so: Anthropic's pages (20 models by default) say has_more when cut.
  if (spec->api != "ollama" && spec->api != "google-generative-ai") {
    const json listed = json::parse(r.body, nullptr, false);
    const bool whole = listed.is_object() && !(listed.contains("has_more") && listed["has_more"] == true);
    if (whole && listed.contains("data") && listed["data"].is_array() && !listed["data"].empty()) {
      std::vector<std::string> ids;
      for (const auto& m : listed["data"])
        if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"].get<std::string>());
      if (!ids.empty() && std::find(ids.begin(), ids.end(), spec->id) == ids.end()) {
        std::string names;
        for (std::size_t i = 0; i < ids.size() && i < 10; ++i) names += (i ? ", " : "") + terminal_safe(ids[i]);
        if (ids.size() > 10) names += ", …";
        return warn("provider", name + " is reachable, but model \"" + terminal_safe(spec->id) + "\" is not among the " +
                                    std::to_string(ids.size()) + " models the server lists: " + names,
                    "choose a listed model: " + invoked_command() + " config set agents.defaults.model.primary " +
                        spec->provider + "/<model>");
      }
    }
  }
  return ok("provider", name + " is reachable and accepts the key; default model " + primary);
}

std::vector<MissingEnvVar> missing_env_vars(const std::filesystem::path& config_file, const config::EnvLookup& env) {
  std::vector<MissingEnvVar> out;
  auto raw = config::resolve_file(config_file, env, config::EnvRefs::kKeep);
  if (!raw || !raw->is_object()) return out;
  const json vars = raw->contains("env") && (*raw)["env"].is_object() ? (*raw)["env"] : json::object();
  for (const auto& ref : config::env_references(*raw)) {
    if (auto v = env(ref.name); v && !v->empty()) continue;
    if (vars.contains(ref.name) && vars[ref.name].is_string() && !vars[ref.name].get<std::string>().empty()) continue;
    out.push_back({ref.name, ref.path});
  }
  return out;
}

Finding check_running_gateway(const std::filesystem::path& state_dir, const std::filesystem::path& config_file,
                              const config::EnvLookup& env) {
  auto options = resolve_connection({}, env);
  if (!options) return warn("gateway", "cannot ask the running gateway: " + options.error().message, "fix the error above");
  options->connect_timeout = std::chrono::milliseconds(3000);
  auto client = GatewayClient::connect(*options);
  if (!client && client.error().code.rfind("AUTH_", 0) == 0) {
    // This home's own gateway (its lock file names this port) refusing this home's credentials:
    // the file's secret changed or went while it ran (it keeps the one it started with; a change
    // without one is a reload it rejects) — not another home's gateway.
    const auto holder = store::read_lock_holder(paths::gateway_lock_file(state_dir));
    if (holder && holder->port > 0 && own_loopback_port(options->url) == holder->port) {
      const std::string pid = std::to_string(holder->pid);
      const std::string used = !options->password.empty() ? "the password this CLI reads (gateway.auth.password or PINCER_GATEWAY_PASSWORD)"
                               : !options->token.empty() ? "the token this CLI reads (gateway.auth.token in " + config_file.string() +
                                                               ", or PINCER_GATEWAY_TOKEN here)"
                                                         : "no secret: neither " + config_file.string() +
                                                               " (gateway.auth.token) nor this shell (PINCER_GATEWAY_TOKEN) gives one now";
      return failed("gateway",
                    "this home's gateway (pid " + pid + ") answers on " + options->url + " but refuses " + used + " (" +
                        client.error().message + "): it still checks clients against the secret it started with, which " +
                        config_file.string() + " no longer holds (it was changed or removed while the gateway ran)",
                    "put the secret the gateway started with back into " + config_file.string() +
                        ", or restart the gateway (Ctrl-C where it runs, or kill " + pid + "; then " + invoked_command() +
                        " gateway run) so that it uses the file's — it needs a token there: " + invoked_command() +
                        " config set gateway.auth.token \"$(openssl rand -hex 24)\"");
    }
  }
  if (!client) {
    return failed("gateway",
                  "a gateway answers on " + options->url + " but refuses this home's credentials (" + client.error().message +
                      "): it is probably another home's gateway, or its token changed",
                  "compare gateway.auth.token in " + config_file.string() +
                      " (or PINCER_GATEWAY_TOKEN) with the running gateway's; or give this home another gateway.port");
  }
  auto status = (*client)->call("status", json::object(), std::chrono::milliseconds(5000));
  if (!status) return warn("gateway", "the gateway on " + options->url + " did not answer status: " + status.error().message, "");
  auto same = [](const std::string& a, const std::filesystem::path& b) {
    std::error_code e1, e2;
    return std::filesystem::weakly_canonical(a, e1) == std::filesystem::weakly_canonical(b, e2);
  };
  const std::string their_state = status->value("stateDir", ""), their_config = status->value("configPath", "");
  if (!same(their_state, state_dir) || !same(their_config, config_file)) {
    return failed("gateway",
                  "the gateway on " + options->url + " belongs to another home (state dir " + their_state + ", config " +
                      their_config + "); this CLI uses " + state_dir.string() + " and " + config_file.string(),
                  "to talk to that gateway: PINCER_HOME=" + their_state + " pincer …; to run this home's: stop that one, "
                  "or set another gateway.port in " + config_file.string());
  }
  const json cfg = status->value("config", json::object());
  const json rejected = cfg.value("lastRejectedReload", json());
  if (!cfg.value("matchesFile", true) && rejected.is_object()) {
    return failed("gateway",
                  "the running gateway (pid " + std::to_string(status->value("pid", 0)) + ") does not run " +
                      config_file.string() + " as it is now: its reload was rejected: " + rejected.value("reason", ""),
                  rejected.value("fix", ""));
  }
  if (!cfg.value("matchesFile", true)) {
    if (const std::string off = reload_off_note(config_file, env); !off.empty()) {
      return warn("gateway", "the running gateway runs an older config than " + config_file.string(), off);
    }
    return warn("gateway", "the running gateway has not applied the latest edit of " + config_file.string() + " yet",
                "run doctor again in a moment (a reload follows an edit within a second or so)");
  }
  return ok("gateway", "the gateway on " + options->url + " (pid " + std::to_string(status->value("pid", 0)) +
                           ") runs this home's config");
}

namespace {

/// "port", then "gateway" when one answers there: what it runs (its home, whether it applied this
/// file). Nothing on the port while this home's gateway runs (its lock file) says where it listens.
void add_gateway_checks(std::vector<Finding>& out, int port, const std::filesystem::path& state_dir,
                        const std::filesystem::path& config_file, const config::EnvLookup& env) {
  out.push_back(check_port(port));
  if (out.back().status == "ok") {
    out.push_back(check_running_gateway(state_dir, config_file, env));
    return;
  }
  const std::string url = "ws://127.0.0.1:" + std::to_string(port);
  if (const std::string running = running_gateway_note(env, url); !running.empty()) {
    const auto cut = running.find(": ");  // "<where it is>: <how to reach it>"
    out.back() = failed("port", "nothing answers on 127.0.0.1:" + std::to_string(port) + ", but " +
                                    running.substr(0, cut),
                        cut == std::string::npos ? "" : running.substr(cut + 2));
  }
}

}  // namespace

std::optional<Finding> check_command_owner(const json& effective) {
  const auto accounts = channels::list_channel_accounts(effective.value("channels", json::object()));
  if (accounts.empty()) return std::nullopt;
  const json commands = effective.value("commands", json::object());
  const json owners = commands.is_object() ? commands.value("ownerAllowFrom", json::array()) : json::array();
  if (owners.is_array() && !owners.empty()) {
    return ok("owner", "commands.ownerAllowFrom lists " + std::to_string(owners.size()) + " owner" + (owners.size() == 1 ? "" : "s"));
  }
  // Examples: the first sender each channel already lets in, else a placeholder.
  std::vector<std::string> examples, names;
  for (const auto& a : accounts) {
    if (std::find(names.begin(), names.end(), a.channel) != names.end()) continue;
    names.push_back(a.channel);
    std::string id;
    for (const auto& e : a.config.value("allowFrom", json::array())) {
      const std::string v = e.is_string() ? e.get<std::string>() : e.is_number_integer() ? std::to_string(e.get<int64_t>()) : "";
      if (!v.empty() && v != "*") {
        id = v;
        break;
      }
    }
    const std::string placeholder = a.channel == "webhook" ? "<senderId>" : "<your " + a.channel + " user id>";
    examples.push_back("\"" + a.channel + ":" + (id.empty() ? placeholder : id) + "\"");
  }
  std::string list, channel_names;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    list += (i ? "," : "") + examples[i];
    channel_names += (i ? ", " : "") + names[i];
  }
  // Where the id comes from: pairing for chat platforms; a webhook has none (its caller names the sender).
  const bool webhook = std::find(names.begin(), names.end(), "webhook") != names.end();
  const bool chats = names.size() > (webhook ? 1u : 0u);
  std::string where;
  if (chats) where = "`" + invoked_command() + " pairing list` shows the ids of senders who wrote to the bot";
  if (webhook) where += std::string(chats ? "; " : "") + "a webhook sender's id is the senderId its caller posts";
  return warn("owner",
              "channels are configured (" + channel_names + ") but commands.ownerAllowFrom is empty: nobody can answer exec "
              "approvals in a chat (/approve, Telegram's buttons) and owner-only tools are off for every sender",
              "list yourself as the owner: " + invoked_command() + " config set commands.ownerAllowFrom '[" + list +
                  "]' (your id: " + where +
                  ")");
}

std::optional<Finding> check_control_ui(const json& effective, const std::string& home) {
  const json& gw = effective.value("gateway", json::object());
  const auto ui = gateway::control_ui_settings(gw.value("controlUi", json::object()), home);
  if (!ui.enabled()) return std::nullopt;
  if (auto st = gateway::check_control_ui_root(ui.root); !st) {
    return failed("control-ui", st.error().message,
                  "install OpenClaw's package (npm install openclaw) and set gateway.controlUi.root to its "
                  "dist/control-ui, or remove gateway.controlUi.root (the gateway answers 503 there until then)");
  }
  return ok("control-ui", "OpenClaw's Control UI from " + ui.root + " at " + (ui.base_path.empty() ? "/" : ui.base_path + "/") +
                              (ui.base_path.empty() ? " (Pincer's web chat at /pincer/)" : ""));
}

std::vector<Finding> run_doctor(const std::filesystem::path& state_dir, const std::filesystem::path& config_file,
                                const config::EnvLookup& env) {
  std::vector<Finding> out;
  // The config section: the one report of `config validate` (cli/config_checks.h) — a missing
  // variable does not hide the file's other problems — with doctor's own words for the variables.
  ConfigCheckOptions options;
  options.check_auth = false;  // the "token" finding below says it, with its fix
  const auto report = check_config_file(config_file, env, options);
  const std::vector<MissingEnvVar> missing = missing_env_vars(config_file, env);
  for (const auto& m : missing) {
    out.push_back(failed("config", "environment variable " + m.name + " is not set (" + config_file.string() +
                                       " uses it at " + m.path + ")",
                         "export " + m.name + "=… in this shell and in the gateway's environment (restart the gateway "
                         "there), or put it in the env section of " + config_file.string() + ": env: { " + m.name +
                         ": \"…\" }"));
  }
  for (const auto& e : report.problems.errors) {
    if (!missing.empty() && e.find(": missing env var \"") != std::string::npos) continue;  // said above
    // The line names the file it is about (an $include'd one, or the config file itself).
    // (A JSON5 error in an included file starts with that file's name: "inc.json5:2:1: …".)
    const std::string head = e.substr(0, e.find(':'));
    const bool other_file = head != config_file.string() && (head.ends_with(".json5") || head.ends_with(".json"));
    const bool own = e.find(", through $include)") == std::string::npos && !other_file;
    out.push_back(failed("config", e, std::string("fix it in ") + (own ? config_file.string() : "the file named above") + " (" +
                                         invoked_command() + " config validate lists every problem)"));
  }
  // The rest of doctor reads the config with each missing variable's reference as written.
  auto loaded = config::load_keeping_missing_env(config_file, env);
  if (!loaded) {
    out.push_back(check_permissions(state_dir, config_file));
    out.push_back(check_state_writable(state_dir));
    // What needs no valid config: the port and the running gateway (whether it rejected a reload
    // of this file), at the port the file's gateway section says as written (resolve_connection
    // reads it raw when the schema rejects the file).
    if (auto options = resolve_connection({}, env); !options) {
      out.push_back(warn("port", "not checked: the gateway's port cannot be read from " + config_file.string() +
                                     " (the config finding above says why)", "fix the config errors above"));
    } else if (auto port = own_loopback_port(options->url)) {
      add_gateway_checks(out, *port, state_dir, config_file, env);
    }
    out.push_back(warn("skipped",
                       "not checked while " + config_file.string() + " is invalid: bind and token safety, Control UI, "
                       "owner, MCP servers, channels, auth profiles, skills and provider (they read the config)",
                       "fix the config errors above, then run " + invoked_command() + " doctor again"));
    return out;
  }
  if (!loaded->exists) {
    out.push_back(warn("config", config_file.string() + " does not exist (defaults apply)", "run " + invoked_command() + " onboard"));
  } else if (report.problems.errors.empty() && missing.empty()) {
    out.push_back(ok("config", config_file.string() + " is valid"));
  }
  out.push_back(check_permissions(state_dir, config_file));
  out.push_back(check_state_writable(state_dir));
  const json& cfg = loaded->effective;
  int port = 0;  // as `pincer gateway run` resolves it
  if (auto p = gateway_port(cfg.value("gateway", json::object()), env); !p) {
    out.push_back(failed("port", p.error().message, "unset PINCER_GATEWAY_PORT or set it to a port number"));
  } else {
    port = *p;
  }
  if (port > 0) add_gateway_checks(out, port, state_dir, config_file, env);
  const auto holder = store::read_lock_holder(paths::gateway_lock_file(state_dir));  // this home's gateway, if it runs
  for (auto& f : check_security(cfg, env, loaded->exists, holder && !holder->stopping)) out.push_back(std::move(f));
  if (auto f = check_control_ui(cfg, env("HOME").value_or(""))) out.push_back(std::move(*f));
  if (auto f = check_command_owner(cfg)) out.push_back(std::move(*f));
  const bool gateway_answers = !out.empty() && std::any_of(out.begin(), out.end(), [](const Finding& f) {
    return f.check == "gateway" && f.status == "ok";
  });
  for (auto& f : check_mcp_servers(cfg, env, gateway_answers)) out.push_back(std::move(f));
  if (gateway_answers) {
    for (auto& f : check_channel_accounts(env)) out.push_back(std::move(f));
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (auto& f : check_auth_profiles(cfg, state_dir, env, now)) out.push_back(std::move(f));
  for (auto& f : check_skills(cfg, state_dir, env)) out.push_back(std::move(f));
  for (auto& f : check_cron_agents(cfg, state_dir, env)) out.push_back(std::move(f));
  for (auto& f : check_session_indexes(state_dir)) out.push_back(std::move(f));
  for (auto& f : check_workspaces(cfg, state_dir, env)) out.push_back(std::move(f));
  auto provider_var = std::find_if(missing.begin(), missing.end(), [](const MissingEnvVar& m) {
    return m.path.rfind("models.", 0) == 0 || m.path.rfind("agents.", 0) == 0;
  });
  if (provider_var != missing.end()) {
    out.push_back(failed("provider", "not checked: " + provider_var->name + " (" + provider_var->path + ") is not set here",
                         "set " + provider_var->name + " (see the config finding above)"));
  } else {
    out.push_back(check_provider(cfg));
  }
  return out;
}

}  // namespace pincer::cli
