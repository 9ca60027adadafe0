#include "gateway_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <random>
#include <stdexcept>

extern char** environ;

namespace pincer::test {

namespace {
int64_t ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() / ("pincer-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void TempDir::write(const std::string& name, const std::string& text) const {
  auto p = path_ / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string pincer_binary() {
#ifdef PINCER_BINARY
  return PINCER_BINARY;
#else
  return "pincer";
#endif
}

Process::Process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) {
    if (v == "\x01") merged.erase(k);
    else merged[k] = v;
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (rc != 0) throw std::runtime_error("spawn " + argv[0] + " failed: " + std::strerror(rc));
  ::fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
}

Process::~Process() {
  if (!exit_code_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void Process::signal(int signo) const { ::kill(pid_, signo); }

void Process::pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  ::poll(fds, 2, timeout_ms);
  char buf[4096];
  for (auto [fd, sink] : {std::pair{out_fd_, &out_}, std::pair{err_fd_, &err_}}) {
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      sink->append(buf, static_cast<size_t>(n));
    }
  }
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  while (!exit_code_) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (ms_since(start) >= timeout.count()) return std::nullopt;
    pump(5);
  }
  pump(0);
  return exit_code_;
}

std::optional<std::string> Process::wait_for_stdout(const std::string& needle, std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  while (true) {
    auto pos = out_.find(needle);
    if (pos != std::string::npos) {
      auto begin = out_.rfind('\n', pos);
      begin = begin == std::string::npos ? 0 : begin + 1;
      auto end = out_.find('\n', pos);
      if (end != std::string::npos) return out_.substr(begin, end - begin);
    }
    if (ms_since(start) >= timeout.count()) return std::nullopt;
    int status = 0;
    if (!exit_code_ && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    pump(exit_code_ ? 0 : 20);
    if (exit_code_ && out_.find(needle) == std::string::npos) return std::nullopt;
  }
}

const std::string& Process::out() {
  pump(0);
  return out_;
}
const std::string& Process::err() {
  pump(0);
  return err_;
}

bool Gateway::wait_for_stderr(const std::string& text, std::size_t from) {
  for (int i = 0; i < 1200; ++i) {
    if (process_.err().find(text, from) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

Gateway::Gateway(const std::filesystem::path& home, const std::vector<std::string>& extra_args,
                 const std::map<std::string, std::string>& env)
    : process_([&] {
        std::vector<std::string> argv = {pincer_binary(), "gateway", "run"};
        // Any free port, unless the test names one (a restart on the port its clients know).
        if (std::find(extra_args.begin(), extra_args.end(), "--port") == extra_args.end()) argv.insert(argv.end(), {"--port", "0"});
        argv.insert(argv.end(), extra_args.begin(), extra_args.end());
        return argv;
      }(),
               [&] {
                 // A proxy in the developer's environment must not reroute the tests' loopback
                 // traffic; tests that want one set it explicitly.
                 std::map<std::string, std::string> e = {{"HTTP_PROXY", "\x01"}, {"http_proxy", "\x01"},
                                                         {"HTTPS_PROXY", "\x01"}, {"https_proxy", "\x01"},
                                                         {"ALL_PROXY", "\x01"}, {"all_proxy", "\x01"}};
                 for (const auto& [k, v] : env) e[k] = v;
                 e["PINCER_HOME"] = home.string();
                 return e;
               }()) {
  // A bound for a loaded machine (an ASan build beside others), not a timing: it returns as soon as it listens.
  auto line = process_.wait_for_stdout("listening on ws://", std::chrono::seconds(60));
  if (!line) throw std::runtime_error("gateway did not start; stderr: " + process_.err());
  auto colon = line->rfind(':', line->find(' ', line->find("ws://")));
  port_ = std::stoi(line->substr(colon + 1));
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

MockLlm::MockLlm(const std::vector<std::string>& extra_args) {
  const std::string node = find_on_path("node");
  if (node.empty()) throw std::runtime_error("node is not installed (needed for the mock LLM server)");
  std::vector<std::string> argv = {node, std::string(PINCER_SOURCE_DIR) + "/tests/mock_llm/mock-llm.mjs", "--port", "0"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  process_ = std::make_unique<Process>(argv, std::map<std::string, std::string>{});
  auto line = process_->wait_for_stdout("mock-llm listening on http://127.0.0.1:", std::chrono::seconds(60));
  if (!line) throw std::runtime_error("mock LLM did not start: " + process_->err());
  port_ = std::stoi(line->substr(line->rfind(':') + 1));
}

std::map<std::string, std::string> isolated_cli_env(const std::filesystem::path& home,
                                                    const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> e = {{"PINCER_HOME", home.string()},
                                          {"XDG_CONFIG_HOME", (home / "xdg").string()},
                                          {"PINCER_GATEWAY_TOKEN", "\x01"},
                                          {"PINCER_GATEWAY_PASSWORD", "\x01"},
                                          {"PINCER_GATEWAY_URL", "\x01"},
                                          {"PINCER_GATEWAY_PORT", "\x01"}};
  for (const auto& [k, v] : extra) e[k] = v;
  return e;
}

RunResult run_pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                     std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {pincer_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, env);
  RunResult r;
  auto code = p.wait(timeout);
  r.exit_code = code.value_or(-1);
  r.out = p.out();
  r.err = p.err();
  return r;
}

}  // namespace pincer::test
