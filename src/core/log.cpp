#include "core/log.h"

#include <mutex>
#include <vector>

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>

#include "core/redact.h"

namespace pincer::log {
namespace {

/// Client-supplied text can reach log messages (a frame's key, a header): newlines and terminal
/// escapes are written as \n, \xNN so that nobody can forge log lines or drive a terminal.
std::string escape_controls(std::string text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// Forwards each message, with secrets redacted and controls escaped, to the wrapped sinks.
class RedactingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit RedactingSink(std::vector<spdlog::sink_ptr> sinks) : sinks_(std::move(sinks)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string clean = escape_controls(redact::apply(std::string_view(msg.payload.data(), msg.payload.size())));
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(clean.data(), clean.size());
    for (auto& sink : sinks_) {
      if (sink->should_log(copy.level)) sink->log(copy);
    }
  }
  void flush_() override {
    for (auto& sink : sinks_) sink->flush();
  }

 private:
  std::vector<spdlog::sink_ptr> sinks_;
};

std::mutex log_file_only_mutex;
std::shared_ptr<spdlog::logger> log_file_only_logger;  ///< the file sink of the last init(), or null

}  // namespace

Status init(const Options& options) {
  std::vector<spdlog::sink_ptr> sinks;
  if (options.console) {
    auto console = std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>();
    if (options.console_style == "json") {
      console->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","msg":"%v"})");
    } else if (options.console_style == "plain") {
      console->set_color_mode(spdlog::color_mode::never);
      console->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
    } else {
      console->set_pattern("%H:%M:%S.%e %^%l%$ %v");
    }
    sinks.push_back(std::move(console));
  }
  std::shared_ptr<spdlog::logger> file_only;
  if (!options.file.empty()) {
    try {
      auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file.string());
      file->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
      file_only = std::make_shared<spdlog::logger>(
          "pincer-file", std::make_shared<RedactingSink>(std::vector<spdlog::sink_ptr>{file}));
      file_only->set_level(spdlog::level::from_str(options.level));
      file_only->flush_on(spdlog::level::trace);
      sinks.push_back(std::move(file));
    } catch (const spdlog::spdlog_ex& e) {
      return Error{"IO_ERROR", "cannot open log file " + options.file.string() + ": " + e.what()};
    }
  }
  auto logger = std::make_shared<spdlog::logger>("pincer", std::make_shared<RedactingSink>(std::move(sinks)));
  logger->set_level(spdlog::level::from_str(options.level));
  // Flush every line: logs are low-volume and `logs.tail` must see them at once.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
  std::lock_guard lock(log_file_only_mutex);
  log_file_only_logger = std::move(file_only);
  return Ok{};
}

void warn_to_file_only(const std::string& text) {
  std::shared_ptr<spdlog::logger> logger;
  {
    std::lock_guard lock(log_file_only_mutex);
    logger = log_file_only_logger;
  }
  if (logger) logger->warn("{}", text);
}

void error_to_file_only(const std::string& text) {
  std::shared_ptr<spdlog::logger> logger;
  {
    std::lock_guard lock(log_file_only_mutex);
    logger = log_file_only_logger;
  }
  if (logger) logger->error("{}", text);
}

void flush() {
  if (auto logger = spdlog::default_logger()) logger->flush();
}

}  // namespace pincer::log
