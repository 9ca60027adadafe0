#include "routing/identity_links.h"

#include "routing/text_util.h"

namespace pincer::routing {

std::optional<LinkedAccount> linked_account_on(const IdentityLinks& links, std::string_view channel,
                                               std::string_view peer_id, std::string_view target_channel) {
  const std::string target = text::token(target_channel);
  if (target.empty()) return std::nullopt;
  auto identity = resolve_linked_peer_id(links, channel, peer_id);
  if (!identity) return std::nullopt;
  // resolve_linked_peer_id returns the first link listing the sender; find that link again.
  for (const auto& [canonical, ids] : links) {
    if (text::trim(canonical) != *identity) continue;
    const std::string prefix = target + ":";
    for (const std::string& id : ids) {
      const std::string_view trimmed = text::trim(id);
      if (trimmed.size() <= prefix.size() || text::lower(trimmed.substr(0, prefix.size())) != prefix) continue;
      const std::string_view rest = text::trim(trimmed.substr(prefix.size()));
      if (!rest.empty()) return LinkedAccount{*identity, std::string(rest)};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace pincer::routing
