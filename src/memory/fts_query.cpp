#include "memory/fts_query.h"
#include "core/utf8.h"

#include <algorithm>
#include <set>

namespace pincer::memory {
namespace {

/// Decodes one UTF-8 sequence at `i` (advancing it); invalid bytes decode as U+FFFD.
char32_t next_cp(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  auto cont = [&](std::size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len = b0 >= 0xF0 && b0 < 0xF5 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
  if (b0 >= 0xF5) len = 0;
  for (int k = 1; k < len; ++k) {
    if (!cont(static_cast<std::size_t>(k))) len = 0;
  }
  if (len == 0) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = b0 & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3F);
  i += static_cast<std::size_t>(len);
  return cp;
}


enum class Kind { Sep, Word, Cjk };

Kind kind_of(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' ? Kind::Word
                                                                                                          : Kind::Sep;
  }
  if (is_cjk(cp)) return Kind::Cjk;
  // General punctuation, CJK/full-width punctuation, symbols, U+FFFD: separators.
  if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
      (cp >= 0xFF1A && cp <= 0xFF20) || cp == 0xFFFD || cp == 0xA0 || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0x1F000 && cp <= 0x1FAFF)) {
    return Kind::Sep;
  }
  return Kind::Word;
}

std::string lower_ascii(std::string s) {
  for (auto& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string quoted(const std::string& term) {
  std::string out = "\"";
  for (char c : term) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// Runs of one kind: words as strings, CJK runs as code point sequences.
struct Runs {
  std::vector<std::string> words;
  std::vector<std::u32string> cjk;
};

Runs split(std::string_view text) {
  Runs r;
  std::string word;
  std::u32string cjk;
  auto end_word = [&] {
    if (!word.empty()) r.words.push_back(lower_ascii(std::move(word)));
    word.clear();
  };
  auto end_cjk = [&] {
    if (!cjk.empty()) r.cjk.push_back(std::move(cjk));
    cjk.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    const char32_t cp = next_cp(text, i);
    switch (kind_of(cp)) {
      case Kind::Word:
        end_cjk();
        utf8::append(word, cp);
        break;
      case Kind::Cjk:
        end_word();
        cjk.push_back(cp);
        break;
      case Kind::Sep:
        end_word();
        end_cjk();
        break;
    }
  }
  end_word();
  end_cjk();
  return r;
}

std::string utf8_of(std::u32string_view cps) {
  std::string out;
  for (char32_t cp : cps) utf8::append(out, cp);
  return out;
}

std::string join_or(const std::vector<std::string>& terms) {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += " OR ";
    out += quoted(t);
  }
  return out;
}

}  // namespace

bool is_stop_word(std::string_view word) {
  // English function and question words (sorted: binary search). Lowercase input.
  static constexpr std::string_view kWords[] = {
      "a",     "about", "am",    "an",    "and",   "any",   "are",   "as",    "at",   "be",    "been",  "but",
      "by",    "can",   "could", "did",   "do",    "does",  "for",   "from",  "had",  "has",   "have",  "he",
      "her",   "his",   "how",   "i",     "if",    "in",    "into",  "is",    "it",   "its",   "me",    "my",
      "of",    "on",    "or",    "our",   "she",   "so",    "that",  "the",   "their", "them", "then",  "there",
      "these", "they",  "this",  "to",    "was",   "we",    "were",  "what",  "when", "where", "which", "who",
      "whom",  "why",   "will",  "with",  "would", "you",   "your"};
  return std::binary_search(std::begin(kWords), std::end(kWords), word);
}

bool is_cjk(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2FA1F) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) ||
         (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3130 && cp <= 0x318F);
}

FtsQuery build_fts_query(std::string_view user_text) {
  FtsQuery q;
  Runs runs = split(user_text);
  std::vector<std::string> words, trigrams;
  std::set<std::string> seen;
  for (auto& w : runs.words) {
    if (seen.insert(w).second) words.push_back(w);
  }
  // "what is the deadline for X" → deadline, x: a function word matches nearly every chunk, so
  // it only makes the index score them all; BM25 gives it almost no weight anyway. A query of
  // function words only keeps them. The cap counts the words that remain.
  if (std::any_of(words.begin(), words.end(), [](const std::string& w) { return !is_stop_word(w); })) {
    std::erase_if(words, [](const std::string& w) { return is_stop_word(w); });
  }
  if (words.size() > kMaxQueryTerms) words.resize(kMaxQueryTerms);
  for (const auto& run : runs.cjk) {
    if (run.size() < 3) {
      std::string s = utf8_of(run);
      if (q.short_cjk.size() < kMaxQueryTerms && seen.insert(s).second) q.short_cjk.push_back(std::move(s));
      continue;
    }
    for (std::size_t i = 0; i + 3 <= run.size() && trigrams.size() < kMaxQueryTerms; ++i) {
      std::string s = utf8_of(std::u32string_view(run).substr(i, 3));
      if (seen.insert(s).second) trigrams.push_back(std::move(s));
    }
  }
  q.words = join_or(words);
  q.trigrams = join_or(trigrams);
  q.terms = words;
  q.terms.insert(q.terms.end(), trigrams.begin(), trigrams.end());
  q.terms.insert(q.terms.end(), q.short_cjk.begin(), q.short_cjk.end());
  return q;
}

std::vector<std::string> text_terms(std::string_view text, std::size_t max_terms) {
  Runs runs = split(text);
  std::vector<std::string> out;
  for (auto& w : runs.words) {
    if (out.size() >= max_terms) return out;
    out.push_back(std::move(w));
  }
  for (const auto& run : runs.cjk) {
    for (char32_t cp : run) {
      if (out.size() >= max_terms) return out;
      out.push_back(utf8_of(std::u32string_view(&cp, 1)));
    }
  }
  return out;
}

}  // namespace pincer::memory
