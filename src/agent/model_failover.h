// Model failover for one run (PV-3, PV-5, AG-5): the chain of (model, credential) candidates a
// run may use, and the decision after each failed clean attempt — retry the same candidate, switch
// to the next one, or give up.
//
// The chain: for the run's model, then each of its fallbacks (agents.defaults.model.fallbacks or
// the agent's own), the provider's auth profiles that are usable now in PV-3 order
// (llm/auth/auth_profiles.h), then the provider's configured apiKey when it is not one of them
// (a provider without profiles has just that candidate, maybe keyless for local servers). Profiles
// that are cooling down or disabled go after every usable candidate, soonest available first: they
// are probed only when nothing else is left, so a single rate-limited key still gets its turn.
//
// Decisions by failover reason (the clean-attempt rule — nothing of this reply shown, no tool run
// for it — is the caller's: AgentRun asks only then):
//   rate_limit            mark the profile cooling; the next candidate of the same model, else
//                         the next model (OpenClaw's order), else retry with backoff while
//                         attempts remain (a single key without fallbacks waits out its limit)
//   overloaded, timeout, server_error, network  retry with backoff while attempts remain, then the
//                         next model (other profiles of the same provider would meet the same outage)
//   auth                  mark the profile cooling; the next candidate
//   billing, auth_permanent  mark the profile disabled (hours); the next candidate
//   model_not_found, format  the next model not tried yet in this run (never another profile of
//                         a model already tried, nor a cooling one: the request or the model is
//                         refused, not the credential; no cooldown — OpenClaw's rule for format)
//   context_overflow, session_expired, unknown  give up (not a question of credentials or models)
// A profile that failed for its credential in this run is skipped for the later models too; one
// that was rate-limited (or timed out) only for the model that failed (PV-2 per-model cooldowns:
// its cooldown in the file names that model, `cooldownModel`).
//
// Thread affinity: the run's event-loop thread. Marks are written through AuthProfileFile.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/auth/auth_profile_file.h"
#include "llm/failover.h"
#include "llm/messages.h"

namespace pincer::agent {

/// One way to call a model: the model with the credential to send in its api_key.
struct ModelCandidate {
  llm::ModelSpec model;
  std::string profile_id;  ///< "" = the provider's configured apiKey (or none)
  bool probe = false;      ///< cooling or disabled: tried only because nothing else was left
  bool oauth = false;      ///< an `oauth` profile with a refresh token: refreshed when due (oauth_refresher.h)
  int64_t expires_ms = 0;  ///< its access token's expiry (ms since the epoch; 0 = none)
  std::string ref() const { return model.provider + "/" + model.id; }
  /// "openai/gpt-4.1 (profile openai:work)" or "openai/gpt-4.1".
  std::string label() const;
};

/// One switch made during a run (shown with /status and in the `agent` event).
struct FailoverSwitch {
  std::string from, to;                  ///< candidate labels
  std::string from_model, to_model;      ///< "provider/model"
  std::string from_profile, to_profile;  ///< "" = configured key
  std::string reason;                    ///< llm::to_string(FailoverReason)
  std::string cause;                     ///< what happened: "connection refused (ECONNREFUSED)", "HTTP 503 (overloaded)" …
  std::string message;                   ///< the failure's one-line message
  int64_t at_ms = 0;
  /// {from, to, fromModel, toModel, fromProfile?, toProfile?, reason, cause?, message, at}
  nlohmann::json to_json() const;
};

class ModelFailover {
 public:
  /// `models`: the run's model first, then its fallbacks (already resolved, duplicates ignored),
  /// each with the provider's configured api_key. `profiles`: the agent's auth-profiles file (null
  /// = configured keys only). `preferred_profile`: a session's pinned profile ("" = none).
  /// A profiles file that cannot be read is logged and treated as empty.
  ModelFailover(std::vector<llm::ModelSpec> models, std::shared_ptr<llm::auth::AuthProfileFile> profiles,
                int64_t now_ms, std::string preferred_profile = {});

  /// The candidate to use now; never null (a chain always has the run's model).
  const ModelCandidate& current() const { return chain_[index_]; }
  const std::vector<ModelCandidate>& chain() const { return chain_; }

  enum class Action { Retry, Switch, GiveUp };
  /// After a failed clean attempt number `attempt` (1-based) of the current candidate, of at most
  /// `max_attempts` per candidate: what to do (see the file comment). On Switch, current() is the
  /// new candidate and switches().back() says why.
  Action on_failure(const llm::ProviderFailure& failure, int attempt, int max_attempts, int64_t now_ms);
  /// After a successful call: marks the current profile good.
  void on_success(int64_t now_ms);
  /// After an OAuth refresh of profile `id`: every candidate using it sends `access` from now on.
  void refreshed(const std::string& id, const std::string& access, int64_t expires_ms);
  /// The agent's auth-profiles file (null = configured keys only).
  const std::shared_ptr<llm::auth::AuthProfileFile>& profiles() const { return profiles_; }

  const std::vector<FailoverSwitch>& switches() const { return switches_; }

 private:
  /// Which later candidates a switch may go to: any; another model; a model not tried in this run;
  /// the same model's fresh profiles.
  enum class Next { Any, OtherModel, NewModel, SameModel };
  /// Moves to the first eligible later candidate (skipping profiles that failed in this run) and
  /// records the switch; false when there is none.
  bool switch_to(Next which, const llm::ProviderFailure& failure, int64_t now_ms);
  void mark(const llm::ProviderFailure& failure, int64_t now_ms);

  std::shared_ptr<llm::auth::AuthProfileFile> profiles_;
  std::vector<ModelCandidate> chain_;
  std::size_t index_ = 0;
  struct FailedProfile {
    std::string id;
    std::string model;  ///< "" = every model; else the model id a rate limit or timeout was for
    bool operator==(const FailedProfile&) const = default;
  };
  std::vector<FailedProfile> failed_profiles_;  ///< credential failures in this run
  std::vector<FailoverSwitch> switches_;
  std::vector<std::string> tried_models_;  ///< "provider/model" of every candidate used in this run
};

class ModelRegistry;

/// The chain for a run on `model` with the agent's `fallbacks` ("provider/model" names; names the
/// registry does not know are skipped — the gateway warns about them at start). `preferred_profile`:
/// the session's pinned profile (auth_profile_pin.h; "" = none). Registers every profile secret for
/// log redaction (AU-5).
std::shared_ptr<ModelFailover> make_model_failover(const llm::ModelSpec& model, const std::vector<std::string>& fallbacks,
                                                   const ModelRegistry& registry,
                                                   std::shared_ptr<llm::auth::AuthProfileFile> profiles, int64_t now_ms,
                                                   std::string preferred_profile = {});

}  // namespace pincer::agent
