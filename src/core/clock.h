// Clock abstraction so that tests control time (issue #2 "Core"). Components that expire things
// (idempotency cache, rate limiters) take `now_ms` arguments or a Clock&, never call time() directly.
#pragma once

#include <atomic>
#include <cstdint>

namespace pincer {

/// Wall-clock and monotonic time in milliseconds. Thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds since the Unix epoch (UTC); used in payloads (`ts`) and persisted state.
  virtual int64_t wall_ms() const = 0;
  /// Monotonic milliseconds from an arbitrary origin; used for timeouts, TTLs and windows.
  virtual int64_t steady_ms() const = 0;
};

/// The real clocks (system_clock / steady_clock).
class SystemClock final : public Clock {
 public:
  int64_t wall_ms() const override;
  int64_t steady_ms() const override;
  /// A process-wide instance.
  static SystemClock& instance();
};

/// A clock that only moves when told to. Both readings advance together.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t wall_ms = 1'700'000'000'000, int64_t steady_ms = 1'000'000)
      : wall_(wall_ms), steady_(steady_ms) {}
  int64_t wall_ms() const override { return wall_.load(); }
  int64_t steady_ms() const override { return steady_.load(); }
  void advance(int64_t ms) { wall_ += ms; steady_ += ms; }

 private:
  std::atomic<int64_t> wall_;
  std::atomic<int64_t> steady_;
};

}  // namespace pincer
