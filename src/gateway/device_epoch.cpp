// Device tokens and the auth epoch (issue 22, item 7; store/auth_epoch.h): run once when the
// gateway starts, before any client connects.
#include <spdlog/spdlog.h>

#include "gateway/gateway.h"
#include "store/auth_epoch.h"

namespace pincer::gateway {

void Gateway::bind_device_tokens_to_auth_epoch() {
  if (settings_.state_dir.empty()) return;
  const AuthSettings& a = settings_.auth;
  // What a client must hold in this mode; trusted-proxy: who may vouch for users, and how.
  std::string secret;
  if (a.mode == "token") secret = a.token;
  else if (a.mode == "password") secret = a.password;
  else if (a.mode == "trusted-proxy") {
    secret = a.trusted_user_header;
    for (const auto& p : a.trusted_proxies) secret += "\n" + p;
  }
  auto epoch = store::apply_auth_epoch(*devices_, settings_.state_dir / "devices", a.mode, secret, clock_.wall_ms());
  using Kind = store::AuthEpochOutcome::Kind;
  if (!epoch) {
    spdlog::error("device store: cannot check device tokens against the auth settings: {}", epoch.error().message);
  } else if (epoch->kind == Kind::Changed && epoch->revoked > 0) {
    spdlog::warn("auth mode or shared secret changed: revoked {} device token(s) issued before; those devices "
                 "connect again with the new {} (which issues a fresh token) or are approved again",
                 epoch->revoked, a.mode == "password" ? "password" : "token");
  } else if (epoch->kind == Kind::First && epoch->unverified > 0) {
    spdlog::warn("{} device token(s) predate the binding of device tokens to the auth settings; if a device was "
                 "paired under auth none or with a token you have since changed, run `pincer devices revoke --all`",
                 epoch->unverified);
  }
}

}  // namespace pincer::gateway
