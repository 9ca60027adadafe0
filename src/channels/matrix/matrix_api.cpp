#include "channels/matrix/matrix_api.h"

#include <algorithm>
#include <cctype>

#include "core/percent_encoding.h"
#include "delivery/markdown_html.h"
#include "delivery/markdown_render.h"

namespace pincer::channels::matrix {

using nlohmann::json;

namespace detail_matrix_api {

std::string matrix_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool matrix_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }

/// Whether `needle` occurs in `haystack` (both lowercased) not inside a longer word.
bool contains_word(const std::string& haystack, const std::string& needle) {
  if (needle.empty()) return false;
  for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) {
    const bool left = at == 0 || !matrix_word_char(haystack[at - 1]) || !matrix_word_char(needle.front());
    const std::size_t end = at + needle.size();
    const bool right = end >= haystack.size() || !matrix_word_char(haystack[end]) || !matrix_word_char(needle.back());
    if (left && right) return true;
  }
  return false;
}

std::string str_of(const json& o, const char* key) {
  if (!o.is_object()) return {};
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// Applies an m.room.member event to the room's member list.
void apply_member(RoomInfo& room, const json& event) {
  const std::string user = str_of(event, "state_key");
  if (user.empty()) return;
  const json content = event.value("content", json::object());
  const std::string membership = str_of(content, "membership");
  if (membership == "join" || membership == "invite") {
    room.members[user] = str_of(content, "displayname");
  } else if (!membership.empty()) {
    room.members.erase(user);
  }
}

/// Reads one timeline m.room.message event into an InboundMessage, or nullopt when it is not a
/// message Pincer answers.
std::optional<InboundMessage> read_message(const json& event, const std::string& room_id, const SyncState& state,
                                           const BotIdentity& bot, const std::string& account_id) {
  const std::string sender = str_of(event, "sender");
  const std::string event_id = str_of(event, "event_id");
  if (sender.empty() || event_id.empty() || sender == bot.user_id) return std::nullopt;
  const json content = event.value("content", json::object());
  if (!content.is_object() || str_of(content, "msgtype") != "m.text" || !content.contains("body") ||
      !content["body"].is_string()) {
    return std::nullopt;
  }
  const json rel = content.value("m.relates_to", json::object());
  if (str_of(rel, "rel_type") == "m.replace") return std::nullopt;  // an edit: the original was answered
  InboundMessage m;
  m.channel = "matrix";
  m.account_id = account_id;
  m.is_group = !is_direct_room(state, room_id);
  m.channel_peer = m.is_group;
  m.chat_id = room_id;
  if (str_of(rel, "rel_type") == "m.thread") m.thread_id = str_of(rel, "event_id");
  m.sender_id = sender;
  // "@alice:example.org" → "alice:example.org": an allowFrom entry "@alice:example.org" (an
  // "@name" entry matches the username) names exactly this user, whatever its homeserver.
  m.sender_username = sender.substr(1);
  if (auto r = state.rooms.find(room_id); r != state.rooms.end()) {
    if (auto who = r->second.members.find(sender); who != r->second.members.end()) m.sender_name = who->second;
  }
  m.message_id = event_id;
  m.text = content["body"].get<std::string>();
  m.mentions_bot = mentions_user(content, bot);
  if (event.contains("origin_server_ts") && event["origin_server_ts"].is_number_integer()) {
    m.ts_ms = event["origin_server_ts"].get<int64_t>();
  }
  return m;
}

const json& events_of(const json& room, const char* section) {
  static const json kNone = json::array();
  if (!room.is_object() || !room.contains(section) || !room[section].is_object()) return kNone;
  const json& s = room[section];
  return s.contains("events") && s["events"].is_array() ? s["events"] : kNone;
}

}  // namespace detail_matrix_api

using namespace detail_matrix_api;

std::string encode_uri_component(std::string_view text) { return percent_encode(text); }

json sync_filter() {
  return {{"presence", {{"types", json::array()}}},
          {"account_data", {{"types", json::array({"m.direct"})}}},
          {"room",
           {{"timeline", {{"limit", 50}, {"types", json::array({"m.room.message", "m.room.member", "m.room.encrypted"})}}},
            {"state", {{"types", json::array({"m.room.member", "m.room.canonical_alias"})}, {"lazy_load_members", false}}},
            {"ephemeral", {{"types", json::array()}}},
            {"account_data", {{"types", json::array()}}}}}};
}

std::string sync_path(const std::string& since, int64_t timeout_ms) {
  std::string path = "/sync?filter=" + encode_uri_component(sync_filter().dump()) + "&timeout=" + std::to_string(timeout_ms);
  if (!since.empty()) path += "&since=" + encode_uri_component(since);
  return path;
}

json sync_state_to_json(const SyncState& state) {
  json rooms = json::object();
  for (const auto& [id, room] : state.rooms) {
    json r = {{"members", room.members}, {"handled", room.handled}};
    if (room.encrypted_warned) r["encryptedWarned"] = true;
    rooms[id] = std::move(r);
  }
  return {{"since", state.since}, {"rooms", std::move(rooms)}, {"direct", state.direct_rooms}};
}

SyncState sync_state_from_json(const json& j) {
  SyncState s;
  if (!j.is_object()) return s;
  s.since = str_of(j, "since");
  if (j.contains("rooms") && j["rooms"].is_object()) {
    for (const auto& [id, r] : j["rooms"].items()) {
      RoomInfo room;
      if (r.is_object() && r.contains("members") && r["members"].is_object()) {
        for (const auto& [user, name] : r["members"].items()) room.members[user] = name.is_string() ? name.get<std::string>() : "";
      }
      room.encrypted_warned = r.is_object() && r.value("encryptedWarned", false);
      if (r.is_object() && r.contains("handled") && r["handled"].is_array()) {
        for (const auto& id : r["handled"]) {
          if (id.is_string()) room.handled.push_back(id.get<std::string>());
        }
      }
      s.rooms[id] = std::move(room);
    }
  }
  if (j.contains("direct") && j["direct"].is_array()) {
    for (const auto& d : j["direct"]) {
      if (d.is_string()) s.direct_rooms.insert(d.get<std::string>());
    }
  }
  return s;
}

void remember_handled(SyncState& state, const std::string& room_id, const std::string& event_id) {
  auto& handled = state.rooms[room_id].handled;
  handled.push_back(event_id);
  if (handled.size() > kRecentEvents) handled.erase(handled.begin(), handled.begin() + (handled.size() - kRecentEvents));
}

bool is_direct_room(const SyncState& state, const std::string& room_id) {
  if (state.direct_rooms.count(room_id)) return true;
  auto r = state.rooms.find(room_id);
  return r != state.rooms.end() && !r->second.members.empty() && r->second.members.size() <= 2;
}

bool mentions_user(const json& content, const BotIdentity& bot) {
  if (!content.is_object() || bot.user_id.empty()) return false;
  if (content.contains("m.mentions") && content["m.mentions"].is_object()) {
    // Intentional mentions (spec v1.7): the sender's client said whom it mentions.
    const json ids = content["m.mentions"].value("user_ids", json::array());
    if (!ids.is_array()) return false;
    return std::any_of(ids.begin(), ids.end(), [&](const json& id) { return id.is_string() && id.get<std::string>() == bot.user_id; });
  }
  const std::string body = matrix_lower(str_of(content, "body"));
  if (body.find(matrix_lower(bot.user_id)) != std::string::npos) return true;
  if (contains_word(body, matrix_lower(bot.display_name))) return true;
  const std::string html = str_of(content, "formatted_body");
  return html.find("matrix.to/#/" + bot.user_id) != std::string::npos ||
         html.find("matrix.to/#/" + encode_uri_component(bot.user_id)) != std::string::npos;
}

Result<SyncBatch> parse_sync(const json& answer, SyncState& state, const BotIdentity& bot, const std::string& account_id) {
  if (!answer.is_object() || !answer.contains("next_batch") || !answer["next_batch"].is_string()) {
    return Error{"PROTOCOL", "the /sync answer has no next_batch"};
  }
  SyncBatch batch;
  batch.next_batch = answer["next_batch"].get<std::string>();
  // m.direct: {user id: [room ids]} — the account's direct chats.
  for (const auto& e : events_of(answer, "account_data")) {
    if (str_of(e, "type") != "m.direct" || !e.contains("content") || !e["content"].is_object()) continue;
    state.direct_rooms.clear();
    for (const auto& [user, ids] : e["content"].items()) {
      if (!ids.is_array()) continue;
      for (const auto& id : ids) {
        if (id.is_string()) state.direct_rooms.insert(id.get<std::string>());
      }
    }
  }
  const json rooms = answer.value("rooms", json::object());
  if (!rooms.is_object()) return batch;
  json invites = rooms.value("invite", json::object());
  if (!invites.is_object()) invites = json::object();
  for (const auto& [room_id, room] : invites.items()) {
    Invite inv;
    inv.room_id = room_id;
    for (const auto& e : events_of(room, "invite_state")) {
      const std::string type = str_of(e, "type");
      if (type == "m.room.member" && str_of(e, "state_key") == bot.user_id) {
        inv.inviter = str_of(e, "sender");
        inv.is_direct = e.value("content", json::object()).value("is_direct", false);
      } else if (type == "m.room.canonical_alias") {
        inv.alias = str_of(e.value("content", json::object()), "alias");
      }
    }
    batch.invites.push_back(std::move(inv));
  }
  json joined = rooms.value("join", json::object());
  if (!joined.is_object()) joined = json::object();
  for (const auto& [room_id, room] : joined.items()) {
    RoomInfo& info = state.rooms[room_id];
    for (const auto& e : events_of(room, "state")) {
      if (str_of(e, "type") == "m.room.member") apply_member(info, e);
    }
    for (const auto& e : events_of(room, "timeline")) {
      const std::string type = str_of(e, "type");
      if (type == "m.room.member") {
        apply_member(info, e);
      } else if (type == "m.room.encrypted") {
        if (!info.encrypted_warned) batch.encrypted_rooms.push_back(room_id);
        info.encrypted_warned = true;
      } else if (type == "m.room.message") {
        auto m = read_message(e, room_id, state, bot, account_id);
        if (!m) continue;
        if (std::find(info.handled.begin(), info.handled.end(), m->message_id) != info.handled.end()) {
          ++batch.replays;
          continue;
        }
        batch.messages.push_back(std::move(*m));
      }
    }
  }
  const json left = rooms.value("leave", json::object());
  if (left.is_object()) {
    for (auto it = left.begin(); it != left.end(); ++it) {
      state.rooms.erase(it.key());
      batch.left_rooms.push_back(it.key());
    }
  }
  return batch;
}

namespace detail_matrix_api {

json message_body(const std::string& markdown) {
  return {{"msgtype", "m.text"},
          {"body", delivery::markdown_to_plain_text(markdown)},
          {"format", "org.matrix.custom.html"},
          {"formatted_body", delivery::markdown_to_matrix_html(markdown)}};
}

}  // namespace detail_matrix_api

json text_content(const std::string& markdown, const std::string& thread_root) {
  json c = message_body(markdown);
  if (!thread_root.empty()) {
    c["m.relates_to"] = {{"rel_type", "m.thread"},
                         {"event_id", thread_root},
                         {"is_falling_back", true},
                         {"m.in_reply_to", {{"event_id", thread_root}}}};
  }
  return c;
}

json edit_content(const std::string& event_id, const std::string& markdown) {
  const json fresh = message_body(markdown);
  json c = fresh;
  c["body"] = "* " + fresh["body"].get<std::string>();
  c["formatted_body"] = "* " + fresh["formatted_body"].get<std::string>();
  c["m.new_content"] = fresh;
  c["m.relates_to"] = {{"rel_type", "m.replace"}, {"event_id", event_id}};
  return c;
}

std::optional<ApiError> parse_error(int status, const json& body, int64_t retry_after_header_s) {
  if (status >= 200 && status < 300) return std::nullopt;
  ApiError e;
  e.status = status;
  e.errcode = str_of(body, "errcode");
  e.error = str_of(body, "error");
  if (body.is_object() && body.contains("retry_after_ms") && body["retry_after_ms"].is_number()) {
    e.retry_after_ms = std::max<int64_t>(0, body["retry_after_ms"].get<int64_t>());
  } else if (retry_after_header_s >= 0) {
    e.retry_after_ms = retry_after_header_s * 1000;
  }
  return e;
}

std::string error_text(const ApiError& e) {
  std::string out = e.errcode.empty() ? std::string() : e.errcode;
  if (!e.error.empty()) out += (out.empty() ? "" : ": ") + e.error;
  out += (out.empty() ? "HTTP " : " (HTTP ") + std::to_string(e.status) + (out.empty() ? "" : ")");
  return out;
}

}  // namespace pincer::channels::matrix
