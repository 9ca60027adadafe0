// The open-descriptor limit (RLIMIT_NOFILE): the gateway raises its soft limit for many clients;
// the programs it starts (exec) get back the limit the gateway was started with, as if the user
// had run them from the same shell — a raised limit breaks programs that loop over every possible
// descriptor or use select().
//
// Thread-safe (an atomic); original_descriptor_soft_limit() is async-signal-safe (a forked child
// may call it).
#pragma once

#include <cstdint>

namespace pincer {

/// Raises the soft limit to the hard limit (at most 65 536), remembering the soft limit it had.
/// Returns the new soft limit, or 0 when nothing changed.
uint64_t raise_descriptor_limit();

/// The soft limit before raise_descriptor_limit() raised it, or 0 when it was never raised.
uint64_t original_descriptor_soft_limit();

}  // namespace pincer
