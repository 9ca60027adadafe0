#include "channels/irc/irc_settings.h"

#include <algorithm>

namespace pincer::channels::irc {

using nlohmann::json;

namespace {

Error invalid(const std::string& at, const std::string& key, const std::string& why) {
  return Error{"CONFIG_INVALID", at + "." + key + ": " + why};
}

std::string str(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

bool valid_nick(const std::string& nick) {
  if (nick.empty() || (nick[0] >= '0' && nick[0] <= '9') || nick[0] == '-') return false;
  return std::all_of(nick.begin(), nick.end(), is_nick_char);
}

}  // namespace

Result<IrcSettings> irc_settings_from_json(const json& c, const std::string& at) {
  IrcSettings s;
  s.host = str(c, "host");
  if (s.host.empty()) return invalid(at, "host", "required to run the IRC channel");
  s.tls = c.value("tls", false);
  s.port = static_cast<uint16_t>(c.value("port", s.tls ? 6697 : 6667));
  SessionSettings& ss = s.session;
  ss.nick = str(c, "nick");
  if (ss.nick.empty()) return invalid(at, "nick", "required to run the IRC channel");
  if (!valid_nick(ss.nick)) return invalid(at, "nick", "\"" + ss.nick + "\" is not a valid IRC nick (letters, digits, - [ ] \\ ` _ ^ { | })");
  ss.username = str(c, "username");
  if (ss.username.find_first_of(" @!\r\n") != std::string::npos) return invalid(at, "username", "must not contain spaces, '@' or '!'");
  ss.realname = str(c, "realname");
  ss.password = str(c, "password");
  const json sasl = c.value("sasl", json::object());
  ss.sasl_username = str(sasl, "username");
  ss.sasl_password = str(sasl, "password");
  if (ss.sasl_username.empty() != ss.sasl_password.empty()) return invalid(at, "sasl", "needs both username and password");
  const json nickserv = c.value("nickserv", json::object());
  if (nickserv.value("enabled", true)) {
    ss.nickserv_password = str(nickserv, "password");
    if (auto service = str(nickserv, "service"); !service.empty()) ss.nickserv_service = service;
  }
  for (const auto& entry : c.value("channels", json::array())) {
    if (!entry.is_string()) continue;
    const std::string name = entry.get<std::string>();
    const std::string chan = name.substr(0, name.find(' '));
    if (!is_channel_name(chan) || chan.size() < 2 || chan.find_first_of(",\x07\r\n") != std::string::npos) {
      return invalid(at, "channels", "\"" + name + "\" is not a channel (\"#name\" or \"#name key\")");
    }
    ss.channels.push_back(name);
  }
  return s;
}

}  // namespace pincer::channels::irc
