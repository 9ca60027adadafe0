// The `gateway` section of pincer.json: port, bind, auth, control UI, reload (see
// config_schema_gateway.h).
#include "core/config_schema_gateway.h"
#include "core/config_schema_gateway_http.h"

#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {

namespace detail_config_schema_gateway {

Node gateway_auth() {
  return object({
      field("mode",
            one_of({"none", "token", "password", "trusted-proxy"})
                .def("token")
                .doc("How clients authenticate: `none` = no authentication (keep the gateway on "
                     "loopback); `token` = shared token `gateway.auth.token`; `password` = shared "
                     "password `gateway.auth.password`; `trusted-proxy` = a reverse proxy listed in "
                     "`gateway.trustedProxies` authenticates users and names them in a header.")),
      field("token", string().format("text-line").sensitive().doc(
                         "Shared token for `token` mode, compared in constant time. Keep it out of "
                         "the file with env substitution, e.g. `\"${PINCER_TOKEN}\"`.")),
      field("password", string().format("text-line").sensitive().doc("Shared password for `password` mode.")),
      field("rateLimit",
            object({
                field("maxAttempts", integer().min(1).max(kMaxCount).def(10).doc(
                                         "Failed attempts allowed within `windowMs` before the "
                                         "client is locked out.")),
                field("windowMs", integer().min(1).max(kMaxTimerMs).def(60000).doc(
                                      "Window in which failed attempts are counted, in milliseconds.")),
                field("lockoutMs", integer().min(0).max(kMaxTimerMs).def(300000).doc(
                                       "How long a client stays locked out after too many failed "
                                       "attempts, in milliseconds.")),
                field("exemptLoopback", boolean().def(true).doc(
                                            "Never rate-limit clients connecting directly from "
                                            "loopback. Connections through a proxy (forwarding "
                                            "headers) and browser pages are limited all the same.")),
            }).doc("Failed-authentication rate limit, per client IP address (a browser page on this "
                   "machine: per origin), counted separately for the shared token/password and for "
                   "device tokens.")),
      field("trustedProxy",
            object({
                field("userHeader", string().required().doc(
                                        "Request header carrying the authenticated user name "
                                        "(e.g. `x-forwarded-user`).")),
                field("requiredHeaders", array_of(string().pattern(R"(^[!#$%&'*+.^_`|~0-9A-Za-z-]+$)")).doc(
                                             "Header names that must be present, with a non-empty "
                                             "value, on every proxied request; a request lacking "
                                             "one is rejected. Each must be a valid header name.")),
                field("allowUsers", array_of(string()).doc(
                                        "When non-empty, only these users are accepted.")),
            }).doc("Settings of `trusted-proxy` mode (required by it).")),
  }).doc("Authentication of gateway clients (WebSocket and HTTP).");
}

}  // namespace detail_config_schema_gateway

Node gateway_section() {
  namespace d = detail_config_schema_gateway;
  return object({
      field("port", integer().min(1).max(65535).def(18789).doc(
                        "TCP port of the gateway; HTTP and WebSocket share it.")),
      field("bind", one_of({"loopback", "lan", "custom"})
                        .def("loopback")
                        .doc("Address the gateway listens on: `loopback` = 127.0.0.1 (this machine "
                             "only), `lan` = 0.0.0.0 (all interfaces), `custom` = "
                             "`gateway.customBindHost`. A non-loopback bind requires `token`, "
                             "`password` or `trusted-proxy` auth, and the gateway warns at start "
                             "(stderr and log) that every device on the network can reach it.")),
      field("customBindHost", string().format("ipv4").doc(
                                  "IPv4 address to listen on when `gateway.bind` is `custom`.")),
      field("drainTimeoutMs", integer().min(0).max(600000).def(30000).doc(
                                  "When the gateway stops (SIGTERM, Ctrl-C, a restart): how long "
                                  "running turns and replies being delivered get to finish before "
                                  "they are aborted; the run journal answers those at the next "
                                  "start. Queued turns wait for the next start at once.")),
      field("auth", d::gateway_auth()),
      field("trustedProxies", array_of(string()).doc(
                                  "IP addresses or CIDR ranges (`10.0.0.0/8`) of reverse proxies "
                                  "whose forwarding headers are trusted: behind one, the client's "
                                  "address (for the auth rate limit, presence, logs) is the rightmost "
                                  "`x-forwarded-for` hop that is not a trusted proxy, and unknown "
                                  "when it names none. Required by `trusted-proxy` auth.")),
      field("controlUi",
            object({
                field("allowedOrigins", array_of(string().format("origin")).doc(
                                            "Browser origins (e.g. `https://pincer.example.com`, "
                                            "scheme, host and port only) allowed to connect (`*` = "
                                            "any; the `null` origin of sandboxed frames and files is "
                                            "never allowed). Without an entry a page "
                                            "is accepted only from the gateway's own address: "
                                            "`localhost`, `127.x` or `[::1]` on a loopback bind, "
                                            "also an IP address on other binds — never under a host "
                                            "name, which a DNS-rebinding page could point here.")),
                field("root", string().doc(
                                  "A directory holding OpenClaw's built Control UI, e.g. "
                                  "`<openclaw package>/dist/control-ui` of an installed `openclaw` "
                                  "npm package (Pincer bundles none): the gateway then serves it "
                                  "under `gateway.controlUi.basePath`, as OpenClaw does, with its "
                                  "WebSocket on the same port. While it takes `/`, Pincer's web chat "
                                  "moves to `/pincer/`. `~/` is the home directory; a relative path "
                                  "is taken from the working directory. A directory without "
                                  "`index.html` is an error (`pincer doctor`; the UI answers 503).")),
                field("basePath", string().doc(
                                      "URL path of the Control UI (`/openclaw` → "
                                      "`http://host:port/openclaw/`); unset or `/` = the root, and "
                                      "Pincer's web chat moves to `/pincer/`.")),
            }).doc("The browser Control UI served by the gateway.")),
      field("reload",
            object({
                field("mode", one_of({"hybrid", "hot", "restart", "off"})
                                  .def("hybrid")
                                  .doc("What an edit of the config file does while the gateway runs "
                                       "(CF-2): `hybrid` = apply channel, routing, agent, model and "
                                       "memory changes at once (only a changed channel account restarts) "
                                       "and restart the gateway in place for the rest (port, auth, "
                                       "logging …); `hot` = apply what can be applied, log the rest "
                                       "as needing a restart; `restart` = restart in place on any "
                                       "change; `off` = do not apply edits (the file stays watched: a "
                                       "later edit that sets another mode applies everything changed "
                                       "since). The mode in the edited file applies to that edit. An "
                                       "invalid file is rejected and the running config kept.")),
                field("debounceMs", integer().min(0).max(60000).def(300).doc(
                                        "Quiet time after the last write before the file is read, ms.")),
            }).doc("Applying edits of the config file without a restart.")),
      field("http", gateway_http_section()),  // IX-4 (config_schema_gateway_http.cpp)
  }).doc("The gateway server: network binding, authentication, reverse proxies, Control UI.");
}

}  // namespace pincer::config::schema
