// The gateway's event loop (docs/architecture.md "Concurrency model"): one thread owns all mutable
// state; other threads hand work to it with post(). Blocking work (file I/O, tools, exec) runs on a
// small worker pool via offload() and resumes on the loop. The header is Asio-free; the
// implementation (net_event_loop.cpp) wraps a Boost.Asio io_context.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace pincer {

class EventLoop {
 public:
  /// `workers`: size of the blocking-work pool (threads start on first offload()).
  explicit EventLoop(int workers = 2);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// The underlying io_context, for the few Asio translation units (net_*.cpp).
  boost::asio::io_context& context();

  /// Runs `fn` on the loop thread soon. Thread-safe.
  void post(std::function<void()> fn);

  using TimerId = uint64_t;
  /// Runs `fn` on the loop after `delay_ms`. Loop thread only.
  TimerId after(int64_t delay_ms, std::function<void()> fn);
  /// Cancels a pending timer (no-op when it already ran). Loop thread only.
  void cancel(TimerId id);

  using WatchId = uint64_t;
  /// Calls `fn` on the loop each time `fd` is readable (level-triggered: `fn` must drain it, e.g.
  /// read a non-blocking inotify fd until EAGAIN), until unwatch(). The caller keeps owning `fd` and
  /// closes it only after unwatch(). Loop thread only.
  WatchId watch_readable(int fd, std::function<void()> fn);
  /// Stops a watch_readable() (no-op for an unknown id); `fn` is not called again. Loop thread only.
  void unwatch(WatchId id);

  /// Runs `work` on a worker thread, then `done` on the loop thread. `work` must not touch
  /// loop-owned state. Call from the loop thread.
  void offload(std::function<void()> work, std::function<void()> done);

  /// Runs the loop on the calling thread until stop().
  void run();
  /// Makes run() return. Thread-safe.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pincer
