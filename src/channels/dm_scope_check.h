// The privacy check of `session.dmScope: "main"` (issue 22 #13): under it every direct message of
// every sender goes to the agent's one main session, so several senders share one conversation —
// each sees the others' messages and tool output through the model. Fine when every sender is the
// owner; a leak otherwise. The gateway warns at start and `pincer doctor` reports it.
//
// Pure apart from reading the pairing store file; any thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::channels {

/// Who can send direct messages to the agents, per the config and the pairing store.
struct DmReach {
  std::vector<std::string> senders;  ///< "<channel>:<account>:<sender id>", distinct, allowFrom + approved
  std::vector<std::string> open;     ///< config paths of accounts any sender can reach (dmPolicy open)
};

/// Every DM sender of every enabled channel account: `dmPolicy` open counts as open; allowlist
/// counts `allowFrom`; pairing counts `allowFrom` plus the senders approved in
/// `<state_dir>/channels/pairing.json`; disabled none. A webhook channel is not counted: its
/// senders never join the main session (each gets its own, inbound_pipeline.cpp).
DmReach dm_reach(const nlohmann::json& effective, const std::filesystem::path& state_dir);

/// One warning (or none) for `effective`: when session.dmScope is "main" (the default) and more
/// than one DM sender — or anyone, through an open account — can reach the agents. The text
/// names the senders (up to 5) and the fix (session.dmScope per-channel-peer).
std::vector<std::string> dm_scope_warnings(const nlohmann::json& effective, const std::filesystem::path& state_dir);

}  // namespace pincer::channels
