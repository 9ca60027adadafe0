// Durability off the event loop: fdatasync(2) on one background thread (issue 17, "gateway
// overhead per turn"). A turn's transcript lines and the run journal's `answered` step are
// written on the loop (so they are in the page cache: every reader sees them and a process crash
// or kill -9 keeps them) and made durable here, so that the final `chat` event does not wait for
// the disk — on ext4 each fdatasync costs 0.05–0.3 ms on a quiet disk and several ms while other
// programs write, and a turn paid two of them before its final event.
//
// What that changes, and only for a power loss or a kernel crash in the moment after a turn
// ends: the turn may have been shown (its final event sent) and not be on disk yet. The syncs
// run in the order asked, the transcript's before the journal's, but the kernel may write the
// journal's line back first; a power loss between the two leaves an entry the journal calls
// answered whose reply is not in the transcript (the reply was delivered; the session's history
// lacks it). Syncs asked before the gateway stops are finished before it exits
// (wait_for_background_syncs in the gateway's shutdown).
//
// Thread-safe. The thread is started by the first call and sleeps while nothing is queued (no
// idle cost before the first turn).
#pragma once

#include <string>

namespace pincer::store {

/// Queues fdatasync(2) of the file open as `fd`. `fd` is dup(2)'d at once (the caller may close
/// its own right after); the syncs run one at a time in the order they were asked. A failure is
/// logged as an error "cannot sync <what>: <strerror>" (as a synchronous sync's caller logs it).
/// If the descriptor cannot be duplicated (EMFILE), the sync is done at once on the caller's
/// thread instead. `fd` < 0: nothing.
void sync_in_background(int fd, std::string what);

/// Blocks until every sync queued before this call has finished. For the gateway's shutdown and
/// for tests; never called on a turn's path.
void wait_for_background_syncs();

}  // namespace pincer::store
