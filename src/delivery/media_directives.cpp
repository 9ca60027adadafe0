#include "delivery/media_directives.h"

#include "delivery/fences.h"

namespace pincer::delivery {

namespace {

bool media_dir_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

bool media_dir_quote(char c) { return c == '"' || c == '\'' || c == '`'; }

bool media_dir_iprefix(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != prefix[i]) return false;
  }
  return true;
}

/// A word that cannot continue the previous path (it starts a reference of its own).
bool media_dir_starts_reference(std::string_view word) {
  return word.starts_with('/') || word.starts_with("./") || word.starts_with("../") || word.starts_with("~/") ||
         media_dir_iprefix(word, "file:") || media_dir_iprefix(word, "http://") || media_dir_iprefix(word, "https://");
}

class MediaDirectiveCollector {
 public:
  explicit MediaDirectiveCollector(ReplyMediaSplit& out) : out_(out) {}

  void add(std::string_view reference) {
    while (!reference.empty() && media_dir_space(reference.front())) reference.remove_prefix(1);
    while (!reference.empty() && media_dir_space(reference.back())) reference.remove_suffix(1);
    if (media_dir_iprefix(reference, "file://")) {
      reference.remove_prefix(7);
    } else if (media_dir_iprefix(reference, "file:")) {
      reference.remove_prefix(5);
    }
    if (reference.empty()) return;
    if (reference.size() > kMaxMediaReferenceBytes || out_.references.size() >= kMaxMediaDirectives) {
      ++out_.dropped;
      return;
    }
    out_.references.emplace_back(reference);
  }

  /// The references of one directive's payload (the text after "MEDIA:").
  void parse_payload(std::string_view payload) {
    std::size_t pos = 0, current_start = 0, current_end = 0;
    bool have_current = false;
    auto flush = [&] {
      if (have_current) add(payload.substr(current_start, current_end - current_start));
      have_current = false;
    };
    while (pos < payload.size()) {
      while (pos < payload.size() && media_dir_space(payload[pos])) ++pos;
      if (pos >= payload.size()) break;
      if (media_dir_quote(payload[pos])) {
        // A quoted reference ends at the same quote followed by a space or the end of the line.
        std::size_t close = payload.find(payload[pos], pos + 1);
        while (close != std::string_view::npos && close + 1 < payload.size() && !media_dir_space(payload[close + 1])) {
          close = payload.find(payload[pos], close + 1);
        }
        if (close != std::string_view::npos) {
          flush();
          add(payload.substr(pos + 1, close - pos - 1));
          pos = close + 1;
          continue;
        }
      }
      std::size_t end = pos;
      while (end < payload.size() && !media_dir_space(payload[end])) ++end;
      const std::string_view word = payload.substr(pos, end - pos);
      if (!have_current || media_dir_starts_reference(word)) {
        flush();
        current_start = pos;
        have_current = true;
      }
      current_end = end;  // a word that continues a path keeps the spaces between them
      pos = end;
    }
    flush();
  }

 private:
  ReplyMediaSplit& out_;
};

}  // namespace

ReplyMediaSplit split_media_directives(std::string_view markdown) {
  ReplyMediaSplit out;
  // Fast path: no directive can be there.
  bool maybe = false;
  for (std::size_t i = 0; i + 6 <= markdown.size() && !maybe; ++i) maybe = media_dir_iprefix(markdown.substr(i), "media:");
  if (!maybe) {
    out.text = std::string(markdown);
    return out;
  }
  const std::vector<FenceSpan> fences = parse_fence_spans(markdown);
  MediaDirectiveCollector collector(out);
  bool removed = false;
  std::size_t fence = 0;
  std::size_t pos = 0;
  while (pos < markdown.size()) {
    std::size_t eol = markdown.find('\n', pos);
    const bool has_newline = eol != std::string_view::npos;
    if (!has_newline) eol = markdown.size();
    const std::string_view line = markdown.substr(pos, eol - pos);
    while (fence < fences.size() && fences[fence].end < pos) ++fence;
    const bool in_code = fence < fences.size() && fences[fence].start <= pos && pos <= fences[fence].end;
    std::size_t lead = 0;
    while (lead < line.size() && media_dir_space(line[lead])) ++lead;
    std::string_view payload;
    bool directive = false;
    if (!in_code && media_dir_iprefix(line.substr(lead), "media:")) {
      payload = line.substr(lead + 6);
      for (char c : payload) directive = directive || !media_dir_space(c);
    }
    if (directive) {
      collector.parse_payload(payload);
      removed = true;
    } else {
      out.text.append(line);
      if (has_newline) out.text.push_back('\n');
    }
    pos = eol + 1;
  }
  if (removed) {
    for (;;) {  // blank lines a leading directive left
      std::size_t i = 0;
      while (i < out.text.size() && media_dir_space(out.text[i])) ++i;
      if (i >= out.text.size() || out.text[i] != '\n') break;
      out.text.erase(0, i + 1);
    }
    while (!out.text.empty() && (out.text.back() == '\n' || media_dir_space(out.text.back()))) out.text.pop_back();
  }
  return out;
}

}  // namespace pincer::delivery
