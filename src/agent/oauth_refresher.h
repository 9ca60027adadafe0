// OAuth refresh of `oauth` auth profiles for runs (PV-2): the token endpoint is called on the
// event loop through the async HTTP client (llm/auth/oauth_refresh.h has the pure part), one
// refresh per profile at a time — runs asking for a profile whose refresh is in flight wait for
// that one (single flight) — and the new access/refresh/expires are written back to
// auth-profiles.json through AuthProfileFile (locked, atomic, 0600) and registered for exact-value
// log redaction before anyone uses them.
//
// Across processes (llm/auth/oauth_refresh_lock.h): the endpoint is called only under the
// profile's refresh lock (`<state>/locks/oauth/`), so two Pincer processes never spend the same
// refresh token. A lock held by another process is tried again every kLockRetryMs on the loop (no
// thread waits) for at most kLockWaitMs — longer than that process's own token call may take —
// after which the refresh fails as transient. A lock file that cannot be created is logged and the
// refresh goes on without it (as before the lock existed).
//
// Freshness check (OpenClaw's "another process refreshed already"): under the lock the file is
// read again; when its access token is no longer the one the caller holds (`stale`) and not due
// for a refresh, that one is used without a call. The write back re-reads the file under its lock
// and keeps a newer refresh another writer stored meanwhile. When the endpoint answers
// invalid_grant but the file meanwhile holds another, unexpired credential for the profile (a new
// login, or a process outside the lock refreshed), that one is used instead of failing.
//
// Saving can fail (a full disk, a lock it cannot take): the provider may already have rotated the
// refresh token, so the new tokens are kept in memory for the profile — used by the following
// refreshes and runs instead of the file's stale ones, and written again at each of them — until
// a save succeeds or someone else (a new login) changes the profile in the file.
//
// Errors (through `done`): "OAUTH_INVALID_GRANT" (the endpoint refused the refresh token: the
// profile needs a new login), "OAUTH_REFRESH_FAILED" (transient: unreachable endpoint, 5xx, a bad
// answer, no endpoint known for the provider, the profile is gone or has no refresh token).
// Messages never contain tokens.
//
// Loop affinity: refresh() on the event-loop thread; `done` runs there, possibly before refresh()
// returns (nothing to refresh, or an error found without a call).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/result.h"
#include "llm/auth/auth_profile_file.h"
#include "llm/messages.h"

namespace pincer::agent {

class OAuthRefresher : public std::enable_shared_from_this<OAuthRefresher> {
 public:
  /// `lock_dir`: where the cross-process refresh locks live (`<state dir>/locks/oauth`).
  OAuthRefresher(EventLoop& loop, net::HttpClient& http, const Clock& clock, std::filesystem::path lock_dir)
      : loop_(loop), http_(http), clock_(clock), lock_dir_(std::move(lock_dir)) {}

  /// How often a refresh lock held by another process is tried again, and for how long at most
  /// (the other process's token call may take its 30 s timeout).
  static constexpr int64_t kLockRetryMs = 200;
  static constexpr int64_t kLockWaitMs = 40'000;

  struct Target {
    std::shared_ptr<llm::auth::AuthProfileFile> file;
    std::string profile_id;
    /// The access token the caller holds (the one that is expiring, or that got a 401).
    std::string stale_access;
    /// Refresh even when the token is not due (the provider answered 401 to it).
    bool force = false;
    /// The provider's model spec: its name and oauth overrides (ModelSpec::oauth_*).
    llm::ModelSpec model;
  };
  using Done = std::function<void(Result<llm::auth::Credential>)>;

  /// Gives `done` the profile's current credential: refreshed when due (or `force`d and still the
  /// stale one), else as the file holds it. See the file comment for errors.
  void refresh(Target target, Done done);

  /// Refreshes in flight (tests, diagnostics).
  std::size_t in_flight() const { return waiting_.size(); }
  /// Profiles whose refreshed tokens are only in memory (tests, diagnostics).
  std::size_t unsaved() const { return unsaved_.size(); }

 private:
  /// One try of the refresh of `key` (its callers are in waiting_): takes the lock (or comes back
  /// kLockRetryMs later until `give_up_ms`, steady clock), re-reads the file, calls the endpoint.
  /// `waited`: an earlier try found the lock busy (logged once).
  void attempt(std::shared_ptr<const Target> target, const std::string& key, int64_t give_up_ms, bool waited);
  /// The outcome of the token call: the saved fresh credential, the file's renewed one (after an
  /// invalid_grant), or the error.
  Result<llm::auth::Credential> complete(const std::shared_ptr<llm::auth::AuthProfileFile>& file,
                                         const std::string& key, const std::string& id,
                                         const llm::auth::Credential& current, const std::string& file_refresh,
                                         const std::optional<net::TransportError>& error, int status,
                                         const std::string& body);
  void finish(const std::string& key, const Result<llm::auth::Credential>& result);
  /// Writes `fresh` into the file unless another writer changed the profile since `from` (the
  /// refresh token it was refreshed from); keeps it in unsaved_ when the write fails.
  void save(const std::shared_ptr<llm::auth::AuthProfileFile>& file, const std::string& key, const std::string& id,
            const llm::auth::Credential& fresh, const std::string& from);

  /// Tokens refreshed but not yet saved, by key, with the refresh token they replaced.
  struct Unsaved {
    llm::auth::Credential credential;
    std::string from_refresh;
  };
  std::map<std::string, Unsaved> unsaved_;

  EventLoop& loop_;
  net::HttpClient& http_;
  const Clock& clock_;
  std::filesystem::path lock_dir_;
  std::map<std::string, std::vector<Done>> waiting_;  ///< by "<file path>\n<profile id>"
};

}  // namespace pincer::agent
