// OAuth refresh on the event loop (see oauth_refresher.h).
#include "agent/oauth_refresher.h"

#include <spdlog/spdlog.h>

#include "core/redact.h"
#include "llm/auth/oauth_refresh.h"
#include "llm/auth/oauth_refresh_lock.h"

namespace pincer::agent {

namespace detail_oauth_refresher {

constexpr std::size_t kMaxTokenAnswerBytes = 64 * 1024;
constexpr int64_t kTokenCallTimeoutMs = 30'000;

Error refresh_failed(std::string message) { return Error{"OAUTH_REFRESH_FAILED", std::move(message)}; }

}  // namespace detail_oauth_refresher

using namespace detail_oauth_refresher;
using llm::auth::Credential;

void OAuthRefresher::refresh(Target target, Done done) {
  const std::string key = target.file->path().string() + "\n" + target.profile_id;
  if (auto it = waiting_.find(key); it != waiting_.end()) {  // single flight: wait for that one
    spdlog::info("auth profile {}: waiting for the OAuth refresh in flight", target.profile_id);
    it->second.push_back(std::move(done));
    return;
  }
  waiting_[key].push_back(std::move(done));
  attempt(std::make_shared<const Target>(std::move(target)), key, clock_.steady_ms() + kLockWaitMs, false);
}

void OAuthRefresher::attempt(std::shared_ptr<const Target> target_ptr, const std::string& key, int64_t give_up_ms,
                             bool waited) {
  const Target& target = *target_ptr;
  // The profile's provider names its lock; the file is read (again) only once the lock is held, so
  // tokens another process stored while this one waited are seen.
  std::shared_ptr<llm::auth::OAuthRefreshLock> lock;
  {
    auto first = target.file->load();
    if (!first) return finish(key, refresh_failed("auth profiles unreadable: " + first.error().message));
    const Credential* c = first->find(target.profile_id);
    const std::string provider = c ? c->provider : target.model.provider;
    const auto lock_file = llm::auth::OAuthRefreshLock::path_for(lock_dir_, provider, target.profile_id);
    auto taken = llm::auth::OAuthRefreshLock::try_acquire(lock_file);
    if (!taken) {
      spdlog::warn("auth profile {}: refreshing without the cross-process lock: {}", target.profile_id,
                   taken.error().message);
    } else if (std::holds_alternative<llm::auth::OAuthRefreshLock::Busy>(*taken)) {
      if (clock_.steady_ms() >= give_up_ms) {
        return finish(key, refresh_failed("another process has held the OAuth refresh lock of auth profile " +
                                          target.profile_id + " for " + std::to_string(kLockWaitMs / 1000) +
                                          " s (" + lock_file.string() + ")"));
      }
      if (!waited) {
        spdlog::info("auth profile {}: another process is refreshing it; waiting for its lock ({})", target.profile_id,
                     lock_file.string());
      }
      auto self = shared_from_this();
      loop_.after(kLockRetryMs, [self, target_ptr, key, give_up_ms] { self->attempt(target_ptr, key, give_up_ms, true); });
      return;
    } else {
      lock = std::make_shared<llm::auth::OAuthRefreshLock>(
          std::move(std::get<llm::auth::OAuthRefreshLock>(*taken)));
    }
  }
  auto doc = target.file->load();
  if (!doc) return finish(key, refresh_failed("auth profiles unreadable: " + doc.error().message));
  const Credential* found = doc->find(target.profile_id);
  if (!found || found->type != llm::auth::CredentialType::OAuth) {
    return finish(key, refresh_failed("auth profile " + target.profile_id + " is no longer an oauth profile"));
  }
  Credential current = *found;
  std::string file_refresh = found->refresh;  // what a save must still find there
  if (auto u = unsaved_.find(key); u != unsaved_.end()) {
    if (current.refresh == u->second.from_refresh) {  // the file is still behind our refresh
      Unsaved pending = u->second;
      save(target.file, key, target.profile_id, pending.credential, pending.from_refresh);
      if (!unsaved_.contains(key)) file_refresh = pending.credential.refresh;  // saved now
      current = pending.credential;
    } else {  // someone else changed the profile (a new login): theirs wins
      unsaved_.erase(u);
    }
  }
  const int64_t now = clock_.wall_ms();
  const bool stale = current.secret == target.stale_access;
  // Refreshed by someone else since the caller read it: theirs, while it has not expired (a token
  // endpoint granting less than the 5-minute margin must not be called again and again).
  if (!stale && (current.expires_ms == 0 || current.expires_ms > now)) return finish(key, current);
  if (!llm::auth::needs_refresh(current, now) && !(target.force && stale)) return finish(key, current);
  if (current.refresh.empty()) {
    return finish(key, refresh_failed("auth profile " + target.profile_id + " has no refresh token"));
  }
  const auto endpoint = llm::auth::oauth_endpoint(current.provider, target.model.oauth_token_url,
                                                  target.model.oauth_client_id, target.model.oauth_body_format);
  if (!endpoint) {
    return finish(key, refresh_failed("no OAuth token endpoint is known for provider " + current.provider +
                                      " (set models.providers." + target.model.provider + ".oauth.tokenUrl)"));
  }
  spdlog::info("auth profile {}: refreshing its OAuth access token ({})", target.profile_id,
               target.force ? "the provider refused it" : "it expires within 5 minutes");

  const llm::auth::TokenRequest request = llm::auth::refresh_request(*endpoint, current.refresh);
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = endpoint->token_url;
  spec.headers = {{"Content-Type", request.content_type}, {"Accept", "application/json"}};
  spec.body = request.body;
  spec.connect_timeout_ms = kTokenCallTimeoutMs;
  spec.idle_timeout_ms = kTokenCallTimeoutMs;

  struct Call {
    int status = 0;
    std::string body;
  };
  auto call = std::make_shared<Call>();
  auto self = shared_from_this();
  auto file = target.file;
  const std::string id = target.profile_id;
  net::HttpCallbacks cb;
  cb.on_head = [call](const net::HttpResponseHead& head) { call->status = head.status; };
  cb.on_data = [call](std::string_view bytes) {
    if (call->body.size() < kMaxTokenAnswerBytes) call->body.append(bytes.substr(0, kMaxTokenAnswerBytes - call->body.size()));
  };
  // The lock is held until the new tokens are saved (or the call failed), and released before the
  // waiting runs go on.
  cb.on_done = [self, call, file, id, key, current, file_refresh,
                lock](const std::optional<net::TransportError>& error) mutable {
    Result<Credential> outcome = self->complete(file, key, id, current, file_refresh, error, call->status, call->body);
    lock.reset();
    self->finish(key, outcome);
  };
  http_.start(std::move(spec), std::move(cb));
}

Result<Credential> OAuthRefresher::complete(const std::shared_ptr<llm::auth::AuthProfileFile>& file,
                                            const std::string& key, const std::string& id, const Credential& current,
                                            const std::string& file_refresh,
                                            const std::optional<net::TransportError>& error, int status,
                                            const std::string& body) {
  if (error) return refresh_failed("the token endpoint could not be reached: " + error->what);
  auto tokens = llm::auth::parse_refresh_response(status, body, clock_.wall_ms(), current.refresh);
  if (!tokens) {
    if (tokens.error().code == "OAUTH_INVALID_GRANT") {
      // The refresh token was spent or revoked — by a new login or a process outside the lock?
      // Then the file holds another credential, usable while unexpired.
      auto doc = file->load();
      const Credential* now_there = doc ? doc->find(id) : nullptr;
      if (now_there && now_there->refresh != current.refresh && now_there->secret != current.secret &&
          (now_there->expires_ms == 0 || now_there->expires_ms > clock_.wall_ms())) {
        spdlog::info("auth profile {}: refresh token refused, but the profile was renewed meanwhile; using that", id);
        return *now_there;
      }
    }
    return tokens.error();
  }
  redact::add_secret(tokens->access);  // AU-5: registered before any use
  redact::add_secret(tokens->refresh);
  Credential fresh = current;
  fresh.secret = tokens->access;
  fresh.refresh = tokens->refresh;
  fresh.expires_ms = tokens->expires_ms;
  save(file, key, id, fresh, file_refresh);
  return fresh;
}

void OAuthRefresher::save(const std::shared_ptr<llm::auth::AuthProfileFile>& file, const std::string& key,
                          const std::string& id, const Credential& fresh, const std::string& from) {
  bool theirs = false;
  auto st = file->update([&](llm::auth::AuthProfiles& doc) {
    const Credential* now_there = doc.find(id);
    // Another writer stored a newer refresh meanwhile: keep theirs (it may have rotated the
    // refresh token ours was made from) and use ours only for this call.
    if (now_there && now_there->refresh != from && now_there->secret != fresh.secret) {
      theirs = true;
      return;
    }
    doc.set_oauth_tokens(id, fresh.secret, fresh.refresh, fresh.expires_ms);
  });
  if (st) {
    const bool was_pending = unsaved_.erase(key) > 0;
    if (!theirs) spdlog::info("auth profile {}: OAuth access token {}", id, was_pending ? "saved at last" : "refreshed");
    return;
  }
  const bool first = unsaved_.find(key) == unsaved_.end();
  unsaved_[key] = Unsaved{fresh, from};
  if (first) {
    spdlog::error("auth profile {}: the refreshed OAuth tokens could not be saved (kept in memory and saved again at the "
                  "next use; they are lost if the gateway stops first): {}",
                  id, st.error().message);
  }
}

void OAuthRefresher::finish(const std::string& key, const Result<Credential>& result) {
  auto it = waiting_.find(key);
  if (it == waiting_.end()) return;
  std::vector<Done> waiters = std::move(it->second);
  waiting_.erase(it);
  if (!result) {
    spdlog::warn("auth profile {}: OAuth refresh failed ({}): {}", key.substr(key.rfind('\n') + 1), result.error().code,
                 result.error().message);
  }
  for (auto& w : waiters) w(result);
}

}  // namespace pincer::agent
