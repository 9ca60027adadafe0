#include "channels/irc/irc_flood.h"

#include <algorithm>

namespace pincer::channels::irc {

int64_t FloodControl::take(int64_t now_ms) {
  const int64_t timer = std::max(timer_ms_, now_ms);
  const int64_t limit = now_ms + settings_.burst * settings_.interval_ms;
  if (timer + settings_.interval_ms > limit) return timer + settings_.interval_ms - limit;
  timer_ms_ = timer + settings_.interval_ms;
  return 0;
}

}  // namespace pincer::channels::irc
