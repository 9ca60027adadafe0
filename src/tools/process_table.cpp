#include "tools/process_table.h"

#include <algorithm>

#include "core/ids.h"

namespace pincer::tools {
namespace {

using Clock = std::chrono::steady_clock;

Error not_found(const std::string& id) {
  return Error{"NOT_FOUND",
               "no background process with sessionId \"" + id + "\" (it may have expired; use action \"list\")"};
}

}  // namespace

ProcessTable::ProcessTable(ProcessTableLimits limits) : limits_(limits) {}

ProcessTable::~ProcessTable() {
  std::map<std::string, Entry> entries;
  {
    std::lock_guard lock(mu_);
    entries.swap(entries_);
  }
  for (auto& [id, e] : entries) e.process->stop(StopReason::kKilled);  // all groups stop in parallel
  entries.clear();                                                     // each destructor joins its pump
}

std::size_t ProcessTable::running_locked() const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(),
                                                [](const auto& kv) { return !kv.second.process->status().finished; }));
}

void ProcessTable::prune_locked() {
  const auto now = Clock::now();
  std::vector<std::pair<Clock::time_point, std::string>> finished;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& e = it->second;
    if (!e.finished_seen && e.process->status().finished) e.finished_seen = now;
    if (e.finished_seen && now - *e.finished_seen >= limits_.finished_ttl) {
      it = entries_.erase(it);
      continue;
    }
    if (e.finished_seen) finished.emplace_back(*e.finished_seen, it->first);
    ++it;
  }
  if (finished.size() <= limits_.max_finished) return;
  std::sort(finished.begin(), finished.end());
  for (size_t i = 0; i < finished.size() - limits_.max_finished; ++i) entries_.erase(finished[i].second);
}

Result<std::string> ProcessTable::add(std::shared_ptr<ManagedProcess> process) {
  std::lock_guard lock(mu_);
  prune_locked();
  if (running_locked() >= limits_.max_running) {
    return Error{"TOO_MANY_PROCESSES", std::to_string(limits_.max_running) +
                                           " background processes are already running; stop one with the process "
                                           "tool (action \"kill\") first"};
  }
  std::string id;
  do {
    id = ids::random_token(6);
  } while (entries_.count(id) != 0);
  process->set_background_session(id);
  entries_[id] = Entry{std::move(process), 0, next_seq_++, std::nullopt};
  return id;
}

std::vector<ProcessTable::Info> ProcessTable::list() {
  std::lock_guard lock(mu_);
  prune_locked();
  std::vector<std::pair<uint64_t, Info>> rows;
  for (const auto& [id, e] : entries_) {
    rows.push_back({e.seq, Info{id, e.process->command(), e.process->status(), e.process->started_at()}});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Info> out;
  for (auto& r : rows) out.push_back(std::move(r.second));
  return out;
}

Result<std::shared_ptr<ManagedProcess>> ProcessTable::find(const std::string& id) {
  std::lock_guard lock(mu_);
  prune_locked();
  auto it = entries_.find(id);
  if (it == entries_.end()) return not_found(id);
  return it->second.process;
}

Result<ProcessTable::Poll> ProcessTable::poll(const std::string& id, std::size_t max_bytes,
                                              std::chrono::milliseconds wait, CancelSignal* cancelled) {
  std::shared_ptr<ManagedProcess> proc;
  uint64_t offset = 0;
  {
    std::lock_guard lock(mu_);
    prune_locked();
    auto it = entries_.find(id);
    if (it == entries_.end()) return not_found(id);
    proc = it->second.process;
    offset = it->second.poll_offset;
  }
  {
    // A stopped run wakes the wait at once (it does not sit out the whole wait).
    auto wake = cancelled ? cancelled->subscribe([proc] { proc->wake_waiters(); }) : CancelSignal::Subscription{};
    proc->wait_for_output(offset, wait, cancelled);
  }
  Poll result;
  result.status = proc->status();  // before reading, so a "finished" status implies complete output
  auto slice = proc->output_from(offset, max_bytes);
  result.output = std::move(slice.text);
  result.more = slice.next < proc->output_total();
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(id); it != entries_.end()) {
    it->second.poll_offset = std::max(it->second.poll_offset, slice.next);
  }
  return result;
}

Status ProcessTable::remove(const std::string& id) {
  std::shared_ptr<ManagedProcess> proc;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return not_found(id);
    proc = std::move(it->second.process);
    entries_.erase(it);
  }
  proc->stop(StopReason::kKilled);  // the last reference joins outside the lock
  return Ok{};
}

}  // namespace pincer::tools
