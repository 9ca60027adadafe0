#include "channels/email/email_channel.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "core/clock.h"
#include "channels/channel_state_file.h"

namespace pincer::channels::email {

using nlohmann::json;

namespace detail_email_channel {

constexpr std::size_t kEmailFetchBatch = 20;
constexpr std::size_t kEmailMaxThreads = 500;
constexpr std::size_t kEmailMaxReferences = 20;
constexpr int64_t kEmailPollMs = 60'000;
constexpr std::size_t kEmailTextLimit = 100'000;

/// `chain` capped to kEmailMaxReferences ids: the root and the newest ones.
std::vector<std::string> email_cap_references(std::vector<std::string> chain) {
  if (chain.size() <= kEmailMaxReferences) return chain;
  std::vector<std::string> out{chain.front()};
  out.insert(out.end(), chain.end() - static_cast<std::ptrdiff_t>(kEmailMaxReferences - 1), chain.end());
  return out;
}

void email_trim_threads(std::map<std::string, EmailThread>& threads) {
  while (threads.size() > kEmailMaxThreads) {
    auto oldest = std::min_element(threads.begin(), threads.end(),
                                   [](const auto& a, const auto& b) { return a.second.updated_ms < b.second.updated_ms; });
    threads.erase(oldest);
  }
}

}  // namespace detail_email_channel

using namespace detail_email_channel;

json email_state_to_json(const EmailState& state) {
  json threads = json::object();
  for (const auto& [root, t] : state.threads) {
    threads[root] = {{"subject", t.subject},
                     {"lastMessageId", t.last_message_id},
                     {"references", t.references},
                     {"updatedMs", t.updated_ms}};
  }
  return {{"uidValidity", state.uid_validity}, {"lastUid", state.last_uid}, {"threads", threads}};
}

EmailState email_state_from_json(const json& j) {
  EmailState s;
  if (!j.is_object()) return s;
  if (j.contains("uidValidity") && j["uidValidity"].is_number_unsigned()) s.uid_validity = j["uidValidity"].get<uint32_t>();
  if (j.contains("lastUid") && j["lastUid"].is_number_unsigned()) s.last_uid = j["lastUid"].get<uint32_t>();
  const json threads = j.value("threads", json::object());
  if (!threads.is_object()) return s;
  for (auto it = threads.begin(); it != threads.end(); ++it) {
    if (!it.value().is_object()) continue;
    EmailThread t;
    t.subject = it.value().value("subject", "");
    t.last_message_id = it.value().value("lastMessageId", "");
    for (const auto& r : it.value().value("references", json::array())) {
      if (r.is_string()) t.references.push_back(r.get<std::string>());
    }
    t.updated_ms = it.value().value("updatedMs", int64_t{0});
    s.threads[it.key()] = std::move(t);
  }
  return s;
}

namespace detail_email_channel_media {

std::string email_size_text(std::size_t bytes) {
  const std::size_t kib = (bytes + 1023) / 1024;
  return bytes < 1024  ? std::to_string(bytes) + " bytes"
         : kib < 1024 ? std::to_string(kib) + " KB"
                      : std::to_string(kib / 1024) + "." + std::to_string(kib % 1024 * 10 / 1024) + " MB";
}

std::string email_attachment_line(const EmailAttachment& a, const std::string& why) {
  return std::string("[attachment ") + (a.filename.empty() ? "without a name" : a.filename) + " (" + a.mime_type + ", " +
         email_size_text(a.bytes) + "): not passed on — " + why + "]";
}

}  // namespace detail_email_channel_media

using namespace detail_email_channel_media;

EmailMedia email_media_of(const std::vector<EmailAttachment>& attachments) {
  EmailMedia out;
  std::size_t total = 0;
  for (const auto& a : attachments) {
    std::string why;
    if (a.bytes > agent::kMaxAttachmentBytes || a.content.size() != a.bytes) {
      why = "over the limit of " + std::to_string(agent::kMaxAttachmentBytes) + " bytes per file";
    } else if (out.media.size() >= agent::kMaxAttachments) {
      why = "over the limit of " + std::to_string(agent::kMaxAttachments) + " files per message";
    } else if (total + a.bytes > agent::kMaxAttachmentsTotalBytes) {
      why = "over the limit of " + std::to_string(agent::kMaxAttachmentsTotalBytes) + " bytes per message";
    } else {
      const bool image = a.mime_type.rfind("image/", 0) == 0;
      std::vector<agent::Attachment> one{{image ? "image" : "file", a.mime_type, a.filename, a.content}};
      if (auto st = agent::check_attachments(one, "attachment"); !st) {
        // The check names "attachment[0].content: …": the reason is what follows.
        const std::string& m = st.error().message;
        const auto colon = m.find(": ");
        why = colon == std::string::npos ? m : m.substr(colon + 2);
      } else {
        total += a.bytes;
        out.media.push_back(std::move(one.front()));
        continue;
      }
    }
    out.note += (out.note.empty() ? "" : "\n") + email_attachment_line(a, why);
  }
  return out;
}

std::optional<InboundMessage> email_inbound_of(const ParsedEmail& mail, const EmailSettings& settings,
                                               const std::string& fallback_id, int64_t now_ms, std::string& why) {
  if (mail.from_address.empty()) {
    why = "no sender address";
    return std::nullopt;
  }
  if (mail.from_address == settings.address) {
    why = "sent from the bot's own address";
    return std::nullopt;
  }
  if (!mail.auto_generated.empty()) {
    why = "sent by a machine (" + mail.auto_generated + ")";
    return std::nullopt;
  }
  std::string text = mail.text;
  // Images and files go on as media; what cannot is named with the reason, so the model still
  // knows it came.
  EmailMedia media = email_media_of(mail.attachments);
  if (!media.note.empty()) text += (text.empty() ? "" : "\n\n") + media.note;
  if (!mail.is_reply() && !mail.subject.empty()) text = "Subject: " + mail.subject + (text.empty() ? "" : "\n\n" + text);
  if (text.empty() && media.media.empty()) {
    why = "no text of its own (only quoted text)";
    return std::nullopt;
  }
  InboundMessage m;
  m.channel = "email";
  m.account_id = settings.account_id;
  m.chat_id = mail.from_address;
  m.message_id = mail.message_id.empty() ? fallback_id : mail.message_id;
  m.thread_id = mail.thread_root().empty() ? m.message_id : mail.thread_root();
  m.sender_id = mail.from_address;
  m.sender_name = mail.from_name;
  m.text = std::move(text);
  m.media = std::move(media.media);
  m.mentions_bot = true;
  m.ts_ms = mail.date_ms > 0 ? mail.date_ms : now_ms;
  return m;
}

SmtpSettings EmailChannel::smtp_settings() const {
  SmtpSettings smtp;
  smtp.host = settings_.smtp.host;
  smtp.port = settings_.smtp.port;
  smtp.security = settings_.smtp.security;
  smtp.user = settings_.smtp.user;
  smtp.password = settings_.smtp.password;
  smtp.allow_insecure = settings_.allow_insecure;
  smtp.config_path = settings_.config_path;
  return smtp;
}

EmailChannel::EmailChannel(EventLoop& loop, EmailSettings settings) : loop_(loop), settings_(std::move(settings)) {
  smtp_ = std::make_unique<SmtpSender>(loop_, smtp_settings());
  const auto state = read_channel_state(settings_.state_file, "email[" + settings_.account_id + "]");
  if (!state) return;  // memory only, a first run, or unreadable (warned)
  const json& j = *state;
  state_ = email_state_from_json(j);
}

EmailChannel::~EmailChannel() { stop(); }

ChannelCapabilities EmailChannel::capabilities() const {
  ChannelCapabilities c;
  c.format = delivery::TextFormat::Markdown;
  c.unit = delivery::LengthUnit::Utf16;
  c.text_limit = kEmailTextLimit;
  c.threads = true;
  return c;
}

ImapConnectOptions EmailChannel::imap_options() const {
  ImapConnectOptions o;
  o.host = settings_.imap.host;
  o.port = static_cast<uint16_t>(settings_.imap.port);
  o.security = settings_.imap.security;
  o.user = settings_.imap.user;
  o.password = settings_.imap.password;
  o.command_timeout_ms = settings_.command_timeout_ms;
  return o;
}

void EmailChannel::start(ChannelHost& host, std::function<void(const std::string&)> on_failed) {
  stop();
  host_ = &host;
  run_.begin(std::move(on_failed));
  logged_in_once_ = false;
  smtp_error_.clear();  // a parked reply tries again now (ReplyDelivery::channel_started) and tells
  reconnect_failures_ = 0;
  reconnect_pending_ = false;
  connect();
}

void EmailChannel::stop() {
  run_.end();
  if (idle_timer_set_) loop_.cancel(idle_timer_);
  idle_timer_set_ = false;
  if (imap_) imap_->logout();
  imap_.reset();
  if (smtp_) smtp_->stop();
  connected_ = false;
  idling_ = false;
}

void EmailChannel::connect() {
  imap_ = std::make_unique<ImapClient>(loop_);
  std::weak_ptr<bool> alive = run_.token();
  const std::string where = settings_.imap.host + ":" + std::to_string(settings_.imap.port);
  imap_->connect(imap_options(), [this, alive, where](Status st) {
    if (auto a = alive.lock(); !a || !*a) return;
    if (!st) {
      if (st.error().code == "AUTH") {
        // RFC 5530's codes for a server that cannot log anyone in now: retried, not the password's fault.
        const std::string& m = st.error().message;
        const bool temporary = m.find("[UNAVAILABLE]") != std::string::npos || m.find("[INUSE]") != std::string::npos ||
                               m.find("[SERVERBUG]") != std::string::npos || m.find("[LIMIT]") != std::string::npos;
        return run_.fail("the IMAP server refused the login for " + settings_.imap.user + " (" + m + "): check " +
                             settings_.config_path + ".imap.password",
                         temporary ? FailureKind::Transient : FailureKind::Permanent);
      }
      std::string why = st.error().message;
      // The client's own "cannot connect to host:port: …" would repeat what the line below says.
      if (const std::string said = "cannot connect to " + where + ": "; why.rfind(said, 0) == 0) why.erase(0, said.size());
      if (why.find("certificate") != std::string::npos) {
        why += ": check " + settings_.config_path + ".imap.host (the name the certificate is for) and " +
               settings_.config_path + ".imap.security, or the system's CA certificates (SSL_CERT_FILE)";
      }
      if (!logged_in_once_) return run_.fail("cannot connect to the IMAP server " + where + ": " + why);
      return connection_lost(why);
    }
    imap_->set_untagged_listener([this](const ImapResponse& r) {
      if (r.keyword == "EXISTS" && !idling_) new_mail_ = true;
    });
    imap_->select(settings_.mailbox, [this, alive](Result<ImapMailbox> box) {
      if (auto a = alive.lock(); !a || !*a) return;
      if (!box) {
        if (box.error().code == "NO" || box.error().code == "BAD") {
          return run_.fail("the IMAP server has no mailbox \"" + settings_.mailbox + "\" (" + box.error().message +
                               "): check " + settings_.config_path + ".imap.mailbox",
                           FailureKind::Permanent);
        }
        return connection_lost(box.error().message);
      }
      on_selected(*box);
    });
  });
}

void EmailChannel::on_selected(const ImapMailbox& box) {
  if (!logged_in_once_) {
    spdlog::info("email[{}]: connected to {} as {} ({} message(s) in {})", settings_.account_id, settings_.imap.host,
                 settings_.imap.user, box.exists, settings_.mailbox);
  } else {
    spdlog::info("email[{}]: reconnected to {}", settings_.account_id, settings_.imap.host);
  }
  logged_in_once_ = true;
  connected_ = true;
  reconnect_failures_ = 0;
  run_.clear_last_error();
  if (box.uidvalidity != state_.uid_validity) {
    // First start, or the mailbox was recreated: what is there now is not answered.
    const uint32_t next = box.uidnext > 0 ? box.uidnext : 1;
    if (state_.uid_validity != 0) {
      spdlog::warn("email[{}]: {} changed UIDVALIDITY ({} → {}): the mail now in it is not answered", settings_.account_id,
                   settings_.mailbox, state_.uid_validity, box.uidvalidity);
    } else if (box.exists > 0) {
      spdlog::info("email[{}]: first start: {} message(s) already in {} not answered", settings_.account_id, box.exists,
                   settings_.mailbox);
    }
    state_.uid_validity = box.uidvalidity;
    state_.last_uid = next - 1;
    save_state();
    if (box.uidnext == 0) {
      // No UIDNEXT from the server: the highest UID there is marks the start.
      std::weak_ptr<bool> alive = run_.token();
      imap_->uid_search("ALL", [this, alive](Result<std::vector<uint32_t>> uids) {
        if (auto a = alive.lock(); !a || !*a) return;
        if (!uids) return connection_lost(uids.error().message);
        if (!uids->empty()) state_.last_uid = uids->back();
        save_state();
        wait_for_mail();
      });
      return;
    }
  }
  fetch_new();
}

void EmailChannel::fetch_new() {
  new_mail_ = false;
  std::weak_ptr<bool> alive = run_.token();
  imap_->uid_search("UID " + std::to_string(state_.last_uid + 1) + ":*", [this, alive](Result<std::vector<uint32_t>> uids) {
    if (auto a = alive.lock(); !a || !*a) return;
    if (!uids) return connection_lost(uids.error().message);
    std::vector<uint32_t> fresh;
    for (uint32_t u : *uids) {
      if (u > state_.last_uid) fresh.push_back(u);  // "n:*" also matches the highest UID below n
    }
    if (fresh.empty()) return wait_for_mail();
    fetch_batch(std::move(fresh));
  });
}

void EmailChannel::fetch_batch(std::vector<uint32_t> uids) {
  const std::size_t n = std::min(uids.size(), kEmailFetchBatch);
  std::vector<uint32_t> now(uids.begin(), uids.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<uint32_t> rest(uids.begin() + static_cast<std::ptrdiff_t>(n), uids.end());
  std::weak_ptr<bool> alive = run_.token();
  imap_->uid_fetch(now, [this, alive, now, rest = std::move(rest)](Result<std::vector<ImapFetched>> fetched) mutable {
    if (auto a = alive.lock(); !a || !*a) return;
    if (!fetched) return connection_lost(fetched.error().message);
    handle_fetched(std::move(*fetched), now.back(), std::move(rest));
  });
}

void EmailChannel::handle_fetched(std::vector<ImapFetched> messages, uint32_t highest, std::vector<uint32_t> rest) {
  std::weak_ptr<bool> alive = run_.token();
  std::vector<uint32_t> handed;
  const int64_t now = SystemClock::instance().wall_ms();
  for (auto& f : messages) {
    const ParsedEmail mail = parse_email(f.raw);
    std::string why;
    const std::string fallback = "<" + std::to_string(f.uid) + "." + std::to_string(state_.uid_validity) + "@pincer.invalid>";
    auto inbound = email_inbound_of(mail, settings_, fallback, now, why);
    if (!inbound) {
      ++skipped_;
      spdlog::info("email[{}]: UID {} from {} not handed on: {}", settings_.account_id, f.uid,
                   mail.from_address.empty() ? "?" : mail.from_address, why);
    } else {
      ++messages_seen_;
      EmailThread& t = state_.threads[inbound->thread_id];
      if (!mail.subject.empty() || t.subject.empty()) t.subject = mail.subject;
      t.last_message_id = inbound->message_id;
      std::vector<std::string> chain = mail.references;
      if (chain.empty() && !mail.in_reply_to.empty()) chain.push_back(mail.in_reply_to);
      chain.push_back(inbound->message_id);
      t.references = email_cap_references(std::move(chain));
      t.updated_ms = now;
      if (host_) host_->on_inbound(std::move(*inbound));
    }
    handed.push_back(f.uid);
    state_.last_uid = std::max(state_.last_uid, f.uid);
    if (auto a = alive.lock(); !a || !*a) {  // stopped meanwhile: keep what was handed on
      save_state();
      return;
    }
  }
  // Journaled by the pipeline (above, synchronously) and answered only later: the position moves
  // past the batch now, so a restart neither loses nor repeats it (header).
  state_.last_uid = std::max(state_.last_uid, highest);  // UIDs not returned (expunged meanwhile) count as handled
  email_trim_threads(state_.threads);
  save_state();
  imap_->uid_store_seen(handed, [this, alive, rest = std::move(rest)](Status st) mutable {
    if (auto a = alive.lock(); !a || !*a) return;
    if (!st && st.error().code == "UNAVAILABLE") return connection_lost(st.error().message);
    if (!st) spdlog::warn("email[{}]: marking messages \\Seen failed: {}", settings_.account_id, st.error().message);
    if (!rest.empty()) return fetch_batch(std::move(rest));
    fetch_new();
  });
}

void EmailChannel::wait_for_mail() {
  if (new_mail_) return fetch_new();
  std::weak_ptr<bool> alive = run_.token();
  if (!imap_->has_capability("IDLE")) {
    // A server without IDLE (RFC 2177) is asked again after a while.
    idle_timer_set_ = true;
    idle_timer_ = loop_.after(kEmailPollMs, [this, alive] {
      if (auto a = alive.lock(); !a || !*a) return;
      idle_timer_set_ = false;
      fetch_new();
    });
    return;
  }
  idling_ = true;
  imap_->idle(
      [this](const ImapResponse& r) {
        if (r.keyword == "EXISTS" || r.status == "BYE") imap_->idle_done();
      },
      [this, alive](Status st) {
        if (auto a = alive.lock(); !a || !*a) return;
        idling_ = false;
        if (idle_timer_set_) loop_.cancel(idle_timer_);
        idle_timer_set_ = false;
        if (!st) return connection_lost(st.error().message);
        fetch_new();
      });
  idle_timer_set_ = true;
  idle_timer_ = loop_.after(settings_.idle_renew_ms, [this, alive] {
    if (auto a = alive.lock(); !a || !*a) return;
    idle_timer_set_ = false;
    if (imap_) imap_->idle_done();  // re-issued when the server completes it (RFC 2177: within 29 min)
  });
}

void EmailChannel::connection_lost(const std::string& why) {
  if (reconnect_pending_) return;  // every queued command reports the same lost connection
  reconnect_pending_ = true;
  connected_ = false;
  idling_ = false;
  run_.set_last_error("IMAP: " + why);
  if (idle_timer_set_) loop_.cancel(idle_timer_);
  idle_timer_set_ = false;
  if (imap_) imap_->close();
  const int64_t delay = std::min<int64_t>(300'000, int64_t{1000} << std::min(reconnect_failures_++, 8));
  ++reconnects_;
  spdlog::warn("email[{}]: {}; reconnecting in {} s", settings_.account_id, run_.last_error(), delay / 1000);
  std::weak_ptr<bool> alive = run_.token();
  loop_.after(delay, [this, alive] {
    if (auto a = alive.lock(); !a || !*a) return;
    reconnect_pending_ = false;
    connect();
  });
}

void EmailChannel::save_state() {
  if (settings_.state_file.empty()) return;
  write_channel_state(settings_.state_file, email_state_to_json(state_), "email[" + settings_.account_id + "]");
}

void EmailChannel::send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) {
  if (!running()) return done(Error{"UNAVAILABLE", "email[" + settings_.account_id + "]: not running"});
  OutgoingEmail e;
  e.from_address = settings_.address;
  e.from_name = settings_.name;
  e.to_address = message.chat_id;
  e.markdown = message.text;
  const auto t = state_.threads.find(message.thread_id);
  if (t != state_.threads.end()) {
    e.subject = t->second.subject;
    e.in_reply_to = t->second.last_message_id;
    e.references = t->second.references;
  } else {
    e.subject = "Message from " + settings_.name;
  }
  const std::string thread = message.thread_id;
  std::weak_ptr<int> life = run_.life();
  smtp_->send(std::move(e), [this, life, thread, done = std::move(done)](Result<std::string> sent) {
    if (!life.lock()) return;
    if (!sent) {
      // REJECTED refuses one message; anything else is the account's problem (a refused login, an
      // untrusted certificate, an unreachable server): status() shows it until a send works.
      if (sent.error().code != "REJECTED") smtp_error_ = sent.error().message;
      return done(sent.error());
    }
    smtp_error_.clear();
    ++messages_sent_;
    if (auto it = state_.threads.find(thread); it != state_.threads.end()) {
      // The reply is part of the chain the person's next answer refers to.
      auto chain = it->second.references;
      chain.push_back(*sent);
      it->second.references = email_cap_references(std::move(chain));
      it->second.updated_ms = SystemClock::instance().wall_ms();
      save_state();
    }
    done(*sent);
  });
}

json EmailChannel::status() const {
  json s = {{"channel", id_},
            {"accountId", settings_.account_id},
            {"mode", "imap"},
            {"address", settings_.address},
            {"imapHost", settings_.imap.host},
            {"mailbox", settings_.mailbox},
            {"connected", connected_},
            {"idle", idling_},
            {"uidValidity", state_.uid_validity},
            {"lastUid", state_.last_uid},
            {"threads", state_.threads.size()},
            {"messagesSeen", messages_seen_},
            {"messagesSent", messages_sent_},
            {"skipped", skipped_},
            {"reconnects", reconnects_}};
  run_.add_status(s);  // running, lastError?
  if (!smtp_error_.empty()) {
    const std::string smtp = "SMTP: " + smtp_error_;
    s["lastError"] = s.contains("lastError") ? s["lastError"].get<std::string>() + "; " + smtp : smtp;
  }
  return s;
}

void EmailChannel::probe(std::function<void(json)> done) {
  if (!running()) return done({{"ok", false}, {"error", run_.last_error().empty() ? "not running" : run_.last_error()}});
  const auto started = std::chrono::steady_clock::now();
  auto client = std::make_shared<ImapClient>(loop_);
  auto sender = std::make_shared<SmtpSender>(loop_, smtp_settings());  // the probe's own: stop() does not drop it
  const std::string user = settings_.imap.user, key = settings_.config_path + ".imap.password";
  const std::string address = settings_.address;
  json result = {{"imap", {{"host", settings_.imap.host}, {"mailbox", settings_.mailbox}}},
                 {"smtp", {{"host", settings_.smtp.host}}}};
  client->connect(imap_options(), [client, sender, started, user, key, address, result,
                                    done = std::move(done)](Status st) mutable {
    client->logout();
    std::string imap_error;
    if (!st) {
      imap_error = st.error().code == "AUTH"
                       ? "the IMAP server refused the login for " + user + " (" + st.error().message + "): check " + key
                       : st.error().message;
    }
    sender->probe(address, [sender, started, imap_error, result, done = std::move(done)](Status smtp) mutable {
      const auto elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
      std::string error = imap_error;
      if (!smtp) error += (error.empty() ? "" : "; ") + std::string("SMTP: ") + smtp.error().message;
      result["ok"] = error.empty();
      result["elapsedMs"] = elapsed;
      if (!error.empty()) result["error"] = error;
      done(std::move(result));
    });
  });
}

}  // namespace pincer::channels::email
