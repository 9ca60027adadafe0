// Device identity and pairing against the real `pincer` binary (issue #6; AU-3, GW-4): a test client
// with its own Ed25519 key (libsodium, independent of the gateway's code) signs the v3 payload over
// the challenge nonce; the gateway verifies it, pairs the device (silently on loopback with the shared
// token, else after device.pair.approve), issues a device token in hello-ok.auth, and accepts that
// token instead of the shared one. Failures carry openclaw-protocol.md §1.3 detail codes.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "gateway_process.h"
#include "test_device.h"
#include "ws_client.h"

namespace pincer::test {
namespace device_pairing_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "device-test-token-0123456789";

/// Connect params: client cli/cli on linux; `token` as auth.token, `device_token` as auth.deviceToken.
json params_for(const std::vector<std::string>& scopes, const std::string& token, const std::string& device_token = "") {
  json p = connect_params(token, scopes);
  if (!device_token.empty()) p["auth"]["deviceToken"] = device_token;
  return p;
}

struct Attempt {
  json response;                  ///< the connect `res`
  std::unique_ptr<WsClient> ws;   ///< still open on success
  json error() const { return response.value("error", json::object()); }
  bool ok() const { return response.value("ok", false); }
};

class DevicePairingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_.write("pincer.json", std::string("{ gateway: { auth: { mode: 'token', token: '") + kToken +
                                   "' }, controlUi: { allowedOrigins: ['http://ui.example'] } } }");
    gw_ = std::make_unique<Gateway>(home_.path());
  }

  /// Opens a socket, signs `params` for `device` over the challenge (after `tamper` adjusts the
  /// signed block) and sends connect.
  Attempt attempt(const TestDevice& device, json params, const std::function<void(json&)>& tamper = {},
                  const std::map<std::string, std::string>& headers = {}) {
    Attempt a;
    a.ws = std::make_unique<WsClient>(gw_->port(), headers);
    auto challenge = a.ws->recv();
    if (!challenge) throw std::runtime_error("no connect.challenge");
    const json& c = (*challenge)["payload"];
    params["device"] = device.sign(params, c["nonce"], c["ts"]);
    if (tamper) tamper(params);
    a.ws->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = a.ws->recv_response("c1");
    if (!res) throw std::runtime_error("no connect response");
    a.response = *res;
    return a;
  }

  /// A device-less admin connection with the shared token (the operator approving things).
  std::unique_ptr<WsClient> admin() {
    auto c = std::make_unique<WsClient>(gw_->port());
    c->recv();
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken, {"operator.admin"})}});
    auto res = c->recv_response("c1");
    if (!res || !(*res)["ok"].get<bool>()) throw std::runtime_error("admin connect failed");
    return c;
  }

  /// Pairs `device` silently (loopback + shared token) and returns its operator device token.
  std::string pair(const TestDevice& device, const std::vector<std::string>& scopes = {"operator.read"}) {
    auto a = attempt(device, params_for(scopes, kToken));
    EXPECT_TRUE(a.ok()) << a.response.dump();
    return a.response["payload"]["auth"].value("deviceToken", "");
  }

  static json find_paired(const json& list, const std::string& device_id) {
    for (const auto& d : list["paired"]) {
      if (d["deviceId"] == device_id) return d;
    }
    return nullptr;
  }

  TempDir home_;
  std::unique_ptr<Gateway> gw_;
};

TEST_F(DevicePairingTest, LoopbackWithSharedTokenPairsSilentlyAndIssuesADeviceToken) {
  TestDevice dev;
  auto a = attempt(dev, params_for({"operator.read", "operator.write"}, kToken));
  ASSERT_TRUE(a.ok()) << a.response.dump();
  const json& auth = a.response["payload"]["auth"];
  EXPECT_EQ(auth["method"], "token");
  EXPECT_EQ(auth["role"], "operator");
  const std::string token = auth.value("deviceToken", "");
  EXPECT_EQ(token.size(), 43u) << "base64url of 32 random bytes";
  EXPECT_TRUE(auth["issuedAtMs"].is_number_integer());
  EXPECT_EQ(auth["scopes"], json::array({"operator.read", "operator.write"}));

  for (const char* name : {"devices/paired.json", "devices/pending.json"}) {
    struct stat st{};
    ASSERT_EQ(::stat((home_.path() / name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << name;
  }

  // The device token replaces the shared secret, for scopes it covers.
  auto b = attempt(dev, params_for({"operator.read"}, "", token));
  ASSERT_TRUE(b.ok()) << b.response.dump();
  EXPECT_EQ(b.response["payload"]["auth"]["method"], "device-token");
  EXPECT_EQ(b.response["payload"]["auth"]["deviceToken"], token) << "a covering token is reused";
  EXPECT_EQ(b.ws->request("health")["ok"], true);

  auto listing = admin()->request("device.pair.list");
  ASSERT_EQ(listing["ok"], true) << listing.dump();
  json d = find_paired(listing["payload"], dev.id);
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["publicKey"], dev.public_key);
  EXPECT_EQ(d["platform"], "linux");
  EXPECT_EQ(d["connected"], true);
  EXPECT_EQ(d["tokens"][0]["role"], "operator");
  EXPECT_EQ(listing.dump().find(token), std::string::npos) << "listings never show token strings";

  // The legacy v2 payload is still accepted.
  auto v2 = std::make_unique<WsClient>(gw_->port());
  json c = (*v2->recv())["payload"];
  json p = params_for({"operator.read"}, kToken);
  p["device"] = dev.sign(p, c["nonce"], c["ts"], /*v2=*/true);
  v2->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", p}});
  EXPECT_EQ((*v2->recv_response("c1"))["ok"], true);
}

TEST_F(DevicePairingTest, BadProofsAreRefusedWithDetailCodes) {
  TestDevice dev, other;
  struct Case {
    const char* name;
    std::function<void(json&)> tamper;
    const char* code;
  };
  const Case cases[] = {
      {"nonce", [](json& p) { p["device"]["nonce"] = "not-the-challenge"; }, "DEVICE_AUTH_NONCE_MISMATCH"},
      {"blank nonce", [](json& p) { p["device"]["nonce"] = " "; }, "DEVICE_AUTH_NONCE_REQUIRED"},
      {"stale", [](json& p) { p["device"]["signedAt"] = p["device"]["signedAt"].get<int64_t>() - 121'000; },
       "DEVICE_AUTH_SIGNATURE_EXPIRED"},
      {"scopes changed after signing", [](json& p) { p["scopes"] = json::array({"operator.admin"}); },
       "DEVICE_AUTH_SIGNATURE_INVALID"},
      {"garbage signature", [](json& p) { p["device"]["signature"] = "%%%not-base64"; }, "DEVICE_AUTH_SIGNATURE_INVALID"},
      {"someone else's key", [&](json& p) { p["device"]["publicKey"] = other.public_key; },
       "DEVICE_AUTH_DEVICE_ID_MISMATCH"},
      {"short key", [](json& p) { p["device"]["publicKey"] = "AAAA"; }, "DEVICE_AUTH_DEVICE_ID_MISMATCH"},
  };
  for (const auto& c : cases) {
    auto a = attempt(dev, params_for({"operator.read"}, kToken), c.tamper);
    EXPECT_FALSE(a.ok()) << c.name;
    EXPECT_EQ(a.error()["code"], "INVALID_REQUEST") << c.name;
    EXPECT_EQ(a.error()["details"]["code"], c.code) << c.name << ": " << a.response.dump();
    auto closed = a.ws->wait_closed();
    ASSERT_TRUE(closed) << c.name;
    EXPECT_EQ(closed->code, 1008) << c.name;
  }
  // A malformed device block is a params error, not a crash.
  auto a = attempt(dev, params_for({"operator.read"}, kToken), [](json& p) { p["device"]["signedAt"] = "soon"; });
  EXPECT_EQ(a.error()["message"], "invalid connect params: /device/signedAt must be integer");
  auto unpaired = attempt(dev, params_for({"operator.read"}, "", "made-up-device-token"));
  EXPECT_EQ(unpaired.error()["details"]["code"], "AUTH_DEVICE_TOKEN_MISMATCH") << unpaired.response.dump();
  auto admin_list = admin()->request("device.pair.list");
  EXPECT_TRUE(find_paired(admin_list["payload"], dev.id).is_null()) << "failed proofs pair nothing";
}

TEST_F(DevicePairingTest, OtherClientsWaitForApproval) {
  auto watcher = admin();
  TestDevice dev;
  // Loopback but from a browser page that is not the Control UI: not silently approved.
  const std::map<std::string, std::string> origin = {{"Origin", "http://ui.example"}};
  auto first = attempt(dev, params_for({"operator.read"}, kToken), {}, origin);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error()["code"], "NOT_PAIRED");
  const json details = first.error()["details"];
  EXPECT_EQ(details["code"], "PAIRING_REQUIRED");
  EXPECT_EQ(details["reason"], "not-paired");
  EXPECT_EQ(details["deviceId"], dev.id);
  const std::string request_id = details.value("requestId", "");
  ASSERT_EQ(request_id.size(), 36u);
  auto closed = first.ws->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
  EXPECT_EQ(closed->reason.rfind("pairing required: device is not approved yet", 0), 0u) << closed->reason;

  auto pending = watcher->request("device.pair.list");
  ASSERT_EQ(pending["payload"]["pending"].size(), 1u) << pending.dump();
  EXPECT_EQ(pending["payload"]["pending"][0]["requestId"], request_id);
  bool requested_event = false;
  for (const auto& e : watcher->events()) requested_event |= e["event"] == "device.pair.requested";
  EXPECT_TRUE(requested_event);

  auto again = attempt(dev, params_for({"operator.read"}, kToken), {}, origin);
  EXPECT_EQ(again.error()["details"]["requestId"], request_id) << "a retry joins the pending request";

  EXPECT_EQ(watcher->request("device.pair.approve", {{"requestId", "nope"}})["error"]["message"], "unknown requestId");
  auto approved = watcher->request("device.pair.approve", {{"requestId", request_id}});
  ASSERT_EQ(approved["ok"], true) << approved.dump();
  EXPECT_EQ(approved["payload"]["device"]["deviceId"], dev.id);
  auto now_ok = attempt(dev, params_for({"operator.read"}, kToken), {}, origin);
  ASSERT_TRUE(now_ok.ok()) << now_ok.response.dump();
  EXPECT_FALSE(now_ok.response["payload"]["auth"].value("deviceToken", "").empty());

  // Rejecting: a second device's request disappears and it stays unpaired.
  TestDevice second;
  auto refused = attempt(second, params_for({"operator.read"}, kToken), {}, origin);
  const std::string second_id = refused.error()["details"].value("requestId", "");
  auto rejected = watcher->request("device.pair.reject", {{"requestId", second_id}});
  EXPECT_EQ(rejected["payload"]["deviceId"], second.id) << rejected.dump();
  EXPECT_TRUE(watcher->request("device.pair.list")["payload"]["pending"].empty());
}

TEST_F(DevicePairingTest, ChangedMetadataRoleOrScopesNeedRePairing) {
  TestDevice dev;
  const std::string token = pair(dev, {"operator.read"});
  ASSERT_FALSE(token.empty());

  // A device token only covers its scopes.
  auto more = attempt(dev, params_for({"operator.admin"}, "", token));
  EXPECT_EQ(more.error()["details"]["code"], "AUTH_DEVICE_TOKEN_MISMATCH") << more.response.dump();

  // A new role on loopback with the shared token: silently re-paired for that role.
  json as_node = params_for({}, kToken);
  as_node["role"] = "node";
  as_node["client"]["mode"] = "node";
  as_node["client"]["id"] = "node-host";
  auto node = attempt(dev, as_node);
  ASSERT_TRUE(node.ok()) << node.response.dump();
  EXPECT_EQ(node.response["payload"]["auth"]["role"], "node");

  // More scopes, same way; the device keeps both roles, and gets a fresh operator token.
  auto admin_scope = attempt(dev, params_for({"operator.admin"}, kToken));
  ASSERT_TRUE(admin_scope.ok()) << admin_scope.response.dump();
  const std::string upgraded = admin_scope.response["payload"]["auth"].value("deviceToken", "");
  EXPECT_NE(upgraded, token);
  json d = find_paired(admin()->request("device.pair.list")["payload"], dev.id);
  EXPECT_EQ(d["roles"], json::array({"operator", "node"})) << d.dump();

  // Without the shared secret, a changed platform waits for approval.
  json darwin = params_for({"operator.read"}, "", upgraded);
  darwin["client"]["platform"] = "darwin";
  auto moved = attempt(dev, darwin);
  EXPECT_EQ(moved.error()["code"], "NOT_PAIRED") << moved.response.dump();
  EXPECT_EQ(moved.error()["details"]["reason"], "metadata-upgrade");
  EXPECT_EQ(moved.error()["details"]["approvedRoles"], json::array({"operator", "node"}));
  ASSERT_TRUE(attempt(dev, params_for({"operator.read"}, "", upgraded)).ok()) << "the old platform still works";
}

TEST_F(DevicePairingTest, TokensRotateRevokeAndDevicesCanBeRemoved) {
  TestDevice dev;
  const std::string token = pair(dev);
  auto ops = admin();

  auto rotated = ops->request("device.token.rotate", {{"deviceId", dev.id}, {"role", "operator"}});
  ASSERT_EQ(rotated["ok"], true) << rotated.dump();
  EXPECT_EQ(rotated["payload"]["tokenDelivery"], "withheld-cross-device");
  EXPECT_FALSE(rotated["payload"].contains("token"));
  EXPECT_EQ(attempt(dev, params_for({"operator.read"}, "", token)).error()["details"]["code"], "AUTH_DEVICE_TOKEN_MISMATCH");

  // The device itself rotating gets the new token in-band (and its sessions are closed after).
  const std::string fresh = pair(dev);
  auto self = attempt(dev, params_for({"operator.read", "operator.pairing"}, kToken));
  ASSERT_TRUE(self.ok()) << self.response.dump();
  auto own = self.ws->request("device.token.rotate", {{"deviceId", dev.id}, {"role", "operator"}});
  ASSERT_EQ(own["ok"], true) << own.dump();
  EXPECT_EQ(own["payload"]["tokenDelivery"], "in-band");
  const std::string in_band = own["payload"].value("token", "");
  EXPECT_NE(in_band, fresh);
  EXPECT_EQ(self.ws->wait_closed()->reason, "device token rotated");
  ASSERT_TRUE(attempt(dev, params_for({"operator.read"}, "", in_band)).ok());

  auto revoked = ops->request("device.token.revoke", {{"deviceId", dev.id}, {"role", "operator"}});
  ASSERT_EQ(revoked["ok"], true) << revoked.dump();
  EXPECT_TRUE(revoked["payload"]["revokedAtMs"].is_number_integer());
  EXPECT_FALSE(attempt(dev, params_for({"operator.read"}, "", in_band)).ok());
  EXPECT_EQ(ops->request("device.token.revoke", {{"deviceId", "unknown"}, {"role", "operator"}})["error"]["message"],
            "device token revocation denied");

  const std::string last = pair(dev);
  auto live = attempt(dev, params_for({"operator.read"}, "", last));
  ASSERT_TRUE(live.ok());
  auto removed = ops->request("device.pair.remove", {{"deviceId", dev.id}});
  ASSERT_EQ(removed["ok"], true) << removed.dump();
  auto closed = live.ws->wait_closed();
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->code, 1008);
  EXPECT_TRUE(find_paired(ops->request("device.pair.list")["payload"], dev.id).is_null());
  EXPECT_EQ(ops->request("device.pair.remove", {{"deviceId", dev.id}})["error"]["message"], "unknown deviceId");
  EXPECT_EQ(ops->request("device.pair.remove", {})["error"]["message"],
            "invalid device.pair.remove params: must have required property 'deviceId'");
}

TEST_F(DevicePairingTest, PairingSurvivesARestartAndNeedsThePairingScope) {
  TestDevice dev;
  const std::string token = pair(dev);
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path());
  auto a = attempt(dev, params_for({"operator.read"}, "", token));
  ASSERT_TRUE(a.ok()) << a.response.dump();
  auto denied = a.ws->request("device.pair.list");
  EXPECT_EQ(denied["error"]["message"], "missing scope: operator.pairing");
}

// ---- issue 22: device tokens do not outlive a change of auth (item 7), approvals (item 14) -------

/// Log file and console of the gateway, for warnings.
std::string gateway_output(Gateway& gw, const std::filesystem::path& home) {
  std::ifstream in(home / "logs" / "gateway.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return gw.process().out() + gw.process().err() + ss.str();
}

TEST_F(DevicePairingTest, AuthNoneDoesNotPairDevicesSilently) {
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--auth", "none"});
  TestDevice dev;
  // Under `none` a local device works for its connection, whatever scopes it asks for …
  auto a = attempt(dev, params_for({"operator.admin"}, ""));
  ASSERT_TRUE(a.ok()) << a.response.dump();
  const std::string issued = a.response["payload"]["auth"].value("deviceToken", "");
  EXPECT_TRUE(issued.empty()) << a.response.dump();
  auto list = a.ws->request("device.pair.list");
  ASSERT_EQ(list["ok"], true) << list.dump();
  EXPECT_TRUE(find_paired(list["payload"], dev.id).is_null()) << "not stored as paired: " << list.dump();
  EXPECT_TRUE(list["payload"]["pending"].empty()) << list.dump();
  a.ws.reset();
  // … and nothing of it is left once the owner turns token auth on.
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path());
  auto after = attempt(dev, params_for({"operator.admin"}, "", issued));
  EXPECT_FALSE(after.ok()) << after.response.dump();
}

TEST_F(DevicePairingTest, ChangingTheSharedTokenRevokesEarlierDeviceTokens) {
  TestDevice dev;
  const std::string token = pair(dev);
  ASSERT_FALSE(token.empty());
  ASSERT_TRUE(attempt(dev, params_for({"operator.read"}, "", token)).ok());

  // The owner rotates a leaked shared token: the device token issued under the old one is dead.
  const std::string rotated = "rotated-device-test-token-987654";
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--token", rotated});
  auto stale = attempt(dev, params_for({"operator.read"}, "", token));
  EXPECT_FALSE(stale.ok()) << stale.response.dump();
  EXPECT_NE(gateway_output(*gw_, home_.path()).find("revoked 1 device token(s)"), std::string::npos)
      << gateway_output(*gw_, home_.path());
  // The pairing stays: with the new shared token the device gets a fresh token, which lasts.
  auto again = attempt(dev, params_for({"operator.read"}, rotated));
  ASSERT_TRUE(again.ok()) << again.response.dump();
  const std::string fresh = again.response["payload"]["auth"].value("deviceToken", "");
  ASSERT_FALSE(fresh.empty());
  EXPECT_NE(fresh, token);
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--token", rotated});
  EXPECT_TRUE(attempt(dev, params_for({"operator.read"}, "", fresh)).ok()) << "same auth, same epoch";
  // A change of mode is a new epoch too.
  gw_.reset();
  gw_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--auth", "password", "--password", rotated});
  EXPECT_FALSE(attempt(dev, params_for({"operator.read"}, "", fresh)).ok());
  // The record holds no secret.
  std::ifstream in(home_.path() / "devices" / "auth-epoch.json");
  std::stringstream record;
  record << in.rdbuf();
  EXPECT_EQ(record.str().find(rotated), std::string::npos) << record.str();
}

TEST_F(DevicePairingTest, TokensFromBeforeTheEpochRecordAreReported) {
  TestDevice dev;
  const std::string token = pair(dev);
  gw_.reset();
  std::filesystem::remove(home_.path() / "devices" / "auth-epoch.json");  // as a state dir of an older Pincer
  gw_ = std::make_unique<Gateway>(home_.path());
  EXPECT_NE(gateway_output(*gw_, home_.path()).find("pincer devices revoke --all"), std::string::npos)
      << gateway_output(*gw_, home_.path());
  EXPECT_TRUE(attempt(dev, params_for({"operator.read"}, "", token)).ok()) << "warned, not revoked";
}

TEST_F(DevicePairingTest, DevicesRevokeAllThroughTheGatewayAndWithoutIt) {
  TestDevice one, two;
  const std::string t1 = pair(one), t2 = pair(two, {"operator.admin"});
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()}};
  const std::string url = "ws://127.0.0.1:" + std::to_string(gw_->port());
  auto online = run_pincer({"devices", "revoke", "--all", "--url", url, "--token", kToken}, env);
  ASSERT_EQ(online.exit_code, 0) << online.err;
  EXPECT_NE(online.out.find("Revoked 2 device token(s)"), std::string::npos) << online.out;
  EXPECT_NE(online.err.find("warning: --token is visible"), std::string::npos) << online.err;
  EXPECT_FALSE(attempt(one, params_for({"operator.read"}, "", t1)).ok());
  EXPECT_FALSE(attempt(two, params_for({"operator.admin"}, "", t2)).ok());

  // No gateway running: the files are edited, under the state dir's lock.
  const std::string t3 = pair(one);
  gw_.reset();
  auto offline = run_pincer({"devices", "revoke", "--all"}, env);
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_NE(offline.out.find("Revoked 1 device token(s) in " + (home_.path() / "devices" / "paired.json").string()),
            std::string::npos)
      << offline.out;
  gw_ = std::make_unique<Gateway>(home_.path());
  EXPECT_FALSE(attempt(one, params_for({"operator.read"}, "", t3)).ok());
  auto usage = run_pincer({"devices", "revoke"}, env);
  EXPECT_EQ(usage.exit_code, 2) << usage.err;
}

TEST_F(DevicePairingTest, TheApproverMustHoldTheScopesTheDeviceAsksFor) {
  // A client that may pair devices but is not an admin.
  auto pairing_only = std::make_unique<WsClient>(gw_->port());
  pairing_only->recv();
  pairing_only->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
                           {"params", connect_params(kToken, {"operator.pairing", "operator.read"})}});
  ASSERT_EQ((*pairing_only->recv_response("c1"))["ok"], true);
  const std::map<std::string, std::string> origin = {{"Origin", "http://ui.example"}};  // not silently paired

  TestDevice greedy;
  auto asked = attempt(greedy, params_for({"operator.admin"}, kToken), {}, origin);
  const std::string request_id = asked.error()["details"].value("requestId", "");
  ASSERT_FALSE(request_id.empty()) << asked.response.dump();
  auto denied = pairing_only->request("device.pair.approve", {{"requestId", request_id}});
  EXPECT_EQ(denied["ok"], false);
  EXPECT_EQ(denied["error"]["message"], "missing scope: operator.admin") << denied.dump();
  EXPECT_TRUE(find_paired(admin()->request("device.pair.list")["payload"], greedy.id).is_null());
  auto by_admin = admin()->request("device.pair.approve", {{"requestId", request_id}});
  EXPECT_EQ(by_admin["ok"], true) << by_admin.dump();

  // Scopes the approver holds (operator.read) it may grant.
  TestDevice modest;
  auto small = attempt(modest, params_for({"operator.read"}, kToken), {}, origin);
  const std::string small_id = small.error()["details"].value("requestId", "");
  auto granted = pairing_only->request("device.pair.approve", {{"requestId", small_id}});
  EXPECT_EQ(granted["ok"], true) << granted.dump();
}

}  // namespace
}  // namespace device_pairing_test
}  // namespace pincer::test
