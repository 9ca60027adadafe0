// A run's stop signal for its tools (ToolContext::cancelled). A tool that waits — for a child
// process, an MCP server, another session's reply, a web page — subscribes and is woken the
// moment the run is stopped, instead of looking at a flag on a timer (no polling: a waiting
// tool costs no CPU).
//
// Thread-safety: every member may be called from any thread. Callbacks run on the thread that
// calls cancel(), under the signal's lock: they must be quick and must not subscribe to or cancel
// the same signal.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace pincer::tools {

class CancelSignal {
 public:
  /// Removes its callback when destroyed; after that the callback is never called (a callback
  /// running on another thread is waited for). Empty when the signal was null.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(CancelSignal* signal, uint64_t id) : signal_(signal), id_(id) {}
    Subscription(Subscription&& other) noexcept : signal_(other.signal_), id_(other.id_) { other.signal_ = nullptr; }
    Subscription& operator=(Subscription&& other) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription() { reset(); }
    void reset();

   private:
    CancelSignal* signal_ = nullptr;
    uint64_t id_ = 0;
  };

  /// Sets the signal (once; later calls do nothing) and runs every callback subscribed so far.
  void cancel();
  bool cancelled() const { return set_.load(); }
  /// Calls `fn` when the signal is set — at once, on this thread, if it already is.
  [[nodiscard]] Subscription subscribe(std::function<void()> fn);

 private:
  std::atomic<bool> set_{false};
  std::mutex mu_;
  std::map<uint64_t, std::function<void()>> callbacks_;  // guarded by mu_
  uint64_t next_id_ = 1;                                 // guarded by mu_
};

}  // namespace pincer::tools
