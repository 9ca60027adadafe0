// Active recall settings from pincer.json (SPEC DR-6); see active_recall_settings.h.
#include "memory/recall/active_recall_settings.h"

#include <algorithm>
#include <cctype>

namespace pincer::memory::recall {

using nlohmann::json;

namespace detail_active_recall_settings {

int64_t int_in(const json& obj, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return fallback;
  return std::clamp<int64_t>(it->get<int64_t>(), lo, hi);
}

std::string text_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::optional<PromptStyle> style_named(const std::string& name) {
  if (name == "balanced") return PromptStyle::Balanced;
  if (name == "strict") return PromptStyle::Strict;
  if (name == "contextual") return PromptStyle::Contextual;
  if (name == "recall-heavy") return PromptStyle::RecallHeavy;
  if (name == "precision-heavy") return PromptStyle::PrecisionHeavy;
  if (name == "preference-only") return PromptStyle::PreferenceOnly;
  return std::nullopt;
}

}  // namespace detail_active_recall_settings

std::string_view to_string(QueryMode mode) {
  switch (mode) {
    case QueryMode::Message: return "message";
    case QueryMode::Full: return "full";
    case QueryMode::Recent: break;
  }
  return "recent";
}

std::string_view to_string(PromptStyle style) {
  switch (style) {
    case PromptStyle::Strict: return "strict";
    case PromptStyle::Contextual: return "contextual";
    case PromptStyle::RecallHeavy: return "recall-heavy";
    case PromptStyle::PrecisionHeavy: return "precision-heavy";
    case PromptStyle::PreferenceOnly: return "preference-only";
    case PromptStyle::Balanced: break;
  }
  return "balanced";
}

std::optional<ActiveRecallSettings> resolve_active_recall(const json& config, std::string_view agent_id) {
  using namespace detail_active_recall_settings;
  if (!config.is_object()) return std::nullopt;
  auto plugins = config.find("plugins");
  if (plugins == config.end() || !plugins->is_object()) return std::nullopt;
  auto entries = plugins->find("entries");
  if (entries == plugins->end() || !entries->is_object()) return std::nullopt;
  auto entry = entries->find("active-memory");
  if (entry == entries->end() || !entry->is_object()) return std::nullopt;
  auto enabled = entry->find("enabled");
  if (enabled == entry->end() || !enabled->is_boolean() || !enabled->get<bool>()) return std::nullopt;
  static const json kEmpty = json::object();
  auto cfg_it = entry->find("config");
  const json& c = cfg_it != entry->end() && cfg_it->is_object() ? *cfg_it : kEmpty;
  if (auto on = c.find("enabled"); on != c.end() && on->is_boolean() && !on->get<bool>()) return std::nullopt;
  auto agents = c.find("agents");
  if (agents == c.end() || !agents->is_array()) return std::nullopt;
  const bool listed = std::any_of(agents->begin(), agents->end(),
                                  [&](const json& a) { return a.is_string() && a.get<std::string>() == agent_id; });
  if (!listed) return std::nullopt;

  ActiveRecallSettings s;
  s.model = text_of(c, "model");
  const std::string mode = text_of(c, "queryMode");
  s.query_mode = mode == "message" ? QueryMode::Message : mode == "full" ? QueryMode::Full : QueryMode::Recent;
  if (auto style = style_named(text_of(c, "promptStyle"))) {
    s.prompt_style = *style;
  } else {
    s.prompt_style = s.query_mode == QueryMode::Message ? PromptStyle::Strict
                     : s.query_mode == QueryMode::Full  ? PromptStyle::Contextual
                                                        : PromptStyle::Balanced;
  }
  s.timeout_ms = int_in(c, "timeoutMs", kDefaultTimeoutMs, 250, 120'000);
  s.cache_ttl_ms = int_in(c, "cacheTtlMs", kDefaultCacheTtlMs, 1000, 120'000);
  s.max_summary_chars = static_cast<int>(int_in(c, "maxSummaryChars", kDefaultMaxSummaryChars, 40, 1000));
  s.recent_user_turns = static_cast<int>(int_in(c, "recentUserTurns", 2, 0, 4));
  s.recent_assistant_turns = static_cast<int>(int_in(c, "recentAssistantTurns", 1, 0, 3));
  s.recent_user_chars = static_cast<int>(int_in(c, "recentUserChars", 220, 40, 1000));
  s.recent_assistant_chars = static_cast<int>(int_in(c, "recentAssistantChars", 180, 40, 1000));
  s.prompt_override = text_of(c, "promptOverride");
  s.prompt_append = text_of(c, "promptAppend");
  if (auto l = c.find("logging"); l != c.end() && l->is_boolean()) s.logging = l->get<bool>();
  if (auto types = c.find("allowedChatTypes"); types != c.end() && types->is_array()) {
    std::vector<std::string> kept;
    for (const auto& t : *types) {
      if (t.is_string() && (t == "direct" || t == "group" || t == "channel")) kept.push_back(t.get<std::string>());
    }
    if (!kept.empty()) s.allowed_chat_types = std::move(kept);  // as OpenClaw: an empty list = the default
  }
  return s;
}

std::string_view chat_type_of(std::string_view session_key) {
  // The first kind segment followed by an id decides: `agent:<id>:<channel>:group:<peer>`,
  // `…:direct:<peer>` (a peer id that happens to read "group" is not a kind).
  std::vector<std::string> parts;
  std::string part;
  for (char ch : session_key) {
    if (ch == ':') {
      parts.push_back(std::move(part));
      part.clear();
    } else {
      part += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  parts.push_back(std::move(part));
  const std::size_t from = parts.size() > 2 && parts[0] == "agent" ? 2 : 0;
  for (std::size_t i = from; i + 1 < parts.size(); ++i) {
    if (parts[i] == "group") return "group";
    if (parts[i] == "channel") return "channel";
    if (parts[i] == "direct" || parts[i] == "dm") return "direct";
  }
  return "direct";
}

bool allowed_in(const ActiveRecallSettings& s, std::string_view session_key) {
  const std::string_view type = chat_type_of(session_key);
  return std::find(s.allowed_chat_types.begin(), s.allowed_chat_types.end(), type) != s.allowed_chat_types.end();
}

}  // namespace pincer::memory::recall
