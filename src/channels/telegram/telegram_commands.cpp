#include "channels/telegram/telegram_commands.h"

#include <spdlog/spdlog.h>

#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "channels/telegram/telegram_channel.h"

namespace pincer::channels::telegram {
namespace {

constexpr std::size_t kTelegramMaxCommands = 100;             // Bot API: setMyCommands
constexpr std::size_t kTelegramMaxDescription = 256;          // Bot API: BotCommand.description
constexpr std::size_t kTelegramMenuTextBudget = 5'700;        // OpenClaw's measured total limit

bool tg_command_word(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::size_t tg_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// At most `limit` (≥ 1) code points of `s`; a cut one ends in "…".
std::string tg_cut(const std::string& s, std::size_t limit) {
  if (tg_points(s) <= limit) return s;
  if (limit == 1) return "\u2026";
  std::size_t points = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (points == limit - 1) break;
    ++points;
  }
  return s.substr(0, i) + "\u2026";
}

}  // namespace

nlohmann::json telegram_command_menu(const std::vector<skills::SkillCommand>& skill_commands) {
  struct Entry {
    std::string command, description;
  };
  std::vector<Entry> entries;
  for (const auto& c : agent::chat_commands()) {
    if (c.terminal_only || !tg_command_word(c.name)) continue;
    entries.push_back({c.name, c.help.empty() ? c.name : c.help});
  }
  const std::set<std::string> builtin = agent::builtin_command_words();
  for (const auto& c : skill_commands) {
    if (builtin.count(c.name) || !tg_command_word(c.name)) continue;
    entries.push_back({c.name, c.description.empty() ? c.skill_name : c.description});
  }
  if (entries.size() > kTelegramMaxCommands) entries.resize(kTelegramMaxCommands);
  // The total budget: descriptions shortened evenly; commands dropped from the end only when even
  // one character of description each would not fit.
  auto total = [&entries](std::size_t cap) {
    std::size_t n = 0;
    for (const auto& e : entries) n += tg_points(e.command) + std::min(tg_points(e.description), cap);
    return n;
  };
  std::size_t cap = kTelegramMaxDescription;
  while (!entries.empty() && total(1) > kTelegramMenuTextBudget) entries.pop_back();
  if (!entries.empty() && total(cap) > kTelegramMenuTextBudget) {
    std::size_t names = 0;
    for (const auto& e : entries) names += tg_points(e.command);
    cap = std::max<std::size_t>(1, (kTelegramMenuTextBudget - names) / entries.size());
  }
  nlohmann::json menu = nlohmann::json::array();
  for (const auto& e : entries) menu.push_back({{"command", e.command}, {"description", tg_cut(e.description, cap)}});
  return menu;
}

bool telegram_menus_match(const nlohmann::json& listed, const nlohmann::json& wanted) {
  if (!listed.is_array() || listed.size() != wanted.size()) return false;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    if (!listed[i].is_object() || listed[i].value("command", "") != wanted[i].value("command", "") ||
        listed[i].value("description", "") != wanted[i].value("description", "")) {
      return false;
    }
  }
  return true;
}

void TelegramChannel::sync_command_menu() {
  const nlohmann::json wanted =
      settings_.native_commands ? telegram_command_menu(agent::skill_commands_of_all_agents()) : nlohmann::json::array();
  call("getMyCommands", nlohmann::json::object(), 15'000, [this, wanted](int status, const nlohmann::json& answer,
                                                                           const std::string& transport) {
    const nlohmann::json listed = answer.is_object() ? answer.value("result", nlohmann::json()) : nlohmann::json();
    if (transport.empty() && status == 200 && telegram_menus_match(listed, wanted)) {
      command_menu_ = wanted.empty() ? "off" : "set (" + std::to_string(wanted.size()) + " commands)";
      return;
    }
    const bool clear = wanted.empty();
    call(clear ? "deleteMyCommands" : "setMyCommands", clear ? nlohmann::json::object() : nlohmann::json{{"commands", wanted}},
         15'000, [this, clear, count = wanted.size()](int status, const nlohmann::json& answer, const std::string& transport) {
           if (transport.empty() && status == 200 && answer.is_object() && answer.value("ok", false)) {
             command_menu_ = clear ? "off" : "set (" + std::to_string(count) + " commands)";
             spdlog::info("telegram[{}]: command menu {}", settings_.account_id,
                          clear ? "cleared" : "set: " + std::to_string(count) + " commands");
             return;
           }
           const std::string why = !transport.empty() ? transport
                                   : answer.is_object() ? answer.value("description", "HTTP " + std::to_string(status))
                                                        : "HTTP " + std::to_string(status);
           command_menu_ = "failed: " + why;
           spdlog::warn("telegram[{}]: the command menu was not {} ({}); typed commands still work", settings_.account_id,
                        clear ? "cleared" : "set", why);
         });
  });
}

}  // namespace pincer::channels::telegram
