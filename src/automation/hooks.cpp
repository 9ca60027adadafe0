#include "automation/hooks.h"
#include "core/json_dump.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>

namespace pincer::automation {
namespace {

using nlohmann::json;

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// A trimmed string field, "" when absent, blank or not a string.
std::string text_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? trim(it->get<std::string>()) : std::string();
}

HookWakeMode wake_mode_of(const json& obj, const char* key) {
  return text_of(obj, key) == "next-heartbeat" ? HookWakeMode::NextHeartbeat : HookWakeMode::Now;
}

std::string strip_slashes(std::string s) {
  s = trim(s);
  while (!s.empty() && s.front() == '/') s.erase(0, 1);
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

bool has_prefix_ci(const std::string& key, const std::vector<std::string>& prefixes) {
  const std::string k = lower(trim(key));
  if (k.empty()) return false;
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return k.rfind(p, 0) == 0; });
}

std::string prefixes_error(const std::vector<std::string>& prefixes) {
  std::string out = "sessionKey must start with one of: ";
  for (std::size_t i = 0; i < prefixes.size(); ++i) out += (i ? ", " : "") + prefixes[i];
  return out;
}

std::string channel_error(const std::vector<std::string>& channels) {
  std::string out = "channel must be last";
  for (const auto& c : channels) out += "|" + c;
  return out;
}

/// "last" when absent; the lower-cased id when known; nullopt otherwise.
std::optional<std::string> channel_of(const json& raw, const std::vector<std::string>& channels) {
  if (raw.is_null()) return std::string("last");
  if (!raw.is_string()) return std::nullopt;
  const std::string c = lower(trim(raw.get<std::string>()));
  if (c == "last") return c;
  if (std::find(channels.begin(), channels.end(), c) != channels.end()) return c;
  return std::nullopt;
}

HookMapping gmail_preset() {
  HookMapping m;
  m.id = "gmail";
  m.match_path = "gmail";
  m.name = "Gmail";
  m.session_key = "hook:gmail:{{messages[0].id}}";
  m.message_template =
      "New email from {{messages[0].from}}\nSubject: {{messages[0].subject}}\n{{messages[0].snippet}}\n{{messages[0].body}}";
  return m;
}

HookMapping mapping_of(const json& m, std::size_t index, std::vector<std::string>& errors) {
  const std::string where = "hooks.mappings[" + std::to_string(index) + "]";
  HookMapping out;
  out.id = text_of(m, "id");
  if (out.id.empty()) out.id = "mapping-" + std::to_string(index + 1);
  if (auto match = m.find("match"); match != m.end() && match->is_object()) {
    out.match_path = strip_slashes(text_of(*match, "path"));
    out.match_source = text_of(*match, "source");
  }
  const std::string action = text_of(m, "action");
  if (!action.empty() && action != "wake" && action != "agent")
    errors.push_back(where + ".action: '" + action + "' is not wake or agent");
  out.wake = action == "wake";
  out.wake_mode = wake_mode_of(m, "wakeMode");
  for (auto [key, field] : {std::pair{"name", &out.name}, {"agentId", &out.agent_id}, {"channel", &out.channel},
                            {"to", &out.to}, {"model", &out.model}, {"thinking", &out.thinking}})
    *field = text_of(m, key);
  // Templates keep their spacing (a message may start with a newline on purpose).
  for (auto [key, field] : {std::pair{"sessionKey", &out.session_key}, {"messageTemplate", &out.message_template},
                            {"textTemplate", &out.text_template}})
    if (auto it = m.find(key); it != m.end() && it->is_string()) *field = it->get<std::string>();
  if (auto it = m.find("deliver"); it != m.end() && it->is_boolean()) out.deliver = it->get<bool>();
  if (auto it = m.find("timeoutSeconds"); it != m.end() && it->is_number() && it->get<double>() > 0)
    out.timeout_seconds = static_cast<int64_t>(it->get<double>());
  out.allow_unsafe_external_content = m.value("allowUnsafeExternalContent", false);
  if (m.contains("transform"))
    errors.push_back(where + ".transform: JavaScript transforms cannot run in Pincer; use messageTemplate/textTemplate");
  if (out.wake && out.text_template.empty()) errors.push_back(where + ": a wake mapping needs textTemplate");
  if (!out.wake && out.message_template.empty()) errors.push_back(where + ": an agent mapping needs messageTemplate");
  return out;
}

std::string iso_utc(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

/// `a.b[0].c` into `root`; null when any step is missing.
json value_at(const json& root, const std::string& path) {
  const json* cur = &root;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) return nullptr;
      const std::string digits = path.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return nullptr;
      const std::size_t index = std::stoul(digits);
      if (!cur->is_array() || index >= cur->size()) return nullptr;
      cur = &(*cur)[index];
      i = close + 1;
      continue;
    }
    const std::size_t end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key == "__proto__" || key == "prototype" || key == "constructor") return nullptr;
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    i = end == std::string::npos ? path.size() : end;
  }
  return *cur;
}

std::string lookup(const std::map<std::string, std::string>& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? std::string() : it->second;
}

std::string render_expr(const std::string& expr, const HookRequestContext& ctx) {
  if (expr == "path") return ctx.path;
  if (expr == "now") return iso_utc(ctx.now_ms);
  if (expr.rfind("headers.", 0) == 0) return lookup(ctx.headers, lower(expr.substr(8)));
  if (expr.rfind("query.", 0) == 0) return lookup(ctx.query, expr.substr(6));
  const json v = value_at(ctx.payload, expr.rfind("payload.", 0) == 0 ? expr.substr(8) : expr);
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean() || v.is_number()) return v.dump();
  return json_dump::compact(v);
}

}  // namespace

const char* to_string(HookWakeMode mode) { return mode == HookWakeMode::Now ? "now" : "next-heartbeat"; }

Result<HooksSettings> hooks_settings_from_config(const json& config) {
  HooksSettings s;
  const json hooks = config.is_object() && config.contains("hooks") && config["hooks"].is_object() ? config["hooks"]
                                                                                                      : json::object();
  s.enabled = hooks.value("enabled", false) == true;
  if (!s.enabled) return s;
  std::vector<std::string> errors;
  s.token = text_of(hooks, "token");
  if (s.token.empty()) errors.push_back("hooks.token: required when hooks.enabled is true");
  const json* auth = nullptr;
  if (auto g = config.find("gateway"); g != config.end() && g->is_object())
    if (auto a = g->find("auth"); a != g->end() && a->is_object()) auth = &*a;
  if (auth && !s.token.empty()) {
    for (const char* key : {"token", "password"})
      if (text_of(*auth, key) == s.token)
        errors.push_back(std::string("hooks.token: must differ from gateway.auth.") + key +
                         " (a leaked hook token must not open the whole gateway)");
  }
  std::string path = text_of(hooks, "path");
  if (path.empty()) path = kDefaultHooksPath;
  if (path.front() != '/') path.insert(path.begin(), '/');
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/") errors.push_back("hooks.path: may not be '/'");
  s.path = path;
  if (auto it = hooks.find("maxBodyBytes"); it != hooks.end() && it->is_number_integer() && it->get<int64_t>() > 0)
    s.max_body_bytes = static_cast<std::size_t>(it->get<int64_t>());
  s.default_session_key = text_of(hooks, "defaultSessionKey");
  s.allow_request_session_key = hooks.value("allowRequestSessionKey", false) == true;
  if (auto it = hooks.find("allowedSessionKeyPrefixes"); it != hooks.end() && it->is_array()) {
    for (const auto& p : *it)
      if (p.is_string())
        if (std::string v = lower(trim(p.get<std::string>()));
            !v.empty() && std::find(s.allowed_session_key_prefixes.begin(), s.allowed_session_key_prefixes.end(), v) ==
                              s.allowed_session_key_prefixes.end())
          s.allowed_session_key_prefixes.push_back(v);
  }
  const auto& prefixes = s.allowed_session_key_prefixes;
  if (!prefixes.empty()) {
    if (!s.default_session_key.empty() && !has_prefix_ci(s.default_session_key, prefixes))
      errors.push_back("hooks.defaultSessionKey: must match hooks.allowedSessionKeyPrefixes");
    if (s.default_session_key.empty() && !has_prefix_ci("hook:example", prefixes))
      errors.push_back("hooks.allowedSessionKeyPrefixes: must include 'hook:' when hooks.defaultSessionKey is unset");
  }
  if (auto it = hooks.find("allowedAgentIds"); it != hooks.end() && it->is_array()) {
    std::set<std::string> ids;
    bool any = false;
    for (const auto& a : *it)
      if (a.is_string()) {
        const std::string id = lower(trim(a.get<std::string>()));
        if (id == "*") any = true;
        else if (!id.empty()) ids.insert(id);
      }
    if (!any) s.allowed_agent_ids = std::move(ids);
  }
  if (auto it = hooks.find("mappings"); it != hooks.end() && it->is_array())
    for (std::size_t i = 0; i < it->size(); ++i)
      if ((*it)[i].is_object()) s.mappings.push_back(mapping_of((*it)[i], i, errors));
  if (auto it = hooks.find("presets"); it != hooks.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string preset = (*it)[i].is_string() ? (*it)[i].get<std::string>() : "";
      if (preset == "gmail") {
        HookMapping m = gmail_preset();
        if (auto g = hooks.find("gmail"); g != hooks.end() && g->is_object())
          m.allow_unsafe_external_content = g->value("allowUnsafeExternalContent", false);
        s.mappings.push_back(std::move(m));
      } else {
        errors.push_back("hooks.presets[" + std::to_string(i) + "]: unknown preset '" + preset + "' (known: gmail)");
      }
    }
  }
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    return Error{"CONFIG_INVALID", all};
  }
  return s;
}

Result<HookWake> parse_hook_wake(const json& payload) {
  HookWake w;
  w.text = payload.is_object() ? text_of(payload, "text") : "";
  if (w.text.empty()) return Error{"INVALID_REQUEST", "text required"};
  w.mode = wake_mode_of(payload, "mode");
  return w;
}

Result<HookAgentTurn> parse_hook_agent(const json& payload, const std::vector<std::string>& channels) {
  if (!payload.is_object()) return Error{"INVALID_REQUEST", "message required"};
  HookAgentTurn t;
  t.message = text_of(payload, "message");
  if (t.message.empty()) return Error{"INVALID_REQUEST", "message required"};
  if (std::string name = text_of(payload, "name"); !name.empty()) t.name = name;
  // Text fields given as another type would be dropped silently (the run would go elsewhere).
  for (const char* key : {"agentId", "sessionKey", "to", "model", "thinking", "name"}) {
    if (auto it = payload.find(key); it != payload.end() && !it->is_string() && !it->is_null()) {
      return Error{"INVALID_REQUEST", std::string(key) + " must be a string"};
    }
  }
  t.agent_id = text_of(payload, "agentId");
  t.session_key = text_of(payload, "sessionKey");
  t.session_key_from_request = !t.session_key.empty();
  t.wake_mode = wake_mode_of(payload, "wakeMode");
  auto channel = channel_of(payload.value("channel", json()), channels);
  if (!channel) return Error{"INVALID_REQUEST", channel_error(channels)};
  t.channel = *channel;
  t.to = text_of(payload, "to");
  t.model = text_of(payload, "model");
  if (payload.contains("model") && t.model.empty()) return Error{"INVALID_REQUEST", "model required"};
  t.deliver = !(payload.contains("deliver") && payload["deliver"] == false);
  t.thinking = text_of(payload, "thinking");
  if (auto it = payload.find("timeoutSeconds"); it != payload.end() && it->is_number()) {
    const double v = it->get<double>();
    if (v > 0 && v < 1e9) t.timeout_seconds = static_cast<int64_t>(v);
  }
  return t;
}

std::optional<std::string> hook_token_from_headers(const std::map<std::string, std::string>& headers) {
  if (auto it = headers.find("authorization"); it != headers.end()) {
    const std::string auth = trim(it->second);
    if (auth.size() > 7 && lower(auth.substr(0, 7)) == "bearer ")
      if (std::string token = trim(auth.substr(7)); !token.empty()) return token;
  }
  for (const char* name : {"x-pincer-token", "x-openclaw-token"})
    if (auto it = headers.find(name); it != headers.end())
      if (std::string token = trim(it->second); !token.empty()) return token;
  return std::nullopt;
}

std::string hook_idempotency_key(const std::map<std::string, std::string>& headers, const json& payload) {
  auto usable = [](std::string v) {
    v = trim(v);
    return v.size() <= kMaxHookIdempotencyKeyBytes ? v : std::string();
  };
  for (const char* name : {"idempotency-key", "x-pincer-idempotency-key", "x-openclaw-idempotency-key"})
    if (auto it = headers.find(name); it != headers.end())
      if (std::string v = usable(it->second); !v.empty()) return v;
  return payload.is_object() ? usable(text_of(payload, "idempotencyKey")) : std::string();
}

bool hook_agent_allowed(const HooksSettings& settings, const std::string& agent_id, const std::string& default_agent) {
  if (!settings.allowed_agent_ids) return true;
  const std::string id = agent_id.empty() ? default_agent : lower(agent_id);
  return settings.allowed_agent_ids->count(id) > 0;
}

Result<std::string> resolve_hook_session_key(const HooksSettings& settings, const HookAgentTurn& turn,
                                             const std::function<std::string()>& new_id) {
  const auto& prefixes = settings.allowed_session_key_prefixes;
  std::string key = trim(turn.session_key);
  if (!key.empty()) {
    if (turn.session_key_from_request && !settings.allow_request_session_key)
      return Error{"INVALID_REQUEST",
                   "sessionKey is disabled for external /hooks/agent payloads; set hooks.allowRequestSessionKey=true "
                   "to enable"};
  } else if (!settings.default_session_key.empty()) {
    key = settings.default_session_key;
  } else {
    key = "hook:" + new_id();
  }
  if (!prefixes.empty() && !has_prefix_ci(key, prefixes)) return Error{"INVALID_REQUEST", prefixes_error(prefixes)};
  return key;
}

std::string render_hook_template(const std::string& tmpl, const HookRequestContext& ctx) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    const std::size_t open = tmpl.find("{{", i);
    if (open == std::string::npos) break;
    const std::size_t close = tmpl.find("}}", open + 2);
    if (close == std::string::npos) break;
    out.append(tmpl, i, open - i);
    out += render_expr(trim(std::string_view(tmpl).substr(open + 2, close - open - 2)), ctx);
    i = close + 2;
  }
  out.append(tmpl, i, std::string::npos);
  return out;
}

std::optional<Result<HookAction>> apply_hook_mappings(const HooksSettings& settings, const HookRequestContext& ctx,
                                                      const std::vector<std::string>& channels) {
  for (const HookMapping& m : settings.mappings) {
    if (!m.match_path.empty() && m.match_path != strip_slashes(ctx.path)) continue;
    if (!m.match_source.empty()) {
      const json source = ctx.payload.is_object() ? ctx.payload.value("source", json()) : json();
      if (!source.is_string() || source.get<std::string>() != m.match_source) continue;
    }
    if (m.wake) {
      HookWake w;
      w.text = trim(render_hook_template(m.text_template, ctx));
      w.mode = m.wake_mode;
      if (w.text.empty()) return Result<HookAction>(Error{"INVALID_REQUEST", "hook mapping requires text"});
      return Result<HookAction>(HookAction(std::move(w)));
    }
    auto optional = [&](const std::string& tmpl) { return trim(render_hook_template(tmpl, ctx)); };
    HookAgentTurn t;
    t.message = render_hook_template(m.message_template, ctx);
    if (trim(t.message).empty()) return Result<HookAction>(Error{"INVALID_REQUEST", "hook mapping requires message"});
    if (std::string name = optional(m.name); !name.empty()) t.name = name;
    t.agent_id = m.agent_id;
    t.session_key = optional(m.session_key);
    // A mapping's key (templated or not) is the operator's: it passes the prefix policy in
    // resolve_hook_session_key but needs no allowRequestSessionKey, as OpenClaw's mapping keys.
    t.wake_mode = m.wake_mode;
    if (m.deliver) t.deliver = *m.deliver;
    auto channel = channel_of(m.channel.empty() ? json() : json(m.channel), channels);
    if (!channel) return Result<HookAction>(Error{"INVALID_REQUEST", channel_error(channels)});
    t.channel = *channel;
    t.to = optional(m.to);
    t.model = optional(m.model);
    t.thinking = optional(m.thinking);
    t.timeout_seconds = m.timeout_seconds;
    t.allow_unsafe_external_content = m.allow_unsafe_external_content;
    return Result<HookAction>(HookAction(std::move(t)));
  }
  return std::nullopt;
}

}  // namespace pincer::automation
