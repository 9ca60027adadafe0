#include "delivery/chunker.h"

#include <algorithm>

#include "delivery/chunk_atoms.h"

namespace pincer::delivery {
namespace {

using detail::Atom;
using detail::AtomKind;
using detail::Atoms;
using detail::Node;

bool is_space(AtomKind k) { return k == AtomKind::Space || k == AtomKind::Newline; }

/// Best-first places to cut (chunker.h).
enum Tier : int {
  kParagraph = 1,
  kLine = 2,
  kSentence = 3,
  kSpace = 4,
  kCodeLine = 5,
  kHard = 6,
  kProtected = 7,
};

class Packer {
 public:
  Packer(std::string_view text, const ChunkOptions& options)
      : text_(text), options_(options), a_(detail::atomize(text, options)), atoms_(a_.atoms), nodes_(a_.nodes) {
    sums_.resize(atoms_.size() + 1, 0);
    for (std::size_t k = 0; k < atoms_.size(); ++k) sums_[k + 1] = sums_[k] + atoms_[k].units;
  }

  std::vector<std::string> run() {
    std::vector<std::string> chunks;
    const std::size_t n = atoms_.size();
    std::size_t start = 0;
    while (start < n) {
      const std::size_t reopen = nodes_[node_at(start)].reopen_total;
      std::size_t best = 0;
      int best_tier = kProtected + 1;
      bool done = false;
      for (std::size_t p = start + 1; p <= n; ++p) {
        const std::size_t size = reopen + (sums_[p] - sums_[start]) + nodes_[node_at(p)].close_total;
        if (size > options_.limit) break;
        if (p == n) {
          emit(chunks, start, n);
          done = true;
          break;
        }
        const int tier = tier_at(p);
        if (options_.mode == ChunkMode::Newline && tier == kParagraph && has_text(start, p)) {
          best = p;
          best_tier = tier;
          break;
        }
        if (tier <= best_tier) {
          best = p;
          best_tier = tier;
        }
      }
      if (done) break;
      if (best <= start) {
        // Unreachable: the atom at `start` always fits on its own (chunk_atoms.h, kAtomReserve).
        // Should it ever not, skip it rather than send a message over the limit.
        ++start;
        continue;
      }
      std::size_t end = best;
      std::size_t next = best;
      if (best_tier <= kSpace) {
        while (end > start && is_space(atoms_[end - 1].kind)) --end;
        while (next < n && is_space(atoms_[next].kind)) ++next;
      } else if (best_tier == kCodeLine) {
        next = best + 1;  // the line break becomes the fence/pre boundary
      }
      emit(chunks, start, end);
      start = next;
    }
    return chunks;
  }

 private:
  std::uint32_t node_at(std::size_t p) const { return p == 0 ? 0 : atoms_[p - 1].node_after; }

  bool has_text(std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to; ++k) {
      if (atoms_[k].kind == AtomKind::Text && atoms_[k].emitted) return true;
    }
    return false;
  }

  bool is_opening(const Atom& a) const { return a.kind == AtomKind::OpenTag || a.kind == AtomKind::FenceOpen; }
  bool is_closing(const Atom& a) const { return a.kind == AtomKind::CloseTag || a.kind == AtomKind::FenceClose; }

  /// Paragraph: a line break followed (after spaces) by another one.
  bool starts_blank_run(std::size_t p) const {
    std::size_t q = p + 1;
    while (q < atoms_.size() && atoms_[q].kind == AtomKind::Space) ++q;
    return q < atoms_.size() && atoms_[q].kind == AtomKind::Newline;
  }

  /// How good a cut just before atom p is (0 < p < n).
  int tier_at(std::size_t p) const {
    const Atom& a = atoms_[p];
    const Atom& prev = atoms_[p - 1];
    const Node& open = nodes_[node_at(p)];
    const bool in_region = a.region != 0 && a.region == prev.region;
    const bool protect = open.protect || in_region;
    if (a.kind == AtomKind::Newline) {
      if (!protect) return starts_blank_run(p) ? kParagraph : kLine;
      if (open.code && !in_region && !is_opening(prev) && !(p + 1 < atoms_.size() && is_closing(atoms_[p + 1]))) {
        return kCodeLine;
      }
      return kProtected;
    }
    if (a.kind == AtomKind::Space) {
      if (protect) return kProtected;
      const bool sentence_end = prev.kind == AtomKind::Text && prev.end - prev.begin == 1 &&
                                (text_[prev.begin] == '.' || text_[prev.begin] == '!' || text_[prev.begin] == '?');
      return sentence_end ? kSentence : kSpace;
    }
    if (protect || is_opening(prev) || is_closing(a)) return kProtected;
    return kHard;
  }

  void emit(std::vector<std::string>& chunks, std::size_t from, std::size_t to) const {
    if (!has_text(from, to)) return;
    std::string out;
    std::vector<std::uint32_t> path;
    for (std::uint32_t n = node_at(from); n != 0; n = nodes_[n].parent) path.push_back(n);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      if (nodes_[*it].emitted) out += nodes_[*it].reopen;
    }
    for (std::size_t k = from; k < to; ++k) {
      if (atoms_[k].emitted) out.append(text_.substr(atoms_[k].begin, atoms_[k].end - atoms_[k].begin));
    }
    for (std::uint32_t n = node_at(to); n != 0; n = nodes_[n].parent) {
      if (nodes_[n].emitted) out += nodes_[n].close;
    }
    chunks.push_back(std::move(out));
  }

  std::string_view text_;
  const ChunkOptions& options_;
  Atoms a_;
  const std::vector<Atom>& atoms_;
  const std::vector<Node>& nodes_;
  std::vector<std::size_t> sums_;
};

}  // namespace

Result<std::vector<std::string>> chunk_text(std::string_view text, const ChunkOptions& options) {
  if (options.limit < kMinChunkLimit) {
    return Error{"CHUNK_LIMIT_TOO_SMALL", "chunk limit " + std::to_string(options.limit) +
                                              " is below the minimum of " + std::to_string(kMinChunkLimit)};
  }
  return Packer(text, options).run();
}

bool html_tags_balanced(std::string_view html) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < html.size();) {
    if (html[i] == '<') {
      std::string name;
      bool closing = false;
      const std::size_t len = detail::match_html_tag(html, i, name, closing);
      if (len == 0) return false;
      if (closing) {
        if (open.empty() || open.back() != name) return false;
        open.pop_back();
      } else {
        open.push_back(name);
      }
      i += len;
    } else if (html[i] == '&') {
      const std::size_t len = detail::match_html_entity(html, i);
      if (len == 0) return false;
      i += len;
    } else {
      ++i;
    }
  }
  return open.empty();
}

}  // namespace pincer::delivery
