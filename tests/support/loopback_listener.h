// Loopback ports for tests: a listening TCP socket on 127.0.0.1 with a port the kernel picks (unit
// tests whose scripted servers — tests/unit/smtp_sender_test.cpp, imap_client_test.cpp — speak a
// protocol by hand), and a port nothing listens on (a refused connection).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace pincer::test {

/// The listening fd (backlog 1; the caller closes it) and its port in `port`; -1 when the socket
/// cannot be bound.
inline int listen_on_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 || ::listen(fd, 1) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  port = ntohs(addr.sin_port);
  return fd;
}

/// A loopback port nothing listens on: one listen_on_loopback() picked, closed again (a connection
/// to it is refused). 9 (discard) if no socket could be had.
inline int closed_loopback_port() {
  int port = 9;
  const int fd = listen_on_loopback(port);
  if (fd >= 0) ::close(fd);
  return fd >= 0 ? port : 9;
}

}  // namespace pincer::test
