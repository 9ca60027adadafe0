// The cross-process lock of one OAuth profile's refresh (PV-2). OAuth providers rotate refresh
// tokens: when two processes (the gateway and `pincer agent --local`, or two gateways' agents
// sharing a profile) refresh the same profile at once, the second presents a refresh token the
// first just spent and gets invalid_grant — a logged-out profile for nothing. So a refresh happens
// under an flock(2) on `<lock dir>/<provider>-<hash of profile id>.lock`, state-dir wide (OpenClaw
// likewise keys its refresh lock by provider and profile, not by agent); the holder re-reads
// auth-profiles.json under it and skips the call when another process already stored fresh tokens.
// flock dies with its process, so a crash never leaves the lock held.
//
// Never blocks: try_acquire() answers Busy at once, and the caller (agent/oauth_refresher.h)
// tries again on its event loop. Thread-agnostic; the object is move-only and releases the lock
// when destroyed.
#pragma once

#include <filesystem>
#include <string_view>
#include <variant>

#include "core/result.h"

namespace pincer::llm::auth {

class OAuthRefreshLock {
 public:
  /// Another process holds the lock.
  struct Busy {};

  /// The lock file of (`provider`, `profile_id`) under `lock_dir`: `<provider>-<16 hex digits of
  /// FNV-1a 64 of the profile id>.lock`, the provider name kept readable (characters outside
  /// [A-Za-z0-9._-] become '_').
  static std::filesystem::path path_for(const std::filesystem::path& lock_dir, std::string_view provider,
                                        std::string_view profile_id);

  /// Takes the lock without waiting, creating `lock_file` (0600) and its directory (0700) when
  /// missing. Error "IO_ERROR" naming the file when it cannot be created or locked.
  static Result<std::variant<OAuthRefreshLock, Busy>> try_acquire(const std::filesystem::path& lock_file);

  OAuthRefreshLock(OAuthRefreshLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OAuthRefreshLock& operator=(OAuthRefreshLock&& other) noexcept;
  OAuthRefreshLock(const OAuthRefreshLock&) = delete;
  OAuthRefreshLock& operator=(const OAuthRefreshLock&) = delete;
  ~OAuthRefreshLock();

 private:
  explicit OAuthRefreshLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace pincer::llm::auth
