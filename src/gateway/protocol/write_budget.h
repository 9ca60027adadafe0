// Control-plane write budget (GW-8; openclaw-protocol.md §1.7): config/admin writes are limited to
// kWriteBudgetCalls (3) per kWriteBudgetWindowMs (60 s) per client, in a fixed window that starts
// at the client's first call. Loop-affine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "gateway/protocol/constants.h"

namespace pincer::gateway {

class WriteBudget {
 public:
  explicit WriteBudget(int calls = kWriteBudgetCalls, int64_t window_ms = kWriteBudgetWindowMs)
      : calls_(calls), window_ms_(window_ms) {}

  /// Records one call by `client_key` ("<deviceId>|<ip>" or a connection id). Returns nullopt
  /// when allowed, else the milliseconds until the window resets (> 0).
  std::optional<int64_t> consume(const std::string& client_key, int64_t now_ms);

  int calls_per_window() const { return calls_; }
  int64_t window_ms() const { return window_ms_; }

 private:
  struct Window {
    int64_t start_ms;
    int used;
  };
  int calls_;
  int64_t window_ms_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace pincer::gateway
