// core/ascii_fold: accented Latin letters spelled in ASCII, the rest dropped.
#include <gtest/gtest.h>

#include "core/ascii_fold.h"

namespace {

using pincer::ascii_fold::to_ascii;

TEST(AsciiFold, SpellsAccentedLatinLettersInAscii) {
  EXPECT_EQ(to_ascii("émile"), "emile");
  EXPECT_EQ(to_ascii("Émile Zoë Müller"), "Emile Zoe Muller");
  EXPECT_EQ(to_ascii("Straße ẞ"), "Strasse SS");
  EXPECT_EQ(to_ascii("Ærøskøbing Łódź œuvre Ĳssel þing"), "AEroskobing Lodz oeuvre IJssel thing");
  EXPECT_EQ(to_ascii("Ștefan Țară ñ ç ÿ"), "Stefan Tara n c y");
}

TEST(AsciiFold, KeepsAsciiAndDropsWhatHasNoTransliteration) {
  EXPECT_EQ(to_ascii("plain-ASCII_1 ~!"), "plain-ASCII_1 ~!");
  EXPECT_EQ(to_ascii("e\xcc\x81"), "e");            // combining acute accent
  EXPECT_EQ(to_ascii("a×b÷c"), "abc");             // symbols
  EXPECT_EQ(to_ascii("日本 bot 🦀"), " bot ");       // other scripts, emoji
  EXPECT_EQ(to_ascii("x\xff\xc3y"), "xy");          // not UTF-8: dropped byte by byte
  EXPECT_EQ(to_ascii(""), "");
}

}  // namespace
