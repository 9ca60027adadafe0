// The one percent-encoder (src/core/percent_encoding.h).
#include <gtest/gtest.h>

#include <string>

#include "core/percent_encoding.h"

namespace pincer {
namespace {

TEST(PercentEncoding, KeepsOnlyTheUnreservedCharactersAndThoseAskedFor) {
  EXPECT_EQ(percent_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(percent_encode("a b/ü+&="), "a%20b%2F%C3%BC%2B%26%3D");
  EXPECT_EQ(percent_encode(std::string("\0x", 2)), "%00x");
  EXPECT_EQ(percent_encode("12:34", ":"), "12:34");  // Discord's emoji name:id segment
  // JavaScript's encodeURIComponent (transcript file names, as OpenClaw writes them).
  EXPECT_EQ(percent_encode("it's (a)*b!?", "!*'()"), "it's%20(a)*b!%3F");
  EXPECT_EQ(percent_encode(std::string("\0", 1), std::string("\0", 1)), "%00") << "NUL is never kept";
  EXPECT_EQ(percent_encode(""), "");
}

}  // namespace
}  // namespace pincer
