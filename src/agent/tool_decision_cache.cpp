// See the header.
#include "agent/tool_decision_cache.h"

namespace pincer::agent {

namespace {
constexpr std::size_t kMaxOrigins = 256;  // agents × channels × groups seen since the last reload

// Every field the pipeline reads; strings length-prefixed, so two different origins never share a key.
std::string origin_key(const tools::policy::PolicyOrigin& o) {
  std::string key;
  for (const std::string* s : {&o.agent_id, &o.provider, &o.model, &o.channel, &o.group_id}) {
    key += std::to_string(s->size());
    key += ':';
    key += *s;
  }
  key += o.is_group ? 'g' : '-';
  key += o.sender_is_owner ? 'o' : '-';
  key += o.subagent ? 's' : '-';
  key += o.skip_profile ? 'p' : '-';
  return key;
}
}  // namespace

Result<tools::policy::PolicyDecision> ToolDecisionCache::decide(const tools::ToolRegistry& registry,
                                                                const std::shared_ptr<const nlohmann::json>& config,
                                                                const tools::policy::PolicyOrigin& origin) {
  if (origin.sandbox_floor || !config) return tools::policy::decide(registry, config ? *config : nlohmann::json::object(), origin);
  if (config != config_) {
    by_origin_.clear();
    config_ = config;
  }
  std::string key = origin_key(origin);
  if (auto it = by_origin_.find(key); it != by_origin_.end()) return it->second;
  auto decision = tools::policy::decide(registry, *config, origin);
  if (!decision) return decision;
  if (by_origin_.size() >= kMaxOrigins) by_origin_.clear();
  by_origin_.emplace(std::move(key), *decision);
  return decision;
}

}  // namespace pincer::agent
