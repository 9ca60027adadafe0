#include "channels/telegram/telegram_api.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace pincer::channels::telegram {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string id_string(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_string()) return v.get<std::string>();
  return "";
}

// UTF-16 offset/length of an entity → byte range of the UTF-8 text.
std::string utf16_slice(const std::string& text, int64_t offset, int64_t length) {
  std::size_t i = 0;
  int64_t units = 0;
  auto advance = [&](int64_t until) {
    while (i < text.size() && units < until) {
      const auto c = static_cast<unsigned char>(text[i]);
      const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
      units += len == 4 ? 2 : 1;
      i += len;
    }
  };
  advance(offset);
  const std::size_t start = std::min(i, text.size());
  advance(offset + length);
  return text.substr(start, std::min(i, text.size()) - start);
}

// A character that can continue a Telegram username ([A-Za-z0-9_]); bytes of non-ASCII letters
// count too, so "é@bot" is not a mention either.
bool username_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

// "@bot" as a word of `text` (lowercased): not inside "x@bot.example", "@botfan" or "@@bot".
bool standalone_mention(const std::string& text, const std::string& at_bot) {
  for (std::size_t pos = text.find(at_bot); pos != std::string::npos; pos = text.find(at_bot, pos + 1)) {
    const std::size_t end = pos + at_bot.size();
    if (pos > 0 && (username_char(text[pos - 1]) || text[pos - 1] == '@')) continue;
    if (end < text.size() && username_char(text[end])) continue;
    // "@bot.example.org": a host name, not a mention ("@bot." at the end of a sentence is one).
    if (end + 1 < text.size() && text[end] == '.' && username_char(text[end + 1])) continue;
    return true;
  }
  return false;
}

bool mentions(const json& msg, const std::string& text, const std::string& bot_username, int64_t bot_id) {
  const std::string at_bot = "@" + lower(bot_username);
  if (msg.contains("reply_to_message") && msg["reply_to_message"].is_object()) {
    const json& from = msg["reply_to_message"].value("from", json::object());
    if (bot_id != 0 && from.value("id", int64_t{0}) == bot_id) return true;
  }
  // Telegram marks every @username it recognises with a "mention" entity (and users without a
  // username with "text_mention"): when the message has entities, they decide.
  const bool has_entities = msg.contains("entities") && msg["entities"].is_array();
  for (const auto& e : has_entities ? msg["entities"] : json::array()) {
    if (!e.is_object()) continue;
    const std::string type = e.value("type", "");
    if (type == "text_mention") {
      const json& user = e.value("user", json::object());
      if (bot_id != 0 && user.is_object() && user.value("id", int64_t{0}) == bot_id) return true;
      continue;
    }
    if (type != "mention" && type != "bot_command") continue;
    const std::string piece = lower(utf16_slice(text, e.value("offset", int64_t{0}), e.value("length", int64_t{0})));
    if (bot_username.empty()) continue;
    if (type == "mention" && piece == at_bot) return true;
    if (type == "bot_command" && (piece.find('@') == std::string::npos || piece.ends_with(at_bot))) return true;
  }
  // Without entities (a Bot API emulator, a hand-made update): "@bot" as a whole word.
  if (!has_entities && !bot_username.empty() && standalone_mention(lower(text), at_bot)) return true;
  return false;
}

}  // namespace

std::string method_url(const std::string& api_root, const std::string& token, const std::string& method) {
  std::string root = api_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root + "/bot" + token + "/" + method;
}

json get_updates_body(int64_t offset, int timeout_s) {
  return {{"offset", offset}, {"timeout", timeout_s}, {"allowed_updates", json::array({"message", "callback_query"})}};
}

json send_message_body(const OutboundMessage& message, bool html) {
  json body = {{"chat_id", message.chat_id}, {"text", message.text}};
  if (html) body["parse_mode"] = "HTML";
  if (!message.thread_id.empty()) body["message_thread_id"] = message.thread_id;
  body["link_preview_options"] = {{"is_disabled", true}};
  if (!message.buttons.empty()) body["reply_markup"] = inline_keyboard(message.buttons);
  return body;
}

json inline_keyboard(const std::vector<std::vector<Button>>& rows) {
  json keyboard = json::array();
  for (const auto& row : rows) {
    json r = json::array();
    for (const auto& b : row) r.push_back({{"text", b.text}, {"callback_data", b.data}});
    keyboard.push_back(std::move(r));
  }
  return {{"inline_keyboard", std::move(keyboard)}};
}

json message_id_value(const std::string& message_id) {
  const bool numeric = !message_id.empty() && message_id.size() < 19 &&
                       std::all_of(message_id.begin(), message_id.end(), [](unsigned char c) { return std::isdigit(c); });
  return numeric ? json(std::stoll(message_id)) : json(message_id);
}

json edit_message_body(const std::string& chat_id, const std::string& message_id, const std::string& text, bool html) {
  json body = {{"chat_id", chat_id}, {"text", text}, {"message_id", message_id_value(message_id)}};
  if (html) body["parse_mode"] = "HTML";
  body["link_preview_options"] = {{"is_disabled", true}};
  return body;
}

std::optional<InboundMessage> parse_callback(const json& cb, const std::string& account_id) {
  const json& msg = cb.value("message", json::object());
  const json& from = cb.value("from", json::object());
  if (!cb.contains("data") || !cb["data"].is_string() || !msg.is_object() || !msg.contains("chat") ||
      !msg["chat"].is_object() || !from.is_object() || from.value("is_bot", false)) {
    return std::nullopt;  // a game button or a press on a message too old to carry itself
  }
  InboundMessage m;
  m.channel = "telegram";
  m.account_id = account_id;
  m.is_group = msg["chat"].value("type", "private") != "private";
  m.chat_id = id_string(msg["chat"].value("id", json()));
  if (msg.value("is_topic_message", false) && msg.contains("message_thread_id")) m.thread_id = id_string(msg["message_thread_id"]);
  m.sender_id = id_string(from.value("id", json()));
  m.sender_username = from.value("username", "");
  m.sender_name = from.value("first_name", "");
  m.callback_id = id_string(cb.value("id", json()));
  m.callback_message_id = id_string(msg.value("message_id", json()));
  m.message_id = "callback:" + m.callback_id;  // dedupe: one press is handled once
  m.text = cb["data"].get<std::string>();
  m.mentions_bot = true;  // a press on the bot's own message
  if (m.chat_id.empty() || m.callback_id.empty() || m.sender_id.empty()) return std::nullopt;
  return m;
}

std::optional<Update::File> message_file(const json& msg, int64_t max_bytes) {
  auto size_of = [](const json& j) { return j.contains("file_size") && j["file_size"].is_number_integer() ? j["file_size"].get<int64_t>() : 0; };
  if (msg.contains("photo") && msg["photo"].is_array() && !msg["photo"].empty()) {
    const json *fit = nullptr, *smallest = nullptr;
    for (const auto& p : msg["photo"]) {
      if (!p.is_object() || !p.contains("file_id") || !p["file_id"].is_string()) continue;
      if (size_of(p) <= max_bytes && (!fit || size_of(p) >= size_of(*fit))) fit = &p;
      if (!smallest || size_of(p) < size_of(*smallest)) smallest = &p;
    }
    const json* best = fit ? fit : smallest;
    if (best) return Update::File{(*best)["file_id"].get<std::string>(), size_of(*best), "image", "", "photo"};  // typed by its bytes
  }
  if (msg.contains("document") && msg["document"].is_object() && msg["document"].contains("file_id") &&
      msg["document"]["file_id"].is_string()) {
    const json& d = msg["document"];
    return Update::File{d["file_id"].get<std::string>(), size_of(d), "file", d.value("mime_type", ""), d.value("file_name", "")};
  }
  return std::nullopt;
}

Result<std::vector<Update>> parse_updates(const json& answer, const std::string& account_id,
                                          const std::string& bot_username, int64_t bot_id) {
  if (!answer.is_object()) return Error{"PROTOCOL", "getUpdates: answer is not a JSON object"};
  if (!answer.value("ok", false)) return Error{"TELEGRAM_ERROR", answer.value("description", "getUpdates failed")};
  if (!answer.contains("result") || !answer["result"].is_array()) return Error{"PROTOCOL", "getUpdates: no result array"};
  std::vector<Update> out;
  for (const auto& u : answer["result"]) {
    if (!u.is_object() || !u.contains("update_id") || !u["update_id"].is_number_integer()) continue;
    Update update;
    update.update_id = u["update_id"].get<int64_t>();
    if (u.contains("callback_query") && u["callback_query"].is_object()) {
      update.message = parse_callback(u["callback_query"], account_id);
      out.push_back(std::move(update));
      continue;
    }
    const json& msg = u.contains("message") && u["message"].is_object() ? u["message"] : json();
    const auto file = msg.is_object() ? message_file(msg, static_cast<int64_t>(agent::kMaxAttachmentBytes)) : std::nullopt;
    const char* text_field = file ? "caption" : "text";
    if (msg.is_object() && (file || (msg.contains("text") && msg["text"].is_string())) && msg.contains("chat") &&
        msg["chat"].is_object()) {
      const json& from = msg.value("from", json::object());
      if (!from.value("is_bot", false)) {
        InboundMessage m;
        m.channel = "telegram";
        m.account_id = account_id;
        const std::string chat_type = msg["chat"].value("type", "private");
        m.is_group = chat_type != "private";
        m.chat_id = id_string(msg["chat"].value("id", json()));
        const std::string thread = msg.contains("message_thread_id") ? id_string(msg["message_thread_id"]) : "";
        const bool in_topic = msg.value("is_topic_message", false) && !thread.empty();
        if (m.is_group && msg["chat"].value("is_forum", false)) {
          // A forum: every message belongs to a topic; one without is_topic_message is in the
          // General topic (id 1), where replies go without message_thread_id (Telegram refuses
          // message_thread_id 1 for sends). A reply thread inside General is not a topic.
          m.topic_id = in_topic ? thread : std::string(kGeneralTopicId);
          if (in_topic && thread != kGeneralTopicId) m.thread_id = thread;
        } else if (in_topic) {
          m.thread_id = thread;  // a private chat's topic (threaded bot DMs): its own session
        }
        m.sender_id = id_string(from.value("id", json()));
        m.sender_username = from.value("username", "");
        m.sender_name = from.value("first_name", "");
        m.message_id = id_string(msg.value("message_id", json()));
        m.text = msg.contains(text_field) && msg[text_field].is_string() ? msg[text_field].get<std::string>() : "";
        if (file) update.files.push_back(*file);
        m.mentions_bot = mentions(msg, m.text, bot_username, bot_id);
        m.ts_ms = msg.value("date", int64_t{0}) * 1000;
        if (!m.chat_id.empty()) update.message = std::move(m);
      }
    }
    out.push_back(std::move(update));
  }
  return out;
}

std::optional<ApiError> parse_error(const json& answer, int http_status) {
  if (answer.is_object() && answer.value("ok", false) && http_status >= 200 && http_status < 300) return std::nullopt;
  ApiError e;
  e.code = answer.is_object() ? answer.value("error_code", http_status) : http_status;
  e.description = answer.is_object() ? answer.value("description", "") : "";
  if (e.description.empty()) e.description = "HTTP " + std::to_string(http_status);
  if (answer.is_object() && answer.contains("parameters") && answer["parameters"].is_object()) {
    e.retry_after_s = answer["parameters"].value("retry_after", 0);
  }
  e.parse_entities = lower(e.description).find("can't parse entities") != std::string::npos;
  e.not_modified = lower(e.description).find("message is not modified") != std::string::npos;
  return e;
}

std::string html_to_plain(const std::string& html) {
  std::string out;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      auto end = html.find('>', i);
      if (end == std::string::npos) break;
      i = end;
      continue;
    }
    if (html[i] == '&') {
      static const std::pair<const char*, const char*> entities[] = {
          {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
      bool matched = false;
      for (const auto& [name, ch] : entities) {
        if (html.compare(i, std::strlen(name), name) == 0) {
          out += ch;
          i += std::strlen(name) - 1;
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    out += html[i];
  }
  return out;
}

}  // namespace pincer::channels::telegram
