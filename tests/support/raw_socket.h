// A plain TCP client for tests that must misbehave the way an attacker would: connect from a chosen
// loopback source address (127.0.0.2 …, to look like another client), send a request byte by byte
// or never finish it, read what comes back with a timeout. POSIX sockets, blocking with poll().
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace pincer::test {

class RawSocket {
 public:
  /// Connects to 127.0.0.1:<port>, from `source_ip` when non-empty (any 127.x.y.z on Linux).
  /// Throws std::runtime_error when the connect fails.
  explicit RawSocket(int port, const std::string& source_ip = "");
  ~RawSocket();
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  /// Sends all of `bytes`; false when the peer is gone (reset, closed).
  bool send(const std::string& bytes);
  /// Reads what arrives until `until` appears in what was read, the peer closes, or the timeout;
  /// returns everything read so far.
  std::string read_until(const std::string& until, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Reads until the peer closes (EOF or reset) or the timeout; true when it closed.
  bool wait_closed(std::chrono::milliseconds timeout);
  const std::string& received() const { return received_; }
  bool reset() const { return reset_; }  ///< the peer reset the connection (ECONNRESET)

 private:
  bool read_some(std::chrono::milliseconds timeout);
  int fd_ = -1;
  std::string received_;
  bool eof_ = false, reset_ = false;
};

/// A response parsed from raw bytes: status 0 when there was no status line.
struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;
};
RawResponse parse_response(const std::string& raw);

/// Sends `request` (a whole HTTP/1.1 request, e.g. with "Connection: close") and reads the answer
/// until the gateway closes the connection.
RawResponse raw_exchange(int port, const std::string& request, const std::string& source_ip = "");

}  // namespace pincer::test
