// Channel pairing's flood limits (src/channels/pairing_store.h; issue 22 §11): the code is sent
// once per request, not once per message (again only after the resend interval, sooner when asked
// for); one request per origin, so free IRC nick changes from one host cannot take the account's
// three slots from real newcomers; the account's cap still holds.
#include <filesystem>

#include <gtest/gtest.h>

#include "channels/pairing_store.h"
#include "core/ids.h"

namespace pincer::channels {
namespace {

class PairingStoreTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-pairing-" + ids::uuid_v4());
  PairingStore store{dir / "pairing.json"};
  const int64_t t0 = 1'800'000'000'000;
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(PairingStoreTest, TheCodeIsSentOncePerRequestNotOncePerMessage) {
  auto first = store.request("telegram", "default", "2002", "eve", t0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->created);
  EXPECT_TRUE(first->notify);
  for (int i = 1; i <= 20; ++i) {
    auto again = store.request("telegram", "default", "2002", "eve", t0 + i * 1000);
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->created);
    EXPECT_FALSE(again->notify) << "message " << i << " got the code again";
    EXPECT_EQ(again->pending.code, first->pending.code);
  }
  // Asking (/start, /pair) sends it again, but not more than once a minute.
  EXPECT_FALSE(store.request("telegram", "default", "2002", "eve", t0 + kPairingAskResendMs - 1, "", true)->notify);
  EXPECT_TRUE(store.request("telegram", "default", "2002", "eve", t0 + kPairingAskResendMs, "", true)->notify);
  EXPECT_FALSE(store.request("telegram", "default", "2002", "eve", t0 + kPairingAskResendMs + 1000, "", true)->notify);
  // Writing on: once more after the resend interval.
  const int64_t later = t0 + kPairingAskResendMs + kPairingResendMs;
  EXPECT_FALSE(store.request("telegram", "default", "2002", "eve", later - 1)->notify);
  auto reminded = store.request("telegram", "default", "2002", "eve", later);
  EXPECT_TRUE(reminded->notify);
  EXPECT_EQ(reminded->pending.code, first->pending.code);
  ASSERT_EQ(store.pending(later).size(), 1u) << "one request per sender";
}

TEST_F(PairingStoreTest, NickChangesFromOneHostCannotTakeEverySlot) {
  auto first = store.request("irc", "default", "mallory!~m@203.0.113.9", "mallory", t0, "203.0.113.9");
  ASSERT_TRUE(first);
  for (int i = 0; i < 10; ++i) {
    const std::string nick = "mallory" + std::to_string(i);
    auto again = store.request("irc", "default", nick + "!~m@203.0.113.9", nick, t0 + 1000 + i, "203.0.113.9");
    ASSERT_FALSE(again) << nick << " got a request of its own";
    EXPECT_EQ(again.error().code, "PAIRING_ORIGIN_BUSY");
  }
  EXPECT_EQ(store.pending(t0 + 2000).size(), 1u);
  // Real newcomers from elsewhere still get their codes.
  for (const char* host : {"198.51.100.1", "198.51.100.2"}) {
    auto r = store.request("irc", "default", std::string("bob!~b@") + host, "bob", t0 + 3000, host);
    ASSERT_TRUE(r) << host << ": " << r.error().message;
    EXPECT_TRUE(r->created && r->notify);
  }
  // The account's cap (3) still holds.
  auto over = store.request("irc", "default", "carol!~c@192.0.2.7", "carol", t0 + 4000, "192.0.2.7");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, "PAIRING_FULL");
  // Origins count per account and only while the request is live.
  EXPECT_TRUE(store.request("irc", "other", "mallory1!~m@203.0.113.9", "mallory1", t0 + 5000, "203.0.113.9"));
  auto after_expiry = store.request("irc", "default", "mallory1!~m@203.0.113.9", "mallory1", t0 + kPairingTtlMs, "203.0.113.9");
  EXPECT_TRUE(after_expiry) << "the host's old request expired";
}

TEST_F(PairingStoreTest, RequestsWithoutAnOriginAreNotLimitedByOne) {
  ASSERT_TRUE(store.request("telegram", "default", "1", "a", t0));
  ASSERT_TRUE(store.request("telegram", "default", "2", "b", t0));
  ASSERT_TRUE(store.request("telegram", "default", "3", "c", t0));
  EXPECT_EQ(store.pending(t0).size(), 3u);
  // Approval still pairs the sender and clears the request.
  auto listed = store.pending(t0);
  ASSERT_TRUE(store.approve("telegram", listed[1].code, t0 + 1));
  EXPECT_EQ(store.approved("telegram", "default"), std::vector<std::string>{"2"});
  EXPECT_EQ(store.pending(t0 + 1).size(), 2u);
}

}  // namespace
}  // namespace pincer::channels
