// Direct rooms for sends to a Matrix user (channel docking, RT-5; matrix_channel.h
// direct_chat_id): Matrix reaches a person only through a room, so the first send to
// "@alice:example.org" finds or makes the bot's direct room with her — the one Pincer created
// before (dmRooms in the state file), else a joined room that is direct (m.direct, or only the
// two of them) and has her as a member (joined or invited), else a new room: POST /createRoom
// {is_direct: true, invite: [user], preset: "trusted_private_chat"} (both members are room
// admins, as Element makes direct chats). The room is remembered, so later sends and edits go to
// it; sends that arrive while it is being created wait for it.
#include <spdlog/spdlog.h>

#include "channels/matrix/matrix_channel.h"

namespace pincer::channels::matrix {

using nlohmann::json;

namespace detail_matrix_direct {

/// The user a target names ("@u:server" or "user:@u:server"), "" when it names a room.
std::string direct_target_user(const std::string& chat_id) {
  std::string user = chat_id.rfind("user:", 0) == 0 ? chat_id.substr(5) : chat_id;
  return !user.empty() && user[0] == '@' ? user : std::string();
}

}  // namespace detail_matrix_direct

using namespace detail_matrix_direct;

void MatrixChannel::resolve_room(const std::string& chat_id, std::function<void(Result<std::string>)> done) {
  const std::string user = direct_target_user(chat_id);
  if (user.empty()) {
    if (chat_id.rfind("user:", 0) == 0) {
      return done(Error{"REJECTED", "matrix: \"" + chat_id + "\" is not a user id (@name:server)"});
    }
    return done(chat_id);
  }
  if (user.find(':') == std::string::npos) {
    return done(Error{"REJECTED", "matrix: \"" + user + "\" is not a full user id (@name:server)"});
  }
  if (auto known = dm_rooms_.find(user); known != dm_rooms_.end()) return done(known->second);
  // A direct room with them the account is already in: one m.direct marks first, else any.
  std::string found;
  for (const auto& [room_id, info] : state_.rooms) {
    if (!info.members.count(user) || !is_direct_room(state_, room_id)) continue;
    if (found.empty() || state_.direct_rooms.count(room_id)) found = room_id;
    if (state_.direct_rooms.count(room_id)) break;
  }
  if (!found.empty()) {
    dm_rooms_[user] = found;
    save_state();
    return done(found);
  }
  auto& waiting = creating_dm_[user];
  waiting.push_back(std::move(done));
  if (waiting.size() > 1) return;  // being created: served when it exists
  const json body = {{"is_direct", true}, {"invite", json::array({user})}, {"preset", "trusted_private_chat"}};
  call_limited("POST", "/createRoom", body, 0, [this, user](Result<json> created) {
    auto it = creating_dm_.find(user);
    if (it == creating_dm_.end()) return;
    auto waiters = std::move(it->second);
    creating_dm_.erase(it);
    const std::string room = created && created->is_object() ? created->value("room_id", "") : "";
    if (!created || room.empty()) {
      const Error e = created ? Error{"UNAVAILABLE", "matrix: /createRoom answered no room_id"} : created.error();
      spdlog::warn("matrix[{}]: cannot open a direct room with {}: {}", settings_.account_id, user, e.message);
      for (auto& w : waiters) w(e);
      return;
    }
    spdlog::info("matrix[{}]: created direct room {} with {}", settings_.account_id, room, user);
    dm_rooms_[user] = room;
    save_state();
    for (auto& w : waiters) w(room);
  });
}

}  // namespace pincer::channels::matrix
