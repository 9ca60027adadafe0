// The e-mail channel's only Asio translation unit (see imap_client.h).
#include <algorithm>
#include <array>
#include <deque>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include "channels/email/imap_client.h"
#include "core/base64.h"
#include "core/net_tls.h"

namespace pincer::channels::email {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

/// The failure of a connection whose first line is not an IMAP greeting (a wrong port: an SMTP or
/// HTTP server answers there), quoting that line; a parse error of it would name IMAP grammar.
static Error not_an_imap_greeting(const std::string& host, std::string_view first_bytes) {
  std::string line(first_bytes.substr(0, std::min<std::size_t>(first_bytes.find_first_of("\r\n"), 80)));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return Error{"PROTOCOL", "IMAP: " + host + " did not greet as an IMAP server (it said \"" + line +
                               "\"): is the IMAP port right (993 with security tls, 143 with starttls)?"};
}

namespace detail_imap_client {

struct ImapReply {
  ImapResponse completion;
  std::vector<ImapResponse> untagged;
};

struct ImapCommand {
  std::string line;                                 ///< without tag and CRLF
  std::deque<std::string> continuation;             ///< sent, one per "+", after the line
  std::function<void(Result<ImapReply>)> done;
  std::function<void(const ImapResponse&)> on_event;  ///< IDLE only
  bool idle = false;
  bool auth = false;  ///< a NO is "AUTH"
  std::string tag;
  std::vector<ImapResponse> untagged;
};

}  // namespace detail_imap_client

using namespace detail_imap_client;

struct ImapClient::Impl : std::enable_shared_from_this<ImapClient::Impl> {
  Impl(EventLoop& l) : loop(l), resolver(l.context()), stream(l.context(), net::client_tls_context()) {}

  EventLoop& loop;
  tcp::resolver resolver;
  ssl::stream<tcp::socket> stream;
  bool tls = false;
  bool open = false;
  bool done = false;
  bool writing = false;
  bool greeted = false;
  std::string host;
  std::string first_bytes;  // the server's first bytes, quoted when they are not an IMAP greeting
  int64_t timeout_ms = 60'000;
  std::deque<std::string> outbox;
  std::array<char, 16384> chunk{};
  ImapResponseParser parser;
  std::vector<std::string> capabilities;
  std::function<void(Status)> on_greeting;
  /// connect()'s `done` until the login finished: a failure while no command is waiting (the TLS
  /// handshake after STARTTLS) still reaches it. connect() makes calling it more than once harmless.
  std::function<void(const Error&)> connecting;
  std::function<void(const ImapResponse&)> listener;
  std::deque<ImapCommand> queue;
  bool in_flight = false;
  bool idle_accepted = false, idle_done_wanted = false, idle_done_sent = false;
  uint64_t tag_counter = 0;
  EventLoop::TimerId timer = 0;
  bool timer_set = false;
  std::string bye;

  tcp::socket& socket() { return stream.next_layer(); }

  void fail(const std::string& why) {
    if (done) return;
    done = true;
    open = false;
    cancel_timer();
    error_code ignored;
    resolver.cancel();
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
    auto greeting = std::move(on_greeting);
    auto pending = std::move(queue);
    queue.clear();
    outbox.clear();
    listener = nullptr;
    auto connect_done = std::move(connecting);
    connecting = nullptr;
    const Error e{"UNAVAILABLE", bye.empty() ? why : why + " (the server said BYE: " + bye + ")"};
    if (greeting) greeting(e);
    for (auto& c : pending) {
      if (c.done) c.done(e);
    }
    if (connect_done) connect_done(e);
  }

  void protocol_fail(const Error& e) {
    if (done) return;
    auto pending = std::move(queue);
    queue.clear();
    auto greeting = std::move(on_greeting);
    on_greeting = nullptr;
    auto connect_done = std::move(connecting);
    connecting = nullptr;
    fail(e.message);  // closes; the queue is already taken
    if (greeting) greeting(e);
    for (auto& c : pending) {
      if (c.done) c.done(e);
    }
    if (connect_done) connect_done(e);
  }

  void cancel_timer() {
    if (timer_set) loop.cancel(timer);
    timer_set = false;
  }

  void arm_timer(const std::string& what) {
    cancel_timer();
    std::weak_ptr<Impl> weak = shared_from_this();
    timer_set = true;
    timer = loop.after(timeout_ms, [weak, what] {
      auto self = weak.lock();
      if (!self || self->done) return;
      self->timer_set = false;
      self->fail(what + ": no answer from " + self->host + " within " + std::to_string(self->timeout_ms / 1000) + " s");
    });
  }

  void start(uint16_t port, bool use_tls) {
    auto self = shared_from_this();
    arm_timer("connect");
    resolver.async_resolve(host, std::to_string(port), [self, port, use_tls](error_code ec, tcp::resolver::results_type results) {
      if (self->done) return;
      if (ec) return self->fail("cannot resolve " + self->host + ": " + ec.message());
      asio::async_connect(self->socket(), results, [self, port, use_tls](error_code ec, const tcp::endpoint&) {
        if (self->done) return;
        if (ec) return self->fail("cannot connect to " + self->host + ":" + std::to_string(port) + ": " + ec.message());
        if (!use_tls) {
          self->open = true;
          return self->read();
        }
        self->handshake([self] {
          self->open = true;
          self->read();
        });
      });
    });
  }

  void handshake(std::function<void()> then) {
    auto self = shared_from_this();
    error_code addr_ec;
    asio::ip::make_address(host, addr_ec);
    if (addr_ec && !SSL_set_tlsext_host_name(stream.native_handle(), host.c_str())) return fail("TLS SNI for " + host);
    stream.set_verify_mode(ssl::verify_peer);
    stream.set_verify_callback(ssl::host_name_verification(host));
    stream.async_handshake(ssl::stream_base::client, [self, then = std::move(then)](error_code ec) {
      if (self->done) return;
      if (ec) return self->fail("TLS handshake with " + self->host + ": " + ec.message());
      if (self->upgrading) self->cancel_timer();  // armed for the STARTTLS handshake (implicit TLS: the greeting cancels it)
      self->tls = true;
      then();
    });
  }

  void read() {
    auto self = shared_from_this();
    auto handler = [self](error_code ec, std::size_t n) {
      if (self->done) return;
      if (ec) {
        return self->fail(ec == asio::error::eof || ec == ssl::error::stream_truncated
                              ? "the server " + self->host + " closed the connection"
                              : "read from " + self->host + ": " + ec.message());
      }
      if (!self->greeted && self->first_bytes.size() < 80) self->first_bytes.append(self->chunk.data(), std::min<std::size_t>(n, 80));
      if (auto st = self->parser.feed(std::string_view(self->chunk.data(), n)); !st) {
        return self->protocol_fail(self->greeted ? st.error() : not_an_imap_greeting(self->host, self->first_bytes));
      }
      while (!self->done) {
        auto r = self->parser.next();
        if (!r) break;
        self->dispatch(std::move(*r));
      }
      if (!self->done && !self->upgrading) self->read();
    };
    if (tls) stream.async_read_some(asio::buffer(chunk), handler);
    else socket().async_read_some(asio::buffer(chunk), handler);
  }

  bool upgrading = false;  ///< STARTTLS accepted: reads pause until the handshake is done

  void write(std::string bytes) {
    outbox.push_back(std::move(bytes));
    flush();
  }

  void flush() {
    if (writing || !open || done || outbox.empty()) return;
    writing = true;
    auto self = shared_from_this();
    auto handler = [self](error_code ec, std::size_t) {
      self->writing = false;
      if (self->done) return;
      if (ec) return self->fail("write to " + self->host + ": " + ec.message());
      self->outbox.pop_front();
      self->flush();
    };
    if (tls) asio::async_write(stream, asio::buffer(outbox.front()), handler);
    else asio::async_write(socket(), asio::buffer(outbox.front()), handler);
  }

  void learn_capabilities(const ImapResponse& r) {
    auto caps = parse_capabilities(r);
    if (!caps.empty()) capabilities = std::move(caps);
  }

  void dispatch(ImapResponse r) {
    if (r.kind == ImapResponse::Kind::Untagged) {
      learn_capabilities(r);
      if (r.status == "BYE") bye = r.text;
      if (!greeted) {
        greeted = true;
        cancel_timer();
        auto g = std::move(on_greeting);
        on_greeting = nullptr;
        if (r.status == "BYE") return fail("the server refused the connection");
        if (r.status != "OK" && r.status != "PREAUTH") return protocol_fail(not_an_imap_greeting(host, first_bytes));
        if (g) g(Ok{});
        return;
      }
      if (listener) {
        auto l = listener;
        l(r);
        if (done) return;
      }
      if (in_flight && !queue.empty()) {
        ImapCommand& c = queue.front();
        if (c.idle && c.on_event) {
          auto f = c.on_event;
          f(r);
        } else if (c.untagged.size() < 10'000) {
          c.untagged.push_back(std::move(r));
        }
      }
      return;
    }
    if (r.kind == ImapResponse::Kind::Continuation) {
      if (!in_flight || queue.empty()) return;
      ImapCommand& c = queue.front();
      if (c.idle) {
        idle_accepted = true;
        cancel_timer();  // idling: no timeout until DONE
        if (idle_done_wanted && !idle_done_sent) send_done();
        return;
      }
      if (!c.continuation.empty()) {
        write(c.continuation.front() + "\r\n");
        c.continuation.pop_front();
      } else {
        write("*\r\n");  // cancels an AUTHENTICATE exchange we have nothing more for
      }
      return;
    }
    // Tagged.
    if (!in_flight || queue.empty() || queue.front().tag != r.tag) return;  // not ours: ignored
    cancel_timer();
    ImapCommand c = std::move(queue.front());
    queue.pop_front();
    in_flight = false;
    learn_capabilities(r);
    Result<ImapReply> result = Error{"NO", ""};
    if (r.status == "OK") {
      result = ImapReply{r, std::move(c.untagged)};
    } else {
      const std::string text = r.text + (r.code.empty() ? "" : " [" + r.code + "]");
      result = Error{r.status == "BAD" ? "BAD" : c.auth ? "AUTH" : "NO", text.empty() ? r.status : text};
    }
    std::weak_ptr<Impl> weak = shared_from_this();
    if (c.done) c.done(std::move(result));
    if (auto self = weak.lock(); self && !self->done) self->pump();
  }

  void send_done() {
    idle_done_sent = true;
    write("DONE\r\n");
    arm_timer("IDLE DONE");
  }

  void enqueue(ImapCommand c) {
    if (done || (!open && greeted)) {
      if (c.done) c.done(Error{"UNAVAILABLE", "not connected to " + host});
      return;
    }
    queue.push_back(std::move(c));
    pump();
  }

  void pump() {
    if (in_flight || queue.empty() || done || !open || upgrading) return;
    ImapCommand& c = queue.front();
    c.tag = "P" + std::to_string(++tag_counter);
    in_flight = true;
    if (c.idle) {
      idle_accepted = false;
      idle_done_sent = false;
      idle_done_wanted = false;
    }
    write(c.tag + " " + c.line + "\r\n");
    arm_timer(c.line.substr(0, c.line.find(' ')));
  }
};

ImapClient::ImapClient(EventLoop& loop) : loop_(loop) {}

ImapClient::~ImapClient() { close(); }

namespace detail_imap_client {

void imap_run(const std::shared_ptr<ImapClient::Impl>& impl, std::string line, std::function<void(Result<ImapReply>)> done,
              bool auth = false, std::deque<std::string> continuation = {}) {
  ImapCommand c;
  c.line = std::move(line);
  c.done = std::move(done);
  c.auth = auth;
  c.continuation = std::move(continuation);
  impl->enqueue(std::move(c));
}

}  // namespace detail_imap_client

void ImapClient::connect(ImapConnectOptions o, std::function<void(Status)> done_once) {
  close();
  impl_ = std::make_shared<Impl>(loop_);
  auto impl = impl_;
  impl->host = o.host;
  impl->timeout_ms = o.command_timeout_ms;
  std::weak_ptr<Impl> weak = impl;
  // `done` runs once: a connection error may reach it both through a queued command and through
  // Impl::connecting.
  auto once = std::make_shared<std::function<void(Status)>>(std::move(done_once));
  auto done = [once](Status st) {
    if (!*once) return;
    auto f = std::move(*once);
    *once = nullptr;
    f(std::move(st));
  };
  impl->connecting = [done](const Error& e) { done(e); };
  auto login = [weak, o, done](Status) {
    auto self = weak.lock();
    if (!self || self->done) return;
    auto has = [&](const std::string& cap) {
      return std::find(self->capabilities.begin(), self->capabilities.end(), cap) != self->capabilities.end();
    };
    auto finish = [weak, done](Result<ImapReply> r) {
      if (!r) return done(r.error());  // also a connection error (the connection is closed then)
      auto s = weak.lock();
      if (!s || s->done) return;
      // Servers may send new capabilities after the login: ask when they did not.
      if (!r->completion.code.empty() && !parse_capabilities(r->completion).empty()) return done(Ok{});
      imap_run(s, "CAPABILITY", [done](Result<ImapReply> c) { done(c ? Status(Ok{}) : Status(c.error())); });
    };
    if (has("AUTH=PLAIN")) {
      const std::string token = base64_encode(std::string("\0", 1) + o.user + std::string("\0", 1) + o.password);
      if (has("SASL-IR")) return imap_run(self, "AUTHENTICATE PLAIN " + token, finish, true);
      return imap_run(self, "AUTHENTICATE PLAIN", finish, true, {token});
    }
    if (has("LOGINDISABLED")) {
      return done(Error{"AUTH", "the server allows no login on this connection (LOGINDISABLED): use security \"tls\" or \"starttls\""});
    }
    auto user = imap_quote(o.user);
    auto pass = imap_quote(o.password);
    if (!user || !pass) return done(Error{"AUTH", "the user name or password contains a line break"});
    imap_run(self, "LOGIN " + *user + " " + *pass, finish, true);
  };
  auto capabilities_then_login = [weak, login, done](Status) {
    auto self = weak.lock();
    if (!self || self->done) return;
    imap_run(self, "CAPABILITY", [login, done](Result<ImapReply> r) {
      if (!r) return done(r.error());
      login(Ok{});
    });
  };
  impl->on_greeting = [weak, o, done, capabilities_then_login](Status greeting) {
    if (!greeting) return done(greeting.error());
    auto self = weak.lock();
    if (!self || self->done) return;
    if (o.security != "starttls") return capabilities_then_login(Ok{});
    const std::string host = self->host;
    imap_run(self, "STARTTLS", [weak, done, capabilities_then_login, host](Result<ImapReply> r) {
      if (!r && r.error().code == "UNAVAILABLE") return done(r.error());
      if (!r) {
        return done(Error{"UNAVAILABLE", "the server " + host + " refused STARTTLS (" + r.error().message +
                                             "): use security \"tls\" or the server's TLS port"});
      }
      auto s = weak.lock();
      if (!s || s->done) return;
      s->upgrading = true;
      s->parser = ImapResponseParser();  // nothing sent before the handshake counts
      s->arm_timer("STARTTLS handshake");  // a failure here reaches `done` through Impl::connecting
      s->handshake([weak, capabilities_then_login] {
        auto s2 = weak.lock();
        if (!s2 || s2->done) return;
        s2->upgrading = false;
        s2->read();
        capabilities_then_login(Ok{});
      });
    });
  };
  // A connection error before the login reaches `done` through the greeting or the queued command.
  impl->start(o.port, o.security == "tls");
}

void ImapClient::select(const std::string& mailbox, std::function<void(Result<ImapMailbox>)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  auto quoted = imap_quote(mailbox);
  if (!quoted) return done(Error{"BAD", "a mailbox name with a line break"});
  imap_run(impl_, "SELECT " + *quoted, [done](Result<ImapReply> r) {
    if (!r) return done(r.error());
    ImapMailbox m;
    auto number_after = [](const std::string& code, const char* key) -> uint32_t {
      const std::string k = key;
      if (code.rfind(k + " ", 0) != 0) return 0;
      try {
        return static_cast<uint32_t>(std::stoul(code.substr(k.size() + 1)));
      } catch (const std::exception&) {
        return 0;
      }
    };
    for (const auto& u : r->untagged) {
      if (u.keyword == "EXISTS" && u.number) m.exists = *u.number;
      if (u.status == "OK") {
        if (auto v = number_after(u.code, "UIDVALIDITY")) m.uidvalidity = v;
        if (auto v = number_after(u.code, "UIDNEXT")) m.uidnext = v;
      }
    }
    done(m);
  });
}

void ImapClient::uid_search(const std::string& criteria, std::function<void(Result<std::vector<uint32_t>>)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  imap_run(impl_, "UID SEARCH " + criteria, [done](Result<ImapReply> r) {
    if (!r) return done(r.error());
    std::vector<uint32_t> uids;
    for (const auto& u : r->untagged) {
      auto found = parse_search(u);
      uids.insert(uids.end(), found.begin(), found.end());
    }
    std::sort(uids.begin(), uids.end());
    uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
    done(uids);
  });
}

void ImapClient::uid_fetch(const std::vector<uint32_t>& uids, std::function<void(Result<std::vector<ImapFetched>>)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  if (uids.empty()) return done(std::vector<ImapFetched>{});
  imap_run(impl_, "UID FETCH " + imap_uid_set(uids) + " (UID BODY.PEEK[])", [done](Result<ImapReply> r) {
    if (!r) return done(r.error());
    std::vector<ImapFetched> out;
    for (const auto& u : r->untagged) {
      if (u.keyword != "FETCH") continue;
      auto items = parse_fetch_items(u);
      if (!items) return done(items.error());
      auto uid = items->find("UID");
      auto body = items->find("BODY[]");
      if (uid == items->end() || body == items->end() || body->second.is_list) continue;  // a flag update
      ImapFetched f;
      try {
        f.uid = static_cast<uint32_t>(std::stoul(uid->second.text));
      } catch (const std::exception&) {
        continue;
      }
      f.raw = body->second.text;
      out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(), [](const ImapFetched& a, const ImapFetched& b) { return a.uid < b.uid; });
    done(std::move(out));
  });
}

void ImapClient::uid_store_seen(const std::vector<uint32_t>& uids, std::function<void(Status)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  if (uids.empty()) return done(Ok{});
  imap_run(impl_, "UID STORE " + imap_uid_set(uids) + " +FLAGS.SILENT (\\Seen)",
           [done](Result<ImapReply> r) { done(r ? Status(Ok{}) : Status(r.error())); });
}

void ImapClient::noop(std::function<void(Status)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  imap_run(impl_, "NOOP", [done](Result<ImapReply> r) { done(r ? Status(Ok{}) : Status(r.error())); });
}

void ImapClient::idle(std::function<void(const ImapResponse&)> on_event, std::function<void(Status)> done) {
  if (!impl_) return done(Error{"UNAVAILABLE", "not connected"});
  if (!has_capability("IDLE")) return done(Error{"NO", "the server does not support IDLE"});
  ImapCommand c;
  c.line = "IDLE";
  c.idle = true;
  c.on_event = std::move(on_event);
  c.done = [done](Result<ImapReply> r) { done(r ? Status(Ok{}) : Status(r.error())); };
  impl_->enqueue(std::move(c));
}

void ImapClient::idle_done() {
  if (!impl_ || impl_->done || !impl_->in_flight || impl_->queue.empty() || !impl_->queue.front().idle) return;
  if (impl_->idle_done_sent) return;
  impl_->idle_done_wanted = true;
  if (impl_->idle_accepted) impl_->send_done();
}

void ImapClient::set_untagged_listener(std::function<void(const ImapResponse&)> listener) {
  if (impl_) impl_->listener = std::move(listener);
}

bool ImapClient::has_capability(const std::string& capability) const {
  return impl_ && std::find(impl_->capabilities.begin(), impl_->capabilities.end(), capability) != impl_->capabilities.end();
}

void ImapClient::logout() {
  if (!impl_ || impl_->done) return close();
  auto impl = impl_;
  impl->listener = nullptr;
  for (auto& c : impl->queue) c.done = nullptr;
  if (impl->open) impl->write("PLOGOUT LOGOUT\r\n");
  // Give the write a moment to go out, then close (no callback runs: handlers are cleared).
  std::weak_ptr<Impl> weak = impl;
  loop_.after(2'000, [weak] {
    if (auto s = weak.lock()) s->fail("logged out");
  });
  impl->queue.clear();
  impl->on_greeting = nullptr;
  impl->connecting = nullptr;
  impl_.reset();
}

void ImapClient::close() {
  if (impl_) {
    impl_->listener = nullptr;
    impl_->on_greeting = nullptr;
    impl_->connecting = nullptr;
    for (auto& c : impl_->queue) c.done = nullptr;
    impl_->fail("closed");
  }
  impl_.reset();
}

bool ImapClient::is_open() const { return impl_ && impl_->open && !impl_->done; }

}  // namespace pincer::channels::email
