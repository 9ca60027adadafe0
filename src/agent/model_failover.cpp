#include "agent/model_failover.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/model_registry.h"
#include "core/redact.h"

namespace pincer::agent {

using Reason = llm::FailoverReason;

std::string ModelCandidate::label() const {
  return profile_id.empty() ? ref() : ref() + " (profile " + profile_id + ")";
}

nlohmann::json FailoverSwitch::to_json() const {
  nlohmann::json j = {{"from", from}, {"to", to}, {"fromModel", from_model}, {"toModel", to_model},
                      {"reason", reason}, {"message", message}, {"at", at_ms}};
  if (!cause.empty()) j["cause"] = cause;
  if (!from_profile.empty()) j["fromProfile"] = from_profile;
  if (!to_profile.empty()) j["toProfile"] = to_profile;
  return j;
}

ModelFailover::ModelFailover(std::vector<llm::ModelSpec> models, std::shared_ptr<llm::auth::AuthProfileFile> profiles,
                             int64_t now_ms, std::string preferred_profile)
    : profiles_(std::move(profiles)) {
  llm::auth::AuthProfiles doc;
  if (profiles_) {
    if (auto loaded = profiles_->load()) doc = std::move(*loaded);
    else spdlog::warn("auth profiles ignored: {}", loaded.error().message);
    for (const auto& c : doc.credentials()) {
      redact::add_secret(c.secret);  // AU-5: never in a log line
      redact::add_secret(c.refresh);
    }
  }
  struct Probe {
    ModelCandidate candidate;
    int64_t available_at;
  };
  std::vector<Probe> probes;
  std::vector<std::string> seen;
  for (auto& model : models) {
    ModelCandidate base{model, "", false};
    if (std::find(seen.begin(), seen.end(), base.ref()) != seen.end()) continue;
    seen.push_back(base.ref());
    bool config_key_is_a_profile = false;
    // PV-2: a cooldown limited to another model of the profile does not hold this one back.
    const std::vector<std::string> ids = doc.order(model.provider, now_ms, preferred_profile, model.id);
    for (const auto& id : ids) {
      const llm::auth::Credential* credential = doc.find(id);
      ModelCandidate c{model, id, false};
      c.model.api_key = credential->secret;
      c.oauth = credential->type == llm::auth::CredentialType::OAuth && !credential->refresh.empty();
      c.expires_ms = credential->expires_ms;
      if (credential->secret == model.api_key) config_key_is_a_profile = true;
      if (doc.usable(id, now_ms, model.id)) {
        chain_.push_back(std::move(c));
      } else {
        const int64_t at = doc.stats(id).unusable_until(model.id);
        c.probe = true;
        probes.push_back({std::move(c), at > 0 ? at : INT64_MAX});
      }
    }
    if (ids.empty() || (!model.api_key.empty() && !config_key_is_a_profile)) chain_.push_back(std::move(base));
  }
  std::stable_sort(probes.begin(), probes.end(), [](const Probe& a, const Probe& b) { return a.available_at < b.available_at; });
  for (auto& p : probes) chain_.push_back(std::move(p.candidate));
  if (chain_.empty() && !models.empty()) chain_.push_back({models.front(), "", false});
  if (!chain_.empty() && !models.empty() && chain_.front().ref() != models.front().provider + "/" + models.front().id) {
    // Every credential of the run's own model is cooling or disabled: say why another answers.
    FailoverSwitch s;
    s.from_model = models.front().provider + "/" + models.front().id;
    s.from = s.from_model;
    s.to = chain_.front().label();
    s.to_model = chain_.front().ref();
    s.to_profile = chain_.front().profile_id;
    s.reason = "unavailable";
    s.message = s.from_model + ": every auth profile is cooling down or disabled";
    s.at_ms = now_ms;
    switches_.push_back(std::move(s));
  }
  if (!chain_.empty()) tried_models_.push_back(chain_.front().ref());
}

void ModelFailover::mark(const llm::ProviderFailure& failure, int64_t now_ms) {
  const ModelCandidate& c = current();
  if (c.profile_id.empty()) return;
  // A model-scoped failure (rate_limit, timeout) holds the profile back for this model only.
  const bool scoped = llm::auth::model_scoped_reason(llm::to_string(failure.reason));
  FailedProfile f{c.profile_id, scoped ? c.model.id : std::string()};
  if (std::find(failed_profiles_.begin(), failed_profiles_.end(), f) == failed_profiles_.end()) failed_profiles_.push_back(f);
  if (!profiles_) return;
  if (auto st = profiles_->mark_failure(c.profile_id, failure.reason, now_ms, c.model.id); !st) {
    spdlog::warn("auth profile {}: could not record the failure: {}", c.profile_id, st.error().message);
  }
}

bool ModelFailover::switch_to(Next which, const llm::ProviderFailure& failure, int64_t now_ms) {
  const ModelCandidate from = current();
  for (std::size_t j = index_ + 1; j < chain_.size(); ++j) {
    const ModelCandidate& c = chain_[j];
    if (which == Next::OtherModel && c.ref() == from.ref()) continue;
    // A model already tried in this run (another of its profiles, a cooling one at the end).
    if (which == Next::NewModel && std::find(tried_models_.begin(), tried_models_.end(), c.ref()) != tried_models_.end()) continue;
    if (which == Next::SameModel && (c.ref() != from.ref() || c.probe)) continue;
    if (!c.profile_id.empty() && std::any_of(failed_profiles_.begin(), failed_profiles_.end(), [&](const FailedProfile& f) {
          return f.id == c.profile_id && (f.model.empty() || f.model == c.model.id);
        })) {
      continue;
    }
    FailoverSwitch s;
    s.from = from.label();
    s.to = c.label();
    s.from_model = from.ref();
    s.to_model = c.ref();
    s.from_profile = from.profile_id;
    s.to_profile = c.profile_id;
    s.reason = std::string(llm::to_string(failure.reason));
    s.cause = failure.cause;
    s.message = failure.message;
    s.at_ms = now_ms;
    // The class and what happened: "timeout" alone hides a refused connection or a DNS failure.
    spdlog::warn("failover: {} → {} ({}{}{}): {}", s.from, s.to, s.reason, s.cause.empty() ? "" : ": ", s.cause, s.message);
    switches_.push_back(std::move(s));
    index_ = j;
    if (std::find(tried_models_.begin(), tried_models_.end(), c.ref()) == tried_models_.end()) tried_models_.push_back(c.ref());
    return true;
  }
  return false;
}

ModelFailover::Action ModelFailover::on_failure(const llm::ProviderFailure& failure, int attempt, int max_attempts,
                                                int64_t now_ms) {
  const bool can_retry = failure.retryable && attempt < max_attempts;
  switch (failure.reason) {
    case Reason::RateLimit:
      mark(failure, now_ms);
      if (switch_to(Next::SameModel, failure, now_ms) || switch_to(Next::Any, failure, now_ms)) return Action::Switch;
      return can_retry ? Action::Retry : Action::GiveUp;
    case Reason::Overloaded:
    case Reason::Timeout:
    case Reason::ServerError:  // OpenClaw's server_error: retried, then the next model; no cooldown
    case Reason::Network:  // nothing listens at the provider's address: retried, then the next model
      if (can_retry) return Action::Retry;
      return switch_to(Next::OtherModel, failure, now_ms) ? Action::Switch : Action::GiveUp;
    case Reason::Auth:
    case Reason::Billing:
    case Reason::AuthPermanent:
      mark(failure, now_ms);
      return switch_to(Next::Any, failure, now_ms) ? Action::Switch : Action::GiveUp;
    case Reason::ModelNotFound:
    case Reason::Format:
      // The request or the model, not the credential: no other profile, no cooldown (OpenClaw
      // surfaces a format error instead of rotating profiles); each model once.
      return switch_to(Next::NewModel, failure, now_ms) ? Action::Switch : Action::GiveUp;
    case Reason::ContextOverflow:
    case Reason::SessionExpired:
    case Reason::Unknown:
      break;
  }
  return Action::GiveUp;
}

void ModelFailover::on_success(int64_t now_ms) {
  const ModelCandidate& c = current();
  if (c.profile_id.empty() || !profiles_) return;
  if (auto st = profiles_->mark_good(c.profile_id, now_ms, c.model.id); !st) {
    spdlog::warn("auth profile {}: could not record the success: {}", c.profile_id, st.error().message);
  }
}

void ModelFailover::refreshed(const std::string& id, const std::string& access, int64_t expires_ms) {
  for (auto& c : chain_) {
    if (c.profile_id != id) continue;
    c.model.api_key = access;
    c.expires_ms = expires_ms;
  }
}

std::shared_ptr<ModelFailover> make_model_failover(const llm::ModelSpec& model, const std::vector<std::string>& fallbacks,
                                                   const ModelRegistry& registry,
                                                   std::shared_ptr<llm::auth::AuthProfileFile> profiles, int64_t now_ms,
                                                   std::string preferred_profile) {
  std::vector<llm::ModelSpec> models{model};
  for (const auto& ref : fallbacks) {
    if (auto spec = registry.resolve(ref)) models.push_back(std::move(*spec));
  }
  return std::make_shared<ModelFailover>(std::move(models), std::move(profiles), now_ms, std::move(preferred_profile));
}

}  // namespace pincer::agent
