#include "gateway/protocol/write_budget.h"

namespace pincer::gateway {

std::optional<int64_t> WriteBudget::consume(const std::string& client_key, int64_t now_ms) {
  // Drop stale windows now and then so the map stays bounded by active clients.
  if (windows_.size() > 1024) std::erase_if(windows_, [&](const auto& kv) { return now_ms - kv.second.start_ms >= window_ms_; });
  auto& w = windows_[client_key];
  if (w.used == 0 || now_ms - w.start_ms >= window_ms_) w = Window{now_ms, 0};
  if (w.used >= calls_) return w.start_ms + window_ms_ - now_ms;
  ++w.used;
  return std::nullopt;
}

}  // namespace pincer::gateway
