// core/shared_list.h: a list of shared immutable values (issue 17: requests share the history).
#include "core/shared_list.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pincer {
namespace {

TEST(SharedList, ReadsLikeAVector) {
  SharedList<std::string> list = {"a", "b"};
  list.push_back(std::string("c"));
  list.emplace_back(3, 'd');
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list.front(), "a");
  EXPECT_EQ(list.back(), "ddd");
  EXPECT_EQ(list[2], "c");
  EXPECT_EQ(std::vector<std::string>(list.begin(), list.end()), (std::vector<std::string>{"a", "b", "c", "ddd"}));
  EXPECT_EQ(std::vector<std::string>(list.rbegin(), list.rend()), (std::vector<std::string>{"ddd", "c", "b", "a"}));
  EXPECT_EQ(list.end() - list.begin(), 4);
  EXPECT_EQ(std::find(list.begin(), list.end(), "c") - list.begin(), 2);
  EXPECT_EQ(list.begin()[1], "b");
  const SharedList<std::string> from_vector(std::vector<std::string>{"x", "y"});
  EXPECT_EQ(from_vector[1], "y");
}

TEST(SharedList, CopiesShareTheValues) {
  SharedList<std::string> list = {"one", "two"};
  const SharedList<std::string> copy = list;
  EXPECT_EQ(copy.shared(0), list.shared(0));  // the same object, not an equal one
  EXPECT_EQ(&copy[1], &list[1]);
  list.push_back(copy.shared(1));  // a value held by two lists
  EXPECT_EQ(list.shared(2), copy.shared(1));
}

TEST(SharedList, MutateChangesAPrivateCopyOnly) {
  SharedList<std::string> list = {"one", "two"};
  const SharedList<std::string> other = list;
  list.mutate(0) += "!";
  EXPECT_EQ(list[0], "one!");
  EXPECT_EQ(other[0], "one");  // the other holder still sees the old value
  EXPECT_NE(list.shared(0), other.shared(0));
  EXPECT_EQ(list.shared(1), other.shared(1));  // untouched positions stay shared
  list.replace(1, other.shared(0));
  EXPECT_EQ(list[1], "one");
}

TEST(SharedList, ResizeShrinksOrGrowsWithDefaults) {
  SharedList<std::string> list = {"a", "b", "c"};
  list.resize(1);
  ASSERT_EQ(list.size(), 1u);
  list.resize(3);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[2], "");
  list.pop_back();
  EXPECT_EQ(list.size(), 2u);
  list.clear();
  EXPECT_TRUE(list.empty());
}

}  // namespace
}  // namespace pincer
