#include "memory/dreaming/dreaming_command.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "memory/dreaming/dreaming_settings.h"
#include "memory/dreaming/explain.h"

namespace pincer::memory::dreaming {
namespace detail_dreaming_command {

using nlohmann::json;

std::string first_word_lower(std::string_view arg) {
  const auto b = arg.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = arg.find_first_of(" \t\r\n", b);
  std::string w(arg.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return w;
}

bool cron_runs(const json& config) {
  auto c = config.find("cron");
  if (c == config.end() || !c->is_object()) return true;
  auto e = c->find("enabled");
  return e == c->end() || !e->is_boolean() || e->get<bool>();
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string status_text(const json& config, int64_t now_ms) {
  const DreamingSettings s = resolve_dreaming_settings(config);
  const json sched = dreaming_schedule(s, cron_runs(config), now_ms);
  std::string out = "Dreaming status:\n- enabled: " + std::string(s.enabled ? "on" : "off");
  if (!s.timezone.empty()) out += " (" + s.timezone + ")";
  if (s.non_durable) out += ", non-durable (reports only; MEMORY.md is never changed)";
  out += "\n- sweep cadence: " + s.frequency;
  if (sched.contains("nextSweepAt")) out += "; next sweep " + sched.value("nextSweepAt", "");
  if (sched.contains("noSweepReason")) out += "; no sweep scheduled: " + sched.value("noSweepReason", "");
  out += "\n- promotion policy: score>=" + number(s.min_score) + ", recalls>=" + std::to_string(s.min_recall_count) +
         ", uniqueQueries>=" + std::to_string(s.min_unique_queries);
  return out;
}

std::string usage_text(const json& config, int64_t now_ms) {
  return "Usage: /dreaming status\nUsage: /dreaming on|off\n\n" + status_text(config, now_ms) +
         "\n\nPhases:\n"
         "- each sweep runs light -> REM -> deep.\n"
         "- deep is the only phase that writes durable entries to MEMORY.md.\n"
         "- DREAMS.md holds the human-readable dreaming summaries and diary entries.";
}

}  // namespace detail_dreaming_command

using namespace detail_dreaming_command;

DreamingCommandReply dreaming_command(const json& config, std::string_view arg, const DreamingCommandAccess& access,
                                      int64_t now_ms) {
  const std::string word = first_word_lower(arg);
  if (word == "status") return {status_text(config, now_ms)};
  if (word.empty() || word == "help" || word == "options" || word == "phases") return {usage_text(config, now_ms)};
  if (word != "on" && word != "off") {
    return {"⚠️ /dreaming " + word + ": unknown argument.\n\n" + usage_text(config, now_ms), false};
  }
  const bool enable = word == "on";
  const std::string key = std::string(kDreamingConfigPath) + ".enabled";
  if (!access.may_change_config) {
    return {"⚠️ /dreaming on|off requires owner status for channel callers (commands.ownerAllowFrom) or "
            "operator.admin for gateway clients.",
            false};
  }
  if (!access.patch_config) {
    return {"⚠️ /dreaming on|off cannot change the config from here; run `pincer config set " + key + " " +
                (enable ? "true" : "false") + "`.",
            false};
  }
  const json patch = {{"plugins", {{"entries", {{"memory-core", {{"config", {{"dreaming", {{"enabled", enable}}}}}}}}}}}};
  if (auto st = access.patch_config(patch); !st) return {"⚠️ /dreaming " + word + ": " + st.error().message, false};
  // The reply shows the config as written; the gateway applies it with its next config reload.
  json next = config.is_object() ? config : json::object();
  next["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["enabled"] = enable;
  return {std::string("Dreaming ") + (enable ? "enabled" : "disabled") + ".\n\n" + status_text(next, now_ms)};
}

}  // namespace pincer::memory::dreaming
