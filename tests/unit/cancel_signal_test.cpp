// tools::CancelSignal (tools/cancel_signal.h): callbacks run once when a run is stopped, at once
// for a late subscriber, never after their subscription is gone; cancel() is idempotent.
#include <gtest/gtest.h>

#include <thread>

#include "tools/cancel_signal.h"

namespace pincer::tools {
namespace {

TEST(CancelSignal, RunsEachCallbackOnceWhenCancelled) {
  CancelSignal signal;
  int a = 0, b = 0;
  auto sa = signal.subscribe([&] { ++a; });
  auto sb = signal.subscribe([&] { ++b; });
  EXPECT_FALSE(signal.cancelled());
  signal.cancel();
  signal.cancel();
  EXPECT_TRUE(signal.cancelled());
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
}

TEST(CancelSignal, ALateSubscriberIsCalledAtOnce) {
  CancelSignal signal;
  signal.cancel();
  int calls = 0;
  auto s = signal.subscribe([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(CancelSignal, AGoneSubscriptionIsNeverCalled) {
  CancelSignal signal;
  int calls = 0;
  {
    auto s = signal.subscribe([&] { ++calls; });
  }
  auto moved_from = signal.subscribe([&] { calls += 10; });
  CancelSignal::Subscription kept = std::move(moved_from);
  kept.reset();
  signal.cancel();
  EXPECT_EQ(calls, 0);
}

TEST(CancelSignal, WakesAThreadWaitingOnIt) {
  CancelSignal signal;
  std::mutex mu;
  std::condition_variable cv;
  bool woken = false;
  auto s = signal.subscribe([&] {
    std::lock_guard lock(mu);
    woken = true;
    cv.notify_all();
  });
  std::thread canceller([&] { signal.cancel(); });
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return woken; });  // no timeout: only the signal ends this wait
  lock.unlock();
  canceller.join();
  EXPECT_TRUE(woken);
}

}  // namespace
}  // namespace pincer::tools
