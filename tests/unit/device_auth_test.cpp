// Device identity proofs (gateway/protocol/device_auth.h) and the pairing store (store/device_store.h).
// Vectors: (1) a key from the fixed seed 01..20 (hex), signed by libsodium here and by Node's crypto
// (`crypto.sign(null, payload, pkcs8(seed))`, as tests/compat and the anchors' oc-client.mjs sign) —
// Ed25519 is deterministic, so both must produce the same bytes; (2) a connect captured on the wire
// from the real OpenClaw client (anchors/openclaw-wire-log.md §1).
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "core/ids.h"
#include "gateway/protocol/connect.h"
#include "gateway/protocol/device_auth.h"
#include "store/device_store.h"

namespace pincer::gateway::device_auth {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Seed 0x01..0x20 → (Node 20 crypto, see file comment):
constexpr const char* kSeedPublicKey = "ebVWLo_mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ";
constexpr const char* kSeedPem =
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=\n-----END PUBLIC KEY-----\n";
constexpr const char* kSeedDeviceId = "65b60673d6ed884bf01c2c222d82ada0740f29ac3355d6a925c81f17f47a27b8";
constexpr const char* kNodeSigV3 =
    "_pHvDoQ8-wsWhsAzBhmiyPmoojZCCToNpPWigQ891rgOfDgYuupGP7mveW49sNMBf__rKx31e0NqLgX7Ah29DQ";
constexpr const char* kNodeSigV3Std =
    "/pHvDoQ8+wsWhsAzBhmiyPmoojZCCToNpPWigQ891rgOfDgYuupGP7mveW49sNMBf//rKx31e0NqLgX7Ah29DQ==";
constexpr const char* kNodeSigV2 =
    "AjhuQAdk_7W2xifVe6wDrQTNboQU837UvQQCQHhSFxqwBCGBQChpCxy9HeWxOmX2LaShHOPmUmL5N2WNHwsxDA";
constexpr const char* kNonce = "0e2df3ef-c92b-4471-9b25-18cce4418810";
constexpr int64_t kSignedAt = 1796003896649;

struct KeyPair {
  std::string pk, sk;  // raw 32 / 64 bytes
};

KeyPair seed_keypair() {
  std::array<unsigned char, crypto_sign_SEEDBYTES> seed{};
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<unsigned char>(i + 1);
  KeyPair kp{std::string(crypto_sign_PUBLICKEYBYTES, '\0'), std::string(crypto_sign_SECRETKEYBYTES, '\0')};
  crypto_sign_seed_keypair(reinterpret_cast<unsigned char*>(kp.pk.data()), reinterpret_cast<unsigned char*>(kp.sk.data()),
                           seed.data());
  return kp;
}

SignedFields seed_fields() {
  SignedFields f;
  f.device_id = kSeedDeviceId;
  f.client_id = "cli";
  f.client_mode = "cli";
  f.role = "operator";
  f.scopes = {"operator.admin", "operator.read"};
  f.signed_at_ms = kSignedAt;
  f.token = "anchor-token-0123456789abcdef";
  f.nonce = kNonce;
  f.platform = "linux";
  f.device_family = "Linux";
  return f;
}

TEST(DeviceAuth, Base64RoundTripsAndRejectsNonCanonicalInput) {
  EXPECT_EQ(base64url_encode(""), "");
  EXPECT_EQ(base64url_encode("f"), "Zg");
  EXPECT_EQ(base64url_encode("fo"), "Zm8");
  EXPECT_EQ(base64url_encode("foo"), "Zm9v");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_EQ(base64_decode("Zm9vYg"), "foob");
  EXPECT_EQ(base64_decode("Zm9vYg=="), "foob");  // standard, padded
  EXPECT_EQ(base64_decode("-_8"), "\xfb\xff");
  EXPECT_EQ(base64_decode("+/8="), "\xfb\xff");
  for (std::string_view bad : {"", "Zm9vYg=", "Zm9vYg===", "Zh", "Z", "Zm9v!", "Zm 9v", "+_8=", "-_8=", "Zg=a"}) {
    EXPECT_FALSE(base64_decode(bad)) << bad;  // "Zh": non-zero trailing bits
  }
  EXPECT_FALSE(base64_decode(std::string(kMaxEncodedBytes + 4, 'A')));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_EQ(base64_decode(base64url_encode(all)), all);
}

TEST(DeviceAuth, PublicKeyFormatsAndDeviceId) {
  const KeyPair kp = seed_keypair();
  EXPECT_EQ(base64url_encode(kp.pk), kSeedPublicKey) << "libsodium and Node derive the same key from the seed";
  EXPECT_EQ(decode_public_key(kSeedPublicKey), kp.pk);
  EXPECT_EQ(decode_public_key(kSeedPem), kp.pk);
  EXPECT_EQ(decode_public_key("ebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ="), kp.pk);
  EXPECT_EQ(device_id_for_key(kp.pk), kSeedDeviceId);
  EXPECT_FALSE(decode_public_key(base64url_encode(kp.pk.substr(0, 31))));  // wrong length
  EXPECT_FALSE(decode_public_key(base64url_encode(kp.pk + "x")));
  EXPECT_FALSE(decode_public_key("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"));
  EXPECT_FALSE(decode_public_key("-----BEGIN PUBLIC KEY-----"));
  EXPECT_FALSE(decode_public_key("not base64 at all"));
}

TEST(DeviceAuth, PayloadStringsNormalizePlatformOnlyInV3) {
  SignedFields f = seed_fields();
  f.platform = "  LiNux\t";
  f.device_family = "iPhone İ";  // only A-Z are lowered
  EXPECT_EQ(payload_v3(f), std::string("v3|") + kSeedDeviceId +
                               "|cli|cli|operator|operator.admin,operator.read|1796003896649|"
                               "anchor-token-0123456789abcdef|" + kNonce + "|linux|iphone İ");
  EXPECT_EQ(payload_v2(f), std::string("v2|") + kSeedDeviceId +
                               "|cli|cli|operator|operator.admin,operator.read|1796003896649|"
                               "anchor-token-0123456789abcdef|" + kNonce);
  f.scopes.clear();
  f.token.clear();
  f.platform.clear();
  f.device_family.clear();
  EXPECT_EQ(payload_v3(f), std::string("v3|") + kSeedDeviceId + "|cli|cli|operator||1796003896649||" + kNonce + "||");
}

TEST(DeviceAuth, LibsodiumAndNodeSignaturesAgree) {
  const KeyPair kp = seed_keypair();
  const SignedFields f = seed_fields();
  EXPECT_EQ(sign(kp.sk, payload_v3(f)), kNodeSigV3);
  EXPECT_EQ(sign(kp.sk, payload_v2(f)), kNodeSigV2);
  EXPECT_TRUE(verify_signature(kp.pk, payload_v3(f), kNodeSigV3));
  EXPECT_TRUE(verify_signature(kp.pk, payload_v3(f), kNodeSigV3Std));  // standard base64 tolerated
  EXPECT_FALSE(verify_signature(kp.pk, payload_v2(f), kNodeSigV3));
  EXPECT_FALSE(verify_signature(kp.pk.substr(1), payload_v3(f), kNodeSigV3));
  EXPECT_FALSE(verify_signature(kp.pk, payload_v3(f), std::string(kNodeSigV3).substr(0, 84)));  // 63 bytes
  EXPECT_FALSE(verify_signature(kp.pk, payload_v3(f), "%%%"));
  EXPECT_EQ(sign("short", "x"), "");
}

TEST(DeviceAuth, VerifiesAConnectCapturedFromTheRealOpenClawClient) {
  DeviceProof proof{"6df376fdcc4a400c9e18b3edf5a2c62de7b236caac534f19a7b815046897de16",
                    "cRID8kJ7-R61aFqmtvqSb5WyAUG4vzsZYpRNukgrLsE",
                    "LEhv7vN-Qm2hEnJnjP5HHLWz4uA_P12W1KqypqbZIYMZQw5W-v5s2-leanDkq0fwC82zsFxnEWqniEZwVavICw", kNonce,
                    kSignedAt};
  SignedFields f;
  f.client_id = "cli";
  f.client_mode = "cli";
  f.role = "operator";
  f.scopes = {"operator.admin", "operator.read", "operator.write"};
  f.token = "anchor-token-0123456789abcdef";
  f.platform = "linux";
  auto r = verify_proof(proof, f, kNonce, kSignedAt + 5);
  ASSERT_TRUE(std::holds_alternative<VerifiedDevice>(r)) << std::get<ProofFailure>(r).message;
  EXPECT_EQ(std::get<VerifiedDevice>(r).payload_version, "v3");
  EXPECT_EQ(std::get<VerifiedDevice>(r).public_key, proof.public_key);
  f.scopes.pop_back();  // any signed field changed → invalid
  EXPECT_EQ(std::get<ProofFailure>(verify_proof(proof, f, kNonce, kSignedAt)).reason, "device-signature");
}

class ProofTest : public ::testing::Test {
 protected:
  std::variant<VerifiedDevice, ProofFailure> check(int64_t now = kSignedAt, std::string_view nonce = kNonce) {
    SignedFields ctx = seed_fields();
    ctx.platform = "LINUX ";  // normalized: still the signed "linux"
    return verify_proof(proof_, ctx, nonce, now);
  }
  std::string reason(int64_t now = kSignedAt, std::string_view nonce = kNonce) {
    auto r = check(now, nonce);
    return std::holds_alternative<ProofFailure>(r) ? std::get<ProofFailure>(r).reason : "ok";
  }
  DeviceProof proof_{kSeedDeviceId, kSeedPublicKey, kNodeSigV3, kNonce, kSignedAt};
};

TEST_F(ProofTest, AcceptsV3AndV2AndChecksInOpenClawsOrder) {
  EXPECT_EQ(reason(), "ok");
  EXPECT_EQ(std::get<VerifiedDevice>(check()).payload_version, "v3");
  proof_.signature = kNodeSigV2;
  EXPECT_EQ(std::get<VerifiedDevice>(check()).payload_version, "v2");

  proof_.signature = kNodeSigV3;
  EXPECT_EQ(reason(kSignedAt + kSignatureSkewMs), "ok");
  EXPECT_EQ(reason(kSignedAt - kSignatureSkewMs), "ok");
  EXPECT_EQ(reason(kSignedAt + kSignatureSkewMs + 1), "device-signature-stale");
  EXPECT_EQ(reason(kSignedAt - kSignatureSkewMs - 1), "device-signature-stale");
  EXPECT_EQ(reason(kSignedAt, "other-nonce"), "device-nonce-mismatch");
  proof_.nonce = "  ";
  EXPECT_EQ(reason(), "device-nonce-missing");
  proof_.nonce = std::string(" ") + kNonce + " ";  // trimmed
  EXPECT_EQ(reason(), "ok");
  proof_.signature = kNodeSigV3Std;
  EXPECT_EQ(reason(), "ok");
  proof_.signature = std::string(kNodeSigV3).replace(0, 1, "A");
  EXPECT_EQ(reason(), "device-signature");
  proof_.id = std::string(kSeedDeviceId).replace(0, 1, "0");
  EXPECT_EQ(reason(), "device-id-mismatch");
  proof_.id = kSeedDeviceId;
  proof_.nonce = "";
  proof_.signed_at_ms = 0;  // stale is checked before the nonce
  EXPECT_EQ(reason(), "device-signature-stale");
}

TEST_F(ProofTest, HostileValuesNeverCrash) {
  for (int64_t t : {INT64_MIN, INT64_MAX, int64_t{0}, int64_t{-1}}) {
    proof_.signed_at_ms = t;
    // Same instant as now: fresh, but the signature was made for another signedAt.
    EXPECT_EQ(reason(INT64_MAX), t == INT64_MAX ? "device-signature" : "device-signature-stale");
    EXPECT_EQ(reason(INT64_MIN), t == INT64_MIN ? "device-signature" : "device-signature-stale");
  }
  proof_.signed_at_ms = kSignedAt;
  for (const std::string& key :
       std::vector<std::string>{"", "x", "====", std::string(5000, 'A'), std::string("\0\xff", 2), kSeedPem}) {
    proof_.public_key = key;
    EXPECT_EQ(reason(), key == kSeedPem ? "ok" : "device-id-mismatch");
  }
  proof_.public_key = kSeedPublicKey;
  for (const std::string& sig :
       std::vector<std::string>{"", "!!", std::string(4000, '_'), std::string(86, 'A'), std::string("\0", 1)}) {
    proof_.signature = sig;
    EXPECT_EQ(reason(), "device-signature");
  }
}

TEST(DeviceAuth, ErrorsCarryOpenClawsDetailCodes) {
  const std::pair<const char*, const char*> cases[] = {
      {"device-id-mismatch", "DEVICE_AUTH_DEVICE_ID_MISMATCH"},
      {"device-signature-stale", "DEVICE_AUTH_SIGNATURE_EXPIRED"},
      {"device-nonce-missing", "DEVICE_AUTH_NONCE_REQUIRED"},
      {"device-nonce-mismatch", "DEVICE_AUTH_NONCE_MISMATCH"},
      {"device-signature", "DEVICE_AUTH_SIGNATURE_INVALID"},
      {"device-public-key", "DEVICE_AUTH_PUBLIC_KEY_INVALID"},
      {"anything-else", "DEVICE_AUTH_INVALID"},
  };
  for (const auto& [r, code] : cases) {
    RpcError e = proof_error({r, "msg"});
    EXPECT_EQ(e.code, "INVALID_REQUEST");
    EXPECT_EQ(e.details["code"], code);
    EXPECT_EQ(e.details["reason"], r);
  }
  RpcError p = pairing_required_error("scope-upgrade", "req-1", "dev", "operator", {"operator.admin"}, nullptr);
  EXPECT_EQ(p.code, "NOT_PAIRED");
  EXPECT_EQ(p.message, "pairing required: device is asking for more scopes than currently approved");
  EXPECT_EQ(p.details["code"], "PAIRING_REQUIRED");
  EXPECT_EQ(p.details["requestId"], "req-1");
  EXPECT_EQ(p.details["reason"], "scope-upgrade");
  EXPECT_EQ(p.details["requestedScopes"], json::array({"operator.admin"}));
}

TEST(DeviceAuth, ScopesAndPairingReasons) {
  EXPECT_TRUE(role_scopes_allow("operator", {}, {}));
  EXPECT_TRUE(role_scopes_allow("operator", {"operator.read", "operator.pairing"}, {"operator.admin"}));
  EXPECT_TRUE(role_scopes_allow("operator", {"operator.read"}, {"operator.write"}));
  EXPECT_FALSE(role_scopes_allow("operator", {"operator.write"}, {"operator.read"}));
  EXPECT_FALSE(role_scopes_allow("node", {"node.x"}, {"operator.admin"}));
  EXPECT_TRUE(role_scopes_allow("node", {"node.x"}, {"node.x"}));
  EXPECT_EQ(normalize_scopes({" b ", "a", "b", ""}), (std::vector<std::string>{"a", "b"}));

  VerifiedDevice dev{kSeedDeviceId, kSeedPublicKey, "v3"};
  store::PairedDevice paired;
  paired.public_key = kSeedPublicKey;
  paired.platform = "Linux";
  paired.roles = {"operator"};
  paired.approved_scopes = {"operator.read"};
  auto reason = [&](const store::PairedDevice* p, std::string platform, std::string role, std::vector<std::string> s) {
    return pairing_reason(p, dev, platform, "", role, s).value_or("ok");
  };
  EXPECT_EQ(reason(nullptr, "linux", "operator", {}), "not-paired");
  EXPECT_EQ(reason(&paired, " LINUX", "operator", {"operator.read"}), "ok");
  EXPECT_EQ(reason(&paired, "darwin", "operator", {}), "metadata-upgrade");
  EXPECT_EQ(reason(&paired, "linux", "node", {}), "role-upgrade");
  EXPECT_EQ(reason(&paired, "linux", "operator", {"operator.write"}), "scope-upgrade");
  paired.public_key = "another";
  EXPECT_EQ(reason(&paired, "linux", "operator", {}), "not-paired");
}

TEST(DeviceAuth, ConnectParamsCarryTheDeviceBlock) {
  json params = {{"minProtocol", 4},
                 {"maxProtocol", 4},
                 {"client", {{"id", "cli"}, {"version", "1"}, {"platform", "linux"}, {"mode", "cli"}}},
                 {"device",
                  {{"id", kSeedDeviceId}, {"publicKey", kSeedPublicKey}, {"signature", kNodeSigV3},
                   {"signedAt", kSignedAt}, {"nonce", kNonce}}}};
  auto r = parse_connect_params(params);
  ASSERT_TRUE(std::holds_alternative<ConnectRequest>(r));
  const auto& dev = std::get<ConnectRequest>(r).device;
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->id, kSeedDeviceId);
  EXPECT_EQ(dev->signed_at_ms, kSignedAt);
  params["device"]["signedAt"] = json(uint64_t{18446744073709551615u});
  EXPECT_EQ(std::get<ConnectRequest>(parse_connect_params(params)).device->signed_at_ms, INT64_MAX);
  for (json bad : {json("x"), json{{"id", 1}}, json{{"id", "a"}, {"publicKey", "b"}, {"signature", "c"},
                                                      {"signedAt", 1.5}, {"nonce", "n"}}}) {
    params["device"] = bad;
    EXPECT_TRUE(std::holds_alternative<ConnectFailure>(parse_connect_params(params))) << bad.dump();
  }
}

// ---- store ----

class DeviceStoreTest : public ::testing::Test {
 protected:
  DeviceStoreTest() : dir_(fs::temp_directory_path() / ("pincer-devices-" + ids::random_token(6))) {}
  ~DeviceStoreTest() override { fs::remove_all(dir_); }
  store::DeviceStore open(int64_t now = 1000) { return store::DeviceStore(dir_, role_scopes_allow, now); }
  static store::PendingPairing request(std::string device, std::string role, std::vector<std::string> scopes) {
    store::PendingPairing p;
    p.device_id = device;
    p.public_key = "pk-" + device;
    p.platform = "linux";
    p.role = role;
    p.scopes = scopes;
    return p;
  }
  fs::path dir_;
};

TEST_F(DeviceStoreTest, RequestApproveIssueTokenAndPersist) {
  auto s = open();
  auto r = s.request_pairing(request("d1", "operator", {"operator.read"}), 1000);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->created);
  auto again = s.request_pairing(request("d1", "operator", {"operator.write"}), 1100);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->created) << "one pending request per device, merged";
  EXPECT_EQ(again->request.request_id, r->request.request_id);
  EXPECT_EQ(again->request.scopes, (std::vector<std::string>{"operator.read", "operator.write"}));

  auto approved = s.approve(r->request.request_id, 1200);
  ASSERT_TRUE(approved && *approved);
  const auto& d = **approved;
  EXPECT_EQ(d.roles, std::vector<std::string>{"operator"});
  ASSERT_EQ(d.tokens.count("operator"), 1u);
  const std::string token = d.tokens.at("operator").token;
  EXPECT_EQ(token.size(), 43u);  // base64url of 32 bytes
  EXPECT_TRUE(s.list_pending(1200).empty());
  EXPECT_FALSE(*s.approve(r->request.request_id, 1200)) << "approved requests are gone";

  for (const char* name : {"pending.json", "paired.json"}) {
    struct stat st{};
    ASSERT_EQ(::stat((dir_ / name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0600) << name;
  }
  auto reloaded = open(1300);
  ASSERT_NE(reloaded.paired("d1"), nullptr);
  EXPECT_EQ(reloaded.paired("d1")->tokens.at("operator").token, token);
  json list = store::to_json(*reloaded.paired("d1"), false);
  EXPECT_FALSE(list.dump().find(token) != std::string::npos) << "listings never carry token strings";
  EXPECT_EQ(list["tokens"][0]["role"], "operator");
}

TEST_F(DeviceStoreTest, TokensVerifyRotateRevoke) {
  auto s = open();
  auto r = s.request_pairing(request("d1", "operator", {"operator.write"}), 1000);
  auto d = s.approve(r->request.request_id, 1000);
  const std::string token = (*d)->tokens.at("operator").token;
  auto verdict = [&](const std::string& dev, const std::string& role, const std::string& tok,
                     std::vector<std::string> scopes) { return s.verify_token(dev, role, tok, scopes, 2000)->value_or("ok"); };
  EXPECT_EQ(verdict("d1", "operator", token, {"operator.read"}), "ok");
  EXPECT_EQ(s.paired("d1")->tokens.at("operator").last_used_at_ms, 2000);
  EXPECT_EQ(verdict("d2", "operator", token, {}), "device-not-paired");
  EXPECT_EQ(verdict("d1", "", token, {}), "role-missing");
  EXPECT_EQ(verdict("d1", "node", token, {}), "token-missing");
  EXPECT_EQ(verdict("d1", "operator", token + "x", {}), "token-mismatch");
  EXPECT_EQ(verdict("d1", "operator", token, {"operator.admin"}), "scope-mismatch");

  auto same = s.ensure_token("d1", "operator", {"operator.read"}, 3000);
  EXPECT_EQ((*same)->token, token) << "a covering live token is reused";
  EXPECT_FALSE(*s.ensure_token("nope", "operator", {}, 3000));

  auto rotated = s.rotate_token("d1", "operator", std::nullopt, 4000);
  ASSERT_TRUE(rotated);
  EXPECT_NE(rotated->token, token);
  EXPECT_EQ(rotated->rotated_at_ms, 4000);
  EXPECT_EQ(verdict("d1", "operator", token, {}), "token-mismatch");
  EXPECT_EQ(s.rotate_token("d1", "operator", std::vector<std::string>{"operator.admin"}, 4000).error().code,
            "SCOPE_NOT_APPROVED");
  EXPECT_EQ(s.rotate_token("d1", "node", std::nullopt, 4000).error().code, "UNKNOWN_DEVICE_OR_ROLE");

  auto revoked = s.revoke_token("d1", "operator", 5000);
  ASSERT_TRUE(revoked);
  EXPECT_EQ(verdict("d1", "operator", rotated->token, {}), "token-revoked");
  auto fresh = s.ensure_token("d1", "operator", {}, 6000);
  EXPECT_NE((*fresh)->token, rotated->token) << "a revoked token is replaced on the next approved connect";
  EXPECT_EQ(s.revoke_token("d1", "node", 5000).error().code, "UNKNOWN_DEVICE_OR_ROLE");

  EXPECT_TRUE(*s.remove("d1"));
  EXPECT_FALSE(*s.remove("d1"));
  EXPECT_EQ(verdict("d1", "operator", (*fresh)->token, {}), "device-not-paired");
}

TEST_F(DeviceStoreTest, PendingExpiresAfterFiveMinutesAndRejectDrops) {
  auto s = open();
  auto a = s.request_pairing(request("d1", "operator", {}), 1000);
  auto b = s.request_pairing(request("d2", "operator", {}), 1000 + store::kPendingPairingTtlMs);
  EXPECT_EQ(s.list_pending(1000 + store::kPendingPairingTtlMs).size(), 2u);
  EXPECT_EQ(s.list_pending(1001 + store::kPendingPairingTtlMs).size(), 1u);
  EXPECT_FALSE(*s.approve(a->request.request_id, 1001 + store::kPendingPairingTtlMs));
  EXPECT_EQ(**s.reject(b->request.request_id, 2000), "d2");
  EXPECT_FALSE(*s.reject(b->request.request_id, 2000));
}

TEST_F(DeviceStoreTest, CorruptFilesAreMovedAsideAndMemoryStoreWritesNothing) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "paired.json") << "{not json";
  std::ofstream(dir_ / "pending.json") << R"({"r1": {"deviceId": 5, "ts": "x"}, "r2": 7})";
  auto s = open(42);
  EXPECT_EQ(s.load_warnings().size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ / "paired.json.corrupt-42"));
  EXPECT_TRUE(s.list_paired().empty());
  EXPECT_TRUE(s.list_pending(42).empty()) << "entries without a device id are dropped";

  store::DeviceStore mem({}, role_scopes_allow, 0);
  auto r = mem.request_pairing(request("d1", "operator", {}), 0);
  ASSERT_TRUE(r);
  EXPECT_TRUE(*mem.approve(r->request.request_id, 0));
}

}  // namespace
}  // namespace pincer::gateway::device_auth
