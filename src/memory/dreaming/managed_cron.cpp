#include "memory/dreaming/managed_cron.h"

#include <algorithm>
#include <limits>

#include "automation/cron_job.h"

namespace pincer::memory::dreaming {

using nlohmann::json;

bool is_managed_dreaming_job(const json& raw) {
  auto it = raw.find("declarationKey");
  return raw.is_object() && it != raw.end() && it->is_string() && it->get<std::string>() == kManagedCronKey;
}

json desired_dreaming_job(const DreamingSettings& s) {
  json schedule = {{"kind", "cron"}, {"expr", s.frequency}};
  if (!s.timezone.empty()) schedule["tz"] = s.timezone;
  return {{"declarationKey", kManagedCronKey},
          {"name", kManagedCronName},
          {"description", "Promote weighted short-term recalls into MEMORY.md (limit=" + std::to_string(s.limit) +
                              ", minRecallCount=" + std::to_string(s.min_recall_count) +
                              ", minUniqueQueries=" + std::to_string(s.min_unique_queries) + ")."},
          {"enabled", true},
          {"schedule", schedule},
          {"sessionTarget", "isolated"},
          {"wakeMode", "now"},
          {"payload", {{"kind", "agentTurn"}, {"message", kSweepToken}}},
          {"delivery", {{"mode", "none"}}}};
}

CronPlan plan_dreaming_cron(const std::vector<json>& jobs, const DreamingSettings& s) {
  CronPlan plan;
  std::vector<const json*> managed;
  for (const auto& j : jobs) {
    if (is_managed_dreaming_job(j)) managed.push_back(&j);
  }
  if (!s.enabled) {
    for (const json* j : managed) plan.remove.push_back(j->value("id", ""));
    return plan;
  }
  const json want = desired_dreaming_job(s);
  if (managed.empty()) {
    plan.add = want;
    return plan;
  }
  std::sort(managed.begin(), managed.end(), [](const json* a, const json* b) {
    const auto ca = a->value("createdAtMs", std::numeric_limits<int64_t>::max());
    const auto cb = b->value("createdAtMs", std::numeric_limits<int64_t>::max());
    return ca != cb ? ca < cb : a->value("id", "") < b->value("id", "");
  });
  for (std::size_t i = 1; i < managed.size(); ++i) plan.remove.push_back(managed[i]->value("id", ""));
  const json& have = *managed.front();
  json patch = json::object();
  for (const char* key : {"name", "description", "enabled", "sessionTarget", "wakeMode", "payload", "delivery"}) {
    if (!have.contains(key) || have[key] != want[key]) patch[key] = want[key];
  }
  const json& hs = have.contains("schedule") ? have["schedule"] : json::object();
  if (!hs.is_object() || hs.value("kind", "") != "cron" || hs.value("expr", "") != want["schedule"]["expr"] ||
      hs.value("tz", "") != want["schedule"].value("tz", "")) {
    patch["schedule"] = want["schedule"];
  }
  if (!patch.empty()) plan.update = std::make_pair(have.value("id", ""), patch);
  return plan;
}

std::vector<std::string> apply_dreaming_cron(automation::CronScheduler& scheduler, const DreamingSettings& s) {
  std::vector<json> jobs;
  for (const auto& j : scheduler.store().jobs()) jobs.push_back(automation::cron_job_to_json(j));
  const CronPlan plan = plan_dreaming_cron(jobs, s);
  std::vector<std::string> log;
  for (const auto& id : plan.remove) {
    auto r = scheduler.remove(id);
    log.push_back(r ? "removed the managed sweep job " + id : "cannot remove the managed sweep job " + id + ": " + r.error().message);
  }
  if (plan.add) {
    auto r = scheduler.add(*plan.add);
    log.push_back(r ? "added the managed sweep job (" + s.frequency + ", " + s.timezone + ")"
                    : "cannot add the managed sweep job: " + r.error().message);
  }
  if (plan.update) {
    auto r = scheduler.update(plan.update->first, plan.update->second);
    log.push_back(r ? "updated the managed sweep job (" + s.frequency + ", " + s.timezone + ")"
                    : "cannot update the managed sweep job " + plan.update->first + ": " + r.error().message);
  }
  return log;
}

}  // namespace pincer::memory::dreaming
