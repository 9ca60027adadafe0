#include "channels/email/email_settings.h"

#include <algorithm>
#include <cctype>

#include "channels/channel_checks.h"

namespace pincer::channels::email {

using nlohmann::json;

namespace detail_email_settings {

Error email_invalid(const std::string& at, const std::string& message) { return Error{"CONFIG_INVALID", at + ": " + message}; }

std::string email_settings_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Reads `imap` or `smtp` (`key`) of the account's config.
Result<EmailServerSettings> email_server_of(const json& c, const std::string& at, const std::string& key,
                                            const EmailServerSettings& defaults, bool allow_insecure) {
  const std::string path = at + "." + key;
  const json o = c.value(key, json::object());
  if (!o.is_object()) return email_invalid(path, "must be an object {host, port, security, user, password}");
  EmailServerSettings s;
  s.host = o.value("host", "");
  if (s.host.empty()) {
    return email_invalid(path + ".host", "required to run the e-mail channel (the " + std::string(key == "imap" ? "IMAP" : "SMTP") +
                                             " server's host name, e.g. " + key + ".example.org)");
  }
  s.security = o.value("security", std::string("tls"));
  if (s.security != "tls" && s.security != "starttls" && s.security != "none") {
    return email_invalid(path + ".security", "must be \"tls\", \"starttls\" or \"none\", got \"" + s.security + "\"");
  }
  if (s.security == "none" && !allow_insecure && !email_host_is_loopback(s.host) && !is_unexpanded_env_reference(s.host)) {
    return email_invalid(path + ".security", "\"none\" would send the password unencrypted to " + s.host +
                                                 ": use \"tls\" or \"starttls\" (or set " + at + ".allowInsecure: true)");
  }
  const int default_port = key == "imap" ? (s.security == "tls" ? 993 : 143)
                                         : (s.security == "tls" ? 465 : s.security == "starttls" ? 587 : 25);
  const json port = o.value("port", json(default_port));
  if (!port.is_number_integer() || port.get<int64_t>() < 1 || port.get<int64_t>() > 65535) {
    return email_invalid(path + ".port", "must be a port number 1..65535");
  }
  s.port = port.get<int>();
  s.user = o.value("user", defaults.user);
  s.password = o.value("password", defaults.password);
  if (s.password.empty()) {
    return email_invalid(path + ".password", "required to run the e-mail channel (the mailbox password or an app password; "
                                             "or a ${NAME} reference)");
  }
  return s;
}

}  // namespace detail_email_settings

using namespace detail_email_settings;

bool email_host_is_loopback(const std::string& host) {
  const std::string h = email_settings_lower(host);
  return h == "localhost" || h == "::1" || h == "[::1]" || h.rfind("127.", 0) == 0;
}

Result<EmailSettings> email_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  EmailSettings s;
  s.account_id = spec.account_id;
  s.config_path = at;
  s.address = email_settings_lower(c.value("address", ""));
  if (s.address.empty()) {
    return email_invalid(at + ".address", "required to run the e-mail channel (the bot's own address, e.g. pincer@example.org)");
  }
  if (!is_unexpanded_env_reference(s.address) &&
      (s.address.find('@') == std::string::npos || s.address.front() == '@' || s.address.back() == '@' ||
       s.address.find_first_of(" <>,;\"") != std::string::npos)) {
    return email_invalid(at + ".address", "must be a bare e-mail address like pincer@example.org, got \"" + s.address + "\"");
  }
  s.name = c.value("name", s.name);
  if (s.name.find_first_of("\r\n") != std::string::npos) return email_invalid(at + ".name", "must be one line");
  s.allow_insecure = c.value("allowInsecure", false);
  EmailServerSettings imap_defaults;
  imap_defaults.user = s.address;
  auto imap = email_server_of(c, at, "imap", imap_defaults, s.allow_insecure);
  if (!imap) return imap.error();
  s.imap = std::move(*imap);
  const json imap_obj = c.value("imap", json::object());
  s.mailbox = imap_obj.is_object() ? imap_obj.value("mailbox", s.mailbox) : s.mailbox;
  if (s.mailbox.empty() || s.mailbox.find_first_of("\r\n\"\\") != std::string::npos) {
    return email_invalid(at + ".imap.mailbox", "must be a mailbox name like INBOX (no quotes, backslashes or line breaks)");
  }
  auto smtp = email_server_of(c, at, "smtp", s.imap, s.allow_insecure);
  if (!smtp) return smtp.error();
  s.smtp = std::move(*smtp);
  s.state_file = state_dir.empty() ? std::filesystem::path() : state_dir / "channels" / "email" / (s.account_id + ".json");
  return s;
}

}  // namespace pincer::channels::email
