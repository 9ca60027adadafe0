// The e-mail channel's only Asio translation unit on the sending side (see smtp_sender.h).
#include <algorithm>
#include <array>
#include <chrono>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "channels/email/smtp_dialogue.h"
#include "channels/email/smtp_sender.h"
#include "core/net_tls.h"

namespace pincer::channels::email {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr std::size_t kSmtpMaxLineBytes = 4096;

bool smtp_host_is_loopback(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  error_code ec;
  const auto addr = asio::ip::make_address(host, ec);
  return !ec && addr.is_loopback();
}

}  // namespace

std::optional<std::string> smtp_settings_problem(const SmtpSettings& s) {
  if (s.host.empty()) return "channels.email.smtp.host is empty: set the outgoing server's host name";
  if (s.port < 1 || s.port > 65535) {
    return "channels.email.smtp.port must be 1..65535 (465 for tls, 587 for starttls), not " + std::to_string(s.port);
  }
  if (s.security != "tls" && s.security != "starttls" && s.security != "none") {
    return "channels.email.smtp.security must be \"tls\", \"starttls\" or \"none\", not \"" + s.security + "\"";
  }
  if (s.security == "none" && !s.allow_insecure && !smtp_host_is_loopback(s.host)) {
    return "channels.email.smtp.security \"none\" sends the password and mail unencrypted to " + s.host +
           ": use \"tls\" or \"starttls\", or set channels.email.allowInsecure to true";
  }
  return std::nullopt;
}

struct SmtpSender::Session : std::enable_shared_from_this<SmtpSender::Session> {
  Session(asio::io_context& ioc, SmtpDialogue::Params params)
      : resolver(ioc), plain(ioc), timer(ioc), dialogue(std::move(params)) {}

  tcp::resolver resolver;
  tcp::socket plain;
  std::unique_ptr<ssl::stream<tcp::socket>> tls;
  asio::steady_timer timer;
  SmtpDialogue dialogue;
  SmtpReplyReader reader;
  std::string host;
  std::string config_path;
  std::string message_id;
  std::array<char, 4096> chunk{};
  std::string inbuf;
  bool finished = false;
  std::function<void(Result<std::string>)> finish_cb;  // set by the sender; runs once

  template <class Fn>
  void with_stream(Fn&& fn) {
    if (tls) fn(*tls);
    else fn(plain);
  }

  void close() {
    finished = true;
    error_code ignored;
    resolver.cancel();
    timer.cancel();
    plain.shutdown(tcp::socket::shutdown_both, ignored);
    plain.close(ignored);
    if (tls) {
      tls->next_layer().shutdown(tcp::socket::shutdown_both, ignored);
      tls->next_layer().close(ignored);
    }
  }

  void finish(Result<std::string> result) {
    if (finished) return;
    close();
    if (auto cb = std::move(finish_cb)) cb(std::move(result));
  }

  void fail(std::string message) { finish(Error{"UNAVAILABLE", std::move(message)}); }

  void start(uint16_t port, int64_t timeout_ms, bool tls_first, ssl::context& ctx) {
    auto self = shared_from_this();
    if (tls_first) tls = std::make_unique<ssl::stream<tcp::socket>>(std::move(plain), ctx);
    timer.expires_after(std::chrono::milliseconds(timeout_ms));
    timer.async_wait([self, timeout_ms](error_code ec) {
      if (ec || self->finished) return;
      self->fail("the SMTP server " + self->host + " did not finish within " + std::to_string(timeout_ms / 1000) +
                 " s (stuck at " + self->dialogue.stage() + ")");
    });
    resolver.async_resolve(host, std::to_string(port), [self, port](error_code ec, tcp::resolver::results_type results) {
      if (self->finished) return;
      if (ec) return self->fail("could not resolve the SMTP host " + self->host + ": " + ec.message());
      tcp::socket& sock = self->tls ? self->tls->next_layer() : self->plain;
      asio::async_connect(sock, results, [self, port](error_code ec, const tcp::endpoint&) {
        if (self->finished) return;
        if (ec) {
          return self->fail("could not connect to the SMTP server " + self->host + ":" + std::to_string(port) + ": " +
                            ec.message());
        }
        if (!self->tls) return self->read();
        self->handshake([self] { self->read(); });
      });
    });
  }

  template <class Then>
  void handshake(Then then) {
    auto self = shared_from_this();
    error_code addr_ec;
    asio::ip::make_address(host, addr_ec);
    if (addr_ec && !SSL_set_tlsext_host_name(tls->native_handle(), host.c_str())) {
      return fail("TLS SNI for " + host);
    }
    tls->set_verify_callback(ssl::host_name_verification(host));
    tls->async_handshake(ssl::stream_base::client, [self, then](error_code ec) {
      if (self->finished) return;
      if (ec && ec.category() == asio::error::get_ssl_category() &&
          ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        // Not a passing outage: the same certificate will be refused next time too.
        // UNAVAILABLE, not REJECTED: the reply is kept until the config (or the server) is fixed.
        return self->finish(Error{"UNAVAILABLE", "the SMTP server " + self->host + "'s TLS certificate was not accepted (" +
                                                     ec.message() + "): check " + self->config_path +
                                                     ".smtp.host (the name the certificate is for), " + self->config_path +
                                                     ".smtp.security or the system's CA certificates"});
      }
      if (ec) return self->fail("TLS handshake with the SMTP server " + self->host + ": " + ec.message());
      then();
    });
  }

  void read() {
    auto self = shared_from_this();
    with_stream([&](auto& stream) {
      stream.async_read_some(asio::buffer(chunk), [self](error_code ec, std::size_t n) {
        if (self->finished) return;
        if (ec) {
          return self->fail(ec == asio::error::eof ? "the SMTP server " + self->host + " closed the connection during " +
                                                         self->dialogue.stage()
                                                   : "read from the SMTP server " + self->host + ": " + ec.message());
        }
        self->inbuf.append(self->chunk.data(), n);
        self->take_lines();
      });
    });
  }

  /// Feeds complete lines to the reply reader; acts on the first complete reply, else reads on.
  void take_lines() {
    while (!finished) {
      const std::size_t nl = inbuf.find('\n');
      if (nl == std::string::npos) break;
      std::string line = inbuf.substr(0, nl);
      inbuf.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      auto reply = reader.feed(line);
      if (!reply) continue;
      if (!reply->ok()) return finish(reply->error());
      return act(dialogue.on_reply(reply->value()));
    }
    if (finished) return;
    if (inbuf.size() > kSmtpMaxLineBytes) return fail("the SMTP server " + host + " sent an over-long line");
    read();
  }

  void act(SmtpStep step) {
    if (finished) return;
    auto self = shared_from_this();
    switch (step.kind) {
      case SmtpStep::Kind::kFail:
        return finish(std::move(step.error));
      case SmtpStep::Kind::kStartTls:
        if (!inbuf.empty()) return fail("the SMTP server " + host + " sent data before the TLS handshake");
        tls = std::make_unique<ssl::stream<tcp::socket>>(std::move(plain), tls_ctx());
        return handshake([self] { self->act(self->dialogue.after_tls()); });
      case SmtpStep::Kind::kDone: {
        // Accepted: the answer is the Message-ID; QUIT is a courtesy that may fail unseen.
        auto bytes = std::make_shared<std::string>(std::move(step.bytes));
        auto id = message_id;
        auto cb = std::move(finish_cb);
        with_stream([&](auto& stream) {
          asio::async_write(stream, asio::buffer(*bytes), [self, bytes](error_code, std::size_t) { self->close(); });
        });
        finished = true;
        timer.cancel();
        if (cb) cb(std::move(id));
        return;
      }
      case SmtpStep::Kind::kWrite: {
        auto bytes = std::make_shared<std::string>(std::move(step.bytes));
        with_stream([&](auto& stream) {
          asio::async_write(stream, asio::buffer(*bytes), [self, bytes](error_code ec, std::size_t) {
            if (self->finished) return;
            if (ec) return self->fail("write to the SMTP server " + self->host + ": " + ec.message());
            self->take_lines();  // a reply may already be buffered (it is not: SMTP without pipelining)
          });
        });
        return;
      }
    }
  }

  static ssl::context& tls_ctx() { return net::client_tls_context(); }
};

SmtpSender::SmtpSender(EventLoop& loop, SmtpSettings settings, Clock& clock)
    : loop_(loop), settings_(std::move(settings)), clock_(clock), alive_(std::make_shared<bool>(true)) {}

SmtpSender::~SmtpSender() { stop(); }

void SmtpSender::stop() {
  *alive_ = false;
  auto sessions = std::move(sessions_);
  sessions_.clear();
  for (auto& s : sessions) {
    s->finish_cb = nullptr;
    s->close();
  }
  alive_ = std::make_shared<bool>(true);
}

void SmtpSender::send(OutgoingEmail email, std::function<void(Result<std::string>)> done) {
  auto alive = alive_;
  auto deliver = [this, alive, done = std::move(done)](Result<std::string> result) mutable {
    loop_.post([alive, done = std::move(done), result = std::move(result)]() mutable {
      if (*alive) done(std::move(result));
    });
  };
  // The account's own problems are UNAVAILABLE (the reply is kept until the config is fixed).
  if (auto problem = smtp_settings_problem(settings_)) return deliver(Error{"UNAVAILABLE", *problem});
  if (auto problem = address_problem(email.from_address)) {
    return deliver(Error{"UNAVAILABLE", settings_.config_path + ".address: " + *problem});
  }
  if (auto problem = address_problem(email.to_address)) return deliver(Error{"REJECTED", "recipient: " + *problem});

  std::string domain = email.domain_for_ids.empty() ? address_domain(email.from_address) : email.domain_for_ids;
  const std::string message_id = new_message_id(domain);
  SmtpDialogue::Params params;
  params.host = settings_.host;
  params.security = settings_.security;
  params.user = settings_.user;
  params.password = settings_.password;
  params.ehlo_name = address_domain(email.from_address);
  params.from = email.from_address;
  params.to = email.to_address;
  params.data = compose_email(email, message_id, clock_.wall_ms());
  params.config_path = settings_.config_path;

  auto session = std::make_shared<Session>(loop_.context(), std::move(params));
  session->message_id = message_id;
  run_session(std::move(session), std::move(deliver));
}

void SmtpSender::probe(const std::string& from_address, std::function<void(Status)> done) {
  auto alive = alive_;
  auto deliver = [this, alive, done = std::move(done)](Result<std::string> result) mutable {
    loop_.post([alive, done = std::move(done), result = std::move(result)]() mutable {
      if (*alive) done(result ? Status(Ok{}) : Status(result.error()));
    });
  };
  if (auto problem = smtp_settings_problem(settings_)) return deliver(Error{"UNAVAILABLE", *problem});
  SmtpDialogue::Params params;
  params.host = settings_.host;
  params.security = settings_.security;
  params.user = settings_.user;
  params.password = settings_.password;
  params.ehlo_name = address_domain(from_address);
  params.config_path = settings_.config_path;
  params.probe_only = true;
  run_session(std::make_shared<Session>(loop_.context(), std::move(params)), std::move(deliver));
}

void SmtpSender::run_session(std::shared_ptr<Session> session, std::function<void(Result<std::string>)> deliver) {
  auto alive = alive_;
  session->host = settings_.host;
  session->config_path = settings_.config_path;
  Session* raw = session.get();
  session->finish_cb = [this, alive, raw, deliver = std::move(deliver)](Result<std::string> result) mutable {
    if (*alive) {
      sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                     [raw](const std::shared_ptr<Session>& s) { return s.get() == raw; }),
                      sessions_.end());
    }
    deliver(std::move(result));
  };
  sessions_.push_back(session);
  session->start(static_cast<uint16_t>(settings_.port), settings_.timeout_ms, settings_.security == "tls",
                 net::client_tls_context());
}

}  // namespace pincer::channels::email
