#include "automation/cron_agent_jobs.h"

#include <vector>

namespace pincer::automation {

using nlohmann::json;

Result<json> remove_agent_jobs(const CronCallFn& call, const std::string& agent_id) {
  std::vector<json> mine;
  for (int64_t offset = 0;;) {
    auto page = call("list", {{"includeDisabled", true}, {"limit", 1000}, {"offset", offset}});
    if (!page) return Error{page.error().code, "cannot list the cron jobs: " + page.error().message};
    const json jobs = page->value("jobs", json::array());
    for (const auto& j : jobs) {
      if (j.is_object() && j.value("agentId", "") == agent_id) mine.push_back(j);
    }
    if (!page->value("hasMore", false) || jobs.empty()) break;
    offset += static_cast<int64_t>(jobs.size());
  }
  json removed = json::array();
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const std::string id = mine[i].value("id", "");
    if (auto r = call("remove", {{"id", id}}); !r) {
      std::string left;
      for (std::size_t k = i; k < mine.size(); ++k) left += (left.empty() ? "" : ", ") + mine[k].value("id", "");
      return Error{r.error().code, "cron job " + id + ": " + r.error().message + " (still there: " + left + ")"};
    }
    removed.push_back({{"id", id}, {"name", mine[i].value("name", "")}});
  }
  return removed;
}

}  // namespace pincer::automation
