// AgentRun's side of OAuth refresh (PV-2, oauth_refresher.h): an oauth profile's access token is
// refreshed before the call that would send it expired (or within 5 minutes of expiring), and once
// per profile and run after the provider answered 401 to it. A refresh that fails is a failure of
// that profile like any other: invalid_grant disables it (auth_permanent, the profile needs a new
// login), anything else cools it down (auth); the failover chain then rotates to the next profile
// or fallback model and reports the switch as usual.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/agent_run.h"
#include "llm/auth/oauth_refresh.h"

namespace pincer::agent {

namespace detail_agent_run_oauth {

/// Whether the candidate's provider has a token endpoint (built in or configured): without one the
/// token is sent as it is and a refusal fails over like any credential failure.
bool refreshable(const ModelCandidate& c) {
  return c.oauth && !c.profile_id.empty() &&
         llm::auth::oauth_endpoint(c.model.provider, c.model.oauth_token_url, c.model.oauth_client_id,
                                   c.model.oauth_body_format)
             .has_value();
}

}  // namespace detail_agent_run_oauth

bool AgentRun::oauth_refresh_due() const {
  if (!in_.oauth || !in_.failover || !in_.failover->profiles()) return false;
  const ModelCandidate& c = in_.failover->current();
  if (!detail_agent_run_oauth::refreshable(c)) return false;
  // Once refreshed in this run, only an expired token is refreshed again: an endpoint granting
  // less than the margin would otherwise be called before every model call.
  const bool refreshed = std::find(oauth_refreshed_.begin(), oauth_refreshed_.end(), c.profile_id) != oauth_refreshed_.end();
  const int64_t margin = refreshed ? 0 : llm::auth::kRefreshMarginMs;
  return c.expires_ms > 0 && c.expires_ms - margin <= clock_.wall_ms();
}

bool AgentRun::take_oauth_retry(const llm::ProviderFailure& failure) {
  // A 401 whatever its text (providers word a revoked token like a wrong key: auth_permanent).
  const bool refused = failure.http_status == 401 || failure.reason == llm::FailoverReason::Auth;
  if (streamed_ || !refused || !in_.oauth || !in_.failover || !in_.failover->profiles()) {
    return false;
  }
  const ModelCandidate& c = in_.failover->current();
  if (!detail_agent_run_oauth::refreshable(c)) return false;
  if (std::find(oauth_forced_.begin(), oauth_forced_.end(), c.profile_id) != oauth_forced_.end()) return false;
  oauth_forced_.push_back(c.profile_id);
  return true;
}

void AgentRun::refresh_oauth(bool force, std::function<void()> then) {
  const ModelCandidate& c = in_.failover->current();
  OAuthRefresher::Target target;
  target.file = in_.failover->profiles();
  target.profile_id = c.profile_id;
  target.stale_access = c.model.api_key;
  target.force = force;
  target.model = c.model;
  std::weak_ptr<AgentRun> weak = weak_from_this();
  in_.oauth->refresh(std::move(target), [weak, then = std::move(then)](Result<llm::auth::Credential> result) {
    auto self = weak.lock();
    if (!self || self->finished_) return;  // an abort ended the run meanwhile
    if (self->aborted_) return self->finish_aborted();
    if (result) {
      if (std::find(self->oauth_refreshed_.begin(), self->oauth_refreshed_.end(), result->id) == self->oauth_refreshed_.end()) {
        self->oauth_refreshed_.push_back(result->id);
      }
      self->in_.failover->refreshed(result->id, result->secret, result->expires_ms);
      self->in_.model.api_key = result->secret;
      return then();
    }
    const ModelCandidate& failed = self->in_.failover->current();
    llm::ProviderFailure failure;
    const bool invalid_grant = result.error().code == "OAUTH_INVALID_GRANT";
    failure.reason = invalid_grant ? llm::FailoverReason::AuthPermanent : llm::FailoverReason::Auth;
    failure.cause = invalid_grant ? "OAuth refresh: invalid_grant" : "OAuth refresh failed";
    failure.message = failed.ref() + ": the OAuth refresh of auth profile " + failed.profile_id + " failed: " +
                      result.error().message;
    failure.retryable = false;
    // A refresh that failed is not tried again in this run (no 401 → refresh loop).
    if (std::find(self->oauth_forced_.begin(), self->oauth_forced_.end(), failed.profile_id) == self->oauth_forced_.end()) {
      self->oauth_forced_.push_back(failed.profile_id);
    }
    // The failure is the refresh's, not a model call's: nothing of a response is left to read.
    self->status_ = 0;
    self->error_body_.clear();
    self->decoder_.reset();
    self->streamed_ = false;
    if (self->attempt_ == 0) self->attempt_ = 1;
    self->handle_failure(failure);
  });
}

}  // namespace pincer::agent
