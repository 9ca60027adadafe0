// `MEDIA:` directives in an agent's reply (SPEC CH-1 "media out"; OpenClaw's src/media/parse.ts
// splitMediaFromOutput): the way a model attaches a file it produced to its answer.
//
//   Here is the chart you asked for.
//   MEDIA: ./out/chart.png
//   MEDIA: "reports/Q3 summary.pdf"
//
// Rules (as OpenClaw's, minus remote URLs which Pincer does not fetch):
//   - a directive is a line whose first non-blank characters are "MEDIA:" (any case); "MEDIA:" in
//     the middle of prose is text, and so is every line inside a fenced code block;
//   - the rest of the line names one or more files: a quoted reference ("…", '…' or `…`) is one
//     file whatever it contains; unquoted, the words are one path (so a name may hold spaces)
//     except that a word starting a new path ("/", "./", "../", "~/", "file:", a URL) starts a
//     new reference;
//   - "file://" is dropped from a reference; nothing else is interpreted here (no "~", no roots:
//     channels/reply_media.h decides what may be read);
//   - a directive line leaves the text, also when it names nothing usable, so a path never shows
//     as text; a "MEDIA:" with nothing after it stays text;
//   - at most kMaxMediaDirectives references per reply; later ones are counted in `dropped`.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::delivery {

/// References per reply (agent/attachments.h kMaxAttachments, the inbound count).
inline constexpr std::size_t kMaxMediaDirectives = 10;
/// Longest reference kept, bytes (OpenClaw: 4096); a longer one is dropped (counted in `dropped`).
inline constexpr std::size_t kMaxMediaReferenceBytes = 4096;

struct ReplyMediaSplit {
  std::string text;                      ///< the reply without its directive lines
  std::vector<std::string> references;   ///< in order of appearance, never empty strings
  std::size_t dropped = 0;               ///< references over the count or length limits
};

/// Splits `markdown` into text and `MEDIA:` references. Line ends of the kept text are kept as
/// written; blank lines a directive leaves at the end are trimmed.
ReplyMediaSplit split_media_directives(std::string_view markdown);

}  // namespace pincer::delivery
