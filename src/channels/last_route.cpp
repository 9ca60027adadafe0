#include "channels/last_route.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "store/atomic_file.h"

namespace pincer::channels {

using nlohmann::json;

LastRoutes::LastRoutes(std::filesystem::path file) : file_(std::move(file)) {
  auto text = store::read_file(file_);
  if (!text) return;
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object()) {
    spdlog::warn("{}: not a JSON object; the last chat of each agent is forgotten", file_.string());
    return;
  }
  for (const auto& [agent, r] : doc.items()) {
    if (!r.is_object()) continue;
    routes_[agent] = {r.value("channel", ""), r.value("accountId", ""), r.value("to", ""), r.value("threadId", "")};
  }
}

void LastRoutes::record(const std::string& agent_id, const LastRoute& route) {
  if (route.channel.empty() || route.chat_id.empty()) return;
  auto it = routes_.find(agent_id);
  if (it != routes_.end() && it->second == route) return;
  routes_[agent_id] = route;
  json doc = json::object();
  for (const auto& [agent, r] : routes_)
    doc[agent] = {{"channel", r.channel}, {"accountId", r.account_id}, {"to", r.chat_id}, {"threadId", r.thread_id}};
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (auto st = store::write_file_atomic(file_, doc.dump(2) + "\n"); !st) spdlog::warn("last chat record: {}", st.error().message);
}

std::optional<LastRoute> LastRoutes::get(const std::string& agent_id) const {
  auto it = routes_.find(agent_id);
  if (it == routes_.end()) return std::nullopt;
  return it->second;
}

}  // namespace pincer::channels
