// core/identity_memo.h: values kept per shared object, bounded by cost (issue 17).
#include "core/identity_memo.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pincer {
namespace {

TEST(IdentityMemo, KeepsAValuePerObjectNotPerEqualValue) {
  IdentityMemo<std::string, int> memo(1000);
  auto a = std::make_shared<const std::string>("same");
  auto b = std::make_shared<const std::string>("same");
  ASSERT_NE(memo.put(a, 1, 10), nullptr);
  ASSERT_NE(memo.find(a.get()), nullptr);
  EXPECT_EQ(*memo.find(a.get()), 1);
  EXPECT_EQ(memo.find(b.get()), nullptr);  // equal text, another object
  memo.put(a, 2, 20);                      // replaced, cost counted once
  EXPECT_EQ(*memo.find(a.get()), 2);
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.cost(), 20u);
}

TEST(IdentityMemo, HoldsItsKeysSoAnAddressIsNeverReused) {
  IdentityMemo<std::string, int> memo(1000);
  const std::string* address = nullptr;
  {
    auto a = std::make_shared<const std::string>("gone elsewhere");
    address = a.get();
    memo.put(a, 7, 1);
  }
  // The caller dropped its pointer; the memo's keeps the object (and its address) alive.
  ASSERT_NE(memo.find(address), nullptr);
  EXPECT_EQ(*address, "gone elsewhere");
}

TEST(IdentityMemo, StaysUnderItsBoundDroppingTheLeastRecentlyUsed) {
  IdentityMemo<std::string, int> memo(100);
  std::vector<std::shared_ptr<const std::string>> keys;
  for (int i = 0; i < 20; ++i) keys.push_back(std::make_shared<const std::string>(std::to_string(i)));
  memo.put(keys[0], 0, 10);
  for (int i = 1; i < 20; ++i) {
    memo.find(keys[0].get());  // kept in use
    memo.put(keys[static_cast<std::size_t>(i)], i, 10);
    EXPECT_LE(memo.cost(), 100u);
  }
  EXPECT_NE(memo.find(keys[0].get()), nullptr);   // used all along
  EXPECT_EQ(memo.find(keys[1].get()), nullptr);   // the oldest unused went
  EXPECT_NE(memo.find(keys[19].get()), nullptr);  // the newest stays
  EXPECT_EQ(memo.put(keys[2], 2, 26), nullptr);   // over a quarter of the bound: not kept
}

}  // namespace
}  // namespace pincer
