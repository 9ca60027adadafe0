// Runs the real `pincer` binary for integration tests: a temp PINCER_HOME, an ephemeral port,
// stdout/stderr captured, and signals/exit status observable. Nothing is mocked.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pincer::test {

using namespace std::chrono_literals;

/// A unique temporary directory, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `text` to `<dir>/<name>` (creating parents).
  void write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

/// A child process with captured output.
class Process {
 public:
  /// Starts `argv` with the current environment plus `env` (a value of "\x01" unsets the name).
  Process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
  ~Process();  // SIGKILLs a still-running child
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  int pid() const { return pid_; }
  void signal(int signo) const;
  /// Waits for exit; returns the exit code (128+signal when killed), nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout = 10s);
  /// Waits until stdout has a line containing `needle`; returns that line.
  std::optional<std::string> wait_for_stdout(const std::string& needle, std::chrono::milliseconds timeout = 10s);
  /// Everything read so far (drains the pipes without blocking).
  const std::string& out();
  const std::string& err();

 private:
  void pump(int timeout_ms);
  int pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
  std::optional<int> exit_code_;
};

/// `pincer gateway run --port 0 <extra>` with PINCER_HOME=<home>; waits until it listens.
class Gateway {
 public:
  /// Throws std::runtime_error (with the gateway's stderr) if it does not start listening.
  Gateway(const std::filesystem::path& home, const std::vector<std::string>& extra_args = {},
          const std::map<std::string, std::string>& env = {});
  int port() const { return port_; }
  Process& process() { return process_; }
  /// Waits (a generous 60 s) until the gateway's stderr after byte `from` contains `text`.
  bool wait_for_stderr(const std::string& text, std::size_t from = 0);

 private:
  Process process_;
  int port_ = 0;
};

/// Runs `pincer <args>` to completion (for start-up failures): {exit code, stdout, stderr}.
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
RunResult run_pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                     std::chrono::milliseconds timeout = 10s);

/// The environment of a CLI run on the home `home` with none of the developer's gateway settings
/// (PINCER_GATEWAY_TOKEN, _PASSWORD, _URL, _PORT removed) and XDG_CONFIG_HOME inside the home;
/// `extra` on top ("\x01" removes a variable, as run_pincer reads it).
std::map<std::string, std::string> isolated_cli_env(const std::filesystem::path& home,
                                                    const std::map<std::string, std::string>& extra = {});

/// Path of the binary under test (PINCER_BINARY compile definition).
std::string pincer_binary();

/// Absolute path of `name` found on $PATH, or "" when absent.
std::string find_on_path(const std::string& name);

/// The mock LLM server (tests/mock_llm/mock-llm.mjs) on an ephemeral loopback port.
class MockLlm {
 public:
  /// `extra_args` e.g. {"--api-key", "k"}. Throws std::runtime_error when node is missing or
  /// the server does not start.
  explicit MockLlm(const std::vector<std::string>& extra_args = {});
  int port() const { return port_; }
  /// "http://127.0.0.1:<port>/v1"
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  std::unique_ptr<Process> process_;
  int port_ = 0;
};

}  // namespace pincer::test
