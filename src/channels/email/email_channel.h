// E-mail as a Channel (SPEC CH-1, CH-2; issue 21 item 3): the bot's mailbox read over IMAP
// (imap_client.h) and replies sent over SMTP (smtp_sender.h).
//
// Conversations: every sender is a direct message (chat_id = the sender's address, lower-cased);
// thread_id = the root Message-ID of the e-mail thread (ParsedEmail::thread_root()), so a new
// subject is a new conversation and a reply in the thread continues it. The text handed on is
// the person's own words (email_parse.h: text/plain preferred, else the HTML part as text,
// quoted text and signature stripped); a message that starts a thread (no In-Reply-To or
// References) with a subject reads "Subject: <subject>\n\n<body>". Mail sent by machines
// (Auto-Submitted, Precedence bulk/list/junk, List-Id, mailer-daemon, delivery reports) and
// mail from the bot's own address is never handed on (no mail loops).
//
// Receiving: connect (TLS / STARTTLS / plain), log in, SELECT the mailbox, UID SEARCH for UIDs
// above the last one handed on, UID FETCH them (BODY.PEEK[]) 20 at a time, then IDLE (re-issued
// every 25 min, RFC 2177) until the server reports EXISTS; a server without IDLE is asked again
// every 60 s. Messages handed on are marked \Seen afterwards.
//
// Restarts (QL-4): UIDVALIDITY and the highest UID handed to the pipeline are kept in
// `state_file` (atomic write), written after the pipeline journaled a batch and before any of
// it is answered; message_id = the Message-ID header, so the journal's dedupe covers a crash in
// between. The first start of an account (no state file) answers nothing already in the mailbox:
// it records UIDNEXT and hands on only mail that arrives later. A changed UIDVALIDITY (the
// mailbox was recreated) is treated the same way. Per thread the subject, the last inbound
// Message-ID and the References chain are kept in the state file too (the last 500 threads), so
// a reply after a restart still threads.
//
// Failures: a server certificate that fails verification names <config_path>.imap.host/security
// (retried with backoff like an unreachable server); a refused login stops the account with "the IMAP server refused the login for
// <user> (…): check <config_path>.imap.password"; an unknown mailbox names <config_path>.imap.mailbox;
// a server that cannot be reached before the first login fails the start (the manager retries
// with backoff); a connection lost later is reconnected here with backoff (1 s … 5 min). A refused
// SMTP login or an untrusted SMTP certificate fails the reply "UNAVAILABLE" (smtp_sender.h: kept in
// the outbox until the account restarts after a config fix) and shows in status().lastError.
//
// Loop affinity: all methods on the event-loop thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "channels/channel.h"
#include "channels/channel_run.h"
#include "channels/email/email_parse.h"
#include "channels/email/email_settings.h"
#include "channels/email/imap_client.h"
#include "channels/email/smtp_sender.h"
#include "core/event_loop.h"

namespace pincer::channels::email {

/// What the channel remembers of one e-mail thread (by its root Message-ID).
struct EmailThread {
  std::string subject;                  ///< the subject as last received
  std::string last_message_id;          ///< the last inbound Message-ID (a reply's In-Reply-To)
  std::vector<std::string> references;  ///< the chain (root first; at most 20 ids)
  int64_t updated_ms = 0;
};

/// The state file's content.
struct EmailState {
  uint32_t uid_validity = 0;  ///< 0 = never connected
  uint32_t last_uid = 0;      ///< the highest UID handed on (or skipped)
  std::map<std::string, EmailThread> threads;
};
nlohmann::json email_state_to_json(const EmailState& state);
/// Lenient: unknown or malformed entries are skipped.
EmailState email_state_from_json(const nlohmann::json& j);

/// What a mail's attachments become: `media` (images and files, checked by
/// agent::check_attachments with the caps every channel has: kMaxAttachmentBytes per file,
/// kMaxAttachments and kMaxAttachmentsTotalBytes per message; an image/* part must be a PNG, JPEG,
/// GIF or WebP by its bytes) and one `note` line for each one refused, naming why:
/// "[attachment big.zip (application/zip, 6.2 MB): not passed on — over the limit of 5000000 bytes
/// per file]" (sizes in bytes, KB = 1024 bytes, MB with one decimal). Pure.
struct EmailMedia {
  std::vector<agent::Attachment> media;
  std::string note;
};
EmailMedia email_media_of(const std::vector<EmailAttachment>& attachments);

/// The InboundMessage of a parsed e-mail, or nullopt with `why` when it is not handed on
/// (machine mail, own address, no sender, nothing to say). `fallback_id` names a message without
/// Message-ID ("<uid.uidvalidity@…>"); attachments become media, refused ones lines of the text
/// (email_media_of). Pure.
std::optional<InboundMessage> email_inbound_of(const ParsedEmail& mail, const EmailSettings& settings,
                                               const std::string& fallback_id, int64_t now_ms, std::string& why);

class EmailChannel final : public Channel {
 public:
  EmailChannel(EventLoop& loop, EmailSettings settings);
  ~EmailChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  /// Markdown, 100 000 characters (one e-mail per reply), threads; no groups, typing or edits.
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// One e-mail to `chat_id` in the thread `thread_id` (Re: subject, In-Reply-To, References);
  /// the new Message-ID. Errors as SmtpSender::send.
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// {channel, accountId, running, mode:"imap", address, imapHost, mailbox, connected, idle,
  /// uidValidity, lastUid, threads, messagesSeen, messagesSent, skipped, reconnects, lastError?}.
  /// lastError also names the last SMTP problem of the account ("SMTP: the SMTP server … refused
  /// the login …: check <config_path>.smtp.password") until a reply is sent again.
  nlohmann::json status() const override;
  /// A fresh IMAP connection and login now (then LOGOUT), then an SMTP connection, EHLO and AUTH
  /// (then QUIT): {ok, elapsedMs, imap:{host, mailbox}, smtp:{host}} or {ok:false, error, …}; the
  /// error names the key to check ("SMTP: …" for the outgoing side).
  void probe(std::function<void(nlohmann::json)> done) override;
  /// A refused IMAP login (wrong user or password) or a mailbox the server does not have: the
  /// account stays stopped until the config changes (channel_run.h FailureKind::Permanent).
  bool failed_permanently() const override { return run_.permanent(); }

 private:
  void connect();
  void on_selected(const ImapMailbox& box);
  void fetch_new();
  void fetch_batch(std::vector<uint32_t> uids);
  void handle_fetched(std::vector<ImapFetched> messages, uint32_t highest, std::vector<uint32_t> rest);
  void wait_for_mail();
  void connection_lost(const std::string& why);
  void save_state();
  ImapConnectOptions imap_options() const;
  SmtpSettings smtp_settings() const;
  bool running() const { return run_.running(); }

  EventLoop& loop_;
  EmailSettings settings_;
  std::string id_ = "email";
  ChannelRun run_{loop_, "email[" + settings_.account_id + "]", [this] { stop(); }};  ///< channel_run.h
  std::unique_ptr<ImapClient> imap_;
  std::unique_ptr<SmtpSender> smtp_;
  ChannelHost* host_ = nullptr;
  EmailState state_;
  bool logged_in_once_ = false;  ///< this start() logged in at least once
  bool connected_ = false;
  bool idling_ = false;
  bool new_mail_ = false;  ///< EXISTS seen while not idling: search again before IDLE
  bool reconnect_pending_ = false;  ///< a reconnect is scheduled
  int reconnect_failures_ = 0;
  EventLoop::TimerId idle_timer_ = 0;
  bool idle_timer_set_ = false;
  int64_t messages_seen_ = 0, messages_sent_ = 0, skipped_ = 0, reconnects_ = 0;
  std::string smtp_error_;  ///< the last send's account-level SMTP error ("" once a send works)
};

}  // namespace pincer::channels::email
