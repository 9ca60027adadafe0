#include "channels/email/smtp_dialogue.h"

#include <sodium.h>

#include <cctype>

namespace pincer::channels::email {

namespace {

std::string smtp_base64(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);
  return out;
}

std::string smtp_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string SmtpReply::summary() const {
  std::string out = std::to_string(code);
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? " " : " / ") + lines[i];
  if (out.size() > 300) out = out.substr(0, 297) + "...";
  return out;
}

std::optional<Result<SmtpReply>> SmtpReplyReader::feed(std::string_view line) {
  const bool digits = line.size() >= 3 && std::isdigit(static_cast<unsigned char>(line[0])) &&
                      std::isdigit(static_cast<unsigned char>(line[1])) &&
                      std::isdigit(static_cast<unsigned char>(line[2]));
  if (!digits || (line.size() > 3 && line[3] != ' ' && line[3] != '-')) {
    pending_ = {};
    return Result<SmtpReply>(Error{"UNAVAILABLE", "the SMTP server sent a line that is not an SMTP reply: '" +
                                                      std::string(line.substr(0, 80)) + "'"});
  }
  const int code = std::stoi(std::string(line.substr(0, 3)));
  if (!pending_.lines.empty() && pending_.code != code) {
    pending_ = {};
    return Result<SmtpReply>(Error{"UNAVAILABLE", "the SMTP server mixed reply codes in one reply"});
  }
  pending_.code = code;
  pending_.lines.emplace_back(line.size() > 4 ? line.substr(4) : std::string_view());
  if (line.size() > 3 && line[3] == '-') {
    if (pending_.lines.size() > 100) {
      pending_ = {};
      return Result<SmtpReply>(Error{"UNAVAILABLE", "the SMTP server sent a reply of over 100 lines"});
    }
    return std::nullopt;
  }
  SmtpReply done = std::move(pending_);
  pending_ = {};
  return Result<SmtpReply>(std::move(done));
}

std::string smtp_dot_stuff(std::string_view message) {
  std::string out;
  out.reserve(message.size() + 64);
  bool line_start = true;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (line_start && c == '.') out += '.';
    if (c == '\n' && (i == 0 || message[i - 1] != '\r')) out += '\r';
    out += c;
    line_start = c == '\n';
  }
  if (!line_start) out += "\r\n";
  out += ".\r\n";
  return out;
}

SmtpDialogue::SmtpDialogue(Params params) : p_(std::move(params)) { tls_up_ = p_.security == "tls"; }

SmtpStep SmtpDialogue::write(std::string stage, std::string bytes) {
  stage_ = std::move(stage);
  SmtpStep s;
  s.kind = SmtpStep::Kind::kWrite;
  s.bytes = std::move(bytes);
  return s;
}

SmtpStep SmtpDialogue::fail_reply(const SmtpReply& reply) {
  SmtpStep s;
  s.kind = SmtpStep::Kind::kFail;
  const std::string where = "the SMTP server " + p_.host + " ";
  // The account's problems (a fixable config, a server that refuses us) are UNAVAILABLE: the reply
  // is kept until the account works again. Only a refusal of this message is REJECTED (header).
  if (stage_ == "AUTH" && (reply.code == 535 || reply.code == 534 || reply.code == 530 || reply.code == 454)) {
    s.error = {"UNAVAILABLE", where + "refused the login for " + p_.user + " (" + reply.summary() + "): check " +
                                  p_.config_path + ".smtp.user and " + p_.config_path + ".smtp.password"};
    return s;
  }
  const bool this_message = stage_ == "RCPT TO" || stage_ == "DATA" || stage_ == "message";
  const std::string what = reply.code >= 500 ? "refused " : "could not take (try again later) ";
  std::string message = where + what + stage_ + ": " + reply.summary();
  if (reply.code >= 500 && stage_ == "MAIL FROM") message += ": check " + p_.config_path + ".address";
  s.error = {reply.code >= 500 && this_message ? "REJECTED" : "UNAVAILABLE", message};
  return s;
}

SmtpStep SmtpDialogue::after_tls() {
  tls_up_ = true;
  return write("EHLO", "EHLO " + p_.ehlo_name + "\r\n");
}

SmtpStep SmtpDialogue::mail_from() {
  if (p_.probe_only) {
    SmtpStep s = write("QUIT", "QUIT\r\n");
    s.kind = SmtpStep::Kind::kDone;
    return s;
  }
  return write("MAIL FROM", "MAIL FROM:<" + p_.from + ">\r\n");
}

SmtpStep SmtpDialogue::after_ehlo(const SmtpReply& reply) {
  bool starttls = false, plain = false, login = false;
  for (std::size_t i = 1; i < reply.lines.size(); ++i) {  // line 0 is the server's greeting name
    const std::string ext = smtp_upper(reply.lines[i]);
    if (ext == "STARTTLS") starttls = true;
    if (ext.rfind("AUTH", 0) == 0 && (ext.size() == 4 || ext[4] == ' ' || ext[4] == '=')) {
      const std::string mechs = " " + ext.substr(std::min<std::size_t>(5, ext.size())) + " ";
      if (mechs.find(" PLAIN ") != std::string::npos) plain = true;
      if (mechs.find(" LOGIN ") != std::string::npos) login = true;
    }
  }
  if (p_.security == "starttls" && !tls_up_) {
    if (!starttls) {
      SmtpStep s;
      s.kind = SmtpStep::Kind::kFail;
      s.error = {"UNAVAILABLE", "the SMTP server " + p_.host + " does not offer STARTTLS: check " + p_.config_path +
                                    ".smtp.security (\"tls\" for port 465) and " + p_.config_path + ".smtp.port"};
      return s;
    }
    return write("STARTTLS", "STARTTLS\r\n");
  }
  if (p_.user.empty()) return mail_from();
  if (plain || !login) {  // PLAIN when offered, and when nothing is advertised (the server says what it thinks)
    const std::string token = std::string(1, '\0') + p_.user + std::string(1, '\0') + p_.password;
    return write("AUTH", "AUTH PLAIN " + smtp_base64(token) + "\r\n");
  }
  return write("AUTH", "AUTH LOGIN\r\n");
}

SmtpStep SmtpDialogue::on_reply(const SmtpReply& reply) {
  const int code = reply.code;
  if (stage_ == "greeting") {
    if (code != 220) return fail_reply(reply);
    return write("EHLO", "EHLO " + p_.ehlo_name + "\r\n");
  }
  if (stage_ == "EHLO") {
    if (code != 250) return fail_reply(reply);
    return after_ehlo(reply);
  }
  if (stage_ == "STARTTLS") {
    if (code != 220) return fail_reply(reply);
    SmtpStep s;
    s.kind = SmtpStep::Kind::kStartTls;
    return s;
  }
  if (stage_ == "AUTH" || stage_ == "AUTH user" || stage_ == "AUTH password") {
    if (code == 334 && stage_ == "AUTH") return write("AUTH user", smtp_base64(p_.user) + "\r\n");
    if (code == 334 && stage_ == "AUTH user") return write("AUTH password", smtp_base64(p_.password) + "\r\n");
    if (code == 235) return mail_from();
    stage_ = "AUTH";
    return fail_reply(reply);
  }
  if (stage_ == "MAIL FROM") {
    if (code != 250) return fail_reply(reply);
    return write("RCPT TO", "RCPT TO:<" + p_.to + ">\r\n");
  }
  if (stage_ == "RCPT TO") {
    if (code != 250 && code != 251) return fail_reply(reply);
    return write("DATA", "DATA\r\n");
  }
  if (stage_ == "DATA") {
    if (code != 354) return fail_reply(reply);
    return write("message", smtp_dot_stuff(p_.data));
  }
  if (stage_ == "message") {
    if (code != 250) return fail_reply(reply);
    SmtpStep s = write("QUIT", "QUIT\r\n");
    s.kind = SmtpStep::Kind::kDone;
    return s;
  }
  SmtpStep s;
  s.kind = SmtpStep::Kind::kFail;
  s.error = {"UNAVAILABLE", "the SMTP server " + p_.host + " sent an unexpected reply after " + stage_ + ": " +
                                reply.summary()};
  return s;
}

}  // namespace pincer::channels::email
