#include "agent/cli_backend_config.h"

#include <algorithm>
#include <set>

namespace pincer::agent {

using nlohmann::json;

namespace detail_cli_backend_config {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// The facts of OpenClaw's built-in backends (docs/gateway/cli-backends.md "Defaults").
CliBackendSettings claude_defaults() {
  CliBackendSettings s;
  s.id = "claude-cli";
  s.command = "claude";
  s.args = {"-p", "--output-format", "json", "--dangerously-skip-permissions"};
  s.resume_args = {"-p", "--output-format", "json", "--dangerously-skip-permissions", "--resume", "{sessionId}"};
  s.output = CliOutput::Json;
  s.input = CliInput::Arg;
  s.model_arg = "--model";
  for (const char* a : {"opus", "opus-4.5", "opus-4", "claude-opus-4-5", "claude-opus-4"}) s.model_aliases[a] = "opus";
  for (const char* a : {"sonnet", "sonnet-4.5", "sonnet-4.1", "sonnet-4.0", "claude-sonnet-4-5", "claude-sonnet-4-1",
                        "claude-sonnet-4-0"}) {
    s.model_aliases[a] = "sonnet";
  }
  for (const char* a : {"haiku", "haiku-3.5", "claude-haiku-3-5"}) s.model_aliases[a] = "haiku";
  s.session_arg = "--session-id";
  s.session_mode = CliSessionMode::Always;
  s.system_prompt_arg = "--append-system-prompt";
  s.system_prompt_mode = "append";
  s.system_prompt_when = CliSystemPromptWhen::First;
  s.clear_env = {"ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY_OLD"};
  // OpenClaw's Claude CLI effort: minimal and low → low; "off" leaves the CLI's default.
  s.thinking_args = {{"minimal", {"--effort", "low"}},
                     {"low", {"--effort", "low"}},
                     {"medium", {"--effort", "medium"}},
                     {"high", {"--effort", "high"}},
                     {"xhigh", {"--effort", "xhigh"}}};
  s.serialize = true;
  return s;
}

CliBackendSettings codex_defaults() {
  CliBackendSettings s;
  s.id = "codex-cli";
  s.command = "codex";
  s.args = {"exec", "--json", "--color", "never", "--sandbox", "read-only", "--skip-git-repo-check"};
  s.resume_args = {"exec", "resume", "{sessionId}", "--color", "never", "--sandbox", "read-only", "--skip-git-repo-check"};
  s.output = CliOutput::Jsonl;
  s.resume_output = CliOutput::Text;
  s.input = CliInput::Arg;
  s.model_arg = "--model";
  s.session_id_fields = {"thread_id"};
  s.session_mode = CliSessionMode::Existing;
  s.image_arg = "--image";  // codex exec --image <file>, once per image (OpenClaw's built-in)
  // codex's config override (`-c key=value`) of its reasoning effort.
  for (const char* level : {"minimal", "low", "medium", "high", "xhigh"}) {
    s.thinking_args[level] = {"-c", std::string("model_reasoning_effort=") + level};
  }
  s.serialize = true;
  return s;
}

std::optional<CliOutput> output_of(const json& v) {
  if (!v.is_string()) return std::nullopt;
  const auto s = v.get<std::string>();
  if (s == "json") return CliOutput::Json;
  if (s == "text") return CliOutput::Text;
  if (s == "jsonl") return CliOutput::Jsonl;
  return std::nullopt;
}

std::vector<std::string> strings_of(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& e : v) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

void merge_watchdog(CliWatchdog& w, const json& v) {
  if (!v.is_object()) return;
  if (v.contains("noOutputTimeoutMs") && v["noOutputTimeoutMs"].is_number()) w.no_output_timeout_ms = v["noOutputTimeoutMs"].get<int64_t>();
  if (v.contains("noOutputTimeoutRatio") && v["noOutputTimeoutRatio"].is_number()) w.ratio = v["noOutputTimeoutRatio"].get<double>();
  if (v.contains("minMs") && v["minMs"].is_number()) w.min_ms = v["minMs"].get<int64_t>();
  if (v.contains("maxMs") && v["maxMs"].is_number()) w.max_ms = v["maxMs"].get<int64_t>();
}

// OpenClaw's mergeBackendConfig: configured keys replace the built-in ones; env and modelAliases
// merge by key; clearEnv is the union.
void merge(CliBackendSettings& s, const json& o) {
  auto str = [&](const char* key, std::string& out) {
    if (o.contains(key) && o[key].is_string()) out = o[key].get<std::string>();
  };
  str("command", s.command);
  if (o.contains("args")) s.args = strings_of(o["args"]);
  if (o.contains("resumeArgs")) s.resume_args = strings_of(o["resumeArgs"]);
  if (o.contains("sessionArgs")) s.session_args = strings_of(o["sessionArgs"]);
  if (o.contains("output")) s.output = output_of(o["output"]).value_or(s.output);
  if (o.contains("resumeOutput")) s.resume_output = output_of(o["resumeOutput"]);
  if (o.contains("input") && o["input"].is_string()) s.input = o["input"] == "stdin" ? CliInput::Stdin : CliInput::Arg;
  if (o.contains("maxPromptArgChars") && o["maxPromptArgChars"].is_number()) s.max_prompt_arg_chars = o["maxPromptArgChars"].get<int64_t>();
  if (o.contains("env") && o["env"].is_object()) {
    for (const auto& [k, v] : o["env"].items()) {
      if (v.is_string()) s.env[k] = v.get<std::string>();
    }
  }
  if (o.contains("clearEnv")) {
    for (auto& name : strings_of(o["clearEnv"])) {
      if (std::find(s.clear_env.begin(), s.clear_env.end(), name) == s.clear_env.end()) s.clear_env.push_back(name);
    }
  }
  str("modelArg", s.model_arg);
  if (o.contains("modelAliases") && o["modelAliases"].is_object()) {
    for (const auto& [k, v] : o["modelAliases"].items()) {
      if (v.is_string()) s.model_aliases[ascii_lower(k)] = v.get<std::string>();
    }
  }
  str("sessionArg", s.session_arg);
  if (o.contains("sessionMode") && o["sessionMode"].is_string()) {
    const auto m = o["sessionMode"].get<std::string>();
    s.session_mode = m == "none" ? CliSessionMode::None : m == "existing" ? CliSessionMode::Existing : CliSessionMode::Always;
  }
  if (o.contains("sessionIdFields")) s.session_id_fields = strings_of(o["sessionIdFields"]);
  str("systemPromptArg", s.system_prompt_arg);
  str("systemPromptMode", s.system_prompt_mode);
  if (o.contains("systemPromptWhen") && o["systemPromptWhen"].is_string()) {
    const auto w = o["systemPromptWhen"].get<std::string>();
    s.system_prompt_when = w == "always" ? CliSystemPromptWhen::Always : w == "never" ? CliSystemPromptWhen::Never : CliSystemPromptWhen::First;
  }
  str("imageArg", s.image_arg);
  if (o.contains("imageMode") && o["imageMode"].is_string()) s.image_list = o["imageMode"] == "list";
  if (o.contains("thinkingArgs") && o["thinkingArgs"].is_object()) {  // per level; [] = nothing
    for (const auto& [level, v] : o["thinkingArgs"].items()) s.thinking_args[level] = strings_of(v);
  }
  if (o.contains("thinkingEnv") && o["thinkingEnv"].is_object()) {
    for (const auto& [level, vars] : o["thinkingEnv"].items()) {
      if (!vars.is_object()) continue;
      auto& out = s.thinking_env[level];
      for (const auto& [k, v] : vars.items()) {
        if (v.is_string()) out[k] = v.get<std::string>();
      }
    }
  }
  if (o.contains("serialize") && o["serialize"].is_boolean()) s.serialize = o["serialize"].get<bool>();
  if (o.contains("reliability") && o["reliability"].is_object() && o["reliability"].contains("watchdog")) {
    const json& w = o["reliability"]["watchdog"];
    if (w.is_object() && w.contains("fresh")) merge_watchdog(s.fresh_watchdog, w["fresh"]);
    if (w.is_object() && w.contains("resume")) merge_watchdog(s.resume_watchdog, w["resume"]);
  }
}

constexpr const char* kThinkingLevels[] = {"off", "minimal", "low", "medium", "high", "xhigh"};

// The entry of `level` in `m`, else of the nearest lower level down to "minimal" ("off" only its own).
template <typename V>
const V* thinking_entry(const std::map<std::string, V>& m, std::string_view level) {
  int at = -1;
  for (int i = 0; i < 6; ++i) {
    if (level == kThinkingLevels[i]) at = i;
  }
  if (at < 0) return nullptr;
  for (int i = at; i >= (at == 0 ? 0 : 1); --i) {
    if (auto it = m.find(kThinkingLevels[i]); it != m.end()) return &it->second;
  }
  return nullptr;
}

const json* configured_backends(const json& config) {
  if (!config.is_object()) return nullptr;
  auto a = config.find("agents");
  if (a == config.end() || !a->is_object()) return nullptr;
  auto d = a->find("defaults");
  if (d == a->end() || !d->is_object()) return nullptr;
  auto c = d->find("cliBackends");
  return c != d->end() && c->is_object() ? &*c : nullptr;
}

}  // namespace detail_cli_backend_config

int64_t CliWatchdog::limit_ms(int64_t run_timeout_ms) const {
  if (no_output_timeout_ms) return std::max<int64_t>(1000, *no_output_timeout_ms);
  const auto scaled = static_cast<int64_t>(ratio * static_cast<double>(std::max<int64_t>(run_timeout_ms, 0)));
  return std::max<int64_t>(1000, std::clamp(scaled, min_ms, std::max(min_ms, max_ms)));
}

std::string CliBackendSettings::cli_model(std::string_view model_id) const {
  if (auto it = model_aliases.find(detail_cli_backend_config::ascii_lower(model_id)); it != model_aliases.end()) return it->second;
  return std::string(model_id);
}

const std::vector<std::string>* CliBackendSettings::thinking_args_for(std::string_view level) const {
  return detail_cli_backend_config::thinking_entry(thinking_args, level);
}

const std::map<std::string, std::string>* CliBackendSettings::thinking_env_for(std::string_view level) const {
  return detail_cli_backend_config::thinking_entry(thinking_env, level);
}

std::string normalize_cli_backend_id(std::string_view id) {
  while (!id.empty() && (id.front() == ' ' || id.front() == '\t')) id.remove_prefix(1);
  while (!id.empty() && (id.back() == ' ' || id.back() == '\t')) id.remove_suffix(1);
  return detail_cli_backend_config::ascii_lower(id);
}

std::vector<std::string> cli_backend_ids(const json& config) {
  std::set<std::string> ids = {"claude-cli", "codex-cli"};
  if (const json* c = detail_cli_backend_config::configured_backends(config)) {
    for (const auto& [k, v] : c->items()) ids.insert(normalize_cli_backend_id(k));
  }
  return {ids.begin(), ids.end()};
}

std::optional<CliBackendSettings> resolve_cli_backend(std::string_view provider, const json& config) {
  namespace d = detail_cli_backend_config;
  const std::string id = normalize_cli_backend_id(provider);
  if (id.empty()) return std::nullopt;
  const json* override_entry = nullptr;
  if (const json* c = d::configured_backends(config)) {
    for (const auto& [k, v] : c->items()) {
      if (normalize_cli_backend_id(k) == id && v.is_object()) override_entry = &v;
    }
  }
  std::optional<CliBackendSettings> s;
  if (id == "claude-cli") s = d::claude_defaults();
  else if (id == "codex-cli") s = d::codex_defaults();
  else if (override_entry) {
    s.emplace();
    s->id = id;
  } else {
    return std::nullopt;
  }
  if (override_entry) d::merge(*s, *override_entry);
  const auto first = s->command.find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  s->command = s->command.substr(first, s->command.find_last_not_of(" \t") - first + 1);
  return s;
}

}  // namespace pincer::agent
