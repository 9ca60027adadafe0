// Pure protocol pieces: frame parsing, scopes, idempotency cache, write budget, auth rate limit,
// connect params, authentication (issue #2 §4 "unit tests for … scopes, idempotency").
#include <gtest/gtest.h>

#include "gateway/protocol/auth_rate_limit.h"
#include "gateway/protocol/client_address.h"
#include "gateway/protocol/constants.h"
#include "gateway/protocol/route_guard.h"
#include "gateway/protocol/connect.h"
#include "gateway/protocol/frame_fast_path.h"
#include "gateway/protocol/frames.h"
#include "gateway/protocol/idempotency.h"
#include "gateway/protocol/scopes.h"
#include "gateway/protocol/write_budget.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

// ---- frames ----

TEST(Frames, ParsesAValidRequest) {
  auto r = parse_request(R"({"type":"req","id":"1","method":"health","params":{"probe":true}})");
  ASSERT_TRUE(std::holds_alternative<RequestFrame>(r));
  const auto& f = std::get<RequestFrame>(r);
  EXPECT_EQ(f.id, "1");
  EXPECT_EQ(f.method, "health");
  EXPECT_EQ(f.params["probe"], true);
}

TEST(Frames, RejectionsNameTheProblem) {
  struct Case {
    const char* text;
    FrameError::Kind kind;
    const char* message;
    const char* id;
  };
  const Case cases[] = {
      {"{oops", FrameError::NotJson, "invalid request frame: not valid JSON", "invalid"},
      {"[1]", FrameError::Invalid, "invalid request frame: must be an object", "invalid"},
      {R"({"type":"req","id":"a","method":"m","x":1})", FrameError::Invalid,
       "invalid request frame: unexpected property \"x\"", "a"},
      {R"({"id":"a","method":"m"})", FrameError::Invalid, "invalid request frame: must have required property 'type'", "a"},
      {R"({"type":"res","id":"a","method":"m"})", FrameError::Invalid, "invalid request frame: type must be \"req\"", "a"},
      {R"({"type":"req","method":"m"})", FrameError::Invalid, "invalid request frame: must have required property 'id'",
       "invalid"},
      {R"({"type":"req","id":"","method":"m"})", FrameError::Invalid, "invalid request frame: id must be a non-empty string",
       "invalid"},
      {R"({"type":"req","id":"a","method":7})", FrameError::Invalid,
       "invalid request frame: method must be a non-empty string", "a"},
  };
  for (const auto& c : cases) {
    auto r = parse_request(c.text);
    ASSERT_TRUE(std::holds_alternative<FrameError>(r)) << c.text;
    const auto& e = std::get<FrameError>(r);
    EXPECT_EQ(e.kind, c.kind) << c.text;
    EXPECT_EQ(e.message, c.message) << c.text;
    EXPECT_EQ(e.request_id, c.id) << c.text;
  }
}

TEST(Frames, BuildsResponsesAndEvents) {
  EXPECT_EQ(build_ok("i\"d", std::string_view(R"({"a":1})")), R"({"type":"res","id":"i\"d","ok":true,"payload":{"a":1}})");
  RpcError e = RpcError::invalid("nope", {{"code", "X"}});
  e.retryable = true;
  e.retry_after_ms = 5;
  EXPECT_EQ(json::parse(build_error("1", e)),
            json::parse(R"({"type":"res","id":"1","ok":false,"error":{"code":"INVALID_REQUEST","message":"nope",
                          "details":{"code":"X"},"retryable":true,"retryAfterMs":5}})"));
  EXPECT_EQ(build_event("tick", R"({"ts":1})", 7), R"({"type":"event","event":"tick","payload":{"ts":1},"seq":7})");
  EXPECT_EQ(build_event("connect.challenge", "{}"), R"({"type":"event","event":"connect.challenge","payload":{}})");
}

TEST(Frames, CloseReasonIsCutOnACodePointBoundary) {
  std::string reason(118, 'a');
  reason += "é€";  // 2 + 3 bytes: the cut at 120 would split "€"
  std::string cut = truncate_close_reason(reason);
  EXPECT_EQ(cut.size(), 120u);
  EXPECT_EQ(cut.substr(118), "é");
  EXPECT_EQ(truncate_close_reason("short"), "short");
}

// ---- scopes ----

TEST(Scopes, TableAndPrefixRules) {
  struct Case {
    const char* method;
    MethodAccess::Kind kind;
    std::string_view scope;
  };
  const Case cases[] = {
      {"health", MethodAccess::Anyone, {}},
      {"status", MethodAccess::OperatorScope, kScopeRead},
      {"config.get", MethodAccess::OperatorScope, kScopeRead},       // explicit entry beats the prefix
      {"config.apply", MethodAccess::OperatorScope, kScopeAdmin},    // config.* prefix
      {"chat.send", MethodAccess::OperatorScope, kScopeWrite},
      {"device.pair.approve", MethodAccess::OperatorScope, kScopePairing},
      {"exec.approval.resolve", MethodAccess::OperatorScope, kScopeApprovals},
      {"approval.get", MethodAccess::OperatorScope, kScopeApprovals},      // OpenClaw's unified approvals
      {"approval.resolve", MethodAccess::OperatorScope, kScopeApprovals},
      {"node.invoke.result", MethodAccess::NodeOnly, {}},
      {"totally.unknown", MethodAccess::OperatorScope, kScopeAdmin},  // default-deny
  };
  for (const auto& c : cases) {
    auto a = method_access(c.method);
    EXPECT_EQ(a.kind, c.kind) << c.method;
    EXPECT_EQ(a.scope, c.scope) << c.method;
  }
}

TEST(Scopes, SatisfactionRules) {
  EXPECT_TRUE(operator_scope_allows({"operator.admin"}, kScopePairing));
  EXPECT_TRUE(operator_scope_allows({"operator.write"}, kScopeRead));
  EXPECT_FALSE(operator_scope_allows({"operator.read"}, kScopeWrite));
  EXPECT_FALSE(operator_scope_allows({"operator.approvals"}, kScopePairing));
  EXPECT_FALSE(operator_scope_allows({}, kScopeRead));
}

TEST(Scopes, AuthorizeMessages) {
  EXPECT_FALSE(authorize("operator", {"operator.read"}, "status"));
  EXPECT_EQ(authorize("operator", {"operator.read"}, "chat.send")->message, "missing scope: operator.write");
  EXPECT_EQ(authorize("node", {}, "status")->message, "unauthorized role: node");
  EXPECT_EQ(authorize("operator", {"operator.admin"}, "node.event")->message, "unauthorized role: operator");
  EXPECT_FALSE(authorize("node", {}, "node.event"));
  EXPECT_FALSE(authorize("node", {}, "health"));
}

// ---- idempotency ----

TEST(Idempotency, ExpiresAfterTtlAndEvictsOldestBeyondCapacity) {
  IdempotencyCache cache(1000, 3);
  cache.store("a", "1", 0);
  EXPECT_EQ(cache.find("a", 999), "1");
  EXPECT_FALSE(cache.find("a", 1000));
  cache.store("a", "1", 2000);
  cache.store("b", "2", 2001);
  cache.store("c", "3", 2002);
  cache.store("d", "4", 2003);  // capacity 3: "a" goes
  EXPECT_FALSE(cache.find("a", 2004));
  EXPECT_EQ(cache.find("d", 2004), "4");
  EXPECT_EQ(cache.size(), 3u);
}

TEST(Idempotency, DefaultsAreFiveMinutesAndAThousandEntries) {
  IdempotencyCache cache;
  for (int i = 0; i < 1500; ++i) cache.store("k" + std::to_string(i), "v", 0);
  EXPECT_EQ(cache.size(), 1000u);
  EXPECT_TRUE(cache.find("k1499", 299'999));
  EXPECT_FALSE(cache.find("k1499", 300'000));
}

// ---- write budget ----

TEST(WriteBudget, FixedWindowPerClient) {
  WriteBudget budget;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(budget.consume("a", 1000 + i));
  EXPECT_EQ(budget.consume("a", 2000), 59'000);
  EXPECT_FALSE(budget.consume("b", 2000));  // other clients have their own budget
  EXPECT_FALSE(budget.consume("a", 61'000));  // window over
}

// ---- auth rate limit ----

TEST(AuthRateLimit, LocksOutAfterMaxAttemptsAndExemptsLoopback) {
  AuthRateLimiter limiter({3, 60'000, 300'000, true});
  const AuthSource remote{"10.0.0.1", false}, other{"10.0.0.2", false}, local{"127.0.0.1", true};
  const auto shared = AuthScope::SharedSecret;
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(limiter.check(shared, remote, i));
    limiter.record_failure(shared, remote, i);
  }
  EXPECT_EQ(limiter.check(shared, remote, 2), 300'000);
  EXPECT_FALSE(limiter.check(shared, other, 2));
  EXPECT_FALSE(limiter.check(shared, remote, 300'002));  // lockout over
  for (int i = 0; i < 10; ++i) limiter.record_failure(shared, local, i);
  EXPECT_FALSE(limiter.check(shared, local, 10));
}

TEST(AuthRateLimit, FailuresOutsideTheWindowDoNotAccumulate) {
  AuthRateLimiter limiter({2, 1000, 5000, false});
  const AuthSource ip{"ip", false};
  const auto shared = AuthScope::SharedSecret;
  limiter.record_failure(shared, ip, 0);
  limiter.record_failure(shared, ip, 1500);  // new window
  EXPECT_FALSE(limiter.check(shared, ip, 1600));
  limiter.record_success(shared, ip);
  limiter.record_failure(shared, ip, 1700);
  EXPECT_FALSE(limiter.check(shared, ip, 1701));
}

TEST(AuthRateLimit, ASuccessInOneScopeKeepsTheFailuresOfTheOther) {
  AuthRateLimiter limiter({2, 60'000, 300'000, false});
  const AuthSource ip{"10.0.0.1", false};
  limiter.record_failure(AuthScope::SharedSecret, ip, 0);
  limiter.record_success(AuthScope::DeviceToken, ip);  // a read-only device token logs in
  limiter.record_failure(AuthScope::SharedSecret, ip, 1);
  EXPECT_TRUE(limiter.check(AuthScope::SharedSecret, ip, 2));
  EXPECT_FALSE(limiter.check(AuthScope::DeviceToken, ip, 2));
}

TEST(AuthRateLimit, OnlyDirectLocalClientsAreExempt) {
  PeerInfo cli{"127.0.0.1", true, "127.0.0.1:1", std::nullopt, {}, "", false};
  EXPECT_TRUE(auth_source(cli).local);
  PeerInfo proxied = cli;
  proxied.forwarded = true;  // X-Forwarded-For from an untrusted loopback proxy
  EXPECT_FALSE(auth_source(proxied).local);
  EXPECT_EQ(auth_source(proxied).key, "127.0.0.1");
  PeerInfo page = cli;
  page.origin = "http://127.0.0.1:1";
  EXPECT_FALSE(auth_source(page).local);
  EXPECT_EQ(auth_source(page).key, "browser-origin:http://127.0.0.1:1");
  PeerInfo behind = cli;
  behind.forwarded = true;
  behind.proxied_client_ip = "203.0.113.7";  // through a trusted proxy
  EXPECT_EQ(auth_source(behind).key, "203.0.113.7");
  behind.proxied_client_ip = "unknown";
  EXPECT_EQ(auth_source(behind).key, "unknown");
  EXPECT_FALSE(auth_source(behind).local);
}

// ---- connect ----

json good_params() {
  return {{"minProtocol", 3},
          {"maxProtocol", 4},
          {"client", {{"id", "cli"}, {"version", "1.0"}, {"platform", "linux"}, {"mode", "cli"}}},
          {"auth", {{"token", "t"}}}};
}

TEST(Connect, AcceptsGoodParamsWithDefaults) {
  auto r = parse_connect_params(good_params());
  ASSERT_TRUE(std::holds_alternative<ConnectRequest>(r));
  const auto& c = std::get<ConnectRequest>(r);
  EXPECT_EQ(c.role, "operator");
  EXPECT_TRUE(c.scopes.empty());
  EXPECT_EQ(c.token, "t");
}

TEST(Connect, RejectionsNameTheField) {
  auto expect_error = [](json p, const std::string& message) {
    auto r = parse_connect_params(p);
    ASSERT_TRUE(std::holds_alternative<ConnectFailure>(r)) << p.dump();
    EXPECT_EQ(std::get<ConnectFailure>(r).error.message, "invalid connect params: " + message);
    EXPECT_EQ(std::get<ConnectFailure>(r).close_code, 1008);
  };
  json p = good_params();
  p["extra"] = 1;
  expect_error(p, "must NOT have additional properties (\"extra\")");
  p = good_params();
  p["client"]["id"] = "nope";
  expect_error(p, "/client/id must be equal to one of the allowed values (webchat-ui|openclaw-control-ui|"
                  "openclaw-browser-copilot|openclaw-tui|webchat|cli|gateway-client|openclaw-macos|openclaw-linux|"
                  "openclaw-ios|openclaw-watchos|openclaw-android|node-host|openclaw-worker|test|fingerprint|"
                  "openclaw-probe)");
  p = good_params();
  p["client"].erase("version");
  expect_error(p, "/client must have required property 'version'");
  p = good_params();
  p["minProtocol"] = 0;
  expect_error(p, "/minProtocol must be >= 1");
  p = good_params();
  p["scopes"] = {"operator.read", 3};
  expect_error(p, "/scopes/1 must be string");
  p = good_params();
  p["auth"]["cookie"] = "x";
  expect_error(p, "/auth must NOT have additional properties (\"cookie\")");
  p = good_params();
  p["device"] = {{"id", "d"}, {"publicKey", "k"}, {"signature", "s"}, {"signedAt", "soon"}, {"nonce", "n"}};
  expect_error(p, "/device/signedAt must be integer");
}

// What OpenClaw 2026.9's clients send: the Control UI's buildId and timeZone, the model catalog
// scope, the runtime tokens; still strict on what that schema does not know.
TEST(Connect, AcceptsTheFieldsOfOpenClaw2026_9) {
  json p = good_params();
  p["client"]["id"] = "openclaw-control-ui";
  p["client"]["mode"] = "webchat";
  p["client"]["buildId"] = "3f2a9c1";
  p["client"]["timeZone"] = "Europe/Berlin";
  p["modelCatalog"] = {{"agentId", "main"}, {"sessionKey", "agent:main:main"}};
  p["auth"]["approvalRuntimeToken"] = "x";
  p["computerUse"] = {{"anything", true}};
  auto r = parse_connect_params(p);
  ASSERT_TRUE(std::holds_alternative<ConnectRequest>(r)) << std::get<ConnectFailure>(r).error.message;
  EXPECT_EQ(std::get<ConnectRequest>(r).client.build_id, "3f2a9c1");
  EXPECT_EQ(std::get<ConnectRequest>(r).client.time_zone, "Europe/Berlin");
  p["modelCatalog"] = {{"shortId", "abc"}, {"slugHint", "x"}};
  EXPECT_TRUE(std::holds_alternative<ConnectRequest>(parse_connect_params(p)));

  auto error_of = [](const json& bad) {
    auto r = parse_connect_params(bad);
    return std::holds_alternative<ConnectFailure>(r) ? std::get<ConnectFailure>(r).error.message : "accepted";
  };
  json bad = p;
  bad["client"]["timeZone"] = std::string(65, 'z');
  EXPECT_EQ(error_of(bad), "invalid connect params: /client/timeZone must NOT have more than 64 characters");
  bad = p;
  bad["client"]["buildId"] = "";
  EXPECT_EQ(error_of(bad), "invalid connect params: /client/buildId must NOT have fewer than 1 characters");
  bad = p;
  bad["client"]["colour"] = "red";
  EXPECT_EQ(error_of(bad), "invalid connect params: /client must NOT have additional properties (\"colour\")");
  bad = p;
  bad["modelCatalog"]["sessionKey"] = "k";  // shortId and sessionKey do not go together
  EXPECT_EQ(error_of(bad), "invalid connect params: /modelCatalog must NOT have additional properties (\"sessionKey\")");
  bad = p;
  bad["workerRuns"] = "v1";
  EXPECT_EQ(error_of(bad), "invalid connect params: /workerRuns must be object");
}

TEST(Connect, ProtocolNegotiation) {
  ConnectRequest r;
  r.min_protocol = 1;
  r.max_protocol = 9;
  EXPECT_EQ(std::get<int>(negotiate_protocol(r)), 4);
  r.max_protocol = 3;
  EXPECT_EQ(std::get<int>(negotiate_protocol(r)), 3);
  r.min_protocol = 5;
  r.max_protocol = 6;
  auto f = std::get<ConnectFailure>(negotiate_protocol(r));
  EXPECT_EQ(f.close_code, 1002);
  EXPECT_EQ(f.error.details["expectedProtocol"], 4);
  r.min_protocol = 1;
  r.max_protocol = 2;
  EXPECT_TRUE(std::holds_alternative<ConnectFailure>(negotiate_protocol(r)));
}

TEST(Connect, SharedSecretAuthentication) {
  AuthSettings token;
  token.mode = "token";
  token.token = "s3cret-token";
  ConnectRequest r;
  PeerInfo peer;
  EXPECT_EQ(authenticate(r, peer, token).reason, "token_missing");
  r.token = "wrong";
  EXPECT_EQ(authenticate(r, peer, token).reason, "token_mismatch");
  r.token = "s3cret-token";
  EXPECT_TRUE(authenticate(r, peer, token).ok);

  AuthSettings password;
  password.mode = "password";
  password.password = "hunter22";
  r.password = "hunter2";
  EXPECT_EQ(authenticate(r, peer, password).reason, "password_mismatch");
  r.password = "hunter22";
  EXPECT_TRUE(authenticate(r, peer, password).ok);

  AuthSettings none;
  none.mode = "none";
  EXPECT_TRUE(authenticate(ConnectRequest{}, peer, none).ok);

  auto f = auth_failure(AuthResult{false, "token", "", "token_mismatch"});
  EXPECT_EQ(f.error.details["code"], "AUTH_TOKEN_MISMATCH");
  EXPECT_EQ(f.error.details["recommendedNextStep"], "update_auth_credentials");
  EXPECT_EQ(auth_failure(AuthResult{false, "password", "", "password_missing"}).error.details["code"],
            "AUTH_PASSWORD_MISSING");
}

TEST(Connect, TrustedProxyNeedsAKnownProxyAndAUser) {
  AuthSettings a;
  a.mode = "trusted-proxy";
  a.trusted_proxies = {"10.0.0.5"};
  a.trusted_user_header = "x-forwarded-user";
  a.trusted_allow_users = {"alice"};
  PeerInfo peer;
  peer.remote_ip = "10.0.0.9";
  EXPECT_EQ(authenticate({}, peer, a).reason, "trusted_proxy_untrusted_source");
  peer.remote_ip = "10.0.0.5";
  EXPECT_EQ(authenticate({}, peer, a).reason, "trusted_proxy_user_missing");
  peer.headers["x-forwarded-user"] = "mallory";
  EXPECT_EQ(authenticate({}, peer, a).reason, "trusted_proxy_user_not_allowed");
  peer.headers["x-forwarded-user"] = "alice";
  auto ok = authenticate({}, peer, a);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.user, "alice");
  // Issue 22 item 14: a required header must carry a value; present but blank is missing.
  a.trusted_required_headers = {"x-proxy-auth"};
  EXPECT_EQ(authenticate({}, peer, a).reason, "trusted_proxy_missing_header_x-proxy-auth");
  for (const char* blank : {"", "  ", "\t"}) {
    peer.headers["x-proxy-auth"] = blank;
    EXPECT_EQ(authenticate({}, peer, a).reason, "trusted_proxy_missing_header_x-proxy-auth") << "[" << blank << "]";
  }
  peer.headers["x-proxy-auth"] = "v1";
  EXPECT_TRUE(authenticate({}, peer, a).ok);
}

TEST(Connect, OriginCheck) {
  AuthSettings a;
  PeerInfo peer;
  peer.host = "127.0.0.1:18789";
  EXPECT_FALSE(check_origin(peer, a));  // no Origin: not a browser
  peer.origin = "http://127.0.0.1:18789";
  EXPECT_FALSE(check_origin(peer, a));  // same origin
  peer.origin = "http://evil.example";
  EXPECT_EQ(check_origin(peer, a)->error.details["code"], "CONTROL_UI_ORIGIN_NOT_ALLOWED");
  a.allowed_origins = {"http://evil.example"};
  EXPECT_FALSE(check_origin(peer, a));
}

TEST(Connect, SameOriginMustBeLoopbackAgainstDnsRebindingInEveryMode) {
  for (const char* mode : {"none", "token", "password"}) {
    AuthSettings a;
    a.mode = mode;
    PeerInfo peer;
    for (const char* host : {"127.0.0.1:18789", "localhost:18789", "[::1]:18789", "localhost", "LOCALHOST:1"}) {
      peer.host = host;
      peer.origin = std::string("http://") + host;
      EXPECT_FALSE(check_origin(peer, a)) << mode << " " << host;
    }
    // A page that re-pointed its own name at 127.0.0.1 is "same origin" only with itself.
    for (const char* host : {"rebind.example:18789", "[::1]evil.example", "127.0.0.1:evil", "127.evil.example"}) {
      peer.host = host;
      peer.origin = std::string("http://") + host;
      ASSERT_TRUE(check_origin(peer, a)) << mode << " " << host;
      EXPECT_EQ(check_origin(peer, a)->error.details["code"], "CONTROL_UI_ORIGIN_NOT_ALLOWED");
    }
    // On a LAN bind an IP literal is fine (no name to re-point), a name needs allowedOrigins.
    a.loopback_bind = false;
    peer.host = "192.168.1.5:18789";
    peer.origin = "http://192.168.1.5:18789";
    EXPECT_FALSE(check_origin(peer, a)) << mode;
    peer.host = "box.lan:18789";
    peer.origin = "http://box.lan:18789";
    EXPECT_TRUE(check_origin(peer, a)) << mode;
    a.allowed_origins = {"http://box.lan:18789"};
    EXPECT_FALSE(check_origin(peer, a)) << mode;
  }
}

TEST(ClientAddress, HostHeadersAreParsedStrictly) {
  for (const char* loopback : {"127.0.0.1", "127.1.2.3:80", "localhost", "LocalHost:18789", "[::1]", "[::1]:18789",
                               "[::ffff:127.0.0.1]:1"}) {
    EXPECT_TRUE(is_loopback_host_header(loopback)) << loopback;
  }
  for (const char* not_loopback : {"[::1]evil.com", "127.0.0.1:evil", "127.0.0.1:", "127.0.0.1:99999", "::1",
                                   "127.evil.example", "localhost.evil", "127.0.0.1 x", "", "[::1", "evil.com"}) {
    EXPECT_FALSE(is_loopback_host_header(not_loopback)) << not_loopback;
  }
  EXPECT_TRUE(is_ip_literal_host_header("10.0.0.1:80"));
  EXPECT_TRUE(is_ip_literal_host_header("[fd00::1]"));
  EXPECT_FALSE(is_ip_literal_host_header("box.lan"));
  auto h = parse_host_header("[FD00::1]:8080");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->name, "fd00::1");
  EXPECT_EQ(h->port, 8080);
}

TEST(ClientAddress, TheClientBehindTrustedProxiesIsTheRightmostUntrustedHop) {
  const std::vector<std::string> trusted = {"127.0.0.1", "10.0.0.0/8", "fd00::/8"};
  EXPECT_EQ(resolve_client_ip("203.0.113.9", "1.2.3.4", trusted), "203.0.113.9");  // not a proxy: its header is ignored
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "1.2.3.4", trusted), "1.2.3.4");
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "6.6.6.6, 1.2.3.4, 10.1.2.3", trusted), "1.2.3.4");  // forged left part
  EXPECT_EQ(resolve_client_ip("::ffff:127.0.0.1", "[2001:db8::1]:443", trusted), "2001:db8::1");
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "1.2.3.4:5678", trusted), "1.2.3.4");
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "", trusted), std::nullopt);            // names no client
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "10.0.0.7, 127.0.0.1", trusted), std::nullopt);  // all trusted
  EXPECT_EQ(resolve_client_ip("127.0.0.1", "1.2.3.4, garbage", trusted), std::nullopt);
  EXPECT_TRUE(is_trusted_proxy("fd00::5", trusted));
  EXPECT_FALSE(is_trusted_proxy("fe00::5", trusted));
  EXPECT_TRUE(is_trusted_proxy("::ffff:10.9.9.9", trusted));
  for (const char* bad : {"10.0.0.0/33", "localhost", "10.0.0.0/", "1.2.3.4/x", ""}) {
    EXPECT_FALSE(valid_trusted_proxy_entry(bad)) << bad;
  }
  EXPECT_TRUE(valid_trusted_proxy_entry("0.0.0.0/0"));
  EXPECT_TRUE(valid_trusted_proxy_entry("::1"));
}

TEST(RouteGuard, PagesFromOtherSitesAndNonJsonBodiesAreRefused) {
  AuthSettings a;
  using H = std::map<std::string, std::string>;
  const H server = {{"host", "127.0.0.1:1"}, {"content-type", "application/json"}};
  EXPECT_FALSE(check_route_request("POST", server, "application/json", a));
  H page = server;
  page["origin"] = "https://evil.example";
  EXPECT_EQ(check_route_request("POST", page, "application/json", a)->status, 403);
  page["origin"] = "http://127.0.0.1:1";  // the gateway's own page
  EXPECT_FALSE(check_route_request("POST", page, "application/json", a));
  page.erase("origin");
  page["sec-fetch-site"] = "cross-site";
  EXPECT_EQ(check_route_request("POST", page, "application/json", a)->status, 403);
  page["sec-fetch-site"] = "same-origin";
  page["host"] = "rebind.example:1";
  EXPECT_EQ(check_route_request("POST", page, "application/json", a)->status, 403);
  H plain = server;
  plain["content-type"] = "text/plain;charset=UTF-8";
  EXPECT_EQ(check_route_request("POST", plain, "application/json", a)->status, 415);
  EXPECT_FALSE(check_route_request("POST", plain, "", a));  // a route that takes any body
  EXPECT_FALSE(check_route_request("GET", {{"host", "127.0.0.1:1"}}, "application/json", a));  // no body
  EXPECT_FALSE(check_route_request("POST", {{"host", "x"}, {"content-type", " Application/JSON ; charset=utf-8"}},
                                   "application/json", a));
}

TEST(Connect, SecretsCompareByValue) {
  EXPECT_TRUE(secrets_equal("abc", "abc"));
  EXPECT_FALSE(secrets_equal("abc", "abd"));
  EXPECT_FALSE(secrets_equal("abc", "abcd"));
  EXPECT_FALSE(secrets_equal("", "x"));
}

}  // namespace
}  // namespace pincer::gateway

namespace pincer::gateway {
namespace {

TEST(FrameFastPath, AcceptsTheCommonShapeAndDefersEverythingElse) {
  auto f = try_parse_simple_request(R"( {"type":"req","id":"7","method":"health","params":{ }} )");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, "7");
  EXPECT_EQ(f->method, "health");
  EXPECT_EQ(f->params, nlohmann::json::object());
  auto p = try_parse_simple_request(R"({"method":"logs.tail","params":{"limit":5,"x":[1,"]}"]},"id":"a","type":"req"})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->params["limit"], 5);
  EXPECT_EQ(p->params["x"][1], "]}");
  const char* unsure[] = {
      R"({"type":"req","id":"1","method":"m","extra":1})",       // unknown key
      R"({"type":"req","id":"1","id":"2","method":"m"})",        // repeated key
      R"({"type":"req","id":"\u0031","method":"m"})",            // escapes
      R"({"type":"req","id":"1","method":"m","params":[}})",     // broken params
      R"({"type":"req","id":"1","method":"m"} x)",               // trailing garbage
      R"({"type":"res","id":"1","method":"m"})",                 // not a request
      R"({"type":"req","id":"","method":"m"})",                  // empty id
      "\xEF\xBB\xBF{\"type\":\"req\",\"id\":\"1\",\"method\":\"m\"}",  // BOM
  };
  for (const char* text : unsure) EXPECT_FALSE(try_parse_simple_request(text)) << text;
  // The strict parser still gives the same answers as before for those.
  EXPECT_EQ(std::get<FrameError>(parse_request(unsure[0])).message, "invalid request frame: unexpected property \"extra\"");
  EXPECT_EQ(std::get<RequestFrame>(parse_request(unsure[2])).id, "1");
}

TEST(MessageLimit, TheErrorNamesTheSizeAndTheLimit) {
  EXPECT_EQ(message_too_large(30u * 1024 * 1024), "the message is 30 MiB; the gateway accepts at most 25 MiB per message");
  EXPECT_EQ(message_too_large(31'457'290), "the message is 30 MiB; the gateway accepts at most 25 MiB per message");
  EXPECT_EQ(message_too_large(70'000, kMaxPreConnectBytes), "the message is 68.4 KiB; the gateway accepts at most 64 KiB per message");
  EXPECT_EQ(byte_size_text(512), "512 bytes");
}

}  // namespace
}  // namespace pincer::gateway
