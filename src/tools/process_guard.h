// Keeps what tools run from outliving, or reading, the process that started them (issue 11 §4,
// issue 22 §3).
//
// - Lifeline: a tiny guard process, forked on first use, holds the read end of a pipe whose only
//   write end (close-on-exec) is in this process. Every exec child registers its process group
//   through that pipe *before* it execs the command; when this process dies in any way (kill -9
//   included) the pipe reaches EOF and the guard SIGKILLs every registered group, so background
//   grandchildren (`sleep 60 &`) die too. The guard sits in its own process group and ignores
//   the terminal's and systemd's polite signals, so it outlives its parent by design; it forgets a
//   group about a second after the group is empty. Commands that leave their process group
//   (`setsid`, `setpgid`) are beyond its reach.
// - Secrets: protect_this_process() marks the process non-dumpable, so processes of the same user
//   (tools included) cannot read /proc/<pid>/environ, /proc/<pid>/mem or ptrace it, and zeroes
//   the kernel's copy of the initial environment (after moving it to the heap), because a root
//   reader may still open /proc/<pid>/environ; children also lose CAP_SYS_PTRACE, which keeps
//   even a root child out of /proc/<pid>/mem.
//
// Thread-safe. Linux only.
#pragma once

#include <sys/types.h>

namespace pincer::tools::process_guard {

/// PR_SET_DUMPABLE 0 for this process (lost on execve, kept across fork), and the initial
/// environment block zeroed (environ then points to heap copies; getenv/setenv work as before,
/// but a `const char*` from getenv() taken earlier now points to NULs). Call early, before other
/// threads use the environment; the first call acts, later ones do nothing. Side effects: no core
/// dumps, /proc/<pid>/* other than status and stat owned by root, no debugger attach without
/// CAP_SYS_PTRACE, `ps e` shows no environment.
void protect_this_process();

/// The write end of the lifeline, starting the guard on the first call; -1 when it cannot be
/// started (then only each shell's PR_SET_PDEATHSIG protects; the reason is logged once).
int lifeline_fd();

/// In a freshly forked child, before exec: registers process group `pgid` with the guard.
/// Async-signal-safe (one write of a fixed-size record, atomic on a pipe). No-op for fd < 0.
void register_group_from_child(int fd, pid_t pgid) noexcept;

/// In a freshly forked child, before exec: removes CAP_SYS_PTRACE from the bounding, inheritable,
/// permitted, effective and ambient sets, so even a root child cannot read a non-dumpable
/// process's environment. Async-signal-safe; failures are ignored (nothing to drop as non-root).
void drop_ptrace_capability_in_child() noexcept;

}  // namespace pincer::tools::process_guard
