#include "gateway/protocol/scopes.h"

#include <algorithm>
#include <array>
#include <utility>

namespace pincer::gateway {
namespace {

using Entry = std::pair<std::string_view, std::string_view>;

// Explicit entries (OpenClaw's method-scopes table, openclaw-protocol.md §2.2). Sorted at first use.
constexpr std::array kExplicit = {
    // read
    Entry{"health", kScopeRead}, Entry{"status", kScopeRead}, Entry{"logs.tail", kScopeRead},
    Entry{"doctor.memory.status", kScopeRead}, Entry{"channels.status", kScopeRead},
    Entry{"usage.status", kScopeRead}, Entry{"usage.cost", kScopeRead}, Entry{"tts.status", kScopeRead},
    Entry{"tts.providers", kScopeRead}, Entry{"models.list", kScopeRead}, Entry{"tools.catalog", kScopeRead},
    Entry{"agents.list", kScopeRead}, Entry{"agent.identity.get", kScopeRead}, Entry{"skills.status", kScopeRead},
    Entry{"voicewake.get", kScopeRead}, Entry{"sessions.list", kScopeRead}, Entry{"sessions.preview", kScopeRead},
    Entry{"sessions.resolve", kScopeRead}, Entry{"sessions.usage", kScopeRead}, Entry{"cron.list", kScopeRead},
    Entry{"cron.status", kScopeRead}, Entry{"hooks.status", kScopeRead}, Entry{"mcp.status", kScopeRead}, Entry{"cron.runs", kScopeRead}, Entry{"cron.get", kScopeRead}, Entry{"system-presence", kScopeRead},
    Entry{"last-heartbeat", kScopeRead}, Entry{"node.list", kScopeRead}, Entry{"node.describe", kScopeRead},
    Entry{"chat.history", kScopeRead}, Entry{"config.get", kScopeRead}, Entry{"config.schema", kScopeRead},
    Entry{"talk.config", kScopeRead}, Entry{"agents.files.list", kScopeRead}, Entry{"agents.files.get", kScopeRead},
    Entry{"models.authStatus", kScopeRead}, Entry{"sessions.subscribe", kScopeRead},
    Entry{"sessions.unsubscribe", kScopeRead}, Entry{"sessions.describe", kScopeRead}, Entry{"chat.startup", kScopeRead},
    Entry{"system.info", kScopeRead}, Entry{"plugins.list", kScopeRead}, Entry{"sessions.observer.visibility", kScopeRead},
    Entry{"sessions.messages.subscribe", kScopeRead}, Entry{"sessions.messages.unsubscribe", kScopeRead},
    Entry{"tasks.list", kScopeRead}, Entry{"progressCard.get", kScopeRead}, Entry{"sessions.companion.state", kScopeRead},
    Entry{"config.schema.lookup", kScopeRead}, Entry{"talk.catalog", kScopeRead}, Entry{"chat.metadata", kScopeRead},
    Entry{"sessions.branches.list", kScopeRead}, Entry{"environments.list", kScopeRead}, Entry{"diagnostics.lanes", kScopeRead},
    Entry{"transcripts.list", kScopeRead}, Entry{"plugins.catalog.browse", kScopeRead}, Entry{"themes.list", kScopeRead},
    Entry{"tools.github.status", kScopeRead}, Entry{"webSearch.status", kScopeRead}, Entry{"skills.library.list", kScopeRead},
    Entry{"skills.search", kScopeRead}, Entry{"skills.proposals.list", kScopeRead}, Entry{"worktrees.list", kScopeRead},
    Entry{"sessions.usage.timeseries", kScopeRead}, Entry{"commands.list", kScopeRead}, Entry{"chat.message.get", kScopeRead}, Entry{"tools.effective", kScopeRead},
    Entry{"agents.workspace.get", kScopeRead},
    // write
    Entry{"send", kScopeWrite}, Entry{"poll", kScopeWrite}, Entry{"agent", kScopeWrite},
    Entry{"agent.wait", kScopeWrite}, Entry{"wake", kScopeWrite}, Entry{"talk.mode", kScopeWrite},
    Entry{"tts.enable", kScopeWrite}, Entry{"tts.disable", kScopeWrite}, Entry{"tts.convert", kScopeWrite},
    Entry{"tts.setProvider", kScopeWrite}, Entry{"voicewake.set", kScopeWrite}, Entry{"node.invoke", kScopeWrite},
    Entry{"chat.send", kScopeWrite}, Entry{"chat.abort", kScopeWrite}, Entry{"browser.request", kScopeWrite},
    Entry{"push.test", kScopeWrite}, Entry{"sessions.branches.switch", kScopeWrite},
    Entry{"sessions.create", kScopeWrite}, Entry{"sessions.send", kScopeWrite}, Entry{"sessions.abort", kScopeWrite},
    // approvals
    Entry{"exec.approval.request", kScopeApprovals}, Entry{"exec.approval.waitDecision", kScopeApprovals},
    Entry{"exec.approval.resolve", kScopeApprovals}, Entry{"exec.approval.list", kScopeApprovals},
    Entry{"exec.approval.get", kScopeApprovals}, Entry{"exec.approval.grants.list", kScopeApprovals},
    Entry{"exec.approval.grants.revoke", kScopeApprovals},
    Entry{"plugin.approval.list", kScopeApprovals}, Entry{"openclaw.approval.list", kScopeApprovals},
    Entry{"approval.history", kScopeApprovals}, Entry{"approval.get", kScopeApprovals},
    Entry{"approval.resolve", kScopeApprovals},
    // questions
    Entry{"question.list", kScopeQuestions},
    // pairing
    Entry{"device.token.rotate", kScopePairing}, Entry{"device.token.revoke", kScopePairing},
    Entry{"node.rename", kScopePairing}, Entry{"channels.pairing.list", kScopePairing},
    Entry{"channels.pairing.approve", kScopePairing}, Entry{"channels.pairing.dismiss", kScopePairing},
};

// Prefix rules, consulted after explicit entries (explicit entries win: config.get is read).
constexpr std::array kPrefixes = {
    Entry{"node.pair.", kScopePairing}, Entry{"device.pair.", kScopePairing},
    Entry{"exec.approvals.", kScopeAdmin}, Entry{"config.", kScopeAdmin},
    Entry{"wizard.", kScopeAdmin},      Entry{"update.", kScopeAdmin},
};

// Methods only a node may call.
constexpr std::array<std::string_view, 6> kNodeOnly = {
    "node.invoke.result", "node.event", "node.canvas.capability.refresh", "skills.bins", "node.pending.pull",
    "node.pending.ack",
};

const std::vector<Entry>& sorted_explicit() {
  static const std::vector<Entry> table = [] {
    std::vector<Entry> v(kExplicit.begin(), kExplicit.end());
    std::sort(v.begin(), v.end());
    return v;
  }();
  return table;
}

bool has(const std::vector<std::string>& granted, std::string_view scope) {
  return std::find(granted.begin(), granted.end(), scope) != granted.end();
}

}  // namespace

MethodAccess method_access(std::string_view method) {
  if (method == "health") return {MethodAccess::Anyone, {}};
  if (std::find(kNodeOnly.begin(), kNodeOnly.end(), method) != kNodeOnly.end()) return {MethodAccess::NodeOnly, {}};
  const auto& table = sorted_explicit();
  auto it = std::lower_bound(table.begin(), table.end(), method,
                             [](const Entry& e, std::string_view m) { return e.first < m; });
  if (it != table.end() && it->first == method) return {MethodAccess::OperatorScope, it->second};
  for (const auto& [prefix, scope] : kPrefixes) {
    if (method.substr(0, prefix.size()) == prefix) return {MethodAccess::OperatorScope, scope};
  }
  return {MethodAccess::OperatorScope, kScopeAdmin};
}

bool operator_scope_allows(const std::vector<std::string>& granted, std::string_view required) {
  if (has(granted, kScopeAdmin) && required.substr(0, 9) == "operator.") return true;
  if (required == kScopeRead) return has(granted, kScopeRead) || has(granted, kScopeWrite);
  return has(granted, required);
}

std::optional<RpcError> authorize(std::string_view role, const std::vector<std::string>& scopes,
                                  std::string_view method) {
  const MethodAccess access = method_access(method);
  if (access.kind == MethodAccess::Anyone) return std::nullopt;
  const bool node_only = access.kind == MethodAccess::NodeOnly;
  if ((node_only && role != "node") || (!node_only && role != "operator")) {
    return RpcError::invalid("unauthorized role: " + std::string(role));
  }
  if (node_only || operator_scope_allows(scopes, access.scope)) return std::nullopt;
  // OpenClaw v4's missing-scope shape: FORBIDDEN with structured details its clients read
  // (readMissingScopeErrorDetails) instead of parsing the message.
  const std::string scope(access.scope);
  return RpcError{"FORBIDDEN", "missing scope: " + scope,
                  {{"code", "MISSING_SCOPE"}, {"missingScope", scope}, {"requiredScopes", {scope}}},
                  std::nullopt, std::nullopt};
}

}  // namespace pincer::gateway
