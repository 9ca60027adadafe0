// Background processes of one agent (`exec background:true`, inspected with the `process` tool).
//
// Bounded (LESSONS 7): at most `max_running` running entries (adding more is refused), at most
// `max_finished` finished ones (the oldest are dropped), and a finished entry expires
// `finished_ttl` after the table first notices it ended; each process's output is a bounded
// OutputBuffer. Pruning happens on every call, so an idle table holds at most
// max_running + max_finished entries.
//
// Threading: all members are thread-safe (one mutex; never held while waiting on a process).
// The destructor stops every running process group and waits for them (up to the kill grace).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "tools/subprocess.h"

namespace pincer::tools {

struct ProcessTableLimits {
  std::size_t max_running = 8;
  std::size_t max_finished = 16;
  std::chrono::milliseconds finished_ttl = std::chrono::minutes(30);
};

class ProcessTable {
 public:
  explicit ProcessTable(ProcessTableLimits limits = {});
  ~ProcessTable();
  ProcessTable(const ProcessTable&) = delete;
  ProcessTable& operator=(const ProcessTable&) = delete;

  /// Registers a started process and returns its session id (8 URL-safe characters).
  /// Error "TOO_MANY_PROCESSES" when `max_running` are already running; the caller then still
  /// owns (and should stop) the process.
  Result<std::string> add(std::shared_ptr<ManagedProcess> process);

  struct Info {
    std::string id;
    std::string command;
    ProcessStatus status;
    std::chrono::system_clock::time_point started_at;
  };
  /// Every entry, oldest first.
  std::vector<Info> list();

  struct Poll {
    ProcessStatus status;
    std::string output;  ///< output since the previous poll (omitted marker where output was lost)
    bool more = false;   ///< more new output than `max_bytes`: poll again
  };
  /// New output since the last poll of `id` and the current status. When there is none yet and
  /// the process runs, waits up to `wait` for some, or until `*cancelled` (may be null) is set.
  /// Error "NOT_FOUND" (unknown or expired id).
  Result<Poll> poll(const std::string& id, std::size_t max_bytes, std::chrono::milliseconds wait,
                    CancelSignal* cancelled = nullptr);

  /// The process, for `log` and `kill`. Error "NOT_FOUND".
  Result<std::shared_ptr<ManagedProcess>> find(const std::string& id);

  /// Forgets an entry, stopping its process group first if it still runs. Error "NOT_FOUND".
  Status remove(const std::string& id);

 private:
  struct Entry {
    std::shared_ptr<ManagedProcess> process;
    uint64_t poll_offset = 0;
    uint64_t seq = 0;  // insertion order
    std::optional<std::chrono::steady_clock::time_point> finished_seen;
  };

  void prune_locked();
  std::size_t running_locked() const;

  const ProcessTableLimits limits_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  uint64_t next_seq_ = 0;
};

}  // namespace pincer::tools
