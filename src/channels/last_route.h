// The chat each agent last heard from (AT-2 cron delivery `channel: "last"`): per agent the
// channel, account, chat and thread of the most recent inbound message that started a run, kept
// in `<state>/channels/last-route.json` (written atomically, only when the route changes), so a
// job announced after a restart still finds it.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace pincer::channels {

struct LastRoute {
  std::string channel, account_id, chat_id, thread_id;
  bool operator==(const LastRoute&) const = default;
};

class LastRoutes {
 public:
  /// `file`: `<state>/channels/last-route.json`, read at construction (a missing or broken file
  /// is an empty record; broken is logged).
  explicit LastRoutes(std::filesystem::path file);
  /// Records `route` for `agent_id`; saved when it differs from the one kept.
  void record(const std::string& agent_id, const LastRoute& route);
  /// The agent's last route, or nullopt.
  std::optional<LastRoute> get(const std::string& agent_id) const;

 private:
  std::filesystem::path file_;
  std::map<std::string, LastRoute> routes_;
};

}  // namespace pincer::channels
