#include "memory/dreaming/dreaming_settings.h"

#include <algorithm>

#include "automation/cron_expr.h"
#include "automation/schedule.h"
#include "core/json_lookup.h"

namespace pincer::memory::dreaming {

using nlohmann::json;
using json_lookup::find_path;
using json_lookup::value_or;

DreamingSettings resolve_dreaming_settings(const json& config) {
  DreamingSettings s;
  const json* block = find_path(config, {"plugins", "entries", "memory-core", "config", "dreaming"});
  const json empty = json::object();
  const json& d = block && block->is_object() ? *block : empty;
  s.enabled = value_or<bool>(d, {"enabled"}, s.enabled);
  s.frequency = value_or<std::string>(d, {"frequency"}, s.frequency);
  if (s.frequency.empty()) s.frequency = DreamingSettings{}.frequency;
  s.timezone = value_or<std::string>(d, {"timezone"}, "");
  if (s.timezone.empty()) s.timezone = value_or<std::string>(config, {"agents", "defaults", "userTimezone"}, "");
  if (s.timezone.empty() || !automation::is_known_zone(s.timezone)) s.timezone = automation::host_zone();
  const double timeout_s = value_or<double>(d, {"timeoutSeconds"}, static_cast<double>(s.timeout_ms) / 1000.0);
  s.timeout_ms = static_cast<int64_t>(std::max(1.0, timeout_s) * 1000.0);
  s.non_durable = value_or<bool>(d, {"nonDurable"}, s.non_durable);
  s.limit = std::max(0, value_or<int>(d, {"phases", "deep", "limit"}, s.limit));
  s.min_score = std::clamp(value_or<double>(d, {"phases", "deep", "minScore"}, s.min_score), 0.0, 1.0);
  s.min_recall_count = std::max(0, value_or<int>(d, {"phases", "deep", "minRecallCount"}, s.min_recall_count));
  s.min_unique_queries = std::max(0, value_or<int>(d, {"phases", "deep", "minUniqueQueries"}, s.min_unique_queries));
  s.recency_half_life_days =
      value_or<double>(d, {"phases", "deep", "recencyHalfLifeDays"}, s.recency_half_life_days);
  if (!(s.recency_half_life_days > 0)) s.recency_half_life_days = DreamingSettings{}.recency_half_life_days;
  s.max_snippet_tokens = std::max(8, value_or<int>(d, {"phases", "deep", "maxPromotedSnippetTokens"}, s.max_snippet_tokens));
  return s;
}

std::vector<std::string> dreaming_problems(const json& config) {
  std::vector<std::string> out;
  const json* d = find_path(config, {"plugins", "entries", "memory-core", "config", "dreaming"});
  if (!d || !d->is_object()) return out;
  const std::string where = kDreamingConfigPath;
  if (auto f = d->find("frequency"); f != d->end() && f->is_string()) {
    if (auto expr = automation::parse_cron_expr(f->get<std::string>()); !expr) {
      out.push_back(where + ".frequency: " + expr.error().message);
    }
  }
  if (auto z = d->find("timezone"); z != d->end() && z->is_string() && !z->get<std::string>().empty()) {
    const std::string zone = z->get<std::string>();
    if (!automation::is_known_zone(zone)) {
      out.push_back(where + ".timezone: \"" + zone.substr(0, 64) +
                    "\" is not a time zone of this host's database; expected an IANA name such as \"Europe/Berlin\"");
    }
  }
  return out;
}

}  // namespace pincer::memory::dreaming
