// The vocabulary of the openclaw.json mapping (openclaw_import_config_mapper.h): paths as reports
// show them, small value tests, OpenClaw secrets as Pincer strings, and the reasons given for keys
// that are not imported (skip_reason).
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <string_view>

#include "cli/openclaw_import_config_mapper.h"
#include "core/json_lookup.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_env_name(const std::string& s) {
  static const std::regex name(R"(^[A-Z_][A-Z0-9_]*$)");
  return std::regex_match(s, name);
}

}  // namespace

Path key(Path p, std::string k) {
  p.emplace_back(std::move(k));
  return p;
}
Path index(Path p, std::size_t i) {
  p.emplace_back(i);
  return p;
}
std::string text(const Path& p) { return p.empty() ? "(root)" : json5::format_path(p); }


bool is_one_of(const json& v, std::initializer_list<std::string_view> values) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  return std::find(values.begin(), values.end(), s) != values.end();
}

std::string string_at(const json& obj, const char* k) {
  if (!obj.is_object()) return "";
  auto it = obj.find(k);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

bool is_true(const json& obj, const char* k) {
  if (!obj.is_object()) return false;
  auto it = obj.find(k);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
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
      {"channels", "not imported: set up channels again in pincer.json (docs/channels.md: Telegram, Discord, Slack, Matrix, e-mail, IRC, webhook)"},
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
  return {std::nullopt, "", std::string("expected a string or SecretRef, got ") + json_lookup::kind_of(v)};
}

}  // namespace pincer::cli::openclaw::detail_openclaw_config
