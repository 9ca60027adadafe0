#include "agent/transcript_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

/// Extends the context and history for entries from `first_new` on (store::extend_context), or
/// rebuilds them when the new entries do not continue the active branch; true when rebuilt.
bool extend_parsed(ParsedTranscript& p, std::size_t first_new) {
  const std::size_t first_message = p.context.messages.size();
  if (store::extend_context(p.context, p.contents.entries, first_new)) {
    extend_session_history(p.history, p.context, first_message);
    return false;
  }
  p.context = store::build_context(p.contents.entries);
  p.history = session_history(p.context);
  return true;
}

}  // namespace

void TranscriptCache::StreamHash::update(std::string_view s) {
  std::size_t i = 0;
  while (npending_ > 0 && npending_ < 8 && i < s.size()) {
    pending_ |= static_cast<uint64_t>(static_cast<unsigned char>(s[i++])) << (8 * npending_++);
  }
  if (npending_ == 8) {
    mix(pending_);
    pending_ = 0;
    npending_ = 0;
  }
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    mix(w);
  }
  for (; i < s.size(); ++i) pending_ |= static_cast<uint64_t>(static_cast<unsigned char>(s[i])) << (8 * npending_++);
  length_ += s.size();
}

/// The hash of everything given so far (murmur3's finaliser over the state, tail and length).
uint64_t TranscriptCache::StreamHash::value() const {
  uint64_t h = state_ ^ (pending_ * 0x9E3779B97F4A7C15ULL) ^ (length_ * 0xC2B2AE3D27D4EB4FULL);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

void TranscriptCache::StreamHash::mix(uint64_t w) {
  state_ ^= w * 0x87c37b91114253d5ULL;
  state_ = ((state_ << 31) | (state_ >> 33)) * 0x4cf5ad432745937fULL;
}

Result<std::shared_ptr<const ParsedTranscript>> TranscriptCache::load(const std::filesystem::path& file) {
  const std::string key = file.string();
  auto it = entries_.find(key);
  if (it == entries_.end()) return read_full(key, file);

  Entry& e = it->second;
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    const Error error = io_error(file, "cannot open");
    forget(file);
    return error;
  }
  if (e.mtime_ns >= 0 && mtime_ns(st) == e.mtime_ns && static_cast<uint64_t>(st.st_size) == e.size &&
      st.st_dev == e.dev && st.st_ino == e.ino) {
    // As recorded after the last read or our own last append: nothing to read.
    if (!apply_adopted(e)) return read_full(key, file);
    ++stats_.unchanged;
    touch(e, key);
    return std::shared_ptr<const ParsedTranscript>(e.parsed);
  }

  Fd f{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
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
  StreamHash hash;
  hash.update(all.substr(0, e.size));
  if (hash.value() != e.hash.value() || !apply_adopted(e)) return read_full(key, file);
  e.mtime_ns = size == e.size ? mtime_ns(st) : -1;
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
  if (extend_parsed(p, first_new)) ++stats_.context_rebuilds;
  ++stats_.tail_reads;
  bytes_ += size - e.size;
  e.size = size;
  e.lines += static_cast<std::size_t>(std::count(tail.begin(), tail.end(), '\n'));
  hash.update(tail);
  e.hash = hash;
  e.mtime_ns = mtime_ns(st);
  touch(e, key);
  std::shared_ptr<const ParsedTranscript> result = e.parsed;
  evict();  // may drop `e` itself
  return result;
}

void TranscriptCache::adopt(const std::filesystem::path& file, store::AppendedLine& line) {
  auto it = entries_.find(file.string());
  if (it == entries_.end()) return;
  Entry& e = it->second;
  const std::string_view text = line.text;
  const bool one_line = !text.empty() && text.find('\n') == text.size() - 1;
  if (!one_line || line.value.is_null() || line.offset != e.size || line.dev != e.dev || line.ino != e.ino ||
      line.size != e.size + text.size()) {
    e.mtime_ns = -1;  // not ours alone, or not placeable: the next load reads the file and checks it
    return;
  }
  e.adopted.push_back({std::move(line.value), e.lines + 1});
  e.hash.update(text);
  e.size = line.size;
  e.lines += 1;
  e.mtime_ns = line.mtime_ns;
  bytes_ += text.size();
  ++stats_.adopted;
  evict();  // may drop `e` itself
}

bool TranscriptCache::apply_adopted(Entry& e) {
  if (e.adopted.empty()) return true;
  if (e.parsed.use_count() > 1) e.parsed = std::make_shared<ParsedTranscript>(*e.parsed);
  ParsedTranscript& p = *e.parsed;
  const std::size_t first_new = p.contents.entries.size();
  for (auto& a : e.adopted) {
    if (!store::append_transcript_value(p.contents, std::move(a.value), a.line_no)) return false;
  }
  e.adopted.clear();
  if (extend_parsed(p, first_new)) ++stats_.context_rebuilds;
  return true;
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
  e.hash.update(*bytes);
  e.mtime_ns = mtime_ns(st);
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
