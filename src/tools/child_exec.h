// Starting a child process the way every Pincer child starts (exec commands, MCP servers): forked
// by the calling thread, in its own process group, killed when that thread ends
// (PR_SET_PDEATHSIG) and registered with the process guard (process_guard.h) so that it dies with
// the gateway even on kill -9, default signal state, nothing inherited but stdin/stdout/stderr,
// and a close-on-exec status pipe that tells the parent whether exec worked.
//
// Thread affinity: fork_exec blocks the calling thread until the child has exec'd (or failed to).
// The child is killed when the *calling thread* ends: call it from a thread that outlives it.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include "core/result.h"

namespace pincer::tools {

/// Everything the child needs, prepared before fork: the child of a multi-threaded process may
/// only make async-signal-safe calls (no allocation), so every string and array is ready here.
struct ChildExecPlan {
  int in_fd = -1;   ///< the child's stdin; -1 = /dev/null
  int out_fd = -1;  ///< its stdout
  int err_fd = -1;  ///< its stderr
  int cwd_fd = -1;  ///< a directory fd to enter; -1 = enter `cwd` by path
  const char* cwd = ".";
  const char* program = nullptr;  ///< the path to execve
  char* const* argv = nullptr;    ///< null-terminated
  char* const* envp = nullptr;    ///< null-terminated
  rlim_t nofile_soft = 0;         ///< soft RLIMIT_NOFILE to restore in the child (0 = keep)
};

/// Forks and execs `plan`. Returns the child's pid once it has exec'd; Error "SPAWN_FAILED" with
/// the message "fork: <reason>", "chdir: <reason>" or "<reason>" (execve) otherwise — the child
/// is reaped then. The caller closes its copies of the child's descriptors afterwards.
Result<pid_t> fork_exec(const ChildExecPlan& plan);

}  // namespace pincer::tools
