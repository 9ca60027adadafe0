#include "core/event_loop.h"

#include <algorithm>
#include <map>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <spdlog/spdlog.h>

namespace pincer {

namespace asio = boost::asio;

namespace {

/// A callback that holds the loop longer than this made every client wait: it is logged with its
/// kind, so a stall has a name (the gateway logs a slow method handler by its method).
constexpr auto kSlowLoopCallback = std::chrono::milliseconds(500);

template <class Fn>
void run_on_loop_timed(const char* kind, Fn& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  const auto took = std::chrono::steady_clock::now() - start;
  if (took >= kSlowLoopCallback) {
    spdlog::warn("event loop: a {} callback ran {} ms; everything else on the loop waited", kind,
                 std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  }
}

}  // namespace

struct EventLoop::Impl {
  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(ioc);
  std::optional<asio::thread_pool> pool;
  int workers;
  TimerId next_timer = 1;
  std::map<TimerId, std::unique_ptr<asio::steady_timer>> timers;
  struct FdWatch {
    asio::posix::stream_descriptor fd;
    std::function<void()> fn;
  };
  std::map<WatchId, std::shared_ptr<FdWatch>> watches;
  WatchId next_watch = 1;

  void arm(WatchId id, const std::shared_ptr<FdWatch>& w) {
    w->fd.async_wait(asio::posix::descriptor_base::wait_read, [this, id, w](const boost::system::error_code& ec) {
      if (ec || !watches.count(id)) return;  // unwatched
      run_on_loop_timed("descriptor watch", w->fn);
      if (watches.count(id)) arm(id, w);
    });
  }
};

EventLoop::EventLoop(int workers) : impl_(std::make_unique<Impl>()) { impl_->workers = workers; }

EventLoop::~EventLoop() {
  for (auto& [id, w] : impl_->watches) (void)w->fd.release();  // the callers own their descriptors
  if (impl_->pool) {
    impl_->pool->join();
  }
}

asio::io_context& EventLoop::context() { return impl_->ioc; }

void EventLoop::post(std::function<void()> fn) {
  asio::post(impl_->ioc, [fn = std::move(fn)]() mutable { run_on_loop_timed("posted", fn); });
}

EventLoop::TimerId EventLoop::after(int64_t delay_ms, std::function<void()> fn) {
  const TimerId id = impl_->next_timer++;
  // Saturate: milliseconds beyond ~292 years overflow the clock's nanoseconds and would fire at once.
  constexpr int64_t kMaxDelayMs = int64_t{1} << 40;  // ~34 years
  delay_ms = std::clamp<int64_t>(delay_ms, 0, kMaxDelayMs);
  auto timer = std::make_unique<asio::steady_timer>(impl_->ioc, std::chrono::milliseconds(delay_ms));
  timer->async_wait([this, id, fn = std::move(fn)](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled
    impl_->timers.erase(id);
    run_on_loop_timed("timer", fn);
  });
  impl_->timers.emplace(id, std::move(timer));
  return id;
}

void EventLoop::cancel(TimerId id) {
  auto it = impl_->timers.find(id);
  if (it == impl_->timers.end()) return;
  it->second->cancel();
  // The handler still runs (with operation_aborted) and needs the timer alive until then.
  auto timer = std::shared_ptr<asio::steady_timer>(std::move(it->second));
  impl_->timers.erase(it);
  asio::post(impl_->ioc, [timer] {});
}

EventLoop::WatchId EventLoop::watch_readable(int fd, std::function<void()> fn) {
  const WatchId id = impl_->next_watch++;
  auto w = std::make_shared<Impl::FdWatch>(Impl::FdWatch{asio::posix::stream_descriptor(impl_->ioc, fd), std::move(fn)});
  impl_->watches.emplace(id, w);
  impl_->arm(id, w);
  return id;
}

void EventLoop::unwatch(WatchId id) {
  auto it = impl_->watches.find(id);
  if (it == impl_->watches.end()) return;
  std::shared_ptr<Impl::FdWatch> w = std::move(it->second);
  impl_->watches.erase(it);
  w->fd.cancel();
  (void)w->fd.release();  // the caller owns the descriptor: never close it here
}

void EventLoop::offload(std::function<void()> work, std::function<void()> done) {
  if (!impl_->pool) impl_->pool.emplace(static_cast<std::size_t>(impl_->workers));
  asio::post(*impl_->pool, [this, work = std::move(work), done = std::move(done)]() mutable {
    work();
    asio::post(impl_->ioc, [done = std::move(done)]() mutable { run_on_loop_timed("offload completion", done); });
  });
}

void EventLoop::run() { impl_->ioc.run(); }

void EventLoop::stop() { impl_->ioc.stop(); }

}  // namespace pincer
