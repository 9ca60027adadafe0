#include "agent/transcript_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string_view>

#include "agent/session_history.h"

namespace pincer::agent {
namespace {

constexpr uint64_t kMaxTranscriptFileBytes = uint64_t{1} << 30;  // as store::read_transcript

/// An open file descriptor, closed when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error io_error(const std::filesystem::path& file, const char* what) {
  return Error{errno == ENOENT ? "NOT_FOUND" : "IO_ERROR", file.string() + ": " + what + ": " + std::strerror(errno)};
}

/// `size` bytes from `offset`, or an error (a file that shrank meanwhile reads short: IO_ERROR).
Result<std::string> read_range(int fd, const std::filesystem::path& file, uint64_t offset, uint64_t size) {
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, bytes.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(file, "read");
    if (n == 0) return Error{"IO_ERROR", file.string() + ": the file shrank while it was read"};
    done += static_cast<std::size_t>(n);
  }
  return bytes;
}

}  // namespace

Result<std::shared_ptr<const ParsedTranscript>> TranscriptCache::load(const std::filesystem::path& file) {
  const std::string key = file.string();
  auto it = entries_.find(key);
  if (it == entries_.end()) return read_full(key, file);

  Entry& e = it->second;
  Fd f{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) {
    const Error error = io_error(file, "cannot open");
    forget(file);
    return error;
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (st.st_dev != e.dev || st.st_ino != e.ino || size < e.size || size > kMaxBytes) return read_full(key, file);
  auto bytes = read_range(f.fd, file, 0, size);
  if (!bytes) return read_full(key, file);
  const std::string_view all(*bytes);
  if (std::hash<std::string_view>{}(all.substr(0, e.size)) != e.prefix_hash) return read_full(key, file);
  if (size == e.size) {
    ++stats_.unchanged;
    touch(e, key);
    return std::shared_ptr<const ParsedTranscript>(e.parsed);
  }

  // Grown: parse only what was appended. Copy on write: a caller may still hold this version.
  const std::string_view tail = all.substr(e.size);
  if (e.parsed.use_count() > 1) e.parsed = std::make_shared<ParsedTranscript>(*e.parsed);
  ParsedTranscript& p = *e.parsed;
  const std::size_t first_new = p.contents.entries.size();
  if (!store::append_transcript_tail(p.contents, tail, e.lines)) return read_full(key, file);
  const std::size_t first_message = p.context.messages.size();
  if (store::extend_context(p.context, p.contents.entries, first_new)) {
    extend_session_history(p.history, p.context, first_message);
  } else {
    ++stats_.context_rebuilds;
    p.context = store::build_context(p.contents.entries);
    p.history = session_history(p.context);
  }
  ++stats_.tail_reads;
  bytes_ += size - e.size;
  e.size = size;
  e.lines += static_cast<std::size_t>(std::count(tail.begin(), tail.end(), '\n'));
  e.prefix_hash = std::hash<std::string_view>{}(all);
  touch(e, key);
  std::shared_ptr<const ParsedTranscript> result = e.parsed;
  evict();  // may drop `e` itself
  return result;
}

Result<std::shared_ptr<const ParsedTranscript>> TranscriptCache::read_full(const std::string& key,
                                                                           const std::filesystem::path& file) {
  forget(file);
  ++stats_.full_reads;
  Fd f{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) return io_error(file, "cannot open");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxTranscriptFileBytes) {
    return Error{"TOO_LARGE", file.string() + ": larger than " + std::to_string(kMaxTranscriptFileBytes) + " bytes"};
  }
  auto bytes = read_range(f.fd, file, 0, size);
  if (!bytes) return bytes.error();

  auto parsed = std::make_shared<ParsedTranscript>();
  parsed->contents = store::parse_transcript(*bytes);
  parsed->context = store::build_context(parsed->contents.entries);
  parsed->history = session_history(parsed->context);
  if (size > kMaxBytes) return std::shared_ptr<const ParsedTranscript>(std::move(parsed));  // too big to keep

  Entry e;
  e.parsed = parsed;
  e.dev = st.st_dev;
  e.ino = st.st_ino;
  e.size = size;
  e.lines = static_cast<std::size_t>(std::count(bytes->begin(), bytes->end(), '\n'));
  e.prefix_hash = std::hash<std::string_view>{}(*bytes);
  lru_.push_front(key);
  e.lru = lru_.begin();
  bytes_ += size;
  entries_.emplace(key, std::move(e));
  evict();
  return std::shared_ptr<const ParsedTranscript>(std::move(parsed));
}

void TranscriptCache::forget(const std::filesystem::path& file) {
  auto it = entries_.find(file.string());
  if (it == entries_.end()) return;
  bytes_ -= it->second.size;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

void TranscriptCache::touch(Entry& e, const std::string& key) {
  lru_.erase(e.lru);
  lru_.push_front(key);
  e.lru = lru_.begin();
}

void TranscriptCache::evict() {
  while (!lru_.empty() && (entries_.size() > kMaxSessions || bytes_ > kMaxBytes)) {
    const std::string oldest = lru_.back();
    forget(oldest);
  }
}

}  // namespace pincer::agent
