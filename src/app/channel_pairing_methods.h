// The Control UI's DM pairing methods over Pincer's channel pairing store (SPEC CH-3,
// channels/pairing_store.h; OpenClaw's shapes, scope operator.pairing):
//
//   channels.pairing.list {channel?, accountId?}
//       → {accounts: [{channel, channelLabel, accountId, notifySupported: false}],
//          requests: [{requestId, channel, channelLabel, accountId, senderId, senderLabel,
//                      metadata?: {username}, createdAt, lastSeenAt, expiresAt, notifySupported}],
//          commandOwnerConfigured: false, limits: {pendingPerAccount: 3, ttlMs: 3600000}}
//       accounts: the enabled channel accounts whose dmPolicy is "pairing" (the default);
//       requestId is the pairing code; times are ISO 8601.
//   channels.pairing.approve {channel, accountId, requestId, notify?, bootstrapCommandOwner?}
//       → {requestId, senderId, notification: "not-requested" | "unsupported",
//          commandOwnerBootstrap: "not-requested" | "unavailable"}
//   channels.pairing.dismiss {channel, accountId, requestId} → {requestId, senderId}
//       approve allows the sender like `pincer pairing approve <channel> <code>`, dismiss rejects
//       the request. A code of another account, or one that expired: INVALID_REQUEST "pending DM
//       access request no longer exists".
//
// Registered by `gateway run` on the gateway's method table; the store is re-read per call (the
// CLI edits the same file). Loop thread; small blocking file I/O.
#pragma once

#include <filesystem>

namespace pincer::gateway {
class Gateway;
}

namespace pincer::app {

void register_channel_pairing_methods(gateway::Gateway& gateway, const std::filesystem::path& state_dir);

}  // namespace pincer::app
