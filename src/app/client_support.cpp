#include "app/client_support.h"

#include <sys/stat.h>

#include <atomic>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "agent/agents_config.h"
#include "cli/chat_renderer.h"
#include "cli/invoked_command.h"

namespace pincer::app {

using nlohmann::json;

void add_secret_option(CLI::App* cmd, const std::string& name, std::optional<std::string>& target,
                       const std::string& help, std::string* source) {
  auto* direct = cmd->add_option("--" + name, target, help + " (visible in ps: prefer --" + name + "-file)");
  direct->each([name, source](const std::string&) {
    if (source) *source = "--" + name;
    std::cerr << "pincer: warning: --" << name << " is visible to every local user (ps, /proc/<pid>/cmdline); use --"
              << name << "-file or the environment instead\n";
  });
  auto* file = cmd->add_option_function<std::string>(
      "--" + name + "-file",
      [name, &target, source](const std::string& path) {
        const std::string flag = "--" + name + "-file";
        if (source) *source = flag;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) throw CLI::ValidationError(flag, path + ": " + std::strerror(errno));
        if (!S_ISREG(st.st_mode)) throw CLI::ValidationError(flag, path + ": not a regular file");
        if (st.st_size > 4096) throw CLI::ValidationError(flag, path + ": larger than 4 KiB (expected one line)");
        std::ifstream in(path, std::ios::binary);
        std::string line;
        if (!in || !std::getline(in, line)) throw CLI::ValidationError(flag, path + ": cannot read it, or it is empty");
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) throw CLI::ValidationError(flag, path + ": the first line is empty");
        if (st.st_mode & 0077) {
          std::cerr << "pincer: warning: " << path << " is readable by other users; chmod 600 it\n";
        }
        target = line;
      },
      help + ", read from the first line of this file");
  file->excludes(direct);
}

void add_client_flags(CLI::App* cmd, ClientFlags& flags, bool json_flag) {
  cmd->add_option("--url", flags.conn.url, "Gateway URL (default PINCER_GATEWAY_URL or ws://127.0.0.1:<gateway.port>)");
  add_secret_option(cmd, "token", flags.conn.token, "Gateway token (default PINCER_GATEWAY_TOKEN or gateway.auth.token)");
  add_secret_option(cmd, "password", flags.conn.password, "Gateway password (default PINCER_GATEWAY_PASSWORD)");
  cmd->add_option("--timeout", flags.conn.timeout_ms, "Request timeout in ms")
      ->check(whole_number_check(1, 24 * 3600 * 1000, "milliseconds", "MS"));
  if (json_flag) cmd->add_flag("--json", flags.json, "Print the result as JSON");
}

CLI::Validator thinking_level_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (agent::thinking_level(value)) return "";
        return "\"" + value + "\" is not a thinking level (off|minimal|low|medium|high|xhigh)";
      },
      "LEVEL");
}

CLI::Validator whole_number_check(long long min, long long max, const std::string& units, const std::string& type_name) {
  return CLI::Validator(
      [min, max, units](std::string& v) -> std::string {
        long long n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (!v.empty() && ec == std::errc() && end == v.data() + v.size() && n >= min && n <= max) return "";
        return "expected a whole number " + (units.empty() ? std::string() : "of " + units + " ") + "from " +
               std::to_string(min) + " to " + std::to_string(max) + " (got '" + cli::terminal_safe(v) + "')";
      },
      type_name);
}

CLI::Validator session_key_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!value.empty()) return "";
        return "an empty session key is refused (it would silently be the main session): leave --session out for "
               "the main session, or give a key such as main";
      },
      "KEY");
}

namespace {
std::atomic<bool> client_support_json_errors{false};  // JsonErrors
}  // namespace

JsonErrors::JsonErrors(bool on) : previous_(client_support_json_errors.exchange(on)) {}
JsonErrors::~JsonErrors() { client_support_json_errors = previous_; }

int fail(int code, const std::string& message, const std::string& error_code) {
  if (client_support_json_errors) {
    const json error = {{"code", error_code.empty() ? (code == 2 ? "INVALID_REQUEST" : "FAILED") : error_code},
                        {"message", message}};
    std::cout << json{{"ok", false}, {"error", error}}.dump(2, ' ', false, json::error_handler_t::replace) << std::endl;
    return code;
  }
  std::cerr << "pincer: " << message << "\n";
  return code;
}

int request_failed(const std::string& method, const Error& error) {
  if (client_support_json_errors) return fail(1, method + ": " + error.message, error.code);
  return fail(1, method + ": " + error.message + (error.code.empty() ? "" : " [" + error.code + "]"));
}

int print_json(const json& payload) {
  std::cout << payload.dump(2, ' ', false, json::error_handler_t::replace) << "\n";  // never throws
  return 0;
}

std::string missing_config_note(const ClientFlags& flags, const config::EnvLookup& env) {
  auto set = [](const std::optional<std::string>& v) { return v && !v->empty(); };
  if (flags.conn.url || set(env("PINCER_GATEWAY_URL"))) return "";  // the URL was given: the config plays no part
  const auto file = paths::config_file(paths::state_dir(env));
  const auto port = env("PINCER_GATEWAY_PORT");
  const std::string assumed =
      ", so the port is " + (set(port) ? *port + " (from PINCER_GATEWAY_PORT)" : std::string("18789 (the default)"));
  std::error_code ec;
  if (std::filesystem::exists(file, ec) || ec) {
    // A file the CLI could not read: resolve_connection went on with the defaults (cli/connection.cpp).
    auto raw = config::resolve_file(file, env, config::EnvRefs::kKeep);
    if (raw && raw->is_object()) return "";
    return "the config file " + file.string() + " cannot be read (" +
           (raw ? std::string("it is not an object") : raw.error().message) + ")" + assumed + ": fix it (" +
           cli::invoked_command() + " config validate shows where) or give --url";
  }
  return "no config file was found at " + file.string() + assumed +
         ": run " + cli::invoked_command() + " onboard, point PINCER_HOME at the gateway's state directory, or give --url";
}

std::string no_credentials_note(const ClientFlags& flags, const cli::ClientOptions& options) {
  if (!options.token.empty() || !options.password.empty()) return "";
  const auto env = config::process_env();
  const auto env_url = env("PINCER_GATEWAY_URL");
  if (!flags.conn.url && (!env_url || env_url->empty())) return "";
  // resolve_connection sent no local secret to a URL that is not this gateway's own address.
  return std::string(flags.conn.url ? "--url" : "PINCER_GATEWAY_URL") +
         " given: the local config's gateway.auth token or password is sent only to this gateway's own address, so "
         "no credentials were sent; pass --token-file or --token (or --password-file, --password; or "
         "PINCER_GATEWAY_TOKEN)";
}

int with_gateway(const ClientFlags& flags, const std::function<int(cli::GatewayClient&)>& body, cli::EventHandler on_event,
                 std::vector<std::string> caps, cli::CloseHandler on_close) {
  auto options = cli::resolve_connection(flags.conn, config::process_env());
  if (!options) return fail(2, options.error().message);
  options->caps = std::move(caps);
  flags.url_shown = options->url;
  auto client = cli::GatewayClient::connect(*options, std::move(on_event), std::move(on_close));
  if (!client) {
    const Error& e = client.error();
    if (e.code == "INVALID_URL") return fail(2, e.message);
    if (e.code == "UNREACHABLE" || e.code == "TIMEOUT") {
      // This home's gateway runs elsewhere (its lock file says where): say that, not "start one" —
      // for the address the config gave (a --url or PINCER_GATEWAY_URL aims at a gateway of its own).
      const auto given_url = config::process_env()("PINCER_GATEWAY_URL");
      const bool from_config = !flags.conn.url && (!given_url || given_url->empty());
      if (const std::string running = from_config ? cli::running_gateway_note(config::process_env(), options->url) : "";
          !running.empty()) {
        return fail(1, "cannot reach the gateway at " + options->url + " (" + e.message + "); " + running, e.code);
      }
      const std::string note = missing_config_note(flags, config::process_env());
      return fail(1, "cannot reach the gateway at " + options->url + " (" + e.message +
                         "). Is it running? Start it with: " + cli::invoked_command() + " gateway run" +
                         (note.empty() ? "" : (client_support_json_errors ? "; " : "\npincer: ") + note), e.code);
    }
    // Name the secret that was sent: a password user is not helped by token hints.
    const bool password = !options->password.empty() && options->token.empty();
    if (const std::string note = no_credentials_note(flags, *options); !note.empty()) {
      return fail(1, "the gateway at " + options->url + " refused the connection: " + e.message + " — " + note, e.code);
    }
    return fail(1, "the gateway at " + options->url + " refused the connection: " + e.message +
                       (password ? " (check --password-file / PINCER_GATEWAY_PASSWORD / gateway.auth.password)"
                                 : " (check --token-file / PINCER_GATEWAY_TOKEN / gateway.auth.token)"), e.code);
  }
  return body(**client);
}

int with_gateway_or_local(const ClientFlags& flags, const std::function<int(cli::GatewayClient&)>& body,
                          const std::function<int()>& offline, bool say_offline) {
  const auto env = config::process_env();
  const bool local = !flags.conn.url && !env("PINCER_GATEWAY_URL");
  auto options = cli::resolve_connection(flags.conn, env);
  if (local && options) {
    auto client = cli::GatewayClient::connect(*options);
    if (!client && (client.error().code == "UNREACHABLE" || client.error().code == "TIMEOUT")) {
      if (say_offline) {
        std::cerr << "pincer: no gateway answers at " << options->url << "; showing the local files of "
                  << paths::state_dir(env).string() << " (offline data)\n";
      }
      return offline();
    }
    if (client) {
      flags.url_shown = options->url;
      return body(**client);
    }
  }
  return with_gateway(flags, body);
}

std::string message_text(const json& message) {
  if (!message.contains("content")) return "";
  const json& c = message["content"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array()) {
    for (const auto& block : c) {
      if (block.is_object() && block.value("type", "") == "text") {
        if (!out.empty()) out += "\n";
        out += block.value("text", "");
      }
    }
  }
  return out;
}

std::string history_text(const json& message) {
  std::string text = message_text(message);
  // A turn's tool calls, as the live chat shows them (`⚙ name args`): else a replayed tool step
  // is a blank line.
  if (message.is_object() && message.value("role", "") == "assistant" && message.contains("content") &&
      message["content"].is_array()) {
    for (const auto& block : message["content"]) {
      if (!block.is_object() || block.value("type", "") != "toolCall") continue;
      if (!text.empty()) text += "\n";
      text += cli::tool_call_line(block.value("name", "?"), block.contains("arguments") ? block["arguments"] : json());
    }
  }
  const std::string stop = message.is_object() ? message.value("stopReason", "") : "";
  if ((stop == "aborted" || stop == "error") && message.value("role", "") == "assistant") {
    const json& why = message.contains("errorMessage") ? message["errorMessage"] : json();
    const std::string note = "[" + (why.is_string() && !why.get<std::string>().empty() ? why.get<std::string>() : stop) + "]";
    text += text.empty() ? note : " " + note;
  }
  return text;
}

namespace {
std::atomic<int> g_interrupts{0};
void on_sigint(int) { g_interrupts.fetch_add(1); }
}  // namespace

InterruptCounter::InterruptCounter() {
  g_interrupts = 0;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &old_);
}

InterruptCounter::~InterruptCounter() { sigaction(SIGINT, &old_, nullptr); }

int InterruptCounter::count() { return g_interrupts.load(); }

void InterruptCounter::reset() { g_interrupts = 0; }

}  // namespace pincer::app
