// Latin-letter transliteration to ASCII, for suggesting identifiers (agent ids …) from names a
// user typed with accents: "Émile" → "Emile", "Müller" → "Muller", "Straße" → "Strasse".
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pincer::ascii_fold {

/// `text` (UTF-8) with every code point made ASCII where a common transliteration exists:
/// ASCII is kept as it is; accented Latin letters (Latin-1 Supplement, Latin Extended-A, the
/// Romanian comma-below letters Ș ș Ț ț) lose their accent (é → e, ü → u, ł → l); ligatures and
/// special letters are spelled out (ß → ss, ẞ → SS, æ → ae, œ → oe, þ → th, ĳ → ij); combining
/// accents (U+0300..U+036F, as in decomposed "e\u0301") are dropped; every other code point
/// (symbols such as × ÷, non-Latin scripts, emoji) and every byte that is not well-formed UTF-8
/// is dropped. Case is kept. The result is ASCII only.
std::string to_ascii(std::string_view text);

}  // namespace pincer::ascii_fold
