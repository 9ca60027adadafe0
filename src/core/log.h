// Logging via spdlog, with every line passed through redact::apply() before it reaches a sink
// (AU-5). One process-wide logger: console (stderr) plus an optional file.
#pragma once

#include <filesystem>
#include <string>

#include <spdlog/spdlog.h>

#include "core/result.h"

namespace pincer::log {

struct Options {
  std::string level = "info";          ///< trace|debug|info|warn|error|off (config `logging.level`)
  std::filesystem::path file;          ///< empty: no file sink
  std::string console_style = "pretty";  ///< pretty|plain|json (config `logging.consoleStyle`)
  bool console = true;                 ///< write to stderr
};

/// (Re)configures the default spdlog logger. Errors when the log file cannot be opened
/// (code "IO_ERROR"). Call from the main thread before starting the event loop.
Status init(const Options& options);

/// Flushes all sinks (on shutdown).
void flush();

/// Writes `text` (redacted like every line) at warn level to the log file only, not to the console
/// sink: for a warning the caller has just printed on stderr as a `pincer: warning:` line, so that a
/// terminal shows it once while the log file keeps it. Does nothing when init() set no file. Any thread.
void warn_to_file_only(const std::string& text);
/// warn_to_file_only at error level: for an error the caller prints itself as a `pincer:` line
/// (e.g. why the gateway stopped), so that a terminal shows it once.
void error_to_file_only(const std::string& text);

}  // namespace pincer::log
