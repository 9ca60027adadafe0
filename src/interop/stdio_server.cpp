#include "interop/stdio_server.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace pincer::interop {

using nlohmann::json;

StdioServer::StdioServer(EventLoop& loop, int in_fd, int out_fd, std::size_t max_line_bytes)
    : loop_(loop), in_fd_(in_fd), out_fd_(out_fd), max_line_bytes_(max_line_bytes) {
  if (::pipe(wake_) != 0) {
    wake_[0] = wake_[1] = -1;
    spdlog::warn("stdio server: pipe() failed: {}", std::strerror(errno));
  }
}

StdioServer::~StdioServer() {
  alive_->store(false);
  if (wake_[1] >= 0) {
    const char byte = 'x';
    [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  }
  if (reader_.joinable()) reader_.join();
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void StdioServer::start(MessageHandler on_message, std::function<void()> on_end) {
  on_message_ = std::move(on_message);
  on_end_ = std::move(on_end);
  reader_ = std::thread([this] { read_loop(); });
}

void StdioServer::read_loop() {
  jsonrpc::LineFramer framer(max_line_bytes_);
  auto alive = alive_;
  EventLoop* loop = &loop_;
  auto post_line = [this, alive, loop](std::string_view line) {
    loop->post([this, alive, text = std::string(line)] {
      if (alive->load()) handle_line(text);
    });
  };
  const std::size_t limit = max_line_bytes_;
  auto post_overflow = [this, alive, loop, limit](std::size_t seen) {
    loop->post([this, alive, limit, seen] {
      if (!alive->load() || ended_) return;
      write_line(jsonrpc::make_error(nullptr, jsonrpc::kInvalidRequest,
                                     "message too large: a line of more than " + std::to_string(limit) +
                                         " bytes was dropped (" + std::to_string(seen) + " bytes read before it was cut)"));
    });
  };
  std::string buffer(64 * 1024, '\0');
  for (;;) {
    pollfd fds[2] = {{in_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int ready = ::poll(fds, wake_[0] >= 0 ? 2 : 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      spdlog::warn("stdio server: poll failed: {}", std::strerror(errno));
      break;
    }
    if (wake_[0] >= 0 && (fds[1].revents & POLLIN)) return;  // the destructor: no on_end
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) continue;
    const ssize_t n = ::read(in_fd_, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      if (n < 0) spdlog::warn("stdio server: reading stdin failed: {}", std::strerror(errno));
      break;
    }
    framer.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), post_line, post_overflow);
  }
  framer.finish(post_line);
  loop->post([this, alive] {
    if (alive->load()) end();
  });
}

void StdioServer::handle_line(const std::string& line) {
  if (ended_) return;
  auto message = jsonrpc::parse_message(line);
  if (!message) {
    spdlog::debug("stdio server: refused a line: {}", message.error().message);
    write_line(jsonrpc::make_invalid_reply(line, message.error()));
    return;
  }
  if (on_message_) on_message_(*message);
}

void StdioServer::reply(const json& id, const json& result) { write_line(jsonrpc::make_result(id, result)); }

void StdioServer::reply_error(const json& id, int code, std::string_view message, const json& data) {
  write_line(jsonrpc::make_error(id, code, message, data));
}

void StdioServer::notify(std::string_view method, const json& params) {
  write_line(jsonrpc::make_notification(method, params));
}

void StdioServer::request(const json& id, std::string_view method, const json& params) {
  write_line(jsonrpc::make_request(id, method, params));
}

void StdioServer::write_line(std::string line) {
  if (ended_) return;
  line.push_back('\n');
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(out_fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      spdlog::warn("stdio server: writing stdout failed: {}", n < 0 ? std::strerror(errno) : "no progress");
      end();
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

void StdioServer::end() {
  if (ended_) return;
  ended_ = true;
  if (on_end_) on_end_();
}

}  // namespace pincer::interop
