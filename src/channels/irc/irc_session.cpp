#include "channels/irc/irc_session.h"

#include <algorithm>

namespace pincer::channels::irc {
namespace {

/// SASL 3.1: AUTHENTICATE payloads are sent in pieces of at most 400 bytes.
constexpr std::size_t kSaslChunkBytes = 400;

void add(SessionOutput& out, std::string_view command, const std::vector<std::string>& params) {
  if (auto line = build_line(command, params)) {
    out.send.push_back(std::move(*line));
  } else {
    out.notes.push_back("cannot send " + std::string(command) + ": a parameter is not valid on IRC");
  }
}

/// True when the CAP LS list offers SASL with PLAIN ("sasl", or "sasl=PLAIN,EXTERNAL").
bool offers_sasl_plain(std::string_view caps) {
  while (!caps.empty()) {
    const std::size_t sp = caps.find(' ');
    const std::string_view cap = caps.substr(0, sp);
    caps = sp == std::string_view::npos ? std::string_view() : caps.substr(sp + 1);
    const std::size_t eq = cap.find('=');
    if (cap.substr(0, eq) != "sasl") continue;
    if (eq == std::string_view::npos) return true;
    std::string_view mechs = cap.substr(eq + 1);
    while (!mechs.empty()) {
      const std::size_t comma = mechs.find(',');
      if (mechs.substr(0, comma) == "PLAIN") return true;
      mechs = comma == std::string_view::npos ? std::string_view() : mechs.substr(comma + 1);
    }
    return false;
  }
  return false;
}

const std::string& last_param(const Message& m) { return m.param(m.params.empty() ? 0 : m.params.size() - 1); }

std::string upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace

IrcSession::IrcSession(SessionSettings settings) : settings_(std::move(settings)) {
  if (settings_.username.empty()) settings_.username = settings_.nick;
  if (settings_.realname.empty()) settings_.realname = "Pincer";
  if (settings_.nickserv_service.empty()) settings_.nickserv_service = "NickServ";
}

std::vector<std::string> IrcSession::start() {
  nick_ = settings_.nick;
  registered_ = false;
  cap_done_ = false;
  nick_attempts_ = 0;
  caps_.clear();
  casemapping_ = CaseMapping::Rfc1459;
  chantypes_ = "#&";
  joined_.clear();
  SessionOutput out;
  add(out, "CAP", {"LS", "302"});
  if (!settings_.password.empty()) add(out, "PASS", {settings_.password});
  add(out, "NICK", {nick_});
  add(out, "USER", {settings_.username, "0", "*", settings_.realname});
  return out.send;
}

SessionOutput IrcSession::handle(const Message& m) {
  SessionOutput out;
  const std::string& cmd = m.command;
  if (cmd == "PING") {
    add(out, "PONG", {m.param(0)});
  } else if (cmd == "ERROR") {
    out.fatal = "the server closed the link: " + m.param(0);
  } else if (cmd == "CAP") {
    const std::string sub = upper(m.param(1));
    if (sub == "LS" && !cap_done_) {
      const bool more = m.params.size() >= 4 && m.param(2) == "*";
      if (!caps_.empty()) caps_ += ' ';
      caps_ += last_param(m);
      if (!more) finish_cap_ls(out);
    } else if (sub == "ACK" && !cap_done_) {
      if (wants_sasl() && last_param(m).find("sasl") != std::string::npos) add(out, "AUTHENTICATE", {"PLAIN"});
    } else if (sub == "NAK" && !cap_done_) {
      out.fatal = "SASL: the server refused the sasl capability";
    }
  } else if (cmd == "AUTHENTICATE") {
    if (wants_sasl() && !cap_done_ && m.param(0) == "+") {
      const std::string& u = settings_.sasl_username;
      const std::string payload = base64_encode(u + '\0' + u + '\0' + settings_.sasl_password);
      for (std::size_t i = 0; i < payload.size(); i += kSaslChunkBytes) {
        add(out, "AUTHENTICATE", {payload.substr(i, kSaslChunkBytes)});
      }
      if (payload.empty() || payload.size() % kSaslChunkBytes == 0) add(out, "AUTHENTICATE", {"+"});
    }
  } else if (cmd == "903" || cmd == "907") {
    if (!cap_done_) {
      cap_done_ = true;
      add(out, "CAP", {"END"});
    }
  } else if (cmd == "902" || cmd == "904" || cmd == "905" || cmd == "906") {
    out.fatal = "SASL authentication failed (" + cmd + " " + last_param(m) + ")";
    out.credentials_refused = cmd == "902" || cmd == "904";
  } else if (cmd == "001") {
    on_welcome(m, out);
  } else if (cmd == "005") {
    for (std::size_t i = 1; i + (m.has_trailing ? 1 : 0) < m.params.size(); ++i) {
      const std::string& token = m.params[i];
      if (token.starts_with("CASEMAPPING=")) {
        if (auto c = parse_casemapping(std::string_view(token).substr(12))) casemapping_ = *c;
      } else if (token.starts_with("CHANTYPES=")) {
        chantypes_ = token.substr(10);
      }
    }
  } else if ((cmd == "433" || cmd == "436" || cmd == "437") && !registered_) {
    if (++nick_attempts_ > kMaxNickAttempts) {
      out.fatal = "nick " + settings_.nick + " and its fallbacks are in use";
    } else {
      nick_ = settings_.nick + std::string(static_cast<std::size_t>(nick_attempts_), '_');
      out.notes.push_back("nick in use; trying " + nick_);
      add(out, "NICK", {nick_});
    }
  } else if ((cmd == "432" && !registered_) || cmd == "464" || cmd == "465") {
    out.fatal = "registration refused (" + cmd + " " + last_param(m) + ")";
    out.credentials_refused = cmd == "464";
  } else if (cmd == "NICK") {
    if (is_me(parse_prefix(m.prefix).nick) && !m.param(0).empty()) {
      nick_ = m.param(0);
      out.notes.push_back("nick is now " + nick_);
    }
  } else if (cmd == "JOIN") {
    if (is_me(parse_prefix(m.prefix).nick) && !m.param(0).empty()) {
      joined_.insert(m.param(0));
      out.notes.push_back("joined " + m.param(0));
    }
  } else if (cmd == "PART") {
    if (is_me(parse_prefix(m.prefix).nick)) std::erase_if(joined_, [&](const std::string& c) { return irc_equal(c, m.param(0), casemapping_); });
  } else if (cmd == "KICK") {
    if (is_me(m.param(1))) {
      std::erase_if(joined_, [&](const std::string& c) { return irc_equal(c, m.param(0), casemapping_); });
      out.notes.push_back("kicked from " + m.param(0) + " by " + parse_prefix(m.prefix).nick);
    }
  } else if (cmd == "471" || cmd == "473" || cmd == "474" || cmd == "475") {
    out.notes.push_back("cannot join " + m.param(1) + " (" + cmd + ")");
  } else if (cmd == "PRIVMSG") {
    on_privmsg(m, out);
  }
  return out;
}

void IrcSession::finish_cap_ls(SessionOutput& out) {
  if (!wants_sasl()) {
    cap_done_ = true;
    add(out, "CAP", {"END"});
  } else if (offers_sasl_plain(caps_)) {
    add(out, "CAP", {"REQ", "sasl"});
  } else {
    out.fatal = "SASL: the server does not offer SASL PLAIN";
  }
}

void IrcSession::on_welcome(const Message& m, SessionOutput& out) {
  if (registered_) return;
  if (wants_sasl() && !cap_done_) {  // a server without CAP registered us before any SASL
    out.fatal = "SASL: the server registered the connection without capability negotiation";
    return;
  }
  registered_ = true;
  out.registered = true;
  if (!m.param(0).empty()) nick_ = m.param(0);
  if (!settings_.nickserv_password.empty()) {
    add(out, "PRIVMSG", {settings_.nickserv_service, "IDENTIFY " + settings_.nickserv_password});
  }
  for (const std::string& entry : settings_.channels) {
    const std::size_t sp = entry.find(' ');
    std::vector<std::string> params{entry.substr(0, sp)};
    if (sp != std::string::npos) params.push_back(entry.substr(sp + 1));
    if (!is_channel_name(params[0], chantypes_)) {
      out.notes.push_back("not a channel name: " + params[0]);
      continue;
    }
    add(out, "JOIN", params);
  }
}

void IrcSession::on_privmsg(const Message& m, SessionOutput& out) {
  if (!registered_ || m.params.size() < 2) return;
  const Prefix sender = parse_prefix(m.prefix);
  if (sender.nick.empty() || is_me(sender.nick)) return;
  const std::string& target = m.params[0];
  CtcpText body = parse_ctcp(last_param(m));
  if (body.kind == CtcpText::Kind::Other) return;
  InboundPrivmsg msg;
  if (is_me(target)) {
    msg.chat = sender.nick;
  } else if (is_channel_name(target, chantypes_)) {
    msg.is_group = true;
    msg.chat = target;
    for (const std::string& entry : settings_.channels) {  // spelled as configured: groups.<name> keys match
      const std::string name = entry.substr(0, entry.find(' '));
      if (irc_equal(name, target, casemapping_)) msg.chat = name;
    }
    msg.mentions_bot = mentions_nick(body.text, nick_, casemapping_);
  } else {
    return;  // e.g. "@#chan" (STATUSMSG) or a server mask: not a conversation we answer
  }
  msg.sender = sender;
  msg.text = std::move(body.text);
  msg.action = body.kind == CtcpText::Kind::Action;
  msg.msgid = m.tag("msgid").value_or("");
  out.message = std::move(msg);
}

}  // namespace pincer::channels::irc
