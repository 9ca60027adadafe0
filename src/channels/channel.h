// The channel contract (SPEC CH-1, CH-2, CH-7): a chat platform account as the gateway sees it.
// A small mandatory core — id, account, capabilities, start/stop, send — and the pipeline asks
// capabilities, never a channel's type. Inbound messages arrive normalised (InboundMessage) at the
// ChannelHost; replies leave as already-rendered, already-chunked text (delivery/), one call per
// platform message, in order, followed by the files the reply names (send_media, OutboundMedia).
//
// Loop affinity: every method is called on the gateway's event-loop thread, and channels call
// the host back on it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/attachments.h"
#include "core/result.h"
#include "delivery/chunker.h"

namespace pincer::channels {

/// What a channel can do; the pipeline adapts to it (CH-1).
struct ChannelCapabilities {
  delivery::TextFormat format = delivery::TextFormat::Plain;  ///< what send_text() takes
  delivery::LengthUnit unit = delivery::LengthUnit::Utf16;    ///< how the platform measures text
  std::size_t text_limit = delivery::kDefaultTextChunkLimit;  ///< per message, in `unit`
  bool groups = false;   ///< group chats exist (mention gating applies)
  bool threads = false;  ///< threads/topics exist (session key suffix)
  bool typing = false;   ///< send_typing() does something
  /// edit_text() replaces the text of a message the channel sent: replies can stream as a preview
  /// edited in place (CH-4, `streaming: "partial"`); without it a channel falls back to "off".
  bool edit = false;
  /// The sender waits for exactly one answer (a webhook in sync mode): replies are never streamed.
  bool single_reply = false;
  /// Senders are authenticated by the channel itself (a signed webhook): DM access policy and
  /// pairing do not apply.
  bool verified_senders = false;
  /// The caller names its senders itself (a webhook's `senderId`): a sender never joins — nor
  /// `/new`s — the owner's main session; with dmScope "main" each sender gets a session of its own.
  bool sender_sessions = false;
  /// react() adds or removes the bot's emoji reaction on a message: the agent's `message` tool
  /// offers its `react` action in runs started from this channel (CH-8).
  bool reactions = false;
  /// Messages can carry buttons (OutboundMessage::buttons: Telegram's inline keyboard); a press
  /// arrives as an InboundMessage with a callback_id, answered with answer_callback().
  bool buttons = false;
  /// send_media() sends one image or file (CH-1 "media out"): a reply's `MEDIA:` lines become
  /// uploads (channels/reply_media.h). Without it the chat gets a text line
  /// "[file <name> not sent: <channel> cannot send files]" instead.
  bool media_out = false;
  /// With media_out: the largest file send_media() takes, bytes (the platform's upload cap, e.g.
  /// Telegram bots 50 MB, Discord 10 MiB); a larger one gets a "not sent" notice, never an upload.
  std::size_t media_max_bytes = 0;
  /// With media_out: the longest caption send_media() takes, in `unit` (Telegram 1024); 0 = the
  /// platform has no captions (OutboundMedia::caption is then always "").
  std::size_t media_caption_limit = 0;
  /// Inbound debounce defaults of this platform (inbound_debounce.h), used when `messages.inbound`
  /// sets neither `byChannel.<id>` nor `debounceMs`: the quiet window in ms (0 = off) …
  int64_t inbound_debounce_ms = 0;
  /// … and the longest the first held line waits, ms (0 = 5 × the window).
  int64_t inbound_debounce_max_wait_ms = 0;
};

/// One normalised inbound message (CH-2).
struct InboundMessage {
  std::string channel;     ///< "telegram"
  std::string account_id;  ///< "default" unless configured
  bool is_group = false;   ///< group/supergroup/channel chat, else a direct message
  std::string chat_id;     ///< where replies go (Telegram chat id)
  std::string thread_id;   ///< where replies go inside the chat: topic / thread ("" = none)
  /// A forum topic that is a conversation of its own (Telegram forums, General = "1"; "" = none):
  /// the peer becomes "<chat_id>:topic:<topic_id>" (OpenClaw's form; a binding can name it) with
  /// the chat as its parent peer, and the session key needs no thread suffix. Without it a
  /// non-empty thread_id gives the session key a ":thread:<thread_id>" suffix.
  std::string topic_id;
  /// A group conversation the platform calls a channel (a Discord guild channel or thread): the
  /// peer kind is "channel", so session keys read "…:channel:<chat_id>" as OpenClaw keys them.
  bool channel_peer = false;
  /// The conversation this one is a thread of ("" = none; a Discord thread's parent channel): the
  /// parent's bindings apply (RT-3 tier 2) and its `groups` entry when the thread has none.
  std::string parent_chat_id;
  std::string sender_id;
  std::string sender_username;  ///< without "@", "" when none
  std::string sender_name;
  /// Where the sender connects from, on platforms where a sender can take a new id for free (IRC:
  /// the host of nick!user@host, which a nick change keeps): at most one pairing request waits
  /// per origin. "" = ids are not free (Telegram user ids).
  std::string sender_origin;
  /// The server / workspace the conversation belongs to ("" = none) and the sender's roles there
  /// (platform role ids): bindings may pick an agent by them (RT-3 guild+roles, guild, team tiers).
  std::string guild_id;
  std::string team_id;
  std::vector<std::string> sender_roles;
  std::string message_id;  ///< platform id, for dedupe (QL-4)
  std::string text;
  bool mentions_bot = false;  ///< @bot, a reply to the bot, or a bot command
  int64_t ts_ms = 0;
  /// Set by the inbound pipeline, never by a channel: the message's run-journal entry
  /// (agent/run_journal.h) and whether it is answered again after a restart.
  std::string journal_id = {};
  bool resumed = false;
  /// Set by the inbound debounce, never by a channel: the journal entries of the earlier lines
  /// merged into this message (inbound_debounce.h), oldest first; its run answers them too.
  std::vector<std::string> merged_journal_ids = {};
  /// A button press, not a message (capabilities().buttons): the platform's id of the press (for
  /// answer_callback()), "" for an ordinary message. `text` is then the button's data and
  /// `callback_message_id` the message that carries the button.
  std::string callback_id;
  std::string callback_message_id;
  /// Images and files of the message (decoded bytes; kind "image" | "file", mime type, file name),
  /// checked by the channel with agent::check_attachments; `text` is then the caption ("" = none).
  /// Not kept by the run journal: a message resumed after a crash has only its text.
  std::vector<agent::Attachment> media = {};
};

/// One button under a message: its label and the data a press sends back (Telegram: at most 64 bytes).
struct Button {
  std::string text;
  std::string data;
};

/// One outbound platform message.
struct OutboundMessage {
  std::string chat_id;
  std::string thread_id;
  std::string text;  ///< rendered in capabilities().format and within text_limit
  std::vector<std::vector<Button>> buttons = {};  ///< rows of buttons (only when capabilities().buttons)
  /// The inbound message (InboundMessage::message_id, of this channel account) whose run or
  /// command this message answers; "" = not an answer (a cron or heartbeat announce, the
  /// `message` tool, a reply resumed from the outbox after a restart). A channel may route an
  /// answer differently: a Discord slash command's replies edit its interaction, a Slack
  /// command's go to its response_url — only that command's own, never the chat's other messages.
  std::string reply_to = {};
  /// A streamed preview (reply_stream.h) the final reply replaces by editing it. Where the message
  /// would go cannot be edited (a Slack command's ephemeral reply) a channel skips it and answers
  /// "" (no message id): the final reply then comes whole, once.
  bool preview = false;
};

/// One outbound image or file (CH-1 "media out", Channel::send_media): one platform message.
struct OutboundMedia {
  std::string chat_id;
  std::string thread_id;  ///< "" = none, as OutboundMessage::thread_id
  /// The file: kind "image" (bytes sniffed as PNG/JPEG/GIF/WebP — send it as a photo where the
  /// platform distinguishes) or "file" (a document); mime_type never "" (application/octet-stream
  /// when unknown); file_name never "" (a base name, no directories); bytes within
  /// capabilities().media_max_bytes.
  agent::Attachment media;
  /// Text shown with the file, rendered in capabilities().format and within
  /// capabilities().media_caption_limit; "" = none.
  std::string caption = {};
  /// As OutboundMessage::reply_to: the inbound message this file answers. A channel whose command
  /// replies are private (a Discord interaction, a Slack command's ephemeral reply) sends the file
  /// the same private way, or refuses it (REJECTED) — never as a message everyone in the chat sees.
  std::string reply_to = {};
};

/// What the pipeline did with an inbound message (a webhook answers its caller with it).
enum class InboundOutcome {
  Accepted,   ///< a run (or a command) will answer through send_text()
  Duplicate,  ///< already handled (QL-4): nothing will be sent
  Dropped,    ///< refused by access control (a pairing code may be sent)
};

/// The pipeline side: receives inbound messages.
class ChannelHost {
 public:
  virtual ~ChannelHost() = default;
  virtual InboundOutcome on_inbound(InboundMessage message) = 0;
};

class Channel {
 public:
  virtual ~Channel() = default;
  virtual const std::string& id() const = 0;          ///< "telegram"
  virtual const std::string& account_id() const = 0;  ///< "default"
  virtual ChannelCapabilities capabilities() const = 0;

  /// Starts receiving (e.g. long polling); `on_failed` is called once if the account cannot run
  /// (bad token, unreachable API): the manager restarts it with backoff (1 s … 5 min) — unless
  /// failed_permanently() says retrying cannot help. channel_run.h implements this contract.
  virtual void start(ChannelHost& host, std::function<void(const std::string& why)> on_failed) = 0;
  /// Stops receiving and cancels requests in flight; no callback runs afterwards.
  virtual void stop() = 0;
  /// Asked by the manager when on_failed ran: true when the failure is one retrying cannot fix —
  /// the platform refused the account's credentials (Discord close 4004 / HTTP 401, Slack
  /// invalid_auth, not_authed, token_revoked, account_inactive, Matrix 401 M_UNKNOWN_TOKEN,
  /// Telegram 401, IRC SASL or server-password refusal). The account then stays stopped until
  /// the config is reloaded (CH-7); network errors and 5xx answers are never permanent.
  /// Valid until the next start(); default false.
  virtual bool failed_permanently() const { return false; }

  /// Sends one message; `done` gets the platform message id or an error whose code is
  /// "RATE_LIMITED" (retry later), "REJECTED" (will never succeed) or "UNAVAILABLE".
  virtual void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) = 0;
  /// Uploads one image or file (OutboundMedia) as one platform message; `done` gets the platform
  /// message id or an error coded as for send_text() ("REJECTED" with the platform's reason: too
  /// large, a type it refuses …). Only meaningful when capabilities().media_out; the default fails
  /// "REJECTED". The reply delivery (reply_delivery.h) retries and parks it like a text chunk.
  virtual void send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) {
    (void)media;
    done(Error{"REJECTED", "this channel cannot send files"});
  }
  /// Replaces the text of message `message_id` (an id send_text() returned) in `chat_id` with
  /// `text` (rendered in capabilities().format, within text_limit). `done` gets Ok — also when the
  /// message already shows that text — or an error coded as for send_text(). Only meaningful when
  /// capabilities().edit; the default fails with "REJECTED".
  virtual void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                         std::function<void(Status)> done) {
    (void)chat_id, (void)message_id, (void)text;
    done(Error{"REJECTED", "this channel cannot edit messages"});
  }
  /// Adds (`remove` false) or removes the bot's reaction `emoji` on message `message_id` of
  /// `chat_id` (CH-8, the `message` tool's react action). `done` gets Ok or an error coded as for
  /// send_text(), its message the platform's reason (an emoji the platform does not allow, a message
  /// that is gone …). Only meaningful when capabilities().reactions; the default fails "REJECTED".
  virtual void react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
                     std::function<void(Status)> done) {
    (void)chat_id, (void)message_id, (void)emoji, (void)remove;
    done(Error{"REJECTED", "this channel has no reactions"});
  }
  /// Acknowledges a button press (InboundMessage::callback_id) with a short notice shown to the
  /// presser (`text` plain, may be ""); best effort. Only meaningful when capabilities().buttons.
  virtual void answer_callback(const std::string& callback_id, const std::string& text) {
    (void)callback_id, (void)text;
  }
  /// The chat id that reaches user `user_id` of this platform directly (channel docking, RT-5):
  /// by default the id itself (a Telegram private chat, an IRC nick); "" when this channel cannot
  /// start a chat on its own (it only answers requests).
  virtual std::string direct_chat_id(const std::string& user_id) const { return user_id; }
  /// Shows "typing…" where supported; best effort.
  virtual void send_typing(const std::string& chat_id, const std::string& thread_id) {}

  /// For `channels.status`: {running, lastError?, …}.
  virtual nlohmann::json status() const = 0;

  /// For `channels.status {probe:true}` (`pincer channels status --probe`): checks the account
  /// against its platform now and calls `done` once with {ok, error?, elapsedMs?, …} — possibly
  /// never when the channel is stopped meanwhile (the caller bounds the wait). The default
  /// reports whether the channel is running.
  virtual void probe(std::function<void(nlohmann::json)> done) {
    const bool running = status().value("running", false);
    done(running ? nlohmann::json{{"ok", true}} : nlohmann::json{{"ok", false}, {"error", "not running"}});
  }
};

}  // namespace pincer::channels
