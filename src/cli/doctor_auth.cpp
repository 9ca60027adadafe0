// `pincer doctor`'s "auth" check (PV-2, PV-3): each agent's auth-profiles.json — whether it reads,
// which profiles are ignored, and providers whose every profile is cooling down or disabled (the
// agent then answers from a fallback model, or not at all). Never prints a secret.
#include <chrono>
#include <ctime>
#include <map>

#include "agent/agents_config.h"
#include "cli/doctor.h"
#include "cli/invoked_command.h"
#include "llm/auth/auth_profile_file.h"

namespace pincer::cli {
namespace {

std::string utc_time(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace

std::vector<Finding> check_auth_profiles(const nlohmann::json& effective, const std::filesystem::path& state_dir,
                                         const config::EnvLookup& env, int64_t now_ms) {
  std::vector<Finding> out;
  auto agents = agent::resolve_agents(effective, state_dir, env);
  if (!agents) return out;  // the config finding says why
  std::size_t profiles = 0, files = 0;
  for (const auto& a : agents->agents) {
    llm::auth::AuthProfileFile file(llm::auth::auth_profiles_path(state_dir, a.id));
    std::error_code ec;
    if (!std::filesystem::exists(file.path(), ec)) continue;
    ++files;
    auto doc = file.load();
    if (!doc) {
      out.push_back({"auth", "fail", "agent " + a.id + ": " + doc.error().message + " (its profiles are not used)",
                     "fix or remove the file; " + invoked_command() + " models auth add writes a new one"});
      continue;
    }
    for (const auto& w : doc->warnings()) {
      out.push_back({"auth", "warn", "agent " + a.id + ": " + w, invoked_command() + " models auth add --id <id> … replaces it"});
    }
    std::map<std::string, std::vector<std::string>> by_provider;
    for (const auto& c : doc->credentials()) by_provider[c.provider].push_back(c.id);
    profiles += doc->credentials().size();
    for (const auto& [provider, ids] : by_provider) {
      bool any_usable = false;
      int64_t soonest = INT64_MAX;
      std::string why;
      for (const auto& id : ids) {
        if (doc->usable(id, now_ms)) {
          any_usable = true;
          break;
        }
        const llm::auth::UsageStats s = doc->stats(id);
        if (s.unusable_until() > 0 && s.unusable_until() < soonest) {
          soonest = s.unusable_until();
          why = s.disabled_until > now_ms ? "disabled: " + s.disabled_reason : "cooling down: " + s.cooldown_reason;
        }
      }
      if (any_usable) continue;
      const std::string until = soonest == INT64_MAX ? "expired" : why + ", the first is back at " + utc_time(soonest);
      out.push_back({"auth", "warn",
                     "agent " + a.id + ": no usable auth profile for " + provider + " (" + until + ")",
                     invoked_command() + " models auth list shows each profile; " + invoked_command() +
                         " models auth reset <id> clears a cooldown"});
    }
  }
  if (out.empty() && files > 0) {
    out.push_back({"auth", "ok", std::to_string(profiles) + " auth profile(s) in " + std::to_string(files) + " agent file(s), usable", ""});
  }
  return out;
}

}  // namespace pincer::cli
