// A bounded capture of a process's output stream (LESSONS 7: never hold a huge tool output).
// Keeps the first `head_cap` bytes and the last `tail_cap` bytes of everything appended and counts
// the rest, so memory stays under head_cap + 2 * tail_cap however much is written.
// Positions are absolute byte offsets in the whole stream, which lets a reader ask for "what is
// new since offset N" and learn how much it missed.
// Not thread-safe: the owner (ManagedProcess) serialises access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pincer::tools {

class OutputBuffer {
 public:
  OutputBuffer(std::size_t head_cap, std::size_t tail_cap) : head_cap_(head_cap), tail_cap_(tail_cap) {}

  void append(std::string_view data);

  /// Bytes appended so far (kept or not).
  uint64_t total() const { return total_; }
  /// Bytes appended but no longer held.
  uint64_t dropped() const { return total_ - head_.size() - kept_tail().size(); }

  /// Head, then `[... N bytes omitted ...]` when something was dropped, then tail.
  std::string render() const;

  struct Slice {
    std::string text;      ///< bytes from `offset` on (about max_bytes), with an omitted marker where a gap is
    uint64_t skipped = 0;  ///< bytes after `offset` that are no longer held
    uint64_t next = 0;     ///< offset to ask for next time
  };
  /// Output from absolute `offset` on, at most `max_bytes` of it.
  Slice read_from(uint64_t offset, std::size_t max_bytes) const;

 private:
  /// The last `tail_cap_` bytes of `tail_` (which holds up to twice that between compactions).
  std::string_view kept_tail() const;
  uint64_t tail_start() const { return total_ - kept_tail().size(); }

  std::size_t head_cap_;
  std::size_t tail_cap_;
  std::string head_;
  std::string tail_;  // may grow to 2 * tail_cap_ before being compacted
  uint64_t total_ = 0;
};

/// "[... 9,990,000 bytes omitted ...]" with thousands separators.
std::string omitted_marker(uint64_t bytes);

}  // namespace pincer::tools
