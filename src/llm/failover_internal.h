// What failover.cpp and failover_retry.cpp share (internal to src/llm/failover*.cpp; the public
// rules are in llm/failover.h). Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pincer::llm {

/// The retry delay a provider writes into its message: "try again in 20s" / "in 1.5s" /
/// "in 250ms" / "in 2m" (OpenAI does), in milliseconds rounded up. `lowered`: the message in lower
/// case. nullopt when there is no such phrase, its unit is unknown, or it is over 86400 units.
std::optional<int64_t> failover_retry_hint_ms(std::string_view lowered);

}  // namespace pincer::llm
