#include "tools/cancel_signal.h"

#include <utility>

namespace pincer::tools {

CancelSignal::Subscription& CancelSignal::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    reset();
    signal_ = std::exchange(other.signal_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

void CancelSignal::Subscription::reset() {
  if (signal_ == nullptr) return;
  std::lock_guard lock(signal_->mu_);  // waits for callbacks running in cancel()
  signal_->callbacks_.erase(id_);
  signal_ = nullptr;
}

void CancelSignal::cancel() {
  std::lock_guard lock(mu_);
  if (set_.exchange(true)) return;
  for (auto& [id, fn] : callbacks_) fn();
  callbacks_.clear();
}

CancelSignal::Subscription CancelSignal::subscribe(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    if (!set_.load()) {
      const uint64_t id = next_id_++;
      callbacks_.emplace(id, std::move(fn));
      return Subscription(this, id);
    }
  }
  fn();  // already cancelled
  return {};
}

}  // namespace pincer::tools
