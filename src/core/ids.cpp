#include "core/ids.h"

#include <pthread.h>
#include <sodium.h>

#include <array>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace pincer::ids {
namespace {

void ensure_sodium() {
  static const bool ready = [] {
    if (sodium_init() < 0) std::abort();  // cannot happen on Linux; no randomness = no safety
    return true;
  }();
  (void)ready;
}

// Random bytes for ids, drawn from a per-thread pool refilled 512 bytes at a time: a turn makes
// several ids, and a getrandom(2) for each was a tenth of a turn's system calls (issue 17). Ids
// are not secrets (tokens and keys use random_token, straight from the kernel). A forked child
// starts a fresh pool, so parent and child never hand out the same bytes.
std::atomic<uint64_t> fork_generation{0};

void id_bytes(uint8_t* out, std::size_t n) {
  struct Pool {
    std::array<uint8_t, 512> bytes{};
    std::size_t used = 512;
    uint64_t generation = 0;
  };
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); });
    return true;
  }();
  (void)registered;
  thread_local Pool pool;
  const uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (pool.generation != generation) {
    pool.used = pool.bytes.size();
    pool.generation = generation;
  }
  if (n > pool.bytes.size()) {
    randombytes_buf(out, n);
    return;
  }
  if (pool.used + n > pool.bytes.size()) {
    randombytes_buf(pool.bytes.data(), pool.bytes.size());
    pool.used = 0;
  }
  std::memcpy(out, pool.bytes.data() + pool.used, n);
  sodium_memzero(pool.bytes.data() + pool.used, n);  // handed out once
  pool.used += n;
}

}  // namespace

std::string uuid_v4() {
  ensure_sodium();
  std::array<uint8_t, 16> b{};
  id_bytes(b.data(), b.size());
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0x0f]);
  }
  return out;
}

std::string random_token(std::size_t bytes) {
  ensure_sodium();
  std::vector<uint8_t> b(bytes);
  randombytes_buf(b.data(), b.size());
  std::string out(sodium_base64_ENCODED_LEN(bytes, sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), b.data(), b.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(std::char_traits<char>::length(out.c_str()));
  return out;
}

std::string sha256_hex(std::string_view data) {
  ensure_sodium();
  std::array<unsigned char, crypto_hash_sha256_BYTES> h{};
  crypto_hash_sha256(h.data(), reinterpret_cast<const unsigned char*>(data.data()), data.size());
  std::string out(h.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), h.data(), h.size());
  out.pop_back();
  return out;
}

}  // namespace pincer::ids
