// Telegram Bot API shapes (https://core.telegram.org/bots/api), pure: request bodies for
// getUpdates / sendMessage / editMessageText / sendChatAction, and parsing of updates and error answers.
// The transport lives in telegram_channel.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/channel.h"
#include "core/result.h"

namespace pincer::channels::telegram {

/// `{apiRoot}/bot{token}/{method}`; apiRoot without a trailing slash (default https://api.telegram.org).
std::string method_url(const std::string& api_root, const std::string& token, const std::string& method);

/// getUpdates body: {offset, timeout (s), allowed_updates:["message","callback_query"]}.
nlohmann::json get_updates_body(int64_t offset, int timeout_s);

/// sendMessage body; `html` sets parse_mode HTML (else plain text); `message.buttons` become an
/// inline keyboard (reply_markup).
nlohmann::json send_message_body(const OutboundMessage& message, bool html);

/// {inline_keyboard:[[{text, callback_data}, …], …]}.
nlohmann::json inline_keyboard(const std::vector<std::vector<Button>>& rows);

/// A message id as the Bot API takes it: a number when `message_id` is decimal digits, else the text.
nlohmann::json message_id_value(const std::string& message_id);

/// editMessageText body {chat_id, message_id, text, parse_mode?, link_preview_options}; a numeric
/// `message_id` is sent as a number (as Telegram documents it), anything else as given.
nlohmann::json edit_message_body(const std::string& chat_id, const std::string& message_id, const std::string& text,
                                 bool html);

/// Telegram's General topic of a forum supergroup.
inline constexpr const char* kGeneralTopicId = "1";

/// One update as the pipeline needs it. `update_id` is always set; `message` only for text
/// messages from humans and for button presses (service messages, bots and other updates are skipped).
struct Update {
  int64_t update_id = 0;
  std::optional<InboundMessage> message;
  /// A photo or document of `message` (its `text` is the caption), to download with getFile before
  /// the message goes on (telegram_media.cpp).
  struct File {
    std::string file_id;
    int64_t file_size = 0;  ///< bytes as Telegram reports them (0 = unknown)
    std::string kind;       ///< "image" (a photo) | "file" (a document)
    std::string mime_type, file_name;
  };
  std::vector<File> files = {};
};

/// The media cap of a Telegram download (agent::kMaxAttachmentBytes).
/// A message's photo — the largest size whose file_size is within `max_bytes` (else the smallest
/// size, refused later by its size) — or its document; nullopt for neither.
std::optional<Update::File> message_file(const nlohmann::json& msg, int64_t max_bytes);

/// A `callback_query` (a press on an inline button) as an InboundMessage: callback_id,
/// callback_message_id, text = the button's data, message_id "callback:<id>", the chat of the
/// message pressed; nullopt when it has no data, no message or comes from a bot.
std::optional<InboundMessage> parse_callback(const nlohmann::json& callback_query, const std::string& account_id);

/// Parses a getUpdates answer (a `callback_query` update: parse_callback()). {ok, result:[…]}. A
/// photo or document message is a message whose text is its caption, with `files` to download. Topics (OpenClaw resolveTelegramForumThreadId):
/// in a forum (`chat.is_forum`) `topic_id` is the message's topic — `message_thread_id` when
/// `is_topic_message`, else the General topic "1" — and `thread_id` (where replies go) is that
/// topic, or "" for General; outside forums `topic_id` is "" and `thread_id` is the topic of a
/// private chat with topics, else "" (reply threads in ordinary groups are not topics). `bot_username` (without "@") decides
/// mentions_bot: a "mention" entity whose text is "@bot" (case-insensitive; offsets in UTF-16
/// units), a "text_mention" entity of the bot's user (`bot_id`), a reply to one of the bot's
/// messages, or a "/command@bot" / "/command" bot_command entity. Only when the message has no
/// `entities` at all is the text searched, for "@bot" as a whole word ("@botfan" and
/// "x@bot.example" are not mentions). Errors: "TELEGRAM_ERROR"
/// with the API's description, "PROTOCOL" when the answer is not the documented shape.
Result<std::vector<Update>> parse_updates(const nlohmann::json& answer, const std::string& account_id,
                                          const std::string& bot_username, int64_t bot_id);

/// What an API error answer means for a retry.
struct ApiError {
  int code = 0;                  ///< error_code (HTTP status)
  std::string description;
  int retry_after_s = 0;         ///< parameters.retry_after (429)
  bool parse_entities = false;   ///< "can't parse entities": resend as plain text
  bool not_modified = false;     ///< editMessageText: "message is not modified" (the edit is a no-op)
};
std::optional<ApiError> parse_error(const nlohmann::json& answer, int http_status);

/// The text of Telegram HTML without tags, with entities decoded (the plain-text fallback).
std::string html_to_plain(const std::string& html);

}  // namespace pincer::channels::telegram
