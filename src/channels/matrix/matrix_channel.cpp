#include "channels/matrix/matrix_channel.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "core/clock.h"
#include "channels/channel_state_file.h"

namespace pincer::channels::matrix {

using nlohmann::json;

namespace detail_matrix_channel {

/// The error code the delivery layer retries by (channel.h send_text).
Error matrix_delivery_error(int status, const std::string& text) {
  const bool transient = status == 0 || status >= 500;
  return Error{transient ? "UNAVAILABLE" : "REJECTED", "matrix: " + text};
}

}  // namespace detail_matrix_channel

using namespace detail_matrix_channel;

AutoJoinDecision decide_auto_join(const MatrixSettings& settings, const Invite& invite) {
  if (settings.auto_join == "always") return {true, "autoJoin is \"always\""};
  if (settings.auto_join != "allowlist") return {false, "autoJoin is \"off\" (set channels.matrix.autoJoin)"};
  for (const auto& entry : settings.auto_join_allowlist) {
    if (entry == "*" || entry == invite.room_id || (!invite.alias.empty() && entry == invite.alias) ||
        (!invite.inviter.empty() && entry == invite.inviter)) {
      return {true, "listed in autoJoinAllowlist"};
    }
  }
  return {false, "neither the room nor the inviter is in autoJoinAllowlist"};
}

MatrixChannel::MatrixChannel(EventLoop& loop, MatrixSettings settings)
    : loop_(loop), settings_(std::move(settings)), run_(loop, "matrix[" + settings_.account_id + "]", [this] { stop(); }),
      http_(loop) {
  while (!settings_.homeserver.empty() && settings_.homeserver.back() == '/') settings_.homeserver.pop_back();
  const auto state = read_channel_state(settings_.state_file, "matrix[" + settings_.account_id + "]");
  if (!state) return;  // memory only, a first run, or unreadable (warned)
  const json& j = *state;
  state_ = sync_state_from_json(j);
  if (auto dm = j.find("dmRooms"); dm != j.end() && dm->is_object()) {
    for (const auto& [user, room] : dm->items()) {
      if (room.is_string()) dm_rooms_[user] = room.get<std::string>();
    }
  }
}

MatrixChannel::~MatrixChannel() { stop(); }

ChannelCapabilities MatrixChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Markdown;  // rendered to body + formatted_body per message here
  c.unit = delivery::LengthUnit::Utf16;
  c.text_limit = kMatrixTextLimit;
  c.groups = true;
  c.threads = true;
  c.typing = true;
  c.edit = true;
  c.reactions = true;
  c.media_out = true;
  c.media_max_bytes = kMatrixMaxUploadBytes;
  c.media_caption_limit = kMatrixTextLimit;
  return c;
}

void MatrixChannel::call(const std::string& method, const std::string& path, const json& body, int64_t idle_timeout_ms,
                         Done done) {
  net::HttpRequestSpec spec;
  spec.method = method;
  spec.url = settings_.homeserver + "/_matrix/client/v3" + path;
  spec.headers = {{"Authorization", "Bearer " + settings_.access_token}};
  if (!body.is_null()) {
    spec.headers.push_back({"Content-Type", "application/json"});
    spec.body = body.dump();
  } else if (method != "GET") {
    spec.headers.push_back({"Content-Length", "0"});
  }
  spec.connect_timeout_ms = 15'000;
  spec.idle_timeout_ms = idle_timeout_ms;
  auto head = std::make_shared<net::HttpResponseHead>();
  auto buffer = std::make_shared<std::string>();
  std::weak_ptr<bool> alive = run_.token();
  http_.start(std::move(spec),
              {[head](const net::HttpResponseHead& h) { *head = h; },
               [buffer](std::string_view d) {
                 if (buffer->size() < (32u << 20)) buffer->append(d);
               },
               [alive, head, buffer, done = std::move(done)](const std::optional<net::TransportError>& e) {
                 if (!ChannelRun::live(alive)) return;
                 if (e) return done(0, json(), e->what, -1);
                 int64_t retry_after = -1;
                 try {
                   if (const std::string h = head->header("Retry-After"); !h.empty()) retry_after = std::stoll(h);
                 } catch (const std::exception&) {
                 }
                 json parsed = buffer->empty() ? json() : json::parse(*buffer, nullptr, false);
                 if (parsed.is_discarded()) parsed = json();
                 done(head->status, parsed, "", retry_after);
               }});
}

void MatrixChannel::call_limited(const std::string& method, const std::string& path, const json& body, int attempt,
                                 std::function<void(Result<json>)> done) {
  call(method, path, body, 30'000,
       [this, method, path, body, attempt, done = std::move(done)](int status, const json& answer,
                                                                    const std::string& transport, int64_t retry_after_s) {
         if (!transport.empty()) return done(Error{"UNAVAILABLE", "matrix: " + transport});
         auto e = parse_error(status, answer, retry_after_s);
         if (!e) return done(answer);
         if (status == 429 || e->errcode == "M_LIMIT_EXCEEDED") {
           ++rate_limited_;
           const int64_t wait_ms = std::clamp<int64_t>(e->retry_after_ms, 100, 120'000);
           if (attempt >= 5) return done(Error{"RATE_LIMITED", std::to_string((wait_ms + 999) / 1000)});
           spdlog::warn("matrix[{}]: rate limited on {} {} (M_LIMIT_EXCEEDED), retrying in {} ms", settings_.account_id,
                        method, path.substr(0, path.find('?')), wait_ms);
           std::weak_ptr<bool> alive = run_.token();
           loop_.after(wait_ms, [this, alive, method, path, body, attempt, done] {
             if (ChannelRun::live(alive)) call_limited(method, path, body, attempt + 1, done);
           });
           return;
         }
         done(matrix_delivery_error(status, error_text(*e)));
       });
}

void MatrixChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  stop();
  host_ = &host;
  run_.begin(std::move(on_failed));
  sync_failures_ = 0;
  whoami();
}

void MatrixChannel::stop() {
  run_.end();
  joining_.clear();
  creating_dm_.clear();  // their requests belong to the ended run: no callback
}

std::string MatrixChannel::token_refused(const ApiError& e) const {
  const std::string code = e.errcode.empty() ? "HTTP " + std::to_string(e.status) : e.errcode;
  return "the homeserver refused the access token (" + code + (e.error.empty() ? "" : ": " + e.error) + "): check " +
         settings_.config_path + ".accessToken";
}

void MatrixChannel::whoami() {
  call("GET", "/account/whoami", json(), 15'000, [this](int status, const json& body, const std::string& transport, int64_t) {
    if (!transport.empty()) return run_.fail("cannot reach the homeserver " + settings_.homeserver + ": " + transport);
    if (auto e = parse_error(status, body)) {
      if (status == 401 || e->errcode == "M_UNKNOWN_TOKEN" || e->errcode == "M_MISSING_TOKEN") {
        return run_.fail(token_refused(*e), FailureKind::Permanent);
      }
      if (status == 404) {  // no Matrix client API there: a wrong homeserver URL, not a token problem
        return run_.fail("GET " + settings_.homeserver + "/_matrix/client/v3/account/whoami answered HTTP 404" +
                         (e->errcode.empty() ? "" : " (" + e->errcode + ")") + ": is " + settings_.config_path +
                         ".homeserver the URL of a Matrix homeserver?");
      }
      return run_.fail("GET /account/whoami failed: " + error_text(*e));
    }
    const std::string user = body.is_object() ? body.value("user_id", "") : "";
    if (user.empty()) return run_.fail("GET /account/whoami answered no user_id");
    if (!settings_.user_id.empty() && settings_.user_id != user) {
      return run_.fail("the access token belongs to " + user + ", not to " + settings_.config_path + ".userId " + settings_.user_id);
    }
    bot_.user_id = user;
    run_.clear_last_error();
    call("GET", "/profile/" + encode_uri_component(user) + "/displayname", json(), 15'000,
         [this](int status, const json& profile, const std::string&, int64_t) {
           if (status == 200 && profile.is_object()) bot_.display_name = profile.value("displayname", "");
           spdlog::info("matrix[{}]: connected to {} as {}{}", settings_.account_id, settings_.homeserver, bot_.user_id,
                        bot_.display_name.empty() ? "" : " (" + bot_.display_name + ")");
           sync();
         });
  });
}

void MatrixChannel::schedule_sync(int64_t delay_ms) {
  std::weak_ptr<bool> alive = run_.token();
  loop_.after(delay_ms, [this, alive] {
    if (ChannelRun::live(alive)) sync();
  });
}

void MatrixChannel::sync() {
  const bool first = state_.since.empty();
  // The first sync answers at once (it is the account's current state); later ones long-poll.
  const int64_t timeout = first ? 0 : settings_.sync_timeout_ms;
  const int64_t started = SystemClock::instance().steady_ms();
  call("GET", sync_path(state_.since, timeout), json(), timeout + 30'000,
       [this, first, started](int status, const json& body, const std::string& transport, int64_t retry_after_s) {
         auto e = transport.empty() ? parse_error(status, body, retry_after_s) : std::nullopt;
         Result<SyncBatch> batch = !transport.empty() ? Result<SyncBatch>(Error{"UNAVAILABLE", transport})
                                   : e                ? Result<SyncBatch>(Error{"HTTP", error_text(*e)})
                                                      : parse_sync(body, state_, bot_, settings_.account_id);
         if (!batch) {
           run_.set_last_error("/sync failed: " + batch.error().message);
           // A refused token stops the account with the reason (a logout elsewhere, a deactivated
           // account); network errors, 5xx and 429 keep retrying here.
           if (e && (status == 401 || e->errcode == "M_UNKNOWN_TOKEN" || e->errcode == "M_MISSING_TOKEN")) {
             return run_.fail(token_refused(*e), FailureKind::Permanent);
           }
           int64_t backoff = std::min<int64_t>(30'000, 1000LL << std::min(sync_failures_++, 5));
           if (e && e->retry_after_ms > 0) backoff = std::max(backoff, e->retry_after_ms);
           spdlog::warn("matrix[{}]: {}; retrying in {} ms", settings_.account_id, run_.last_error(), backoff);
           return schedule_sync(backoff);
         }
         if (sync_failures_ > 0) spdlog::info("matrix[{}]: /sync works again", settings_.account_id);
         sync_failures_ = 0;
         run_.clear_last_error();
         const bool quick = SystemClock::instance().steady_ms() - started < 200;
         const bool empty = batch->messages.empty() && batch->invites.empty() && batch->next_batch == state_.since;
         handle_sync(std::move(*batch), first);
         // A homeserver that does not hold an empty /sync (it should, up to the timeout) is paced.
         if (run_.running()) schedule_sync(!first && empty && quick ? 1000 : 0);
       });
}

void MatrixChannel::handle_sync(SyncBatch batch, bool first) {
  std::weak_ptr<bool> alive = run_.token();
  for (const auto& room : batch.encrypted_rooms) {
    spdlog::warn("matrix[{}]: room {} is end-to-end encrypted: Pincer cannot read encrypted messages (E2EE is not "
                 "supported); talk to the bot in an unencrypted room",
                 settings_.account_id, room);
  }
  for (const auto& room : batch.left_rooms) spdlog::info("matrix[{}]: left room {}", settings_.account_id, room);
  if (first && !batch.messages.empty()) {
    spdlog::info("matrix[{}]: first sync: {} earlier message(s) in {} room(s) not answered", settings_.account_id,
                 batch.messages.size(), state_.rooms.size());
    batch.messages.clear();
  }
  if (batch.replays > 0) {
    replays_ignored_ += batch.replays;
    spdlog::info("matrix[{}]: {} message(s) handled before were not handed on again", settings_.account_id, batch.replays);
  }
  for (auto& m : batch.messages) {
    ++messages_seen_;
    const std::string room = m.chat_id, event_id = m.message_id;
    if (host_) host_->on_inbound(std::move(m));
    remember_handled(state_, room, event_id);
    if (!ChannelRun::live(alive)) {  // stopped meanwhile: the token stays before this batch, what was handed on is kept
      save_state();
      return;
    }
  }
  // Journaled by the pipeline (above, synchronously) and answered only later: the position moves
  // past the batch now, so a restart neither loses nor repeats it (header).
  state_.since = batch.next_batch;
  save_state();
  for (const auto& invite : batch.invites) join(invite);
}

void MatrixChannel::join(const Invite& invite) {
  if (joining_.count(invite.room_id)) return;
  const AutoJoinDecision d = decide_auto_join(settings_, invite);
  if (!d.join) {
    spdlog::info("matrix[{}]: invite to {} from {} not accepted: {}", settings_.account_id, invite.room_id,
                 invite.inviter.empty() ? "someone" : invite.inviter, d.reason);
    return;
  }
  joining_.insert(invite.room_id);
  call_limited("POST", "/rooms/" + encode_uri_component(invite.room_id) + "/join", json::object(), 0,
               [this, invite](Result<json> joined) {
                 joining_.erase(invite.room_id);
                 if (!joined) {
                   spdlog::warn("matrix[{}]: joining {} failed: {}", settings_.account_id, invite.room_id,
                                joined.error().message);
                   return;
                 }
                 ++invites_joined_;
                 spdlog::info("matrix[{}]: joined {} (invited by {})", settings_.account_id, invite.room_id,
                              invite.inviter.empty() ? "someone" : invite.inviter);
               });
}

void MatrixChannel::save_state() {
  if (settings_.state_file.empty()) return;
  json j = sync_state_to_json(state_);
  if (!dm_rooms_.empty()) j["dmRooms"] = dm_rooms_;
  write_channel_state(settings_.state_file, j, "matrix[" + settings_.account_id + "]");
}

std::string MatrixChannel::next_txn_id() {
  // Unique per access token (the homeserver deduplicates retries of one txnId, not new ones).
  return "pincer." + std::to_string(SystemClock::instance().wall_ms()) + "." + std::to_string(++txn_counter_);
}

void MatrixChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (!run_.running()) return done(Error{"UNAVAILABLE", "matrix[" + settings_.account_id + "]: not running"});
  resolve_room(message.chat_id, [this, text = message.text, thread = message.thread_id,
                                 done = std::move(done)](Result<std::string> room) mutable {
    if (!room) return done(room.error());
    const std::string path =
        "/rooms/" + encode_uri_component(*room) + "/send/m.room.message/" + encode_uri_component(next_txn_id());
    call_limited("PUT", path, text_content(text, thread), 0, [this, done = std::move(done)](Result<json> answer) {
      if (!answer) return done(answer.error());
      const std::string id = answer->is_object() ? answer->value("event_id", "") : "";
      if (id.empty()) return done(Error{"UNAVAILABLE", "matrix: the homeserver answered no event_id"});
      ++messages_sent_;
      done(id);
    });
  });
}

void MatrixChannel::edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                              std::function<void(Status)> done) {
  if (!run_.running()) return done(Error{"UNAVAILABLE", "matrix[" + settings_.account_id + "]: not running"});
  resolve_room(chat_id, [this, message_id, text, done = std::move(done)](Result<std::string> room) mutable {
    if (!room) return done(room.error());
    const std::string path =
        "/rooms/" + encode_uri_component(*room) + "/send/m.room.message/" + encode_uri_component(next_txn_id());
    call_limited("PUT", path, edit_content(message_id, text), 0, [this, done = std::move(done)](Result<json> answer) {
      if (!answer) return done(answer.error());
      ++messages_edited_;
      done(Ok{});
    });
  });
}

void MatrixChannel::react(const std::string& chat_id, const std::string& message_id, const std::string& emoji,
                          bool remove, std::function<void(Status)> done) {
  if (!run_.running()) return done(Error{"UNAVAILABLE", "matrix[" + settings_.account_id + "]: not running"});
  if (emoji.empty()) return done(Error{"REJECTED", "matrix: a reaction needs an emoji"});
  const std::string key = chat_id + "\n" + message_id + "\n" + emoji;
  const std::string room = "/rooms/" + encode_uri_component(chat_id);
  auto known = reactions_.find(key);
  if (remove) {
    if (known == reactions_.end()) {
      return done(Error{"REJECTED", "matrix: no " + emoji + " reaction of the bot on " + message_id +
                                        " is known (reactions are remembered until a restart)"});
    }
    const std::string reaction = known->second;
    call_limited("PUT", room + "/redact/" + encode_uri_component(reaction) + "/" + encode_uri_component(next_txn_id()),
                 json::object(), 0, [this, key, reaction, done = std::move(done)](Result<json> answer) {
                   if (!answer) return done(answer.error());
                   if (auto it = reactions_.find(key); it != reactions_.end() && it->second == reaction) reactions_.erase(it);
                   done(Ok{});
                 });
    return;
  }
  if (known != reactions_.end()) return done(Ok{});  // reacted so already
  const json content = {{"m.relates_to", {{"rel_type", "m.annotation"}, {"event_id", message_id}, {"key", emoji}}}};
  call_limited("PUT", room + "/send/m.reaction/" + encode_uri_component(next_txn_id()), content, 0,
               [this, key, done = std::move(done)](Result<json> answer) {
                 if (!answer) return done(answer.error());
                 const std::string id = answer->is_object() ? answer->value("event_id", "") : "";
                 if (id.empty()) return done(Error{"UNAVAILABLE", "matrix: the homeserver answered no event_id"});
                 if (!reactions_.count(key)) reaction_order_.push_back(key);
                 reactions_[key] = id;
                 while (reaction_order_.size() > kRememberedReactions) {
                   reactions_.erase(reaction_order_.front());
                   reaction_order_.pop_front();
                 }
                 done(Ok{});
               });
}

void MatrixChannel::send_typing(const std::string& chat_id, const std::string&) {
  if (!run_.running() || bot_.user_id.empty()) return;
  resolve_room(chat_id, [this](Result<std::string> room) {
    if (!room) return;
    call("PUT", "/rooms/" + encode_uri_component(*room) + "/typing/" + encode_uri_component(bot_.user_id),
         json{{"typing", true}, {"timeout", 30'000}}, 15'000, [](int, const json&, const std::string&, int64_t) {});
  });
}

json MatrixChannel::status() const {
  json s = {{"channel", id_},
            {"accountId", settings_.account_id},
            {"mode", "sync"},
            {"homeserver", settings_.homeserver},
            {"userId", bot_.user_id},
            {"since", state_.since},
            {"rooms", state_.rooms.size()},
            {"messagesSeen", messages_seen_},
            {"messagesSent", messages_sent_},
            {"messagesEdited", messages_edited_},
            {"invitesJoined", invites_joined_},
            {"rateLimited", rate_limited_},
            {"replaysIgnored", replays_ignored_}};
  run_.add_status(s);
  return s;
}

void MatrixChannel::probe(std::function<void(json)> done) {
  if (!run_.running()) return done({{"ok", false}, {"error", run_.last_error().empty() ? "not running" : run_.last_error()}});
  const auto started = std::chrono::steady_clock::now();
  call("GET", "/account/whoami", json(), 10'000,
       [started, done = std::move(done)](int status, const json& body, const std::string& transport, int64_t) {
         const auto elapsed =
             std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
         if (!transport.empty()) return done({{"ok", false}, {"error", transport}, {"elapsedMs", elapsed}});
         if (auto e = parse_error(status, body)) {
           return done({{"ok", false}, {"error", "GET /account/whoami failed: " + error_text(*e)}, {"elapsedMs", elapsed}});
         }
         done({{"ok", true}, {"bot", {{"id", body.is_object() ? body.value("user_id", "") : ""}}}, {"elapsedMs", elapsed}});
       });
}

}  // namespace pincer::channels::matrix
