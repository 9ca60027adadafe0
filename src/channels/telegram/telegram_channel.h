// Telegram as a Channel (issue #5 §5): long polling of getUpdates with the offset persisted after
// each batch — or webhook mode (`webhookUrl`: setWebhook, then Telegram POSTs each update to
// `webhookPath` on the gateway's port, checked against the required `webhookSecret`) — sendMessage (and editMessageText, for streamed previews; inline keyboards whose presses arrive as callback_query updates) in HTML parse mode with a plain-text
// fallback when Telegram cannot parse the entities, 429 retry_after reported as RATE_LIMITED, typing indicator, configurable apiRoot
// (tests and self-hosted Bot API servers).
//
// Loop affinity: all methods on the event-loop thread (HTTP via core/http_client.h).
#pragma once

#include <filesystem>
#include <memory>

#include "channels/channel.h"
#include "channels/channel_run.h"
#include "core/event_loop.h"
#include "channels/telegram/telegram_api.h"
#include "core/http_client.h"
#include "core/http_route.h"

namespace pincer::channels::telegram {

struct TelegramSettings {
  std::string account_id = "default";
  std::string token;  ///< bot token (channels.telegram.botToken)
  std::string api_root = "https://api.telegram.org";
  int poll_timeout_s = 25;             ///< getUpdates long-poll timeout
  int64_t empty_poll_delay_ms = 300;   ///< pause after an empty answer that came back early
  std::filesystem::path offset_file;   ///< where the next update offset is kept ("" = memory only)
  std::string webhook_url;             ///< "" = long polling; else the public URL given to setWebhook
  std::string webhook_path = "/telegram-webhook";  ///< where the gateway receives the POSTs
  std::string webhook_secret;          ///< secret_token (required with a webhook_url): checked on X-Telegram-Bot-Api-Secret-Token
  bool native_commands = true;         ///< channels.telegram.commands.native: the bot's command menu (telegram_commands.h)
};

/// Bot API upload caps: a photo (sendPhoto) and any file (sendDocument), bytes.
inline constexpr std::size_t kTelegramMaxPhotoBytes = 10'000'000;
inline constexpr std::size_t kTelegramMaxUploadBytes = 50'000'000;

class TelegramChannel final : public Channel {
 public:
  TelegramChannel(EventLoop& loop, TelegramSettings settings);
  ~TelegramChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// After a failure: Telegram refused the bot token (getMe / getUpdates HTTP 401, getMe 404).
  bool failed_permanently() const override { return run_.permanent(); }
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// editMessageText in HTML parse mode, again as plain text when Telegram cannot parse the
  /// entities; "message is not modified" counts as success (the Bot API answers the edited Message
  /// or `true`; the test emulator `{ok:true,result:null}`: only `ok` is looked at).
  void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override;
  /// sendPhoto (an image within kTelegramMaxPhotoBytes) or sendDocument (anything else, and images
  /// above it) as multipart/form-data {chat_id, message_thread_id?, caption?, parse_mode?, photo |
  /// document}; the caption in HTML, again as plain text when Telegram cannot parse it. The sent
  /// message's id, or errors as send_text (telegram_send_media.cpp).
  void send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) override;
  void send_typing(const std::string& chat_id, const std::string& thread_id) override;
  /// setMessageReaction {chat_id, message_id, reaction: [{type:"emoji", emoji}]} ([] removes the
  /// bot's reaction: a bot has at most one). Telegram allows a fixed set of emoji; another is
  /// REJECTED with its description ("REACTION_INVALID").
  void react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
             std::function<void(Status)> done) override;
  /// answerCallbackQuery {callback_query_id, text?}: stops the button's spinner; best effort.
  void answer_callback(const std::string& callback_id, const std::string& text) override;
  nlohmann::json status() const override;
  /// getMe now: {ok, bot:{id, username}, elapsedMs} or {ok:false, error, elapsedMs?}.
  void probe(std::function<void(nlohmann::json)> done) override;

  /// Webhook mode's HTTP endpoint (add it to the gateway when settings.webhook_url is set).
  net::HttpRoute route();

 private:
  void handle_webhook(const net::HttpRouteRequest& request, net::HttpResponder respond);
  void set_webhook();
  void call(const std::string& method, const nlohmann::json& body, int64_t idle_timeout_ms,
            std::function<void(int http_status, const nlohmann::json& answer, const std::string& transport_error)> done);
  /// The same with a body of any type (a multipart upload).
  void call_body(const std::string& method, const std::string& content_type, std::string body, int64_t idle_timeout_ms,
                 std::function<void(int http_status, const nlohmann::json& answer, const std::string& transport_error)> done);
  void send_media_attempt(OutboundMedia media, bool html, std::function<void(Result<std::string>)> done);
  void get_me();
  /// Sets (or clears) the bot's command menu when it differs (telegram_commands.cpp); best effort.
  void sync_command_menu();
  void poll();
  /// Downloads the photos/documents of `updates` from `index` on into their messages' media
  /// (telegram_media.cpp), then `done` — not at all when the channel stops first.
  void deliver_polled(std::vector<Update>& updates);  ///< on_inbound each, store the offset, poll again
  void fetch_files(std::shared_ptr<std::vector<Update>> updates, std::size_t index, std::function<void()> done);
  void schedule_poll(int64_t delay_ms);
  void send_attempt(OutboundMessage message, bool html, std::function<void(Result<std::string>)> done);
  void edit_attempt(std::string chat_id, std::string message_id, std::string text, bool html, std::function<void(Status)> done);

  EventLoop& loop_;
  TelegramSettings settings_;
  std::string id_ = "telegram";
  ChannelRun run_;  ///< liveness of the current run, failure reporting, running / lastError
  net::HttpClient http_;
  ChannelHost* host_ = nullptr;
  int64_t offset_ = 0;
  std::string bot_username_;
  int64_t bot_id_ = 0;
  int poll_failures_ = 0;
  int64_t updates_seen_ = 0;
  int64_t messages_sent_ = 0;
  int64_t messages_edited_ = 0;
  std::string command_menu_;  ///< status(): "set (N commands)", "off", "failed: …" ("" = not synced yet)
};

}  // namespace pincer::channels::telegram
