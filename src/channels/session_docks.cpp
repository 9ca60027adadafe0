#include "channels/session_docks.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "routing/identity_links.h"
#include "store/atomic_file.h"

namespace pincer::channels {

using nlohmann::json;

namespace detail_session_docks {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim_ws(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Error refused(std::string text) { return Error{"DOCK_REFUSED", std::move(text)}; }

}  // namespace detail_session_docks

using namespace detail_session_docks;

std::optional<std::string> parse_dock_command(std::string_view text, bool addressed_to_us) {
  std::string_view line = trim_ws(text);
  if (line.size() < 2 || line[0] != '/') return std::nullopt;
  line.remove_prefix(1);
  if (const auto at = line.find('@'); at != std::string_view::npos) {
    if (!addressed_to_us) return std::nullopt;  // "/dock_x@OtherBot"
    const std::string_view bot = line.substr(at + 1);
    if (bot.empty() || std::any_of(bot.begin(), bot.end(), [](unsigned char c) { return std::isspace(c); })) return std::nullopt;
    line = line.substr(0, at);
  }
  const std::string word = lower_ascii(line);
  for (std::string_view prefix : kDockCommandPrefixes) {
    if (!word.starts_with(prefix) || word.size() == prefix.size()) continue;
    const std::string channel = word.substr(prefix.size());
    const bool ok = channel.size() <= 32 && std::all_of(channel.begin(), channel.end(), [](unsigned char c) {
                      return std::isalnum(c) || c == '_' || c == '-';
                    });
    if (ok) return channel;
  }
  return std::nullopt;
}

Result<DockPlan> plan_dock(const DockRequest& r, const routing::IdentityLinks& links,
                           const std::vector<DockAccount>& accounts,
                           const std::function<std::string(const DockAccount&, const std::string& peer)>& direct_chat_of,
                           int64_t now_ms) {
  if (r.is_group) {
    return refused("Docking works in a direct chat with me only: in a group, the replies belong to the group.");
  }
  std::vector<std::string> configured;
  for (const auto& a : accounts) {
    if (std::find(configured.begin(), configured.end(), a.channel) == configured.end()) configured.push_back(a.channel);
  }
  if (std::find(configured.begin(), configured.end(), r.target) == configured.end()) {
    std::string names;
    for (const auto& c : configured) names += (names.empty() ? "" : ", ") + c;
    return refused("Cannot dock to " + r.target + ": no " + r.target + " account is configured here (configured: " +
                   names + ").");
  }
  if (r.current && !dock_applies(*r.current, links, r.channel, r.sender_id, false)) {
    return refused("Someone else moved this session's replies to " + r.current->channel + "; only they can move them.");
  }
  const std::string delivered_on = r.current ? r.current->channel : r.channel;
  if (r.target == delivered_on) return refused("Replies already go to " + r.target + ".");
  if (r.target == r.channel) {  // docked elsewhere; back to where this message came from
    return DockPlan{std::nullopt, "Replies go to " + r.target + " again, here."};
  }
  auto linked = routing::linked_account_on(links, r.channel, r.sender_id, r.target);
  if (!linked) {
    return refused("Cannot dock to " + r.target + ": your " + r.channel + " account (" + r.sender_id +
                   ") is not linked to a " + r.target + " account. Link them in session.identityLinks, e.g. "
                   "{\"you\": [\"" + r.channel + ":" + r.sender_id + "\", \"" + r.target + ":YOUR-" + upper_ascii(r.target) + "-ID\"]}.");
  }
  const DockAccount* chosen = nullptr;
  bool any_direct = false;
  for (const auto& a : accounts) {
    if (a.channel != r.target) continue;
    if (direct_chat_of(a, linked->peer_id).empty()) continue;
    any_direct = true;
    if (a.running) {
      chosen = &a;
      break;
    }
  }
  if (!any_direct) return refused("Cannot dock to " + r.target + ": it cannot start a chat of its own (it only answers requests).");
  if (!chosen) return refused("Cannot dock to " + r.target + ": its account is not running right now; try again later.");
  SessionDock dock{r.target, chosen->account_id, direct_chat_of(*chosen, linked->peer_id), linked->peer_id,
                   linked->identity, r.channel, now_ms};
  std::string reply = "Replies now go to " + r.target + " (" + linked->peer_id + "). This session and its history stay "
                      "the same; /dock_" + r.channel + " brings them back here.";
  return DockPlan{std::move(dock), std::move(reply)};
}

bool dock_applies(const SessionDock& dock, const routing::IdentityLinks& links, std::string_view channel,
                  std::string_view sender_id, bool is_group) {
  if (is_group) return false;
  auto identity = routing::resolve_linked_peer_id(links, channel, sender_id);
  return identity && *identity == dock.identity;
}

SessionDocks::SessionDocks(std::filesystem::path file) : file_(std::move(file)) {
  auto text = store::read_file(file_);
  if (!text) return;
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object()) {
    spdlog::warn("{}: not a JSON object; no session is docked", file_.string());
    return;
  }
  for (const auto& [key, d] : doc.items()) {
    if (!d.is_object()) continue;
    SessionDock dock{d.value("channel", ""), d.value("accountId", ""), d.value("to", ""), d.value("peerId", ""),
                     d.value("identity", ""), d.value("fromChannel", ""), d.value("at", int64_t{0})};
    if (dock.channel.empty() || dock.to.empty() || dock.identity.empty()) {
      spdlog::warn("{}: the dock of {} lacks channel, to or identity; ignored", file_.string(), key);
      continue;
    }
    docks_[key] = std::move(dock);
  }
}

std::optional<SessionDock> SessionDocks::get(const std::string& session_key) const {
  auto it = docks_.find(session_key);
  if (it == docks_.end()) return std::nullopt;
  return it->second;
}

Status SessionDocks::set(const std::string& session_key, const std::optional<SessionDock>& dock) {
  auto next = docks_;
  if (dock) next[session_key] = *dock;
  else next.erase(session_key);
  json doc = json::object();
  for (const auto& [key, d] : next) {
    doc[key] = {{"channel", d.channel}, {"accountId", d.account_id}, {"to", d.to}, {"peerId", d.peer_id},
                {"identity", d.identity}, {"fromChannel", d.from_channel}, {"at", d.at_ms}};
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (auto st = store::write_file_atomic(file_, doc.dump(2) + "\n"); !st) return st;
  docks_ = std::move(next);
  return Ok{};
}

}  // namespace pincer::channels
