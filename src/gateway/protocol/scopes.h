// Roles and scopes per method (GW-4; openclaw-protocol.md §1.5, §2.2, §4.3). One table maps each
// method to what it needs; methods not in the table need `operator.admin` (default-deny).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/protocol/frames.h"

namespace pincer::gateway {

inline constexpr std::string_view kScopeRead = "operator.read";
inline constexpr std::string_view kScopeWrite = "operator.write";
inline constexpr std::string_view kScopeAdmin = "operator.admin";
inline constexpr std::string_view kScopeApprovals = "operator.approvals";
inline constexpr std::string_view kScopePairing = "operator.pairing";
inline constexpr std::string_view kScopeQuestions = "operator.questions";  ///< question.* (the agent asks the user)

/// What calling a method requires.
struct MethodAccess {
  enum Kind { Anyone, NodeOnly, OperatorScope } kind;
  std::string_view scope;  ///< for OperatorScope: the operator.* scope required
};

/// Looks a method up in the scope table (explicit entries first, then prefix rules, then admin).
MethodAccess method_access(std::string_view method);

/// True when `granted` satisfies `required` for an operator: operator.admin satisfies every
/// operator.* scope; operator.read is satisfied by read or write; anything else needs an exact match.
bool operator_scope_allows(const std::vector<std::string>& granted, std::string_view required);

/// Authorizes one call. nullopt = allowed; otherwise INVALID_REQUEST "unauthorized role: <role>",
/// or FORBIDDEN "missing scope: <scope>" with details {code: "MISSING_SCOPE", missingScope,
/// requiredScopes: [scope]} (OpenClaw v4's MissingScopeErrorDetails).
std::optional<RpcError> authorize(std::string_view role, const std::vector<std::string>& scopes,
                                  std::string_view method);

}  // namespace pincer::gateway
