// map_config() of cli/openclaw_import.h: openclaw.json (resolved) → pincer.json, as data. Pure:
// no files, no environment. The key-by-key rules are in the header; the reasons given for keys
// that are not imported are in skip_reason().
#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>
#include <string_view>

#include "cli/openclaw_import.h"
#include "core/config.h"
#include "core/json5_edit.h"
#include "store/session_keys.h"

namespace pincer::cli::openclaw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using json5::Path;

constexpr std::array<std::string_view, 5> kPincerApis = {"openai-completions", "openai-responses",
                                                         "anthropic-messages", "ollama", "google-generative-ai"};
constexpr std::string_view kDefaultApi = "openai-completions";

Path key(Path p, std::string k) {
  p.emplace_back(std::move(k));
  return p;
}
Path index(Path p, std::size_t i) {
  p.emplace_back(i);
  return p;
}
std::string text(const Path& p) { return p.empty() ? "(root)" : json5::format_path(p); }

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

bool is_one_of(const json& v, std::initializer_list<std::string_view> values) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  return std::find(values.begin(), values.end(), s) != values.end();
}

// obj[k] when obj is an object holding a string there, else "".
std::string string_at(const json& obj, const char* k) {
  if (!obj.is_object()) return "";
  auto it = obj.find(k);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// obj[k] is `true`.
bool is_true(const json& obj, const char* k) {
  if (!obj.is_object()) return false;
  auto it = obj.find(k);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

bool is_env_name(const std::string& s) {
  static const std::regex name(R"(^[A-Z_][A-Z0-9_]*$)");
  return std::regex_match(s, name);
}

std::string join(std::initializer_list<std::string_view> values) {
  std::string out;
  for (auto v : values) out += (out.empty() ? "" : "|") + std::string(v);
  return out;
}

// Why a key is not imported. `parent` is its parent's path text ("" at the top level).
std::string skip_reason(const std::string& parent, const std::string& k) {
  static const std::map<std::string, std::string, std::less<>> top = {
      {"$schema", "refers to OpenClaw's schema"},
      {"meta", "OpenClaw's own bookkeeping"},
      {"wizard", "OpenClaw's own bookkeeping"},
      {"channels", "not imported: set up channels again in pincer.json (docs/channels.md: Telegram, Discord, IRC, webhook)"},
      {"bindings", "not imported: bindings route channels, which are set up again in pincer.json (docs/channels.md)"},
      {"cron", "cron settings are not imported: set cron.enabled / cron.maxConcurrentRuns in pincer.json (docs/automation.md); cron/jobs.json is copied and scheduled"},
      {"messages", "not imported: set messages.queue again (docs/channels.md); prefix and reaction settings are not supported yet"},
      {"env", "Pincer does not set environment variables from its config; export them in the "
              "gateway's environment"},
      {"secrets", "secret providers are not supported; use \"${NAME}\" env references"},
      {"auth", "auth.profiles in openclaw.json only names profiles; their credentials (agents/<id>/agent/auth-profiles.json "
               "or OpenClaw's SQLite state) are imported with them"},
  };
  static const std::map<std::string, std::string, std::less<>> gateway = {
      {"mode", "Pincer has no remote mode; the CLI takes --url instead"},
      {"tailscale", "Tailscale serve/funnel is not managed by Pincer"},
      {"remote", "remote-gateway client settings are not used; the CLI takes --url and --token"},
      {"tls", "TLS is not terminated by Pincer; put a reverse proxy in front of it"},
      {"nodes", "nodes are not supported by Pincer yet"},
      {"tools", "the HTTP /tools/invoke endpoint is not supported by Pincer"},
      {"allowRealIpFallback", "not supported: Pincer reads x-forwarded-for from trusted proxies only"},
      {"channelHealthCheckMinutes", "not needed: Pincer restarts a failed channel account with backoff"},
  };
  static const std::map<std::string, std::string, std::less<>> agents_defaults = {
      {"models", "the model allowlist and aliases are not supported; list models under models.providers"},
  };
  const std::map<std::string, std::string, std::less<>>* table = nullptr;
  if (parent.empty()) table = &top;
  if (parent == "gateway") table = &gateway;
  if (parent == "agents.defaults") table = &agents_defaults;
  if (table != nullptr) {
    if (auto it = table->find(k); it != table->end()) return it->second;
  }
  if (parent == "logging") {
    if (k == "file") return "Pincer writes its own log (<state dir>/logs/gateway.log), not OpenClaw's file";
    if (k == "redactSensitive" || k == "redactPatterns") return "Pincer always redacts secrets in logs";
  }
  if (parent == "gateway.auth" && k == "allowTailscale") return "Tailscale identity login is not supported by Pincer";
  if (parent == "gateway.controlUi") return "Pincer's web UI has no such setting";
  if (parent.starts_with("agents.list[")) {
    if (k == "agentDir") return "Pincer keeps agent state in <state dir>/agents/<id>";
    return "per-agent \"" + k + "\" is not supported by Pincer yet";
  }
  if (parent.starts_with("models.providers")) return "Pincer has no such provider or model setting";
  return "no Pincer equivalent yet";
}

// "~", "~/x" → under `home`; a relative path → under `base`. Lexically normal.
fs::path resolve_path(std::string raw, const fs::path& base, const std::string& home) {
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.pop_back();
  while (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) raw.erase(0, 1);
  if (!home.empty() && raw == "~") return fs::path(home).lexically_normal();
  if (!home.empty() && raw.starts_with("~/")) return (fs::path(home) / raw.substr(2)).lexically_normal();
  fs::path p(raw);
  if (p.is_relative()) p = base / p;
  return p.lexically_normal();
}


// The path of a schema violation line "<path>: <what>": the text before the first ": " that is
// not inside brackets or quotes.
std::string violation_path(const std::string& line) {
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '[') ++depth;
    else if (c == ']') --depth;
    else if (c == ':' && line[i + 1] == ' ' && depth == 0) return line.substr(0, i);
  }
  return "";
}

bool is_path_prefix(const std::string& prefix, const std::string& path) {
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

struct Secret {
  std::optional<json> value;
  std::string note;    // when value: how it was translated
  std::string reason;  // when no value
};

// An OpenClaw SecretInput (string or SecretRef) as a Pincer string.
Secret convert_secret(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    static const std::regex shorthand(R"(^\s*\$([A-Z][A-Z0-9_]{0,127})\s*$)");
    std::smatch m;
    if (std::regex_match(s, m, shorthand)) {
      return {json("${" + m[1].str() + "}"), "OpenClaw's $NAME shorthand written as ${NAME}", ""};
    }
    for (std::string_view prefix : {"secretref-env:", "__env__:"}) {
      if (s.starts_with(prefix) && is_env_name(s.substr(prefix.size()))) {
        return {json("${" + s.substr(prefix.size()) + "}"), "env marker written as ${NAME}", ""};
      }
    }
    return {v, "", ""};
  }
  if (v.is_object()) {
    const std::string source = string_at(v, "source");
    const std::string id = string_at(v, "id");
    if (source == "env" && is_env_name(id)) return {json("${" + id + "}"), "env SecretRef written as ${" + id + "}", ""};
    return {std::nullopt, "", "secret source \"" + source + "\" is not supported by Pincer; use an env reference \"${NAME}\""};
  }
  return {std::nullopt, "", std::string("expected a string or SecretRef, got ") + type_name(v)};
}

class Mapper {
 public:
  Mapper(const MapContext& ctx, ConfigMapping& out) : ctx_(ctx), out_(out) {}

  void run(const json& root) {
    if (!root.is_object()) {
      skip({}, std::string("the top level must be an object, got ") + type_name(root));
      plan_workspaces(json::object());
      return;
    }
    for (const auto& [k, v] : root.items()) {
      Path p = key({}, k);
      if (k == "gateway") gateway(v, p);
      else if (k == "models") models(v, p);
      else if (k == "agents") agents(v, p);
      else if (k == "tools") tools(v, p);
      else if (k == "logging") logging(v, p);
      else if (k == "hooks") hooks(v, p);
      else if (k == "mcp") mcp(v, p);
      else if (kSameShapeSections.contains(k)) same_shape(v, p);
      else if (k == "plugins") plugins(v, p);
      else skip(p, skip_reason("", k));
    }
    plan_workspaces(root.contains("agents") && root["agents"].is_object() ? root["agents"] : json::object());
    check_model_refs();
    prune_invalid();
  }

 private:
  // ---- recording -------------------------------------------------------------------------------

  void set(const Path& to, json value) {
    json* cur = &out_.config;
    for (const auto& seg : to) {
      if (const auto* k = std::get_if<std::string>(&seg)) {
        if (!cur->is_object()) *cur = json::object();
        cur = &(*cur)[*k];
      } else {
        const std::size_t i = std::get<std::size_t>(seg);
        if (!cur->is_array()) *cur = json::array();
        while (cur->size() <= i) cur->push_back(json::object());
        cur = &(*cur)[i];
      }
    }
    *cur = std::move(value);
  }
  void map(const Path& from, const Path& to, json value, std::string note = "") {
    set(to, std::move(value));
    out_.mapped.push_back({text(from), text(to), std::move(note)});
  }
  void skip(const Path& from, std::string reason) { out_.skipped.push_back({text(from), std::move(reason)}); }
  void expect_object_or_skip(const json& v, const Path& p) {
    skip(p, std::string("expected an object, got ") + type_name(v));
  }
  // Maps a secret, or skips it with the reason.
  void secret(const json& v, const Path& from, const Path& to) {
    Secret s = convert_secret(v);
    if (s.value) map(from, to, std::move(*s.value), std::move(s.note));
    else skip(from, std::move(s.reason));
  }

  // ---- sections with OpenClaw's own shape --------------------------------------------------------

  // Sections Pincer reads in OpenClaw's shape: each key is copied as it is; what Pincer's schema
  // does not know (or types differently) is removed by prune_invalid() with the schema's reason.
  static inline const std::set<std::string, std::less<>> kSameShapeSections = {"memory", "session", "skills", "approvals",
                                                                              "commands"};
  void same_shape(const json& v, const Path& at) {
    if (!v.is_object()) return expect_object_or_skip(v, at);
    for (const auto& [k, value] : v.items()) map(key(at, k), key(at, k), value);
  }

  // plugins: OpenClaw's plugins cannot run in Pincer, but the settings of the two it builds in
  // (plugins.entries.active-memory: active recall; plugins.entries.memory-core: dreaming) are kept.
  void plugins(const json& v, const Path& at) {
    if (!v.is_object()) return expect_object_or_skip(v, at);
    for (const auto& [k, value] : v.items()) {
      Path p = key(at, k);
      if (k != "entries" || !value.is_object()) {
        skip(p, "OpenClaw plugins cannot run in Pincer");
        continue;
      }
      for (const auto& [id, entry] : value.items()) {
        if (id == "active-memory" || id == "memory-core") map(key(p, id), key(p, id), entry, "built into Pincer");
        else skip(key(p, id), "OpenClaw plugins cannot run in Pincer (active-memory and memory-core are built in)");
      }
    }
  }

  // ---- gateway ---------------------------------------------------------------------------------

  void gateway(const json& g, const Path& at) {
    if (!g.is_object()) return expect_object_or_skip(g, at);
    for (const auto& [k, v] : g.items()) {
      Path p = key(at, k);
      if (k == "port" || k == "customBindHost" || k == "trustedProxies") map(p, p, v);
      else if (k == "bind") bind(v, p);
      else if (k == "auth") auth(v, p);
      else if (k == "controlUi") control_ui(v, p);
      else if (k == "reload") reload(v, p);
      else if (k == "http") http(v, p);
      else skip(p, skip_reason("gateway", k));
    }
  }

  // gateway.http.endpoints.{chatCompletions,responses}.enabled: the OpenAI-compatible HTTP API
  // (docs/interop.md); OpenClaw's other endpoint settings (images, files, limits) have no equivalent.
  void http(const json& h, const Path& at) {
    if (!h.is_object()) return expect_object_or_skip(h, at);
    for (const auto& [k, v] : h.items()) {
      Path p = key(at, k);
      if (k != "endpoints") {
        skip(p, "no Pincer equivalent");
        continue;
      }
      if (!v.is_object()) {
        expect_object_or_skip(v, p);
        continue;
      }
      for (const auto& [endpoint, settings] : v.items()) {
        Path e = key(p, endpoint);
        if (endpoint != "chatCompletions" && endpoint != "responses") {
          skip(e, "Pincer serves /v1/chat/completions and /v1/responses only");
          continue;
        }
        if (!settings.is_object()) {
          expect_object_or_skip(settings, e);
          continue;
        }
        for (const auto& [name, value] : settings.items()) {
          Path s = key(e, name);
          if (name == "enabled" && value.is_boolean()) map(s, s, value);
          else skip(s, name == "enabled" ? "expected true or false, got " + value.dump() : "no Pincer equivalent");
        }
      }
    }
  }

  // gateway.reload: the same modes and debounce (CF-2).
  void reload(const json& r, const Path& at) {
    if (!r.is_object()) return expect_object_or_skip(r, at);
    for (const auto& [k, v] : r.items()) {
      Path p = key(at, k);
      if (k == "mode" && is_one_of(v, {"hybrid", "hot", "restart", "off"})) map(p, p, v);
      else if (k == "debounceMs" && v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 60000) map(p, p, v);
      else if (k == "mode" || k == "debounceMs") skip(p, "expected hybrid|hot|restart|off / 0..60000 ms, got " + v.dump());
      else skip(p, "no Pincer equivalent");
    }
  }

  void bind(const json& v, const Path& p) {
    if (is_one_of(v, {"loopback", "lan", "custom"})) return map(p, p, v);
    if (is_one_of(v, {"auto"})) {
      return map(p, p, "loopback", "\"auto\" (loopback when possible) written as \"loopback\"");
    }
    if (is_one_of(v, {"tailnet"})) {
      return skip(p, "Pincer cannot bind to the Tailscale address; the default \"loopback\" applies");
    }
    skip(p, "expected one of loopback|lan|custom|auto|tailnet");
  }

  void auth(const json& a, const Path& at) {
    if (!a.is_object()) return expect_object_or_skip(a, at);
    bool token = false, password = false;
    for (const auto& [k, v] : a.items()) {
      Path p = key(at, k);
      if (k == "mode") {
        if (is_one_of(v, {"none", "token", "password", "trusted-proxy"})) map(p, p, v);
        else skip(p, "expected one of none|token|password|trusted-proxy");
      } else if (k == "token" || k == "password") {
        const std::size_t before = out_.mapped.size();
        secret(v, p, p);
        (k == "token" ? token : password) = out_.mapped.size() > before;
      } else if (k == "rateLimit" || k == "trustedProxy") {
        map(p, p, v);
      } else {
        skip(p, skip_reason("gateway.auth", k));
      }
    }
    std::string mode = string_at(a, "mode");
    if (mode.empty() && password) {
      mode = "password";
      set(key(at, "mode"), "password");
      out_.mapped.push_back({text(key(at, "password")), text(key(at, "mode")),
                             "no auth.mode: OpenClaw uses \"password\" when a password is set"});
    }
    if ((mode.empty() || mode == "token") && !token) {
      out_.warnings.push_back(
          "gateway.auth.token is not set in openclaw.json (OpenClaw may take it from "
          "OPENCLAW_GATEWAY_TOKEN): set gateway.auth.token or PINCER_GATEWAY_TOKEN for the Pincer gateway");
    }
  }

  void control_ui(const json& c, const Path& at) {
    if (!c.is_object()) return expect_object_or_skip(c, at);
    for (const auto& [k, v] : c.items()) {
      Path p = key(at, k);
      if (k == "allowedOrigins") map(p, p, v);
      else skip(p, skip_reason("gateway.controlUi", k));
    }
  }

  // ---- models ----------------------------------------------------------------------------------

  void models(const json& m, const Path& at) {
    if (!m.is_object()) return expect_object_or_skip(m, at);
    for (const auto& [k, v] : m.items()) {
      Path p = key(at, k);
      if (k == "providers") {
        if (!v.is_object()) {
          expect_object_or_skip(v, p);
          continue;
        }
        for (const auto& [id, provider] : v.items()) this->provider(provider, key(p, id));
      } else if (k == "proxy") {
        skip(p, "Pincer has no models.proxy; it uses HTTPS_PROXY/HTTP_PROXY from the gateway's environment");
      } else {
        skip(p, skip_reason("models", k));
      }
    }
  }

  void provider(const json& pr, const Path& at) {
    if (!pr.is_object()) return expect_object_or_skip(pr, at);
    if (pr.contains("api") &&
        !is_one_of(pr["api"], {kPincerApis[0], kPincerApis[1], kPincerApis[2], kPincerApis[3], kPincerApis[4]})) {
      return skip(at, "api " + pr["api"].dump() + " is not supported by Pincer (it speaks " +
                          join({kPincerApis[0], kPincerApis[1], kPincerApis[2], kPincerApis[3], kPincerApis[4]}) + ")");
    }
    if (!pr.contains("baseUrl") || !pr["baseUrl"].is_string() || pr["baseUrl"].get<std::string>().empty()) {
      return skip(at, "no baseUrl: Pincer needs the provider's URL (OpenClaw's built-in providers have none in the file)");
    }
    const std::string api = pr.contains("api") ? pr["api"].get<std::string>() : std::string(kDefaultApi);
    set(at, json::object());
    for (const auto& [k, v] : pr.items()) {
      Path p = key(at, k);
      if (k == "baseUrl" || k == "api") {
        map(p, p, v);
      } else if (k == "apiKey") {
        secret(v, p, p);
      } else if (k == "headers") {
        if (!v.is_object()) {
          expect_object_or_skip(v, p);
          continue;
        }
        set(p, json::object());
        for (const auto& [name, value] : v.items()) secret(value, key(p, name), key(p, name));
      } else if (k == "models") {
        model_list(v, p, api);
      } else if (k == "auth") {
        skip(p, "Pincer authenticates to providers with apiKey only");
        if (!is_one_of(v, {"api-key"})) {
          out_.warnings.push_back(text(p) + " is " + v.dump() + ": Pincer cannot log in that way; give " +
                                  text(at) + " an apiKey");
        }
      } else {
        skip(p, skip_reason("models.providers", k));
      }
    }
  }

  void model_list(const json& list, const Path& at, const std::string& api) {
    if (!list.is_array()) return skip(at, std::string("expected an array, got ") + type_name(list));
    std::size_t out_index = 0;
    set(at, json::array());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& m = list[i];
      Path from = index(at, i);
      if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || m["id"].get<std::string>().empty()) {
        skip(from, "a model needs a non-empty string id");
        continue;
      }
      if (m.contains("api") && m["api"] != api) {
        skip(from, "the model's api " + m["api"].dump() + " differs from its provider's (\"" + api +
                       "\"); Pincer sets the api per provider");
        continue;
      }
      Path to = index(at, out_index++);
      for (const auto& [k, v] : m.items()) {
        if (k == "id" || k == "name" || k == "contextWindow" || k == "maxTokens" || k == "reasoning" || k == "input") {
          map(key(from, k), key(to, k), v);
        } else if (k == "api") {
          // same as the provider's: nothing to write
        } else if (k == "cost") {
          skip(key(from, k), "Pincer does not track costs yet");
        } else {
          skip(key(from, k), skip_reason("models.providers", k));
        }
      }
    }
  }

  // ---- agents ----------------------------------------------------------------------------------

  void agents(const json& a, const Path& at) {
    if (!a.is_object()) return expect_object_or_skip(a, at);
    for (const auto& [k, v] : a.items()) {
      Path p = key(at, k);
      if (k == "defaults") defaults(v, p);
      else if (k == "list") agent_list(v, p);
      else skip(p, skip_reason("agents", k));
    }
  }

  void model_choice(const json& v, const Path& from, const Path& to) {
    if (v.is_string()) return map(from, to, v);
    if (!v.is_object()) return skip(from, std::string("expected a string or {primary, fallbacks}, got ") + type_name(v));
    for (const auto& [k, value] : v.items()) {
      if (k == "primary" || k == "fallbacks") map(key(from, k), key(to, k), value);
      else skip(key(from, k), "no Pincer equivalent yet");
    }
  }

  void defaults(const json& d, const Path& at) {
    if (!d.is_object()) return expect_object_or_skip(d, at);
    for (const auto& [k, v] : d.items()) {
      Path p = key(at, k);
      if (k == "model") {
        model_choice(v, p, p);
      } else if (k == "workspace") {
        // decided by plan_workspaces()
      } else if (k == "thinkingDefault") {
        if (is_one_of(v, {"off", "minimal", "low", "medium", "high", "xhigh"})) map(p, p, v);
        else skip(p, "expected one of off|minimal|low|medium|high|xhigh, got " + v.dump());
      } else if (k == "timeoutSeconds" || k == "contextTokens" || k == "maxConcurrent" || k == "bootstrapMaxChars" ||
                 k == "bootstrapTotalMaxChars" || k == "bootstrapTruncationWarning") {
        map(p, p, v);
      } else if (k == "heartbeat") {
        heartbeat(v, p, p);
      } else if (k == "subagents" || k == "compaction" || k == "sandbox" || k == "userTimezone" ||
                 k == "contextEngine" || k == "startupContext") {
        // OpenClaw's shape: Pincer's schema removes what it does not have.
        if (v.is_object()) {
          for (const auto& [sub, value] : v.items()) map(key(p, sub), key(p, sub), value);
        } else {
          map(p, p, v);
        }
      } else {
        skip(p, skip_reason("agents.defaults", k));
      }
    }
  }

  // agents.*.heartbeat (AT-1): the keys Pincer has are copied; `config validate` checks them.
  void heartbeat(const json& h, const Path& from, const Path& to) {
    if (!h.is_object()) return expect_object_or_skip(h, from);
    for (const auto& [k, v] : h.items()) {
      Path p = key(from, k);
      if (k == "target" && v == "owner") skip(p, "Pincer has no owner route (commands.ownerAllowFrom); the default \"last\" applies");
      else if (k == "every" || k == "activeHours" || k == "prompt" || k == "target" || k == "to" || k == "accountId" ||
               k == "model" || k == "ackMaxChars" || k == "timeoutSeconds")
        map(p, key(to, k), v);
      else skip(p, "heartbeat \"" + k + "\" is not supported by Pincer yet");
    }
  }

  struct Agent {
    std::string id;
    std::size_t src_index = 0, out_index = 0;
    bool listed = false;  // false: the implicit "main"
    std::string workspace;
    bool is_default = false;
  };

  void agent_list(const json& list, const Path& at) {
    if (!list.is_array()) return skip(at, std::string("expected an array, got ") + type_name(list));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& e = list[i];
      Path from = index(at, i);
      if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) {
        skip(from, "an agent needs a string id");
        continue;
      }
      const std::string raw = e["id"].get<std::string>();
      const std::string id = store::normalize_agent_id(raw);
      if (!seen.insert(id).second) {
        skip(from, "duplicate agent id \"" + id + "\" (OpenClaw uses the first)");
        continue;
      }
      Agent agent{id, i, agents_.size(), true, "", false};
      Path to = index(at, agent.out_index);
      map(key(from, "id"), key(to, "id"), id, id == raw ? "" : "normalised from " + json(raw).dump() + " as OpenClaw does");
      for (const auto& [k, v] : e.items()) {
        Path p = key(from, k);
        if (k == "id") continue;
        if (k == "name" || k == "default") map(p, key(to, k), v);
        else if (k == "model") model_choice(v, p, key(to, k));
        else if (k == "heartbeat") heartbeat(v, p, key(to, k));
        else if (k == "workspace") agent.workspace = v.is_string() ? v.get<std::string>() : "";
        else skip(p, skip_reason(text(from), k));
      }
      if (e.contains("workspace") && !e["workspace"].is_string()) skip(key(from, "workspace"), "expected a string");
      agents_.push_back(std::move(agent));
    }
  }

  // ---- workspaces ------------------------------------------------------------------------------

  void plan_workspaces(const json& src_agents) {
    if (agents_.empty()) agents_.push_back(Agent{std::string(store::normalize_agent_id("main")), 0, 0, false, "", true});
    // Default agent: the first listed with default: true, else the first (OpenClaw's rule).
    const json list = src_agents.value("list", json::array());
    std::size_t default_at = 0;
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      const Agent& a = agents_[i];
      if (a.listed && list.is_array() && a.src_index < list.size() && is_true(list[a.src_index], "default")) {
        default_at = i;
        break;
      }
    }
    agents_[default_at].is_default = true;

    const json defaults = src_agents.value("defaults", json::object());
    const bool has_defaults_ws = defaults.is_object() && defaults.contains("workspace");
    const Path defaults_ws_path = {std::string("agents"), std::string("defaults"), std::string("workspace")};
    bool defaults_ws_used = false;
    if (has_defaults_ws && !defaults["workspace"].is_string()) {
      skip(defaults_ws_path, "expected a string");
    }
    std::map<fs::path, std::string> copied;  // source dir → dest (shared workspaces are copied once)
    for (const Agent& a : agents_) {
      std::string raw = a.workspace;
      Path from;
      if (!raw.empty()) {
        from = key(index({std::string("agents"), std::string("list")}, a.src_index), "workspace");
      } else if (a.is_default && has_defaults_ws && defaults["workspace"].is_string()) {
        raw = defaults["workspace"].get<std::string>();
        from = defaults_ws_path;
        defaults_ws_used = true;
      }
      WorkspacePlan plan;
      plan.agent_id = a.id;
      plan.from = from.empty() ? "" : text(from);
      plan.source = raw.empty() ? (ctx_.source_dir / (a.is_default ? "workspace" : "workspace-" + a.id)).lexically_normal()
                                : resolve_path(raw, ctx_.source_dir, ctx_.home);
      // Where Pincer looks for this agent's workspace when pincer.json names none.
      const std::string pincer_default = a.is_default ? "workspace" : "workspace-" + a.id;
      // The key that names it explicitly, when one is needed.
      const Path own_key = a.listed ? key(index({std::string("agents"), std::string("list")}, a.out_index), "workspace")
                                    : defaults_ws_path;
      if (is_below(plan.source, ctx_.source_dir)) {
        auto [it, fresh] = copied.emplace(plan.source, pincer_default);
        plan.copy = fresh;
        plan.dest = it->second;
        if (plan.dest != pincer_default) {
          set(own_key, plan.dest);
          out_.mapped.push_back({plan.from.empty() ? "(default workspace)" : plan.from, text(own_key),
                                 "shares the workspace copied to <state dir>/" + plan.dest});
        } else if (!plan.from.empty()) {
          out_.mapped.push_back({plan.from, "", "copied to <state dir>/" + plan.dest + ", Pincer's default location"});
        }
      } else {
        plan.copy = false;
        set(own_key, plan.source.string());
        out_.mapped.push_back({plan.from.empty() ? "(default workspace)" : plan.from, text(own_key),
                               "outside the OpenClaw state dir: used in place, not copied"});
      }
      out_.workspaces.push_back(std::move(plan));
    }
    if (has_defaults_ws && defaults["workspace"].is_string() && !defaults_ws_used) {
      skip(defaults_ws_path, "not used: the default agent sets its own workspace");
    }
  }

  // ---- tools, logging --------------------------------------------------------------------------

  void tools(const json& t, const Path& at) {
    if (!t.is_object()) return expect_object_or_skip(t, at);
    for (const auto& [k, v] : t.items()) {
      Path p = key(at, k);
      if (k == "profile" || k == "allow" || k == "alsoAllow" || k == "deny") {
        map(p, p, v);
      } else if (k == "exec" && v.is_object()) {
        for (const auto& [ek, ev] : v.items()) {
          if (ek == "timeoutSec") map(key(p, ek), key(p, ek), ev);
          else skip(key(p, ek), skip_reason("tools.exec", ek));
        }
      } else {
        skip(p, skip_reason("tools", k));
      }
    }
  }

  void logging(const json& l, const Path& at) {
    if (!l.is_object()) return expect_object_or_skip(l, at);
    for (const auto& [k, v] : l.items()) {
      Path p = key(at, k);
      if (k == "level") {
        if (is_one_of(v, {"silent"})) map(p, p, "off", "\"silent\" written as \"off\"");
        else if (is_one_of(v, {"fatal"})) map(p, p, "error", "\"fatal\" written as \"error\"");
        else map(p, p, v);
      } else if (k == "consoleStyle") {
        if (is_one_of(v, {"compact"})) map(p, p, "plain", "\"compact\" written as \"plain\"");
        else map(p, p, v);
      } else {
        skip(p, skip_reason("logging", k));
      }
    }
  }

  // ---- hooks (AT-3: inbound webhooks; docs/automation.md "Hooks") --------------------------------

  // mcp.servers (IX-2): OpenClaw's keys are Pincer's; a key Pincer lacks is removed by prune_invalid
  // with the schema's message.
  void mcp(const json& m, const Path& at) {
    if (!m.is_object()) return expect_object_or_skip(m, at);
    for (const auto& [k, v] : m.items()) {
      Path p = key(at, k);
      if (k == "servers") map(p, p, v);
      else skip(p, "not a Pincer mcp setting");
    }
  }

  void hooks(const json& h, const Path& at) {
    if (!h.is_object()) return expect_object_or_skip(h, at);
    for (const auto& [k, v] : h.items()) {
      Path p = key(at, k);
      if (k == "token") secret(v, p, p);
      else if (k == "enabled" || k == "path" || k == "maxBodyBytes" || k == "defaultSessionKey" ||
               k == "allowRequestSessionKey" || k == "allowedSessionKeyPrefixes" || k == "allowedAgentIds" ||
               k == "presets")
        map(p, p, v);
      else if (k == "mappings" && v.is_array()) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (v[i].is_object() && v[i].contains("transform")) {
            skip(index(p, i), "its JavaScript transform cannot run in Pincer; rewrite it with messageTemplate/textTemplate");
          } else {
            map(index(p, i), index(p, kept++), v[i]);
          }
        }
      } else if (k == "gmail" && v.is_object() && v.contains("allowUnsafeExternalContent")) {
        map(key(p, "allowUnsafeExternalContent"), key(p, "allowUnsafeExternalContent"), v["allowUnsafeExternalContent"]);
        skip(p, "the Gmail watcher (gog, Pub/Sub, Tailscale) is not built in Pincer: POST to <hooks.path>/gmail yourself");
      } else {
        skip(p, k == "internal" ? "OpenClaw's internal HOOK.md hooks are not supported by Pincer"
                                : k == "gmail" ? "the Gmail watcher (gog, Pub/Sub, Tailscale) is not built in Pincer"
                                               : "not a Pincer hooks setting");
      }
    }
  }

  // ---- checks ----------------------------------------------------------------------------------

  // Warns about model references that name no model of models.providers (OpenClaw also knows
  // built-in providers; Pincer only knows what the file lists).
  void check_model_refs() {
    const json& cfg = out_.config;
    auto listed = [&](const std::string& ref) {
      const auto slash = ref.find('/');
      if (slash == std::string::npos) return false;
      const json* p = json5::find(cfg, Path{std::string("models"), std::string("providers"), ref.substr(0, slash)});
      if (p == nullptr || !p->contains("models") || !(*p)["models"].is_array()) return false;
      for (const auto& m : (*p)["models"]) {
        if (string_at(m, "id") == ref.substr(slash + 1)) return true;
      }
      return false;
    };
    auto check = [&](const json& choice, const std::string& where) {
      std::vector<std::pair<std::string, std::string>> refs;
      if (choice.is_string()) refs.emplace_back(where, choice.get<std::string>());
      if (choice.is_object()) {
        if (choice.contains("primary") && choice["primary"].is_string()) {
          refs.emplace_back(where + ".primary", choice["primary"].get<std::string>());
        }
        if (choice.contains("fallbacks") && choice["fallbacks"].is_array()) {
          for (std::size_t i = 0; i < choice["fallbacks"].size(); ++i) {
            if (choice["fallbacks"][i].is_string()) {
              refs.emplace_back(where + ".fallbacks[" + std::to_string(i) + "]", choice["fallbacks"][i].get<std::string>());
            }
          }
        }
      }
      for (const auto& [path, ref] : refs) {
        if (!listed(ref)) {
          out_.warnings.push_back(path + ": \"" + ref + "\" is not listed under models.providers; Pincer " +
                                  "only uses configured models (add it with `pincer config set` or `pincer onboard`)");
        }
      }
    };
    if (const json* d = json5::find(cfg, Path{std::string("agents"), std::string("defaults"), std::string("model")})) {
      check(*d, "agents.defaults.model");
    }
    if (const json* l = json5::find(cfg, Path{std::string("agents"), std::string("list")}); l && l->is_array()) {
      for (std::size_t i = 0; i < l->size(); ++i) {
        if ((*l)[i].is_object() && (*l)[i].contains("model")) {
          check((*l)[i]["model"], "agents.list[" + std::to_string(i) + "].model");
        }
      }
    }
  }

  // Removes what Pincer's schema rejects, one value at a time, until the document validates. A
  // "missing required key" removes the object that lacks it.
  void prune_invalid() {
    for (int round = 0; round < 10000; ++round) {
      auto st = config::validate(out_.config);
      if (st) return;
      const std::string message = st.error().message;
      const std::string line = message.substr(0, message.find('\n'));
      std::string path = violation_path(line);
      const std::string what = path.empty() ? line : line.substr(path.size() + 2);
      auto parsed = json5::parse_path(path);
      if (path.empty() || path == "(root)" || !parsed || parsed->empty()) break;
      json5::Path target = *parsed;
      // A missing required key: the object lacking it goes (the reason names the key).
      const bool parent = what.starts_with("missing required key");
      if (parent) target.pop_back();
      if (target.empty()) break;
      auto removed = json5::apply_unset(out_.config, target);
      if (!removed) break;
      out_.config = std::move(*removed);
      forget(json5::format_path(target), "not valid in Pincer: " + (parent ? line : what));
    }
    // Unreachable in practice: every value comes from the rules above. Never write an invalid file.
    out_.warnings.push_back("internal: the mapped config did not validate; nothing was mapped");
    out_.config = json::object();
    out_.mapped.clear();
  }

  // The value at `to_path` (output coordinates) was removed: turn the mapped entries it covered
  // into skipped ones, and report parts of bigger mapped values in source coordinates.
  void forget(const std::string& to_path, const std::string& reason) {
    bool reported = false;
    std::vector<MappedKey> kept;
    for (auto& m : out_.mapped) {
      if (!m.to.empty() && is_path_prefix(to_path, m.to)) {
        out_.skipped.push_back({m.from, reason});
        reported = true;
      } else {
        if (!m.to.empty() && !reported && is_path_prefix(m.to, to_path)) {
          out_.skipped.push_back({m.from + to_path.substr(m.to.size()), reason});
          reported = true;
        }
        kept.push_back(std::move(m));
      }
    }
    out_.mapped = std::move(kept);
    if (!reported) out_.skipped.push_back({to_path, reason});
  }

  const MapContext& ctx_;
  ConfigMapping& out_;
  std::vector<Agent> agents_;
};

}  // namespace

ConfigMapping map_config(const nlohmann::json& openclaw, const MapContext& ctx) {
  ConfigMapping out;
  // OpenClaw 2026.9 may keep its agents keyed by id (`agents.entries: {<id>: {…}}`, written by
  // `openclaw models set --agent`) instead of the `agents.list` array; without a list, the entries
  // are read as list items in id order (their reports say agents.list[i]).
  if (openclaw.is_object() && openclaw.contains("agents") && openclaw["agents"].is_object() && !openclaw["agents"].contains("list") &&
      openclaw["agents"].contains("entries") && openclaw["agents"]["entries"].is_object()) {
    nlohmann::json normalized = openclaw;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [id, entry] : openclaw["agents"]["entries"].items()) {
      nlohmann::json item = entry.is_object() ? entry : nlohmann::json::object();
      item["id"] = id;
      list.push_back(std::move(item));
    }
    normalized["agents"].erase("entries");
    normalized["agents"]["list"] = std::move(list);
    out.warnings.push_back("agents.entries (OpenClaw's agents keyed by id) was read as agents.list, in id order");
    Mapper(ctx, out).run(normalized);
    return out;
  }
  Mapper(ctx, out).run(openclaw);
  return out;
}

}  // namespace pincer::cli::openclaw
