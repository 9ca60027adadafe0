#include "core/descriptor_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>

namespace pincer {
namespace {
std::atomic<uint64_t> g_original{0};
}  // namespace

uint64_t raise_descriptor_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  const rlim_t want = lim.rlim_max == RLIM_INFINITY ? rlim_t{65536} : std::min<rlim_t>(lim.rlim_max, 65536);
  if (lim.rlim_cur >= want) return 0;
  const rlim_t before = lim.rlim_cur;
  lim.rlim_cur = want;
  if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  uint64_t expected = 0;  // the first raise is the one that knows the start value
  g_original.compare_exchange_strong(expected, static_cast<uint64_t>(before));
  return static_cast<uint64_t>(want);
}

uint64_t original_descriptor_soft_limit() { return g_original.load(std::memory_order_relaxed); }

}  // namespace pincer
