#include "memory/dreaming/dreaming_settings.h"

#include <algorithm>

#include "automation/cron_expr.h"
#include "automation/schedule.h"

namespace pincer::memory::dreaming {

using nlohmann::json;

namespace detail_dreaming_settings {

const json* dig(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(k);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

template <class T>
T value_at(const json& j, std::initializer_list<const char*> path, T fallback) {
  const json* v = dig(j, path);
  if (!v || v->is_null()) return fallback;
  try {
    return v->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

}  // namespace detail_dreaming_settings

DreamingSettings resolve_dreaming_settings(const json& config) {
  using detail_dreaming_settings::dig;
  using detail_dreaming_settings::value_at;
  DreamingSettings s;
  const json* block = dig(config, {"plugins", "entries", "memory-core", "config", "dreaming"});
  const json empty = json::object();
  const json& d = block && block->is_object() ? *block : empty;
  s.enabled = value_at<bool>(d, {"enabled"}, s.enabled);
  s.frequency = value_at<std::string>(d, {"frequency"}, s.frequency);
  if (s.frequency.empty()) s.frequency = DreamingSettings{}.frequency;
  s.timezone = value_at<std::string>(d, {"timezone"}, "");
  if (s.timezone.empty()) s.timezone = value_at<std::string>(config, {"agents", "defaults", "userTimezone"}, "");
  if (s.timezone.empty() || !automation::is_known_zone(s.timezone)) s.timezone = automation::host_zone();
  const double timeout_s = value_at<double>(d, {"timeoutSeconds"}, static_cast<double>(s.timeout_ms) / 1000.0);
  s.timeout_ms = static_cast<int64_t>(std::max(1.0, timeout_s) * 1000.0);
  s.non_durable = value_at<bool>(d, {"nonDurable"}, s.non_durable);
  s.limit = std::max(0, value_at<int>(d, {"phases", "deep", "limit"}, s.limit));
  s.min_score = std::clamp(value_at<double>(d, {"phases", "deep", "minScore"}, s.min_score), 0.0, 1.0);
  s.min_recall_count = std::max(0, value_at<int>(d, {"phases", "deep", "minRecallCount"}, s.min_recall_count));
  s.min_unique_queries = std::max(0, value_at<int>(d, {"phases", "deep", "minUniqueQueries"}, s.min_unique_queries));
  s.recency_half_life_days =
      value_at<double>(d, {"phases", "deep", "recencyHalfLifeDays"}, s.recency_half_life_days);
  if (!(s.recency_half_life_days > 0)) s.recency_half_life_days = DreamingSettings{}.recency_half_life_days;
  s.max_snippet_tokens = std::max(8, value_at<int>(d, {"phases", "deep", "maxPromotedSnippetTokens"}, s.max_snippet_tokens));
  return s;
}

std::vector<std::string> dreaming_problems(const json& config) {
  using detail_dreaming_settings::dig;
  std::vector<std::string> out;
  const json* d = dig(config, {"plugins", "entries", "memory-core", "config", "dreaming"});
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
