#include "tools/child_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tools/process_guard.h"

namespace pincer::tools {
namespace {

/// What the forked child reports through the status pipe when it cannot exec.
struct ChildFailure {
  int stage;  // 0 = chdir, 1 = execve
  int error;
};

/// Runs in the forked child; never returns.
[[noreturn]] void exec_child(const ChildExecPlan& plan, pid_t parent, int status_fd, int guard_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent thread died before the prctl
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &sa, nullptr);  // a dead guard must not kill us mid-registration
  process_guard::register_group_from_child(guard_fd, ::getpid());
  process_guard::drop_ptrace_capability_in_child();

  sa.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &sa, nullptr);  // EINVAL for reserved ones
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  if (plan.in_fd >= 0) {
    ::dup2(plan.in_fd, 0);
  } else if (const int devnull = ::open("/dev/null", O_RDONLY); devnull >= 0 && devnull != 0) {
    ::dup2(devnull, 0);
    ::close(devnull);
  }
  ::dup2(plan.out_fd, 1);
  ::dup2(plan.err_fd, 2);
  if (plan.nofile_soft != 0) {  // the limit the gateway started with, not its raised one
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && plan.nofile_soft < lim.rlim_cur) {
      lim.rlim_cur = plan.nofile_soft;
      ::setrlimit(RLIMIT_NOFILE, &lim);
    }
  }
  ChildFailure failure{0, 0};
  if ((plan.cwd_fd >= 0 ? ::fchdir(plan.cwd_fd) : ::chdir(plan.cwd)) != 0) {
    failure.error = errno;
  } else {
    // Keep only 0-2 and the status pipe (close-on-exec: EOF tells the parent exec worked).
    const unsigned keep = static_cast<unsigned>(status_fd);
    if (keep > 3) ::close_range(3, keep - 1, 0);
    ::close_range(keep >= 3 ? keep + 1 : 3, ~0U, 0);
    ::execve(plan.program, plan.argv, plan.envp);
    failure = {1, errno};
  }
  while (::write(status_fd, &failure, sizeof failure) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

}  // namespace

Result<pid_t> fork_exec(const ChildExecPlan& plan) {
  int status[2];
  if (::pipe2(status, O_CLOEXEC) != 0) return Error{"SPAWN_FAILED", std::string("pipe: ") + std::strerror(errno)};
  const pid_t parent = ::getpid();
  const int guard_fd = process_guard::lifeline_fd();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(plan, parent, status[1], guard_fd);
  const int fork_errno = errno;
  ::close(status[1]);
  if (pid < 0) {
    ::close(status[0]);
    return Error{"SPAWN_FAILED", std::string("fork: ") + std::strerror(fork_errno)};
  }
  ::setpgid(pid, pid);  // also here, so a group kill right after spawn cannot miss (EACCES after exec: fine)
  ChildFailure failure{};
  ssize_t n;
  while ((n = ::read(status[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  ::close(status[0]);
  if (n != static_cast<ssize_t>(sizeof failure)) return pid;  // EOF: exec'd
  int ws = 0;
  while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  return Error{"SPAWN_FAILED", std::string(failure.stage == 0 ? "chdir: " : "") + std::strerror(failure.error)};
}

}  // namespace pincer::tools
