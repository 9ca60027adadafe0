#include "tools/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pincer::tools {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// How long to keep reading after the shell exits while a grandchild still holds the pipe.
constexpr milliseconds kDrainAfterExit{200};
/// Poll tick: bounds how late a timeout or stop request is noticed.
constexpr int kTickMs = 50;

class SpawnResources {
 public:
  SpawnResources() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnResources() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnResources(const SpawnResources&) = delete;
  SpawnResources& operator=(const SpawnResources&) = delete;

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
};

/// stdin from /dev/null, stdout+stderr to `out_fd`, cwd, nothing else inherited; own process
/// group; default dispositions for signals the gateway may ignore or block.
int prepare(SpawnResources& r, int out_fd, const std::filesystem::path& cwd) {
  int rc = 0;
  auto step = [&rc](int result) {
    if (rc == 0) rc = result;
  };
  step(posix_spawn_file_actions_addopen(&r.actions, 0, "/dev/null", O_RDONLY, 0));
  step(posix_spawn_file_actions_adddup2(&r.actions, out_fd, 1));
  step(posix_spawn_file_actions_adddup2(&r.actions, out_fd, 2));
  step(posix_spawn_file_actions_addchdir_np(&r.actions, cwd.c_str()));
  step(posix_spawn_file_actions_addclosefrom_np(&r.actions, 3));

  sigset_t mask;
  sigemptyset(&mask);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN,
                  SIGTTOU, SIGXFSZ}) {
    sigaddset(&defaults, sig);
  }
  step(posix_spawnattr_setflags(&r.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  step(posix_spawnattr_setpgroup(&r.attr, 0));
  step(posix_spawnattr_setsigmask(&r.attr, &mask));
  step(posix_spawnattr_setsigdefault(&r.attr, &defaults));
  return rc;
}

}  // namespace

Result<std::shared_ptr<ManagedProcess>> ManagedProcess::spawn(SpawnOptions options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{"SPAWN_FAILED", std::string("pipe: ") + std::strerror(errno)};
  SpawnResources r;
  int rc = prepare(r, fds[1], options.cwd);

  std::string sh = "/bin/sh", dash_c = "-c";
  char* argv[] = {sh.data(), dash_c.data(), options.command.data(), nullptr};
  std::vector<char*> envp;
  for (auto& kv : options.env) envp.push_back(kv.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  if (rc == 0) rc = ::posix_spawn(&pid, "/bin/sh", &r.actions, &r.attr, argv, envp.data());
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return Error{"SPAWN_FAILED", "cannot start /bin/sh in " + options.cwd.string() + ": " + std::strerror(rc)};
  }
  return std::shared_ptr<ManagedProcess>(new ManagedProcess(std::move(options), pid, fds[0]));
}

ManagedProcess::ManagedProcess(SpawnOptions options, pid_t pid, int out_fd)
    : options_(std::move(options)),
      pid_(pid),
      out_fd_(out_fd),
      started_(Clock::now()),
      started_wall_(std::chrono::system_clock::now()),
      out_(options_.head_bytes, options_.tail_bytes) {
  status_.pid = pid;
  status_.timeout = options_.timeout;
  pump_ = std::thread(&ManagedProcess::pump, this);
}

ManagedProcess::~ManagedProcess() {
  stop(StopReason::kKilled);  // no-op when already finished
  if (pump_.joinable()) pump_.join();
}

void ManagedProcess::stop(StopReason reason) {
  StopReason none = StopReason::kNone;
  stop_request_.compare_exchange_strong(none, reason);
}

void ManagedProcess::pump() {
  std::vector<char> buf(64 * 1024);
  bool eof = false, exited = false, term_sent = false, kill_sent = false;
  Clock::time_point exited_at{}, term_at{};
  const std::optional<Clock::time_point> deadline =
      options_.timeout.count() > 0 ? std::optional(started_ + options_.timeout) : std::nullopt;

  for (;;) {
    const auto now = Clock::now();
    if (deadline && now >= *deadline) stop(StopReason::kTimeout);
    if (stop_request_.load() != StopReason::kNone && !exited && !term_sent) {
      ::kill(-pid_, SIGTERM);
      term_sent = true;
      term_at = now;
    }
    if (term_sent && !kill_sent && (exited || now - term_at >= options_.kill_grace)) {
      ::kill(-pid_, SIGKILL);  // also reaches group members that outlived the shell
      kill_sent = true;
    }
    if (!exited) {
      int ws = 0;
      if (::waitpid(pid_, &ws, WNOHANG) == pid_) {
        exited = true;
        exited_at = now;
        record_exit(ws);
        continue;  // let the SIGKILL step above run for stragglers
      }
    }
    if (exited && (eof || now - exited_at >= kDrainAfterExit)) break;
    if (eof) {
      std::this_thread::sleep_for(milliseconds(10));
      continue;
    }
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, kTickMs) <= 0) continue;
    ssize_t n = ::read(out_fd_, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      eof = true;
      continue;
    }
    std::lock_guard lock(mu_);
    out_.append(std::string_view(buf.data(), static_cast<size_t>(n)));
    cv_.notify_all();
  }
  ::close(out_fd_);
  std::lock_guard lock(mu_);
  status_.finished = true;
  status_.stopped_by = term_sent ? stop_request_.load() : StopReason::kNone;
  cv_.notify_all();
}

void ManagedProcess::record_exit(int ws) {
  std::lock_guard lock(mu_);
  if (WIFEXITED(ws)) status_.exit_code = WEXITSTATUS(ws);
  if (WIFSIGNALED(ws)) status_.signal = WTERMSIG(ws);
  status_.runtime = std::chrono::duration_cast<milliseconds>(Clock::now() - started_);
}

bool ManagedProcess::wait_for(milliseconds d) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, d, [this] { return status_.finished; });
}

void ManagedProcess::wait_for_output(uint64_t offset, milliseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return status_.finished || out_.total() > offset; });
}

ProcessStatus ManagedProcess::status() const {
  std::lock_guard lock(mu_);
  ProcessStatus s = status_;
  if (!s.finished) s.runtime = std::chrono::duration_cast<milliseconds>(Clock::now() - started_);
  return s;
}

std::string ManagedProcess::output() const {
  std::lock_guard lock(mu_);
  return out_.render();
}

OutputBuffer::Slice ManagedProcess::output_from(uint64_t offset, std::size_t max_bytes) const {
  std::lock_guard lock(mu_);
  return out_.read_from(offset, max_bytes);
}

uint64_t ManagedProcess::output_total() const {
  std::lock_guard lock(mu_);
  return out_.total();
}

uint64_t ManagedProcess::output_dropped() const {
  std::lock_guard lock(mu_);
  return out_.dropped();
}

}  // namespace pincer::tools
