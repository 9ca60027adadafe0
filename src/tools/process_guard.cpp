#include "tools/process_guard.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

extern char** environ;

namespace pincer::tools::process_guard {
namespace {

/// Groups the guard can track at once; more are not registered (the shells' PDEATHSIG remains).
constexpr int kMaxGroups = 4096;
/// How often the guard forgets groups that have no members left (bounds pgid-reuse exposure).
constexpr int kPruneMs = 1000;

/// The guard's main loop, in the forked child. Only async-signal-safe calls: this child of a
/// multi-threaded process may not allocate or take locks.
[[noreturn]] void guard_main(int lifeline) {
  ::prctl(PR_SET_DUMPABLE, 0);
  ::prctl(PR_SET_NAME, "pincer-guard");
  ::setpgid(0, 0);  // group signals aimed at the gateway (Ctrl-C, kill -- -pgid) miss the guard
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2}) {
    ::sigaction(sig, &ign, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (lifeline != 0) {
    ::dup2(lifeline, 0);
    ::close(lifeline);
  }
  const int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
  }
  ::close_range(3, ~0U, 0);  // the state-dir lock, sockets, log files: none of them stay open here

  static pid_t groups[kMaxGroups];
  int count = 0;
  for (;;) {
    pollfd p{0, POLLIN, 0};
    const int ready = ::poll(&p, 1, count > 0 ? kPruneMs : -1);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      int32_t rec[16];
      const ssize_t n = ::read(0, rec, sizeof rec);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;  // the parent is gone
      for (ssize_t i = 0; n > 0 && i < n / static_cast<ssize_t>(sizeof(int32_t)); ++i) {
        if (rec[i] > 1 && count < kMaxGroups) groups[count++] = rec[i];
      }
    }
    for (int i = 0; i < count;) {  // forget empty groups
      if (::kill(-groups[i], 0) != 0 && errno == ESRCH) groups[i] = groups[--count];
      else ++i;
    }
  }
  for (int i = 0; i < count; ++i) ::kill(-groups[i], SIGKILL);
  ::_exit(0);
}

int start_guard() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    spdlog::warn("exec: cannot create the process guard's pipe: {}", std::strerror(errno));
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    spdlog::warn("exec: cannot start the process guard: {}", std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::close(fds[1]);
    guard_main(fds[0]);
  }
  ::close(fds[0]);
  // The guard is never waited for: it exits only after this process is gone. Its pid is logged
  // so that an operator can tell what the extra process is.
  spdlog::debug("exec: process guard started (pid {})", pid);
  return fds[1];
}

/// [env_start, env_end) of this process: the block /proc/<pid>/environ shows (proc(5) stat
/// fields 50 and 51). Nullopt when /proc is unreadable.
std::optional<std::pair<uintptr_t, uintptr_t>> environment_block() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  uintptr_t start = 0, end = 0;
  for (int n = 3; fields >> field; ++n) {  // field 3 is the state
    if (n == 50) start = std::strtoull(field.c_str(), nullptr, 10);
    if (n == 51) {
      end = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  if (start == 0 || end <= start) return std::nullopt;
  return std::pair{start, end};
}

/// Moves the environment to the heap and zeroes the kernel's copy, so that /proc/<pid>/environ
/// reads as NULs even for a reader the kernel lets in (root keeps CAP_DAC_READ_SEARCH).
void scrub_environment_block() {
  auto block = environment_block();
  if (!block) return;
  // The environment from now on: never freed, so that getenv() stays valid during exit (held by
  // statics so that LeakSanitizer sees them reachable).
  static auto* strings = new std::vector<std::string>;
  static auto* pointers = new std::vector<char*>;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) strings->emplace_back(*e);
  for (auto& s : *strings) pointers->push_back(s.data());
  pointers->push_back(nullptr);
  environ = pointers->data();
  std::memset(reinterpret_cast<void*>(block->first), 0, block->second - block->first);
}

}  // namespace

void protect_this_process() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::prctl(PR_SET_DUMPABLE, 0);
    scrub_environment_block();
  });
}

int lifeline_fd() {
  static std::once_flag once;
  static int fd = -1;
  std::call_once(once, [] { fd = start_guard(); });
  return fd;
}

void register_group_from_child(int fd, pid_t pgid) noexcept {
  if (fd < 0) return;
  const int32_t rec = static_cast<int32_t>(pgid);
  while (::write(fd, &rec, sizeof rec) < 0 && errno == EINTR) {
  }
}

void drop_ptrace_capability_in_child() noexcept {
  if (::prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE) == 1) ::prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE);
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) return;
  const uint32_t bit = 1U << (CAP_SYS_PTRACE % 32);
  auto& d = data[CAP_SYS_PTRACE / 32];
  if (((d.effective | d.permitted | d.inheritable) & bit) == 0) return;
  d.effective &= ~bit;
  d.permitted &= ~bit;
  d.inheritable &= ~bit;
  ::syscall(SYS_capset, &header, data);
}

}  // namespace pincer::tools::process_guard
