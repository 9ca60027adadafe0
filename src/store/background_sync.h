// Durability off the event loop: fdatasync(2) on background threads (issue 17, "gateway overhead
// per turn"). A turn's transcript lines and the run journal's `answered` step are written on the
// loop (so they are in the page cache: every reader sees them and a process crash or kill -9
// keeps them) and made durable here, so that the final `chat` event does not wait for the disk —
// on ext4 each fdatasync costs 0.05–0.3 ms on a quiet disk and several ms while other programs
// write, and a turn paid two of them before its final event. (The journal's `accepted` step stays
// synchronous: its acknowledgement promises it is on disk.)
//
// What that changes, and only for a power loss or a kernel crash in the moment after a turn
// ends: the turn may have been shown (its final event sent) and not be on disk yet; and the two
// syncs of a turn's end run side by side (one file-system commit when the file system batches
// them), so the journal's `answered` may reach the disk before the transcript's reply: a power
// loss between the two leaves an entry the journal calls answered whose reply is not in the
// transcript (the reply was delivered; the session's history lacks it). Syncs asked before the
// gateway stops are finished before it exits (wait_for_background_syncs).
//
// Threads of its own, not EventLoop::offload's pool: these must be waited for after the loop and
// its pool are gone. Thread-safe. Up to three threads, started as syncs arrive while the others
// are busy; they sleep while nothing is queued (no idle cost before the first turn, no polling).
#pragma once

#include <filesystem>
#include <string>

namespace pincer::store {

/// Queues fdatasync(2) of the file open as `fd`. `fd` is dup(2)'d at once (the caller may close
/// its own right after); a request for a file whose sync is queued and not started yet joins it
/// (the queue holds at most one per file, however slow the disk). A failure is logged as an error
/// "cannot sync <what>: <strerror>" (as a synchronous sync's caller logs it). If the descriptor
/// cannot be duplicated (EMFILE), the sync is done at once on the caller's thread instead.
/// `fd` < 0: nothing.
void sync_in_background(int fd, std::string what);

/// Whether fdatasync(2) of a file in `file`'s directory can make anything more durable: false on
/// file systems that live in memory (tmpfs, ramfs), where it returns at once having done nothing —
/// there a queued sync would only cost a descriptor, a thread hand-off and a wake-up per turn.
/// One statfs(2) per directory for the life of the process (mounts under a state directory do not
/// change while the gateway runs); true when it cannot be told.
bool sync_needed(const std::filesystem::path& file);

/// Blocks until no sync is queued or running. For the gateway's shutdown and for tests (callers
/// stop queueing first); never called on a turn's path.
void wait_for_background_syncs();

}  // namespace pincer::store
