// The stdio transport of the MCP client (mcp_transport.h): one child process per server, its
// stdin/stdout/stderr on pipes read and written through Asio as the loop sees them ready, its exit
// seen through a pidfd. tools::ManagedProcess (the exec tool's spawner) gives a child no stdin and
// merges stdout with stderr, so it cannot carry a protocol; the child set-up here takes the same
// steps (own process group registered with the process guard, PR_SET_PDEATHSIG, no
// CAP_SYS_PTRACE, default signals, nothing inherited beyond 0-2).
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <spdlog/spdlog.h>

#include "core/redact.h"
#include "interop/jsonrpc/jsonrpc.h"
#include "interop/mcp/mcp_transport.h"
#include "tools/child_exec.h"
#include "tools/exec_tool.h"
#include "tools/process_guard.h"

namespace pincer::interop::mcp {

namespace detail_net_mcp_stdio {

namespace asio = boost::asio;
using Descriptor = asio::posix::stream_descriptor;

constexpr std::size_t kStderrTailBytes = 2048;
constexpr int kKillGraceMs = 2000;

std::string env_value(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& kv : env) {
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=') {
      return kv.substr(name.size() + 1);
    }
  }
  return "";
}

/// The program to execve: a name is looked up on the child's PATH; a path is used as given.
Result<std::string> resolve_program(const std::string& command, const std::vector<std::string>& env) {
  if (command.find('/') != std::string::npos) return command;
  const std::string path = env_value(env, "PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    start = end + 1;
  }
  return Error{"MCP_SPAWN_FAILED", "command \"" + command + "\" not found on PATH"};
}

std::map<std::string, std::string> gateway_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    if (auto eq = kv.find('='); eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

std::string describe_wait_status(int ws) {
  if (WIFEXITED(ws)) return "exited with code " + std::to_string(WEXITSTATUS(ws));
  if (WIFSIGNALED(ws)) return "killed by signal " + std::to_string(WTERMSIG(ws));
  return "ended";
}

/// Shared with the pending Asio operations: lives until the last of them has run.
struct State : std::enable_shared_from_this<State> {
  explicit State(asio::io_context& io) : in(io), out(io), err(io), exit_fd(io), kill_timer(io) {}

  Descriptor in, out, err, exit_fd;
  asio::steady_timer kill_timer;
  pid_t pid = 0;
  std::string name;
  Transport::Handlers handlers;
  jsonrpc::LineFramer framer;
  std::deque<std::string> queue;
  bool writing = false;
  bool closed = false;   // close() called: no handler runs again
  bool reported = false; // on_closed given
  bool reaped = false;
  std::string stderr_tail;
  std::array<char, 65536> out_buf{};
  std::array<char, 4096> err_buf{};

  void report(const std::string& reason) {
    if (closed || reported) return;
    reported = true;
    if (handlers.on_closed) handlers.on_closed(reason);
  }

  void read_out() {
    out.async_read_some(asio::buffer(out_buf), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
      if (self->closed) return;
      if (ec) return;  // EOF or error: the exit (pidfd) reports why
      self->framer.feed(
          std::string_view(self->out_buf.data(), n),
          [&](std::string_view line) {
            if (!self->closed && !self->reported && self->handlers.on_message) self->handlers.on_message(line);
          },
          [&](std::size_t seen) {
            self->report("the server wrote a line of more than " + std::to_string(seen) + " bytes (limit 16 MiB)");
          });
      if (!self->closed) self->read_out();
    });
  }

  void read_err() {
    err.async_read_some(asio::buffer(err_buf), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
      if (ec) return;
      self->stderr_tail.append(self->err_buf.data(), n);
      if (self->stderr_tail.size() > kStderrTailBytes) self->stderr_tail.erase(0, self->stderr_tail.size() - kStderrTailBytes);
      self->read_err();
    });
  }

  void wait_exit() {
    exit_fd.async_wait(Descriptor::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec == asio::error::operation_aborted) return;
      int ws = 0;
      pid_t r;
      while ((r = ::waitpid(self->pid, &ws, WNOHANG)) < 0 && errno == EINTR) {
      }
      if (r == 0) return self->wait_exit();  // spurious wake-up
      self->reaped = true;
      self->kill_timer.cancel();
      boost::system::error_code ignored;
      self->exit_fd.close(ignored);
      const std::string how = describe_wait_status(ws);
      spdlog::info("mcp {}: pid {} {}", self->name, self->pid, how);
      self->report("the server process " + how);
    });
  }

  void write_next() {
    if (writing || queue.empty() || !in.is_open()) return;
    writing = true;
    asio::async_write(in, asio::buffer(queue.front()), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
      self->writing = false;
      if (!self->queue.empty()) self->queue.pop_front();
      if (ec) {
        if (ec != asio::error::operation_aborted) self->report("cannot write to the server's stdin: " + ec.message());
        return;
      }
      self->write_next();
    });
  }

  void stop() {
    if (closed) return;
    closed = true;
    boost::system::error_code ignored;
    in.close(ignored);  // the polite stop of MCP's stdio transport: stdin closed, then signals
    out.close(ignored);
    err.close(ignored);
    if (reaped || pid <= 0) return;
    ::kill(-pid, SIGTERM);
    kill_timer.expires_after(std::chrono::milliseconds(kKillGraceMs));
    kill_timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->reaped) return;
      ::kill(-self->pid, SIGKILL);
    });
  }
};

class StdioTransport final : public Transport {
 public:
  StdioTransport(EventLoop& loop, ServerConfig config, std::string default_cwd)
      : loop_(loop), config_(std::move(config)), default_cwd_(std::move(default_cwd)) {}
  ~StdioTransport() override {
    if (state_) state_->stop();
  }

  Status start(Handlers handlers) override {
    tools::process_guard::protect_this_process();
    std::vector<std::string> env = tools::child_environment(gateway_environment(), config_.env);
    auto program = resolve_program(config_.command, env);
    if (!program) return program.error();
    const std::string cwd = config_.cwd.empty() ? default_cwd_ : config_.cwd;
    std::vector<std::string> args{config_.command};
    for (const auto& a : config_.args) args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& kv : env) envp.push_back(kv.data());
    envp.push_back(nullptr);

    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
      close_all({in_pipe[0], in_pipe[1]});
      return fail_errno("pipe");
    }
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
      close_all({in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]});
      return fail_errno("pipe");
    }
    tools::ChildExecPlan plan;  // killed with the loop thread that forks it (tools/child_exec.h)
    plan.in_fd = in_pipe[0];
    plan.out_fd = out_pipe[1];
    plan.err_fd = err_pipe[1];
    plan.cwd = cwd.c_str();
    plan.program = program->c_str();
    plan.argv = argv.data();
    plan.envp = envp.data();
    auto forked = tools::fork_exec(plan);
    close_all({in_pipe[0], out_pipe[1], err_pipe[1]});
    if (!forked) {
      close_all({in_pipe[1], out_pipe[0], err_pipe[0]});
      return Error{"MCP_SPAWN_FAILED", "cannot start " + config_.command + " in " + cwd + ": " + forked.error().message};
    }
    const pid_t pid = *forked;
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
      const int e = errno;
      ::kill(-pid, SIGKILL);
      int ws = 0;
      ::waitpid(pid, &ws, 0);
      close_all({in_pipe[1], out_pipe[0], err_pipe[0]});
      errno = e;
      return fail_errno("pidfd_open");
    }
    state_ = std::make_shared<State>(loop_.context());
    state_->pid = pid;
    state_->name = config_.name;
    state_->handlers = std::move(handlers);
    state_->in.assign(in_pipe[1]);
    state_->out.assign(out_pipe[0]);
    state_->err.assign(err_pipe[0]);
    state_->exit_fd.assign(pidfd);
    spdlog::info("mcp {}: started pid {} in {}: {}", config_.name, pid, cwd, redact::apply(config_.command));
    state_->read_out();
    state_->read_err();
    state_->wait_exit();
    return Ok{};
  }

  void send(std::string message) override {
    if (!state_ || state_->closed) return;
    message.push_back('\n');
    state_->queue.push_back(std::move(message));
    state_->write_next();
  }

  void close() override {
    if (state_) state_->stop();
  }

  std::string stderr_tail() const override { return state_ ? state_->stderr_tail : ""; }
  int pid() const override { return state_ ? static_cast<int>(state_->pid) : 0; }

 private:
  static void close_all(std::initializer_list<int> fds) {
    for (int fd : fds) ::close(fd);
  }
  static Error fail_errno(const char* what) {
    return Error{"MCP_SPAWN_FAILED", std::string(what) + ": " + std::strerror(errno)};
  }

  EventLoop& loop_;
  ServerConfig config_;
  std::string default_cwd_;
  std::shared_ptr<State> state_;
};

}  // namespace detail_net_mcp_stdio

std::unique_ptr<Transport> make_stdio_transport(EventLoop& loop, const ServerConfig& config, const std::string& default_cwd) {
  return std::make_unique<detail_net_mcp_stdio::StdioTransport>(loop, config, default_cwd);
}

}  // namespace pincer::interop::mcp
