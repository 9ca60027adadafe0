#include "raw_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace pincer::test {

RawSocket::RawSocket(int port, const std::string& source_ip) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  if (!source_ip.empty()) {
    sockaddr_in src{};
    src.sin_family = AF_INET;
    ::inet_pton(AF_INET, source_ip.c_str(), &src.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
      throw std::runtime_error("bind " + source_ip + ": " + std::strerror(errno));
    }
  }
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("connect to port " + std::to_string(port) + ": " + std::strerror(e));
  }
}

RawSocket::~RawSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawSocket::send(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

bool RawSocket::read_some(std::chrono::milliseconds timeout) {
  if (eof_ || reset_) return false;
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
  if (ready <= 0) return false;
  char buf[16 * 1024];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n > 0) {
    received_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  if (n == 0) eof_ = true;
  else if (errno == ECONNRESET) reset_ = true;
  else if (errno != EINTR && errno != EAGAIN) eof_ = true;
  return false;
}

std::string RawSocket::read_until(const std::string& until, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (received_.find(until) == std::string::npos && !eof_ && !reset_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    read_some(left);
  }
  return received_;
}

bool RawSocket::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!eof_ && !reset_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    read_some(left);
  }
  return true;
}

RawResponse parse_response(const std::string& raw) {
  RawResponse out;
  if (raw.rfind("HTTP/1.", 0) != 0 || raw.size() < 12) return out;
  out.status = std::atoi(raw.c_str() + 9);
  const auto head_end = raw.find("\r\n\r\n");
  const std::string head = raw.substr(0, head_end);
  std::size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos < head.size()) {
    const auto next = head.find("\r\n", pos + 2);
    const std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
    if (auto colon = line.find(':'); colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      out.headers[name] = value;
    }
    pos = next;
  }
  if (head_end != std::string::npos) out.body = raw.substr(head_end + 4);
  return out;
}

RawResponse raw_exchange(int port, const std::string& request, const std::string& source_ip) {
  RawSocket s(port, source_ip);
  s.send(request);
  s.wait_closed(std::chrono::seconds(10));
  return parse_response(s.received());
}

}  // namespace pincer::test
