#include "cli/config_checks.h"

#include <algorithm>
#include <cctype>

#include "agent/agents_config.h"
#include "agent/workspace_roster.h"
#include "cli/config_workspace_checks.h"
#include "agent/time_zone.h"
#include "automation/heartbeat.h"
#include "automation/hooks.h"
#include "channels/channel_accounts.h"
#include "channels/channel_checks.h"
#include "cli/config_file.h"
#include "cli/config_model_checks.h"
#include "cli/invoked_command.h"
#include "core/json5_edit.h"
#include "core/paths.h"
#include "core/secret_rules.h"
#include "gateway/control_ui.h"
#include "memory/dreaming/dreaming_settings.h"
#include "memory/memory_config.h"
#include "store/session_keys.h"
#include "gateway/protocol/client_address.h"
#include "interop/mcp/mcp_config.h"
#include "tools/sandbox/sandbox.h"

namespace pincer::cli {

using nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

namespace {

void add_once(std::vector<std::string>& to, std::string line) {
  if (std::find(to.begin(), to.end(), line) == to.end()) to.push_back(std::move(line));
}

/// The path a problem line (a schema violation, resolve_agents' errors) ("<json.path>: <what>") names: the text before the first ": "
/// outside a quoted ["…"] key; nullopt for "(root)" or a path that does not parse.
std::optional<json5::Path> config_checks_problem_path(const std::string& line) {
  bool quoted = false;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    if (quoted) {
      if (line[i] == '\\') ++i;
      else if (line[i] == '"') quoted = false;
      continue;
    }
    if (line[i] == '"') quoted = true;
    else if (line[i] == ':' && line[i + 1] == ' ') {
      auto path = json5::parse_path(std::string_view(line).substr(0, i));
      if (!path || path->empty()) return std::nullopt;
      return *path;
    }
  }
  return std::nullopt;
}

/// Two or more agents marked `default: true`: the first wins (as OpenClaw's, which warns too).
void agent_default_problems(const json& effective, ConfigProblems& out) {
  const json list = effective.value("agents", json::object()).value("list", json::array());
  std::vector<std::size_t> marked;
  for (std::size_t i = 0; list.is_array() && i < list.size(); ++i) {
    if (list[i].is_object() && list[i].value("default", false) == true && list[i].value("id", "") != "") marked.push_back(i);
  }
  if (marked.size() < 2) return;
  std::string others;
  for (std::size_t k = 1; k < marked.size(); ++k) {
    others += std::string(k > 1 ? ", " : "") + "agents.list[" + std::to_string(marked[k]) + "] \"" +
              list[marked[k]]["id"].get<std::string>() + "\"";
  }
  const std::string first = list[marked[0]]["id"].get<std::string>();
  out.warnings.push_back("agents.list[" + std::to_string(marked[1]) + "].default: " + std::to_string(marked.size()) +
                         " agents are marked default (agents.list[" + std::to_string(marked[0]) + "] \"" + first + "\", " +
                         others + "): the first, \"" + first + "\", is the default agent (remove default: true from the others)");
}

/// A binding whose match.channel names no channel Pincer runs matches no message: its agent never
/// gets them. A warning, not an error: OpenClaw accepts the ids of plugin channels here (and
/// routes nothing to them when the plugin is not installed), so an imported config loads.
void binding_channel_problems(const json& effective, ConfigProblems& out) {
  const json bindings = effective.value("bindings", json::array());
  if (!bindings.is_array()) return;
  const auto& known = agent::admin::bind_channels();
  std::string names;
  for (const auto& c : known) names += (names.empty() ? "" : ", ") + c;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const json& b = bindings[i];
    if (!b.is_object() || !b.contains("match") || !b["match"].is_object()) continue;
    const json& channel = b["match"].value("channel", json());
    if (!channel.is_string()) continue;
    std::string id = channel.get<std::string>();
    const auto first = id.find_first_not_of(" \t"), last = id.find_last_not_of(" \t");
    id = first == std::string::npos ? "" : id.substr(first, last - first + 1);
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (std::find(known.begin(), known.end(), id) != known.end()) continue;
    out.warnings.push_back("bindings[" + std::to_string(i) + "].match.channel: \"" + channel.get<std::string>() +
                           "\" is not a channel Pincer runs (known: " + names + "): this binding matches no message");
  }
}

/// The sandbox of every agent (TL-5) as its runs will build it: settings that fail every run are
/// errors (a bind that does not parse, is refused (sandbox.h) or whose host path is missing — even
/// with the sandbox off, so that turning it on later cannot fail every run — and a bwrap.command
/// path that is not an executable); a bare bwrap.command not found on PATH is a warning
/// (bubblewrap may be installed before the gateway starts).
void sandbox_problems(const json& effective, const agent::AgentsConfig& agents, ConfigProblems& out) {
  namespace sb = tools::sandbox;
  for (const auto& a : agents.agents) {
    auto settings = sb::settings_for_agent(effective, a.id);
    if (!settings) {
      add_once(out.errors, settings.error().message);
      continue;
    }
    if (auto st = sb::check_binds(*settings); !st) add_once(out.errors, st.error().message);
    if (settings->mode == sb::Mode::kOff) continue;
    if (auto bin = sb::backend_binary(*settings); !bin) {
      const bool path = settings->command.find('/') != std::string::npos || settings->command.empty();
      add_once(path ? out.errors : out.warnings, "sandbox of agent \"" + a.id + "\", bwrap.command: " + bin.error().message);
    }
  }
}

/// agents.defaults.userTimezone must name a zone of this host's time zone database (the zone files
/// agent/time_zone.h reads for every turn): a typo such as "Mars/Base" would silently give host
/// time. When the host has no database at all (no UTC zone file) it is only a warning.
void user_timezone_problem(const json& effective, ConfigProblems& out) {
  const json defaults = effective.value("agents", json::object()).value("defaults", json::object());
  if (!defaults.contains("userTimezone") || !defaults["userTimezone"].is_string()) return;
  const std::string zone = defaults["userTimezone"].get<std::string>();
  const int64_t now_ms = 0;  // any instant: only whether the zone exists matters
  if (agent::time_zone_offset_minutes(zone, now_ms)) return;
  std::string shown = zone.size() > 64 ? zone.substr(0, 64) + "…" : zone;
  const std::string line = "agents.defaults.userTimezone: \"" + shown +
                           "\" is not a time zone of this host's database (/usr/share/zoneinfo); expected an IANA name "
                           "such as \"Europe/Berlin\" or \"UTC\"";
  if (agent::time_zone_offset_minutes("UTC", now_ms)) {
    out.errors.push_back(line);
  } else {
    out.warnings.push_back(line + " (this host has no time zone database: install tzdata)");
  }
}

/// AT-1: what the schema cannot say of the heartbeat blocks (durations, HH:MM, the zone).
void heartbeat_config_problems(const json& effective, ConfigProblems& out) {
  const json agents = effective.value("agents", json::object());
  const json defaults = agents.value("defaults", json::object());
  if (defaults.contains("heartbeat"))
    for (auto& p : automation::heartbeat_problems(defaults["heartbeat"], "agents.defaults.heartbeat")) out.errors.push_back(std::move(p));
  const json list = agents.value("list", json::array());
  for (std::size_t i = 0; list.is_array() && i < list.size(); ++i)
    if (list[i].is_object() && list[i].contains("heartbeat"))
      for (auto& p : automation::heartbeat_problems(list[i]["heartbeat"], "agents.list[" + std::to_string(i) + "].heartbeat"))
        out.errors.push_back(std::move(p));
}

/// AT-3: what the schema cannot say of `hooks` (token when enabled, key prefixes, mappings).
/// A hooks.path that a channel's webhook route or the web chat's files would shadow (or shadow
/// it) is refused: the same path would silently reach only one of them.
void hooks_config_problems(const json& effective, const GatewaySecret& secret, ConfigProblems& out) {
  auto settings = automation::hooks_settings_from_config(effective);
  if (!settings) {
    for (auto& line : lines_of(settings.error().message)) out.errors.push_back(line);
    return;
  }
  if (!settings->enabled) return;
  // The gateway's secret as it will run (flag, environment or file): the file's own is checked
  // by hooks_settings_from_config already.
  if (!secret.value.empty() && secret.value == settings->token && secret.source.rfind("gateway.auth.", 0) != 0)
    out.errors.push_back("hooks.token: must differ from the gateway's " + secret.mode + " (" + secret.source +
                         "): a leaked hook token must not open the whole gateway");
  // A mapping that could only ever answer 400 is a config error, not a surprise at request time.
  const json channels = effective.value("channels", json::object());
  for (const auto& m : settings->mappings) {
    const std::string at = "hooks.mappings (id " + m.id + ")";
    if (!m.channel.empty() && m.channel != "last" && !(channels.is_object() && channels.contains(m.channel)))
      out.errors.push_back(at + ".channel: '" + m.channel + "' is not a configured channel (use last or one of channels.*)");
    if (!m.agent_id.empty() && settings->allowed_agent_ids && !settings->allowed_agent_ids->count(m.agent_id))
      out.errors.push_back(at + ".agentId: '" + m.agent_id + "' is not in hooks.allowedAgentIds");
  }
  const std::string& path = settings->path;
  if (auto problem = channels::route_path_problem(path); !problem.empty()) out.errors.push_back("hooks.path: " + problem);
  for (const auto& spec : channels::list_channel_accounts(effective.value("channels", json::object()))) {
    auto route = channels::check_account(spec);
    if (!route || route->empty()) continue;
    if (*route == path || route->rfind(path + "/", 0) == 0 || path.rfind(*route + "/", 0) == 0)
      out.errors.push_back("hooks.path: '" + path + "' overlaps the route '" + *route + "' of " + spec.config_path);
  }
}

}  // namespace

GatewaySecret gateway_secret(const json& effective, const config::EnvLookup& env, const GatewayAuthFlags& flags) {
  const json auth = effective.value("gateway", json::object()).value("auth", json::object());
  GatewaySecret s;
  s.mode = flags.mode.value_or(auth.value("mode", "token"));
  if (s.mode != "token" && s.mode != "password") return s;
  const bool token = s.mode == "token";
  const std::optional<std::string>& flag = token ? flags.token : flags.password;
  const char* var = token ? "PINCER_GATEWAY_TOKEN" : "PINCER_GATEWAY_PASSWORD";
  if (flag) {
    s.value = *flag;
    s.source = token ? flags.token_flag : flags.password_flag;
  } else if (auto v = env ? env(var) : std::nullopt) {
    s.value = *v;  // set, even empty, it wins (as `gateway run` reads it)
    s.source = var;
  } else {
    s.value = auth.value(token ? "token" : "password", "");
    s.source = token ? "gateway.auth.token" : "gateway.auth.password";
  }
  return s;
}

std::string gateway_auth_problem(const GatewaySecret& s, const std::filesystem::path& config_file) {
  if (s.value.empty() && s.source.rfind("PINCER_GATEWAY_", 0) == 0) {
    return s.source + " is set but empty (it overrides gateway.auth." + s.mode + "): unset it or give it the " + s.mode;
  }
  if (s.mode == "token" && s.value.empty()) {
    return "gateway.auth.mode is \"token\" but no token is set: set gateway.auth.token in " + config_file.string() +
           " or PINCER_GATEWAY_TOKEN, or pass --token-file";
  }
  if (s.mode == "token" && secrets::secret_strength("token", s.value.size()) == secrets::Strength::Refused &&
      !is_env_reference(s.value)) {
    // Named by where it came from: the flag, the variable (which overrides the file) or the key.
    const std::string from_env = s.source.rfind("PINCER_GATEWAY_", 0) == 0
                                     ? "; " + s.source + " is set in this environment and overrides gateway.auth.token"
                                     : "";
    return s.source + ": " + secrets::refused_token_message(s.value.size()) + from_env;
  }
  if (s.mode == "password" && s.value.empty()) {
    return "gateway.auth.mode is \"password\" but no password is set: set gateway.auth.password in " +
           config_file.string() + " or PINCER_GATEWAY_PASSWORD, or pass --password-file";
  }
  return "";
}

/// A binding whose agentId names no agent: routing falls back to the default agent (as
/// OpenClaw's does), so the messages it was meant to route reach another agent without a word.
static void binding_agent_problems(const nlohmann::json& effective, const agent::AgentsConfig& agents,
                                   ConfigProblems& out) {
  const json bindings = effective.value("bindings", json::array());
  if (!bindings.is_array()) return;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const json& b = bindings[i];
    if (!b.is_object() || !b.contains("agentId") || !b["agentId"].is_string()) continue;
    const std::string id = b["agentId"].get<std::string>();
    if (agents.find(store::normalize_agent_id(id)) != nullptr) continue;
    out.warnings.push_back("bindings[" + std::to_string(i) + "].agentId: no agent \"" + id +
                           "\" in agents.list: the messages it matches go to the default agent \"" +
                           agents.default_agent().id + "\" (add the agent, or fix the id)");
  }
}

std::vector<std::string> mcp_server_warnings(const nlohmann::json& effective) {
  std::vector<std::string> out;
  for (const auto& server : interop::mcp::read_settings(effective).servers) {
    if (!server.enabled || server.problem.empty()) continue;
    const std::string at = json5::format_path({"mcp", "servers", server.name});
    const bool names_itself = server.problem.rfind(at, 0) == 0;  // "mcp.servers.x is not an object"
    out.push_back((names_itself ? server.problem : at + ": " + server.problem) + " — the gateway does not start this server (`" +
                  invoked_command() + " mcp status` lists it as disabled with this reason)");
  }
  return out;
}

ConfigProblems check_config(const json& effective, const std::filesystem::path& config_file, const config::EnvLookup& env,
                            const ConfigCheckOptions& options) {
  ConfigProblems out;
  // Gateway auth, as `gateway run` resolves it.
  const GatewaySecret secret = gateway_secret(effective, env, options.flags);
  if (auto problem = options.check_auth ? gateway_auth_problem(secret, config_file) : ""; !problem.empty()) {
    // No config file yet: `gateway run` writes one with a new token (as doctor's "info" says).
    if (secret.mode == "token" && secret.value.empty() && secret.source == "gateway.auth.token" && !options.config_exists) {
      out.notes.push_back("no gateway token yet: `" + invoked_command() + " gateway run` creates " + config_file.string() +
                          " with a new random gateway.auth.token on its first start (or run `" + invoked_command() + " onboard`)");
    } else if (secret.value.empty() && !options.runtime_env_known) {
      // An unset secret may come from the gateway's own environment at run time.
      out.warnings.push_back(problem + " (the gateway's environment must provide it)");
    } else {
      out.errors.push_back(std::move(problem));
    }
  }
  const json gw = effective.value("gateway", json::object());
  const auto proxies = gw.value("trustedProxies", std::vector<std::string>{});
  for (std::size_t i = 0; i < proxies.size(); ++i) {
    if (!gateway::valid_trusted_proxy_entry(proxies[i])) {
      out.errors.push_back("gateway.trustedProxies[" + std::to_string(i) + "]: expected an IP address or CIDR range (e.g. "
                           "127.0.0.1, 10.0.0.0/8), got \"" + proxies[i] + "\"");
    }
  }
  if (secret.mode == "trusted-proxy") {
    const json auth = gw.value("auth", json::object());
    if (proxies.empty() || auth.value("trustedProxy", json::object()).value("userHeader", "").empty()) {
      out.errors.push_back("gateway.auth.mode is \"trusted-proxy\" but gateway.trustedProxies or "
                           "gateway.auth.trustedProxy.userHeader is not set");
    }
  }
  if (gw.value("bind", "loopback") == "custom" && gw.value("customBindHost", "").empty()) {
    out.errors.push_back("gateway.bind is \"custom\" but gateway.customBindHost is not set (or pass --host)");
  }
  // The Control UI (gateway/control_ui.h): a root the gateway can serve, a base path it can match.
  const auto ui = gateway::control_ui_settings(gw.value("controlUi", json::object()), env ? env("HOME").value_or("") : "");
  if (auto problem = gateway::control_ui_base_path_problem(ui.base_path); !problem.empty()) out.errors.push_back(problem);
  if (const std::string raw = gw.value("controlUi", json::object()).value("basePath", "");
      raw.find_first_not_of(" \t") != std::string::npos && raw[raw.find_first_not_of(" \t")] != '/') {
    out.errors.push_back("gateway.controlUi.basePath: \"" + raw + "\": must start with \"/\" (e.g. \"/openclaw\")");
  }
  if (ui.enabled() && options.check_control_ui_root) {
    if (auto st = gateway::check_control_ui_root(ui.root); !st) out.errors.push_back(st.error().message);
  }
  // Channels: every account that could not be built or would clash with another.
  for (auto& p : channels::channel_problems(effective)) out.errors.push_back(std::move(p));
  for (auto& w : channels::group_role_warnings(effective)) out.warnings.push_back(std::move(w));
  for (auto& w : mcp_server_warnings(effective)) out.warnings.push_back(std::move(w));
  // Agents and models. What resolve_agents refuses (a duplicate id …) does not hide the rest: the
  // checks go on without the value it names (a duplicate's id: that entry is left out, as OpenClaw
  // uses the first), and a problem about a value so left out is not said twice.
  json checked = effective;
  auto agents = agent::resolve_agents(checked, paths::state_dir(env), env);
  for (int round = 0; !agents && round < 64; ++round) {
    std::optional<json5::Path> path;
    for (auto& line : lines_of(agents.error().message)) {
      if (!path) path = config_checks_problem_path(line);
      add_once(out.errors, line);
    }
    auto next = path ? json5::apply_unset(checked, *path) : Result<json>(Error{"", ""});
    if (!next) return out;
    checked = std::move(*next);
    agents = agent::resolve_agents(checked, paths::state_dir(env), env);
  }
  if (!agents) return out;
  const json& effective_checked = checked;
  agent_default_problems(effective_checked, out);
  binding_channel_problems(effective_checked, out);
  for (const auto& a : agents->agents) {
    if (a.model.primary.empty()) {
      out.warnings.push_back("agent \"" + a.id + "\" has no model: set agents.defaults.model.primary (`" +
          invoked_command() + " onboard` does)");
    }
  }
  check_model_references(effective_checked, *agents, env, options, out);
  binding_agent_problems(effective_checked, *agents, out);
  user_timezone_problem(effective_checked, out);
  heartbeat_config_problems(effective_checked, out);
  for (auto& p : memory::dreaming::dreaming_problems(effective_checked)) out.errors.push_back(std::move(p));  // DR-1
  hooks_config_problems(effective_checked, secret, out);
  sandbox_problems(effective_checked, *agents, out);
  workspace_problems(effective_checked, *agents, out);  // a file where the workspace should be
  // Memory: an extra path that does not exist is indexed as nothing, silently.
  for (const auto& a : agents->agents) {
    const auto memory = memory::resolve_memory_settings(effective_checked, a.id, a.workspace, paths::state_dir(env), memory::memory_env_from_process());
    if (!memory.enabled) continue;
    for (const auto& p : memory.extra_paths) {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) {
        add_once(out.warnings, "memory.search.extraPaths: " + p.string() + " (agent \"" + a.id + "\") does not exist: nothing is indexed from it");
      }
    }
  }
  return out;
}

namespace {

/// `doc` with the value of each schema violation removed until it validates (each round removes
/// at least one value, or gives up); the removed paths go to `removed`.
/// nullopt when a violation cannot be removed (the root, or a path not found).
std::optional<json> config_report_pruned(json doc, std::vector<std::string>& removed) {
  for (int round = 0; round < 64; ++round) {
    auto st = config::validate(doc);
    if (st) return doc;
    for (const auto& line : lines_of(st.error().message)) {
      auto path = config_checks_problem_path(line);
      if (!path) return std::nullopt;
      if (line.find(": missing required key") != std::string::npos) path->pop_back();  // its object goes
      if (path->empty()) return std::nullopt;
      auto next = json5::apply_unset(doc, *path);
      if (!next) {
        if (json5::find(doc, *path) == nullptr) continue;  // already gone with its parent
        return std::nullopt;
      }
      doc = std::move(*next);
      removed.push_back(json5::format_path(*path));
      // An array element gone shifts the indexes after it: validate again before the next.
      if (std::holds_alternative<std::size_t>(path->back())) break;
    }
  }
  return std::nullopt;
}

}  // namespace

void name_included_files(std::vector<std::string>& lines, const std::filesystem::path& file) {
  const std::string prefix = file.string() + ": ";
  std::vector<std::string> paths;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line = lines[i].rfind(prefix, 0) == 0 ? lines[i].substr(prefix.size()) : lines[i];
    if (auto path = config_checks_problem_path(line)) {
      paths.push_back(json5::format_path(*path));
      which.push_back(i);
    }
  }
  if (paths.empty()) return;
  const auto origins = config::value_origins(file, paths);
  for (std::size_t k = 0; k < which.size(); ++k) {
    const config::ValueOrigin& o = origins[k];
    if (!o.included || o.file.empty()) continue;
    std::string& line = lines[which[k]];
    const std::string bare = line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
    // The text after "<path>: " (the path as the line writes it may differ in quoting).
    std::string what = bare;
    for (std::size_t at = bare.find(": "); at != std::string::npos; at = bare.find(": ", at + 1)) {
      if (auto p = json5::parse_path(std::string_view(bare).substr(0, at)); p && json5::format_path(*p) == paths[k]) {
        what = bare.substr(at + 2);
        break;
      }
    }
    line = o.file.string() + (o.line > 0 ? ":" + std::to_string(o.line) : "") + ": " + (o.path.empty() ? "(root)" : o.path) +
           ": " + what + " (" + paths[k] + " of " + file.string() + ", through $include)";
  }
}

static ConfigFileReport config_report_of(const std::filesystem::path& file, const config::EnvLookup& env,
                                         ConfigCheckOptions options) {
  ConfigFileReport report;
  // What "${NAME}" references are read from (config set: kept as written).
  const config::EnvLookup refs = options.reference_env ? options.reference_env : env;
  // A variable this shell lacks is one error per reference; its "${NAME}" stays as a placeholder
  // so that everything else is still checked (the gateway itself refuses to start without it).
  auto loaded = config::load_keeping_missing_env(file, refs);
  std::error_code ec;
  report.exists = loaded ? loaded->exists : std::filesystem::exists(file, ec);
  options.config_exists = report.exists;
  std::vector<config::EnvReference> missing;
  if (loaded) {
    missing = loaded->missing_env;
  } else if (auto written = config::resolve_file(file, refs, config::EnvRefs::kKeep); written) {
    missing = config::missing_env_references(*written, refs);
  }
  for (const auto& m : missing) {
    report.problems.errors.push_back(file.string() + ": missing env var \"" + m.name + "\" referenced at config path " + m.path);
  }
  // A problem about a placeholder's value is the missing variable's, said once above.
  const auto about_missing = [&missing](const std::string& line) {
    return std::any_of(missing.begin(), missing.end(), [&line](const config::EnvReference& m) {
      return line.find(m.path + ":") != std::string::npos || line.find(m.path + " ") != std::string::npos;
    });
  };
  if (loaded) {
    for (auto& w : loaded->warnings) report.problems.warnings.push_back(std::move(w));  // repeated keys
    auto found = check_config(loaded->effective, file, env, options);
    for (auto& e : found.errors) {
      if (!about_missing(e)) add_once(report.problems.errors, std::move(e));
    }
    for (auto& w : found.warnings) {
      if (!about_missing(w)) report.problems.warnings.push_back(std::move(w));
    }
    report.problems.notes = std::move(found.notes);
    if (missing.empty()) report.loaded = std::move(*loaded);
    return report;
  }
  for (auto& line : lines_of(loaded.error().message)) {
    if (!about_missing(line)) add_once(report.problems.errors, std::move(line));
  }
  report.problems.warnings = config::load_warnings(file);  // beside the errors (the load drops them)
  // Only the schema failed: the rest is checked on what remains without the offending values.
  auto resolved = config::resolve_file(file, refs, config::EnvRefs::kSubstituteSet);
  if (!resolved || !resolved->is_object()) return report;
  std::vector<std::string> removed;
  auto pruned = config_report_pruned(*resolved, removed);
  if (!pruned) return report;
  // A line about a removed value, or about an object one of whose values was removed (its problem
  // may be only that removal: "mcp.servers.x: neither command nor url" once a bad url is gone).
  const auto about_removed = [&removed](const std::string& line) {
    const std::string head = line.substr(0, line.find(": "));
    return std::any_of(removed.begin(), removed.end(), [&line, &head](const std::string& p) {
      const bool inside = !head.empty() && p.size() > head.size() && p.compare(0, head.size(), head) == 0 &&
                          (p[head.size()] == '.' || p[head.size()] == '[');
      return inside || line.find(p) != std::string::npos;
    });
  };
  auto found = check_config(config::with_defaults(*pruned), file, env, options);
  for (auto& e : found.errors) {
    if (!about_removed(e) && !about_missing(e)) add_once(report.problems.errors, std::move(e));
  }
  for (auto& w : found.warnings) {
    if (!about_removed(w) && !about_missing(w)) add_once(report.problems.warnings, std::move(w));
  }
  for (auto& n : found.notes) {
    if (!about_removed(n)) report.problems.notes.push_back(std::move(n));
  }
  return report;
}

ConfigFileReport check_config_file(const std::filesystem::path& file, const config::EnvLookup& env,
                                   ConfigCheckOptions options) {
  ConfigFileReport report = config_report_of(file, env, std::move(options));
  name_included_files(report.problems.errors, file);
  name_included_files(report.problems.warnings, file);
  return report;
}

std::string naming_file(const std::string& line, const std::filesystem::path& file) {
  // A secret given by a flag or the environment is not the file's: named by its source alone.
  if (line.rfind("--", 0) == 0 || line.rfind("PINCER_GATEWAY_", 0) == 0) return line;
  return line.find(file.string()) == std::string::npos ? file.string() + ": " + line : line;
}

std::string reload_off_note(const std::filesystem::path& config_file, const config::EnvLookup& env) {
  auto raw = config::resolve_file(config_file, env, config::EnvRefs::kKeep);
  if (!raw || !raw->is_object()) return "";
  const nlohmann::json gateway = raw->value("gateway", nlohmann::json::object());
  const nlohmann::json reload = gateway.is_object() ? gateway.value("reload", nlohmann::json::object()) : nlohmann::json();
  if (!reload.is_object() || reload.value("mode", nlohmann::json()) != "off") return "";
  return "gateway.reload.mode is \"off\" in " + config_file.string() +
         ": the gateway applies edits only when it restarts (systemctl --user restart pincer-gateway as a service, "
         "else stop it and run " + invoked_command() + " gateway run again), or when an edit sets gateway.reload.mode "
         "to \"hybrid\" (that edit applies everything changed since)";
}

}  // namespace pincer::cli
