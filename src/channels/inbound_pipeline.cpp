#include "channels/inbound_pipeline.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "agent/silent_reply.h"
#include "channels/channel_accounts.h"
#include "channels/inbound_journal.h"
#include "channels/reply_stream.h"
#include "core/ids.h"
#include "core/redact.h"
#include "core/utf8.h"
#include "routing/routing_config.h"
#include "routing/session_routing.h"

namespace pincer::channels {

using nlohmann::json;

routing::Peer inbound_peer(const InboundMessage& m) {
  if (!m.is_group) return {routing::PeerKind::Direct, m.sender_id};
  if (!m.topic_id.empty()) return {routing::PeerKind::Group, routing::telegram_topic_peer_id(m.chat_id, m.topic_id)};
  return {m.channel_peer ? routing::PeerKind::Channel : routing::PeerKind::Group, m.chat_id};
}

InboundPipeline::InboundPipeline(EventLoop& loop, const Clock& clock, agent::AgentService& agents, ReplyDelivery& delivery,
                                 PairingStore& pairing, json effective_config)
    : clock_(clock),
      agents_(agents),
      delivery_(delivery),
      pairing_(pairing),
      dedupe_(clock),
      loop_(loop),
      chat_approvals_(agents, delivery),
      debounce_(std::make_shared<LoopStreamTimers>(loop), clock,
                [this](InboundDebounce::Batch batch) { flushed(std::move(batch)); }) {
  reconfigure(std::move(effective_config));
}

void InboundPipeline::reconfigure(json effective_config) {
  config_ = std::move(effective_config);
  chat_approvals_.reconfigure(config_);
  routing_ = routing::routing_config_from_json(config_);
  debounce_settings_ = InboundDebounceSettings::from_config(config_);
  const json q = config_.value("messages", json::object()).value("queue", json::object());
  queue_ = QueueSettings{};
  queue_.mode = q.value("mode", queue_.mode);
  queue_.debounce_ms = q.value("debounceMs", queue_.debounce_ms);
  queue_.cap = q.value("cap", queue_.cap);
  queue_.drop = q.value("drop", queue_.drop);
}

std::size_t InboundPipeline::pending() const {
  std::size_t n = debounce_.held();
  for (const auto& [key, q] : sessions_) {
    n += q.waiting.size() + (q.active_run.empty() ? 0 : 1);
    for (const auto& s : q.steered) n += s ? 1 : 0;
  }
  return n;
}

json InboundPipeline::stats() const {
  return {{"received", received_}, {"duplicates", duplicates_}, {"dropped", dropped_}, {"runs", runs_},
          {"queued", queued_}, {"interrupted", interrupted_}, {"queueMode", queue_.mode},
          {"debounceHeld", debounce_.held()}};
}

void InboundPipeline::reply(Channel& channel, const InboundMessage& m, const std::string& id, const std::string& text) {
  DeliverOptions options;
  options.reply_to = m.message_id;  // a slash command's answer goes to the command
  if (auto st = delivery_.deliver(channel, id, m.chat_id, m.thread_id, text, std::move(options)); !st) {
    spdlog::error("{}[{}]: reply to {} not queued: {}", m.channel, m.account_id, m.chat_id, st.error().message);
  }
}

void InboundPipeline::pair(Channel& channel, const InboundMessage& m) {
  // The code goes out once per request (again only after a while, sooner when asked for), never
  // once per message: an unpaired sender cannot make the bot talk at the rate it writes.
  std::string word = m.text.substr(0, m.text.find_first_of(" @\n"));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool asked = word == "/start" || word == "/pair";
  auto p = pairing_.request(m.channel, m.account_id, m.sender_id, m.sender_username, clock_.wall_ms(), m.sender_origin, asked);
  if (p) {
    if (p->created) {
      spdlog::info("{}[{}]: pairing request from {} (`pincer pairing list` shows its code)", m.channel, m.account_id,
                   m.sender_id);
    }
    if (!p->notify) return;
    const std::string& code = p->pending.code;
    reply(channel, m, "pair-" + m.channel + "-" + m.message_id,
          "I don't know you yet. Your pairing code is **" + code + "**. Ask my owner to approve it with: `pincer pairing approve " +
              m.channel + " " + code + "`");
    return;
  }
  // Refused requests are logged (the owner sees who waits in vain), at most once a minute per
  // account with a count, so a flood cannot flood the log either.
  const std::string key = m.channel + ":" + m.account_id;
  auto& log = pairing_refused_[key];
  ++log.count;
  const int64_t now = clock_.steady_ms();
  if (log.last_ms != 0 && now - log.last_ms < 60'000) return;
  const std::string why = p.error().code == "PAIRING_FULL"
                              ? "already " + std::to_string(kPairingMaxPending) + " requests wait (`pincer pairing list`)"
                              : p.error().message;
  spdlog::warn("{}[{}]: pairing request from {} refused: {}{}", m.channel, m.account_id, m.sender_id, why,
               log.count > 1 ? " (" + std::to_string(log.count) + " refused since the last notice)" : "");
  log.last_ms = now;
  log.count = 0;
}

InboundOutcome InboundPipeline::handle(Channel& channel, InboundMessage m) {
  ++received_;
  // Platform bytes are not always UTF-8 (IRC is raw bytes), and every store below writes JSON,
  // which cannot hold them. Text is repaired (U+FFFD); an id is where a reply goes, so a message
  // whose ids are not UTF-8 is refused rather than answered somewhere else.
  for (std::string* text : {&m.text, &m.sender_name, &m.sender_username}) {
    if (!utf8::is_valid(*text)) *text = utf8::replace_invalid(*text);
  }
  for (const std::string* id : {&m.chat_id, &m.thread_id, &m.topic_id, &m.sender_id, &m.sender_origin, &m.message_id,
                                &m.account_id}) {
    if (!utf8::is_valid(*id)) {
      spdlog::warn("{}[{}]: message dropped: an id is not UTF-8 ({})", m.channel, utf8::replace_invalid(m.account_id),
                   utf8::describe_invalid(*id));
      return InboundOutcome::Dropped;
    }
  }
  // A forum topic is a conversation of its own: "<chat>:topic:<id>" (OpenClaw's peer id).
  const bool topic = m.is_group && !m.topic_id.empty();
  const routing::Peer peer = inbound_peer(m);
  // 1. The same platform message twice (webhook retry, re-polled update) is handled once (QL-4).
  if (dedupe_.seen({m.channel, m.account_id, peer, m.thread_id, m.message_id}) ||
      agents_.journal().has_message(inbound_journal_key(m))) {  // (also across a restart: the journal)
    ++duplicates_;
    spdlog::debug("{}[{}]: duplicate message {} ignored", m.channel, m.account_id, m.message_id);
    return InboundOutcome::Duplicate;
  }
  // A button press answers an exec approval (TL-3): commands.ownerAllowFrom is its gate.
  if (!m.callback_id.empty()) {
    chat_approvals_.handle_press(channel, m);
    return InboundOutcome::Accepted;
  }
  // 2. Access control (CH-3).
  const json channel_cfg = channel_account_config(config_.value("channels", json::object()), m.channel, m.account_id);
  routing::AccessRequest req;
  req.is_group = m.is_group;
  req.group_id = m.is_group ? m.chat_id : "";
  req.parent_group_id = m.is_group ? m.parent_chat_id : "";
  req.space_id = m.is_group ? (m.guild_id.empty() ? m.team_id : m.guild_id) : "";
  req.sender = {m.sender_id, m.sender_username};
  req.sender_roles = m.sender_roles;  // Discord guild `roles` (routing/access_policy.h)
  req.was_mentioned = m.mentions_bot;
  const bool is_command = !m.text.empty() && m.text[0] == '/';
  req.paired_allow_from = pairing_.approved(m.channel, m.account_id);
  auto access = access_config_from_json(channel_cfg, m.channel);
  if (channel.capabilities().verified_senders) {
    access.dm_policy = routing::DmPolicy::Open;  // the channel authenticated the sender
    access.allow_from = {"*"};
  }
  auto decision = routing::decide_access(access, req);
  if (decision.action == routing::AccessAction::Pair) {
    pair(channel, m);
    ++dropped_;
    return InboundOutcome::Dropped;
  }
  if (decision.action == routing::AccessAction::Drop) {
    ++dropped_;
    spdlog::info("{}[{}]: message from {} dropped ({})", m.channel, m.account_id, m.sender_id,
                 routing::to_string(decision.reason));
    return InboundOutcome::Dropped;
  }
  // 3. Route: agent and session (RT-1..RT-4); a topic/thread gets its own session. A topic's
  // peer carries the topic (a binding may name it) and inherits its chat's bindings (tier 2).
  routing::RouteInput in;
  in.channel = m.channel;
  in.account_id = m.account_id;
  in.peer = peer;
  if (topic) in.parent_peer = routing::Peer{routing::PeerKind::Group, m.chat_id};
  if (!topic && m.is_group && !m.parent_chat_id.empty()) {
    in.parent_peer = routing::Peer{m.channel_peer ? routing::PeerKind::Channel : routing::PeerKind::Group, m.parent_chat_id};
  }
  in.guild_id = m.guild_id;
  in.team_id = m.team_id;
  in.member_role_ids = m.sender_roles;
  const auto route = routing::resolve_route(routing_, in);
  // A caller that names its senders itself (the webhook) never joins — nor `/new`s — the owner's
  // main session: with dmScope "main" each of its senders gets a session of its own.
  const bool into_main = channel.capabilities().sender_sessions && m.thread_id.empty() &&
                         route.session_key == route.main_session_key;
  const std::string session_key =
      topic ? route.session_key
            : routing::resolve_thread_session_keys(route.session_key, into_main ? m.sender_id : m.thread_id).session_key;
  // 4. Slash commands (UI-4); an owner's answer to an exec approval (TL-3). A command is never
  // held: lines its sender wrote before it go first — `/stop` drops them instead (drop_queued).
  if (is_command && debounce_.held() > 0) {
    const auto invocation = agent::parse_chat_command(m.text, m.mentions_bot);
    if (!invocation || invocation->command->name != "stop") debounce_.flush(debounce_key(m));
  }
  if (is_command && chat_approvals_.handle(channel, m)) return InboundOutcome::Accepted;
  if (is_command) {  // channel docking (RT-5): /dock_<channel>, /dock-<channel>
    if (auto target = parse_dock_command(m.text, m.mentions_bot)) {
      dock(channel, m, session_key, route.agent_id, *target);
      return InboundOutcome::Accepted;
    }
  }
  if (is_command) {  // a skill command ("/summarize …", agent/skill_command_input.h): the model's instruction
    if (auto skill = agent::expand_skill_command(m.text, session_key, m.mentions_bot)) m.text = std::move(*skill);
  }
  if (is_command && command(channel, m, session_key, route.agent_id)) return InboundOutcome::Accepted;
  // 5. Journaled (SS-6) before the channel acknowledges it, then a run now or the session's queue
  // when a run is busy (QL-3).
  json record = inbound_journal_request(m, session_key, route.agent_id);
  Result<json> media = m.media.empty() ? Result<json>(json::array()) : agents_.journal_media(route.agent_id, m.media);
  if (media && !media->empty()) record["media"] = std::move(*media);  // by reference, never the bytes
  auto journaled = media ? agents_.journal().accept(kChannelJournalSource, record, inbound_journal_key(m))
                         : Result<std::string>(media.error());
  if (!journaled) {
    spdlog::error("{}[{}]: message {} not accepted: {}", m.channel, m.account_id, m.message_id, journaled.error().message);
    reply(channel, m, "journal-" + m.channel + "-" + m.message_id, "⚠️ I cannot take messages right now (my storage "
                                                                   "fails; the owner finds why in the gateway log).");
    return InboundOutcome::Dropped;
  }
  m.journal_id = *journaled;
  admit(channel, std::move(m), session_key, route.agent_id);
  return InboundOutcome::Accepted;
}

void InboundPipeline::admit(Channel& channel, InboundMessage m, const std::string& session_key,
                            const std::string& agent_id) {
  const ChannelCapabilities caps = channel.capabilities();
  // A sender that waits for its own answer (a sync webhook) is never merged with another request.
  const int64_t window = caps.single_reply ? 0 : debounce_settings_.window_ms(m.channel, caps.inbound_debounce_ms);
  if (window <= 0 && debounce_.held() == 0) return enqueue(channel, std::move(m), session_key, agent_id);  // off
  const std::string key = debounce_key(m);
  // Only a burst to an idle session waits; a busy session's messages follow messages.queue.
  if (window > 0 && may_hold(m) && (debounce_.holding(key) || sessions_.count(session_key) == 0)) {
    return debounce_.hold(key, session_key, agent_id, std::move(m), window, caps.inbound_debounce_max_wait_ms);
  }
  debounce_.flush(key);  // the lines before it go first
  enqueue(channel, std::move(m), session_key, agent_id);
}

void InboundPipeline::flushed(InboundDebounce::Batch batch) {
  const std::size_t lines = batch.lines.size();
  InboundMessage m = merge_inbound_lines(std::move(batch.lines));
  Channel* channel = delivery_.find(m.channel, m.account_id);  // a reload may have removed the account
  if (!channel) {
    spdlog::warn("{}[{}]: {} held message(s) from {} not answered: the account is not configured any more", m.channel,
                 m.account_id, lines, m.sender_id);
    return forget(m, "dropped");
  }
  if (lines > 1) spdlog::debug("{}[{}]: {} lines from {} merged into one message", m.channel, m.account_id, lines, m.sender_id);
  enqueue(*channel, std::move(m), batch.session_key, batch.agent_id);
}

void InboundPipeline::enqueue(Channel& channel, InboundMessage m, const std::string& session_key, const std::string& agent_id) {
  SessionQueue& q = sessions_[session_key];
  q.channel = &channel;
  q.agent_id = agent_id;
  if (q.active_run.empty() && q.waiting.empty()) return start_run(session_key, {std::move(m)});
  ++queued_;
  if (queue_.mode == "interrupt") {
    for (const auto& w : q.waiting) forget(w, "superseded");
    q.waiting.clear();
    q.waiting.push_back(std::move(m));
    if (!q.active_run.empty()) {
      ++interrupted_;
      superseded_.insert(q.active_run);
      (void)agents_.abort(session_key, q.active_run, "interrupt");  // run_ended() starts the newest
    }
    return;
  }
  // steer / steer-backlog: hand the message to the running run, to enter its loop at the next
  // tool-call boundary (AG-4); run_ended() runs the ones it did not take in as followups.
  auto steer = [&](const InboundMessage& msg) {
    return !q.active_run.empty() && q.steered.size() < queue_.cap &&
           agents_.steer(session_key, q.active_run,
                         msg.is_group && !msg.sender_name.empty() ? msg.sender_name + ": " + msg.text : msg.text,
                         msg.media);  // its images and files go with it
  };
  // (steer waits behind older waiting messages: steering past them would answer out of order.)
  if (queue_.mode == "steer" && q.waiting.empty() && steer(m)) {
    q.steered.push_back(std::move(m));
    return;
  }
  if (q.waiting.size() >= queue_.cap) {
    ++dropped_;
    if (queue_.drop == "new") return forget(m, "dropped");
    forget(q.waiting.front(), "dropped");
    q.waiting.pop_front();
    ++q.dropped;
  }
  // steer-backlog: steered, and its followup copy waits as well (marked by an empty entry).
  if (queue_.mode == "steer-backlog" && steer(m)) q.steered.emplace_back(std::nullopt);
  q.waiting.push_back(std::move(m));
  // collect: a new message during the quiet time after a run restarts it.
  if (q.active_run.empty() && q.debounce) {
    loop_.cancel(*q.debounce);
    q.debounce.reset();
    run_ended(session_key, "");
  }
}

void InboundPipeline::start_run(const std::string& session_key, std::vector<InboundMessage> messages) {
  SessionQueue& q = sessions_[session_key];
  const InboundMessage& last = messages.back();
  std::string text;
  if (messages.size() == 1 && q.dropped == 0) {
    text = last.is_group && !last.sender_name.empty() ? last.sender_name + ": " + last.text : last.text;
  } else {
    text = "[Messages received while you were busy]";
    if (q.dropped > 0 && queue_.drop == "summarize") text += "\n(" + std::to_string(q.dropped) + " earlier messages were dropped)";
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const auto& mm = messages[i];
      text += "\n---\n#" + std::to_string(i + 1) + (mm.sender_name.empty() ? "" : " " + mm.sender_name) + ": " + mm.text;
    }
  }
  q.dropped = 0;
  // The reply goes where the (last) message came from: a session may gather several channels.
  Channel* channel = delivery_.find(last.channel, last.account_id);
  if (!channel) channel = q.channel;
  // A docked session (RT-5) answers its docking person at the dock address instead.
  std::string to_chat = last.chat_id, to_thread = last.thread_id, to_sender = last.sender_id;
  if (const auto dock = dock_for(session_key, last)) {
    if (Channel* target = delivery_.find(dock->channel, dock->account_id)) {
      channel = target;
      to_chat = dock->to;
      to_thread.clear();
      to_sender = dock->peer_id;
    } else {
      spdlog::warn("{}: docked to {}[{}], which is not configured any more; answering in {}", session_key, dock->channel,
                   dock->account_id, last.channel);
    }
  }
  const std::string run_id = last.channel + "-" + last.account_id + "-" + last.chat_id + "-" + last.message_id + "-" +
                             ids::uuid_v4().substr(0, 8);
  if (channel->capabilities().typing) channel->send_typing(to_chat, to_thread);
  q.active_run = run_id;
  // The reply streams to the chat as the run writes it (CH-4; channels.<id>.streaming).
  // The run journal: every message of the batch; a preview an earlier, cut-off run left is reused.
  std::vector<std::string> journal_ids;
  std::string preview_id;
  bool resumed = false;
  for (const auto& mm : messages) {
    resumed = resumed || mm.resumed;
    for (const auto& j : journal_ids_of(mm)) {  // a merged burst answers every line's entry
      journal_ids.push_back(j);
      if (auto p = resume_previews_.find(j); p != resume_previews_.end()) {
        preview_id = p->second;
        resume_previews_.erase(p);
      }
    }
  }
  auto on_preview = [this, journal_ids](const std::string& id) {
    for (const auto& j : journal_ids) {
      if (auto st = agents_.journal().note(j, json{{"preview", id}}); !st) spdlog::error("run journal: {}", st.error().message);
    }
  };
  // The message the reply answers, when it goes back where that came from (not to a dock).
  const std::string answers = to_chat == last.chat_id && channel->id() == last.channel ? last.message_id : "";
  auto stream = ReplyStream::create(delivery_, clock_, std::make_shared<LoopStreamTimers>(loop_),
                                    {channel->id(), channel->account_id(), to_chat, to_thread, run_id,
                                     preview_id, on_preview,  // MEDIA: files from the agent's roots
                                     media_roots_for_agent(agents_.effective_config(), agents_.state_directory(), q.agent_id),
                                     answers},  // a slash command's run answers the command
                                    stream_settings_from_json(config_, channel->id(), channel->account_id(),
                                                              channel->capabilities()));
  agent::SendRequest request{session_key, q.agent_id, text, run_id, "", agent::RunLane::Main};
  request.channel = last.channel;  // session.resetByChannel (SS-5)
  request.origin = {channel->id(), channel->account_id(), to_chat, to_thread, to_sender, last.is_group,
                    to_chat == last.chat_id ? last.message_id : "", channel->capabilities().reactions};
  // The chat a later cron or heartbeat delivery to "last" goes to. A caller waiting for one answer
  // (a webhook in sync mode) is not a chat anything can be sent to later: it is not recorded, and
  // the agent's last chat stays the one before (as OpenClaw's lastChannel skips non-deliverable
  // channels).
  if (last_routes_ && !channel->capabilities().single_reply) {
    last_routes_->record(q.agent_id, {channel->id(), channel->account_id(), to_chat, to_thread});
  }
  // Owner = every sender of the batch is in commands.ownerAllowFrom (TL-2 owner-only, TL-3).
  request.sender_is_owner = std::all_of(messages.begin(), messages.end(), [&](const InboundMessage& mm) {
    return sender_is_owner(config_, mm);
  });
  request.journal_ids = journal_ids;
  request.resume = resumed;
  for (const auto& mm : messages) {  // images and files of the batch (agent/attachments.h)
    request.attachments.insert(request.attachments.end(), mm.media.begin(), mm.media.end());
  }
  auto accepted = agents_.send(request,  // the chat never sees a NO_REPLY (CX-10)
                               agent::without_silent_replies([this, run_id, session_key, stream](const agent::RunEvent& e) {
                                 using K = agent::RunEvent::Kind;
                                 const bool dropped = superseded_.count(run_id) > 0;
                                 stream->on_event(e, dropped);  // End/Error: the reply (or "⚠️ error")
                                 if (e.kind == K::Steered) {
                                   // The oldest steered message is in the run's loop now: its reply answers it.
                                   if (auto s = sessions_.find(session_key); s != sessions_.end() && !s->second.steered.empty()) {
                                     if (const auto& taken = s->second.steered.front(); taken) {
                                       for (const auto& j : journal_ids_of(*taken)) {
                                         steered_ids_[run_id].push_back(j);  // this reply answers it
                                       }
                                     }
                                     s->second.steered.pop_front();
                                   }
                                 }
                                 if (e.kind == K::End || e.kind == K::Error || e.kind == K::Aborted) {
                                   superseded_.erase(run_id);
                                   if (auto ids = steered_ids_.extract(run_id); ids && !(e.kind == K::Aborted && e.stop_reason == "shutdown")) {
                                     for (const auto& j : ids.mapped()) (void)agents_.journal().answered(j, "steered");
                                   }
                                   // /stop drops what waits, steered messages included.
                                   if (auto s = sessions_.find(session_key); s != sessions_.end() && e.kind == K::Aborted &&
                                                                             e.stop_reason == "stop") {
                                     for (const auto& st : s->second.steered) if (st) forget(*st, "stopped");
                                     s->second.steered.clear();
                                   }
                                   // After the sink returns: the lane is free for the next run.
                                   loop_.post([this, session_key, run_id] { run_ended(session_key, run_id); });
                                 }
                               }));
  if (!accepted) {
    q.active_run.clear();
    spdlog::error("{}[{}]: cannot start a run for {}: {}", last.channel, last.account_id, session_key, accepted.error().message);
    DeliverOptions failed;
    failed.reply_to = answers;
    if (auto st = delivery_.deliver(*channel, run_id, to_chat, to_thread, "⚠️ " + redact::apply(accepted.error().message),
                                    std::move(failed));
        !st) {
      spdlog::error("{}[{}]: reply to {} not queued: {}", channel->id(), channel->account_id(), to_chat, st.error().message);
    }
    for (const auto& mm : messages) forget(mm, "error");
    return;
  }
  ++runs_;
}

void InboundPipeline::run_ended(const std::string& session_key, const std::string& run_id) {
  auto it = sessions_.find(session_key);
  if (it == sessions_.end()) return;
  SessionQueue& q = it->second;
  if (!run_id.empty() && q.active_run == run_id) {
    q.active_run.clear();
    // Steered messages the run ended without taking in run next, as followups, in their order
    // (a steer-backlog entry's followup copy is waiting already).
    for (auto s = q.steered.rbegin(); s != q.steered.rend(); ++s) {
      if (*s) q.waiting.push_front(std::move(**s));
    }
    q.steered.clear();
  }
  if (!q.active_run.empty()) return;
  if (q.waiting.empty()) {
    sessions_.erase(it);
    return;
  }
  if (queue_.mode == "collect") {
    // Wait for a quiet moment, then everything that gathered runs as one turn.
    if (q.debounce) loop_.cancel(*q.debounce);
    q.debounce = loop_.after(queue_.debounce_ms, [this, session_key] {
      auto s = sessions_.find(session_key);
      if (s == sessions_.end() || !s->second.active_run.empty()) return;
      s->second.debounce.reset();
      // One turn per chat: messages from other chats sharing the session (dmScope "main") wait
      // for their own turn, so that each reply reaches the chat it answers.
      std::vector<InboundMessage> batch;
      std::deque<InboundMessage> others;
      for (auto& m : s->second.waiting) {
        const bool same = batch.empty() || (m.channel == batch[0].channel && m.account_id == batch[0].account_id &&
                                            m.chat_id == batch[0].chat_id && m.thread_id == batch[0].thread_id);
        if (same) batch.push_back(std::move(m));
        else others.push_back(std::move(m));
      }
      s->second.waiting = std::move(others);
      if (!batch.empty()) start_run(session_key, std::move(batch));
    });
    return;
  }
  // followup / steer / steer-backlog / interrupt: the oldest waiting message runs next, alone.
  InboundMessage next = std::move(q.waiting.front());
  q.waiting.pop_front();
  start_run(session_key, {std::move(next)});
}

void InboundPipeline::forget(const InboundMessage& m, const char* outcome) {
  for (const auto& j : journal_ids_of(m)) {
    if (auto st = agents_.journal().answered(j, outcome); !st) spdlog::error("run journal: {}", st.error().message);
  }
}

bool InboundPipeline::command(Channel& channel, const InboundMessage& m, const std::string& session_key,
                              const std::string& agent_id) {
  (void)agent_id;  // the session key names the agent
  // The commands of every chat surface (agent/chat_commands.h); anything else is text for the agent.
  auto invocation = agent::parse_chat_command(m.text, m.mentions_bot);
  if (!invocation || invocation->command->terminal_only) return false;
  agent::CommandContext context{agents_, session_key, [this, &session_key] {
                                  if (auto q = sessions_.find(session_key); q != sessions_.end()) {
                                    for (const auto& w : q->second.waiting) forget(w, "stopped");
                                    q->second.waiting.clear();
                                  }
                                  for (const auto& held : debounce_.take_session(session_key)) forget(held, "stopped");
                                }};
  context.may_change_config = sender_is_owner(config_, m);  // /dreaming on|off
  context.patch_config = config_patcher_;
  const std::string reply_id = "cmd-" + m.channel + "-" + m.chat_id + "-" + m.message_id;
  // /compact, /tree ID: their result is a second reply in the same chat, through the outbox. A
  // sender that waits for one answer (a sync webhook) gets one: both texts, when the work ended.
  const bool one_answer = channel.capabilities().single_reply;
  auto first = std::make_shared<std::string>();
  context.follow_up = [this, alive = std::weak_ptr<int>(alive_), m, reply_id, first](const agent::CommandReply& later) {
    if (alive.expired()) return;
    Channel* channel = delivery_.find(m.channel, m.account_id);  // the account may be gone by now
    if (!channel) {
      spdlog::warn("{}[{}]: the result of a command in {} not sent: the account is not configured any more", m.channel,
                   m.account_id, m.chat_id);
      return;
    }
    reply(*channel, m, reply_id + "-done", *first + (later.ok ? later.text : redact::apply(later.text)));
  };
  agent::CommandReply answer = agent::run_chat_command(*invocation, context);
  if (invocation->command->name == "help") answer.text += dock_help();  // the channels' own /dock_<channel>
  if (answer.follows && one_answer) {
    *first = answer.text + "\n";
    return true;
  }
  // A failing command's error text may quote config values: masked like every reply's error.
  reply(channel, m, reply_id, answer.ok ? answer.text : redact::apply(answer.text));
  return true;
}

}  // namespace pincer::channels
