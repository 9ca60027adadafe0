// A scripted HTTP/1.1 server on 127.0.0.1 for unit tests of HTTP clients (slack_files_test,
// channel_startup_errors_test): answers by request path, records every request.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../support/loopback_listener.h"

namespace pincer::test {

/// One request the server took.
struct ScriptedHttpRequest {
  std::string path, content_type, authorization, body;
};

/// An answer: status, body (\"{root}\" in it is the server's own URL), content type.
struct ScriptedHttpAnswer {
  int status = 404;
  std::string body = "{}";
  std::string content_type = "application/json";
};

/// Answers each request by its path from `answers` (status, JSON or text body; "{root}" in a body
/// is the server's own URL), one connection at a time (Connection: close); records every request.
class ScriptedHttpServer {
 public:
  /// `answers` by request path; any other path gets `fallback`.
  explicit ScriptedHttpServer(std::map<std::string, ScriptedHttpAnswer> answers, ScriptedHttpAnswer fallback = {})
      : answers_(std::move(answers)), fallback_(std::move(fallback)) {
    fd_ = test::listen_on_loopback(port_);
    EXPECT_GE(fd_, 0) << "cannot listen on 127.0.0.1";
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string root() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<ScriptedHttpRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  static std::string header_of(const std::string& head, const std::string& name) {
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return {};
    const auto start = head.find_first_not_of(' ', at + name.size() + 3);
    return head.substr(start, head.find("\r\n", start) - start);
  }

  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) != 1) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string data;
      char chunk[65536];
      std::size_t head_end = std::string::npos, need = 0;
      for (;;) {
        if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos) {
          const std::string length = header_of(data.substr(0, head_end + 2), "content-length");
          need = head_end + 4 + (length.empty() ? 0 : std::stoul(length));
        }
        if (head_end != std::string::npos && data.size() >= need) break;
        const ssize_t n = ::read(c, chunk, sizeof chunk);
        if (n <= 0) break;
        data.append(chunk, static_cast<std::size_t>(n));
      }
      if (head_end == std::string::npos) {
        ::close(c);
        continue;
      }
      const std::string head = data.substr(0, head_end + 2);
      ScriptedHttpRequest r;
      const auto sp = head.find(' ');
      r.path = head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
      r.content_type = header_of(head, "content-type");
      r.authorization = header_of(head, "authorization");
      r.body = data.substr(head_end + 4);
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(r);
      }
      const auto it = answers_.find(r.path);
      const ScriptedHttpAnswer& a = it == answers_.end() ? fallback_ : it->second;
      std::string body = a.body;
      if (const auto at = body.find("{root}"); at != std::string::npos) body.replace(at, 6, root());
      const std::string answer = "HTTP/1.1 " + std::to_string(a.status) + " X\r\nContent-Type: " + a.content_type +
                                 "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      (void)!::write(c, answer.data(), answer.size());
      ::close(c);
    }
  }

  std::map<std::string, ScriptedHttpAnswer> answers_;
  ScriptedHttpAnswer fallback_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<ScriptedHttpRequest> requests_;
};

}  // namespace pincer::test
