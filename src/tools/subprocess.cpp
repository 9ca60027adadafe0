#include "tools/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <spdlog/spdlog.h>

#include "core/descriptor_limit.h"
#include "core/redact.h"
#include "tools/child_exec.h"
#include "tools/process_guard.h"

namespace pincer::tools {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// How long to keep reading after the shell exits while a grandchild still holds the pipe.
constexpr milliseconds kDrainAfterExit{200};
/// Poll tick: bounds how late a timeout or stop request is noticed.
constexpr int kTickMs = 50;
/// Longest command text in a log line.
constexpr size_t kMaxLoggedCommand = 400;

/// The command for one log line: secrets redacted, control characters escaped (no forged
/// lines), long commands shortened.
std::string loggable(const std::string& command) {
  std::string r = redact::apply(command);
  std::string out;
  for (unsigned char c : r) {
    if (out.size() >= kMaxLoggedCommand && (c & 0xC0) != 0x80) {  // cut between UTF-8 sequences
      out += "…";
      break;
    }
    if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) out += ' ';
    else out += static_cast<char>(c);
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<ManagedProcess>> ManagedProcess::spawn(SpawnOptions options) {
  process_guard::protect_this_process();  // for hosts other than the gateway (agent --local)
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{"SPAWN_FAILED", std::string("pipe: ") + std::strerror(errno)};
  std::shared_ptr<ManagedProcess> proc(new ManagedProcess(std::move(options), fds[0], fds[1]));
  if (auto started = proc->spawned_.get_future().get(); !started) {
    proc->pump_.join();  // it has already returned
    return started.error();
  }
  return proc;
}

ManagedProcess::ManagedProcess(SpawnOptions options, int out_fd, int child_out_fd)
    : options_(std::move(options)),
      out_fd_(out_fd),
      started_steady_(Clock::now()),
      started_wall_(std::chrono::system_clock::now()),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      out_(options_.head_bytes, options_.tail_bytes) {
  status_.timeout = options_.timeout;
  pump_ = std::thread(&ManagedProcess::run, this, child_out_fd);
}

void ManagedProcess::run(int child_out_fd) {
  // Forked here, not by the caller: PR_SET_PDEATHSIG fires when the *thread* that forked ends,
  // and this thread ends only after the shell has been reaped.
  auto started = fork_child(child_out_fd);
  ::close(child_out_fd);
  if (!started) {
    ::close(out_fd_);
    spawned_.set_value(started.error());
    return;
  }
  pid_ = *started;
  {
    std::lock_guard lock(mu_);
    status_.pid = pid_;
  }
  if (options_.log) spdlog::info("exec: started pid {} in {}: {}", pid_, options_.cwd.string(), loggable(options_.command));
  spawned_.set_value(Ok{});
  pump();
  if (options_.log) log_end();
}

Result<pid_t> ManagedProcess::fork_child(int child_out_fd) {
  std::vector<std::string> args = options_.wrapper;
  for (const char* a : {"/bin/sh", "-c"}) args.emplace_back(a);
  args.push_back(options_.command);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string program = args.front();
  std::vector<std::string> env = options_.env;
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  const std::string cwd = options_.cwd.string();
  // stdin /dev/null, stdout and stderr to the pipe; killed with the pump thread, which forks it
  // and lives until the shell is reaped (child_exec.h).
  ChildExecPlan plan;
  plan.out_fd = plan.err_fd = child_out_fd;
  plan.cwd_fd = options_.cwd_fd;
  plan.cwd = cwd.c_str();
  plan.program = program.c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.nofile_soft = static_cast<rlim_t>(original_descriptor_soft_limit());
  auto pid = fork_exec(plan);
  if (!pid) return Error{"SPAWN_FAILED", "cannot start " + program + " in " + cwd + ": " + pid.error().message};
  return *pid;
}

void ManagedProcess::log_end() const {
  const ProcessStatus st = status();
  std::string how = st.exit_code ? "exit code " + std::to_string(*st.exit_code)
                    : st.signal ? "signal " + std::to_string(*st.signal)
                                : "no exit status";
  switch (st.stopped_by) {
    case StopReason::kTimeout: how += ", timed out"; break;
    case StopReason::kCancelled: how += ", cancelled"; break;
    case StopReason::kKilled: how += ", killed"; break;
    case StopReason::kNone: break;
  }
  const std::string session = background_session();
  spdlog::info("exec: pid {} ended ({}) after {} ms{}: {}", st.pid, how, st.runtime.count(),
               session.empty() ? "" : " (background session " + session + ")", loggable(options_.command));
}

void ManagedProcess::set_background_session(std::string id) {
  {
    std::lock_guard lock(mu_);
    background_session_ = id;
  }
  spdlog::info("exec: pid {} continues in the background as session {}", pid_, id);
}

std::string ManagedProcess::background_session() const {
  std::lock_guard lock(mu_);
  return background_session_;
}

ManagedProcess::~ManagedProcess() {
  stop(StopReason::kKilled);  // no-op when already finished
  if (pump_.joinable()) pump_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void ManagedProcess::stop(StopReason reason) {
  StopReason none = StopReason::kNone;
  if (!stop_request_.compare_exchange_strong(none, reason) || wake_fd_ < 0) return;
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);  // wakes the pump's poll()
}

void ManagedProcess::pump() {
  std::vector<char> buf(64 * 1024);
  bool eof = false, exited = false, term_sent = false, kill_sent = false;
  Clock::time_point exited_at{}, term_at{};
  const bool has_deadline = options_.timeout.count() > 0;
  const Clock::time_point deadline = started_steady_ + options_.timeout;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));  // readable once the child exits

  for (;;) {
    const auto now = Clock::now();
    if (has_deadline && now >= deadline) stop(StopReason::kTimeout);
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

    // Sleep until output, the child's exit (pidfd), a stop request (wake_fd_) or the next
    // deadline; without a pidfd (kernel < 5.3) the child is checked every tick.
    int timeout_ms = -1;
    const auto until = [&](Clock::time_point t) {
      const auto ms = std::chrono::duration_cast<milliseconds>(t - now).count() + 1;
      const int m = static_cast<int>(std::clamp<int64_t>(ms, 0, 60'000));
      timeout_ms = timeout_ms < 0 ? m : std::min(timeout_ms, m);
    };
    if (has_deadline && !term_sent) until(deadline);
    if (term_sent && !kill_sent) until(term_at + options_.kill_grace);
    if (exited) until(exited_at + kDrainAfterExit);
    if (pidfd < 0 && !exited) until(now + milliseconds(kTickMs));
    pollfd fds[3];
    nfds_t nfds = 0;
    const int out_slot = eof ? -1 : static_cast<int>(nfds);
    if (!eof) fds[nfds++] = {out_fd_, POLLIN, 0};
    if (pidfd >= 0 && !exited) fds[nfds++] = {pidfd, POLLIN, 0};
    if (wake_fd_ >= 0) fds[nfds++] = {wake_fd_, POLLIN, 0};
    if (::poll(fds, nfds, timeout_ms) <= 0) continue;
    if (wake_fd_ >= 0 && (fds[nfds - 1].revents & POLLIN)) {
      uint64_t count = 0;
      (void)!::read(wake_fd_, &count, sizeof count);
    }
    if (out_slot < 0 || fds[out_slot].revents == 0) continue;
    ssize_t n = ::read(out_fd_, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      eof = true;
      continue;
    }
    {
      std::lock_guard lock(mu_);
      out_.append(std::string_view(buf.data(), static_cast<size_t>(n)));
      cv_.notify_all();
    }
    if (options_.on_output) options_.on_output();
  }
  ::close(out_fd_);
  if (pidfd >= 0) ::close(pidfd);
  {
    std::lock_guard lock(mu_);
    status_.finished = true;
    status_.stopped_by = term_sent ? stop_request_.load() : StopReason::kNone;
    cv_.notify_all();
  }
  if (options_.on_output) options_.on_output();
}

void ManagedProcess::record_exit(int ws) {
  std::lock_guard lock(mu_);
  if (WIFEXITED(ws)) status_.exit_code = WEXITSTATUS(ws);
  if (WIFSIGNALED(ws)) status_.signal = WTERMSIG(ws);
  status_.runtime = std::chrono::duration_cast<milliseconds>(Clock::now() - started_steady_);
}

bool ManagedProcess::wait_for(milliseconds d) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, d, [this] { return status_.finished; });
}

void ManagedProcess::wait_for_output(uint64_t offset, milliseconds d, const CancelSignal* cancel) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return status_.finished || out_.total() > offset || (cancel && cancel->cancelled()); });
}

void ManagedProcess::wake_waiters() {
  std::lock_guard lock(mu_);  // a waiter between its check and its wait is not missed
  cv_.notify_all();
}

ProcessStatus ManagedProcess::status() const {
  std::lock_guard lock(mu_);
  ProcessStatus s = status_;
  if (!s.finished) s.runtime = std::chrono::duration_cast<milliseconds>(Clock::now() - started_steady_);
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
