// The webhook channel's signatures and replay guard (src/channels/webhook/webhook_signing.h;
// issue 22 §8): the timestamp is signed with the body, a signature is accepted once — also after a
// restart (the record is a file) — entries leave with their window, the record is bounded, and the
// callback key is not the inbound key. Expected HMACs are computed here with libsodium, not copied.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sodium.h>

#include "channels/webhook/webhook_signing.h"
#include "core/ids.h"

namespace pincer::channels::webhook {
namespace {

std::string hmac(const std::string& key, const std::string& message) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()), message.size());
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[sizeof mac * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

const std::string kSecret = "webhook-unit-secret-0123456789";

TEST(WebhookSigning, TheTimestampIsSignedWithTheBody) {
  const std::string body = R"({"text":"hi"})";
  EXPECT_EQ(signature(kSecret, "1800000000", body), "sha256=" + hmac(kSecret, "1800000000." + body));
  EXPECT_TRUE(signature_valid(kSecret, "1800000000", body, signature(kSecret, "1800000000", body)));
  std::string upper = signature(kSecret, "1800000000", body);
  for (std::size_t i = 7; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  EXPECT_TRUE(signature_valid(kSecret, "1800000000", body, upper)) << "hex in either case";
  EXPECT_FALSE(signature_valid(kSecret, "1800000001", body, signature(kSecret, "1800000000", body))) << "another time";
  EXPECT_FALSE(signature_valid(kSecret, "1800000000", body, "sha256=" + hmac(kSecret, body))) << "the old body-only form";
  EXPECT_FALSE(signature_valid(kSecret, "1800000000", body, ""));
}

TEST(WebhookSigning, TheCallbackKeyIsDerivedAndNeverTheSecret) {
  const std::string key = callback_key(kSecret);
  EXPECT_EQ(key, hmac(kSecret, "pincer-webhook-callback"));
  EXPECT_NE(key, kSecret);
  const std::string body = R"({"conversationId":"c","text":"reply"})";
  EXPECT_FALSE(signature_valid(kSecret, "1800000000", body, signature(key, "1800000000", body)))
      << "a callback must not verify as an inbound request";
}

TEST(WebhookSigning, TimestampsAreDecimalSeconds) {
  EXPECT_EQ(parse_timestamp("1800000000"), 1800000000);
  EXPECT_EQ(parse_timestamp("0"), 0);
  for (const char* bad : {"", "-5", "1.5", " 1", "1e9", "1800000000000000", "abc"}) {
    EXPECT_EQ(parse_timestamp(bad), std::nullopt) << bad;
  }
}

class ReplayGuardTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-replay-" + ids::uuid_v4());
  std::filesystem::path file = dir / "channels" / "webhook" / "default.replay.json";
  const int64_t now = 1'800'000'000;
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(ReplayGuardTest, ASignatureIsAcceptedOnceEvenAfterARestart) {
  {
    ReplayGuard guard(file);
    EXPECT_EQ(*guard.admit("aa", now, now), ReplayGuard::Verdict::Fresh);
    EXPECT_EQ(*guard.admit("aa", now, now + 1), ReplayGuard::Verdict::Replayed);
    EXPECT_EQ(*guard.admit("bb", now, now + 1), ReplayGuard::Verdict::Fresh);
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ReplayGuard restarted(file);  // a new gateway process
  EXPECT_EQ(restarted.size(), 2u);
  EXPECT_EQ(*restarted.admit("aa", now, now + 10), ReplayGuard::Verdict::Replayed);
  EXPECT_EQ(*restarted.admit("bb", now, now + 10), ReplayGuard::Verdict::Replayed);
}

TEST_F(ReplayGuardTest, EntriesLeaveWithTheirWindowAndTheRecordIsBounded) {
  ReplayGuard guard(file);
  ASSERT_EQ(*guard.admit("past", now - 100, now), ReplayGuard::Verdict::Fresh);
  ASSERT_EQ(*guard.admit("future", now + kWebhookWindowS, now), ReplayGuard::Verdict::Fresh);
  // "past" is out of the window (its request would be stale now); "future" is not yet.
  EXPECT_EQ(*guard.admit("x", now, now - 100 + kWebhookWindowS + 1), ReplayGuard::Verdict::Fresh);
  EXPECT_EQ(guard.size(), 2u);
  EXPECT_EQ(*guard.admit("future", now + kWebhookWindowS, now + kWebhookWindowS), ReplayGuard::Verdict::Replayed);

  ReplayGuard full("");  // in memory: the same bound
  for (std::size_t i = 0; i < kReplayMaxEntries; ++i) ASSERT_EQ(*full.admit("s" + std::to_string(i), now, now), ReplayGuard::Verdict::Fresh);
  EXPECT_EQ(*full.admit("one-more", now, now), ReplayGuard::Verdict::Full) << "never evict a live entry: it could be replayed";
  EXPECT_EQ(*full.admit("one-more", now, now + kWebhookWindowS + 1), ReplayGuard::Verdict::Fresh) << "room once the window moved on";
}

TEST_F(ReplayGuardTest, AnUnwritableRecordRefusesTheRequest) {
  std::filesystem::create_directories(dir);
  const auto blocked = dir / "not-a-dir";
  { std::ofstream(blocked) << "x"; }
  ReplayGuard guard(blocked / "default.replay.json");
  auto r = guard.admit("aa", now, now);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "IO_ERROR");
  EXPECT_EQ(guard.size(), 0u) << "nothing remembered that is not on disk";
}

TEST_F(ReplayGuardTest, AMalformedRecordIsIgnored) {
  std::filesystem::create_directories(file.parent_path());
  { std::ofstream(file) << "{not json"; }
  ReplayGuard guard(file);
  EXPECT_EQ(guard.size(), 0u);
  EXPECT_EQ(*guard.admit("aa", now, now), ReplayGuard::Verdict::Fresh);
  ReplayGuard again(file);
  EXPECT_EQ(again.size(), 1u) << "rewritten whole";
}

}  // namespace
}  // namespace pincer::channels::webhook
