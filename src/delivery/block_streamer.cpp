#include "delivery/block_streamer.h"

#include <algorithm>
#include <vector>

#include "delivery/fences.h"

namespace pincer::delivery {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return is_ws(c); });
}

void rtrim(std::string& s) {
  while (!s.empty() && is_ws(s.back())) s.pop_back();
}

std::string strip_leading_newlines(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == '\n') ++i;
  return std::string(s.substr(i));
}

/// Bytes at the end of `s` that start a UTF-8 sequence the text does not finish yet.
std::size_t incomplete_tail(std::string_view s) {
  for (std::size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    std::size_t need = 1;
    if (c >= 0xC2 && c <= 0xDF) need = 2;
    if (c >= 0xE0 && c <= 0xEF) need = 3;
    if (c >= 0xF0 && c <= 0xF4) need = 4;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

BlockStreamer::BlockStreamer(const Clock& clock, BlockStreamerOptions options, Emit emit)
    : clock_(clock), options_(std::move(options)), emit_(std::move(emit)) {
  options_.max_chars = std::max<std::size_t>(1, options_.max_chars);
  options_.min_chars = std::clamp<std::size_t>(options_.min_chars, 1, options_.max_chars);
  options_.coalesce_max_chars = std::max<std::size_t>(1, options_.coalesce_max_chars);
  options_.coalesce_min_chars = std::min(options_.coalesce_min_chars, options_.coalesce_max_chars);
  if (!options_.joiner) {
    switch (options_.break_preference) {
      case BreakPreference::Paragraph: options_.joiner = "\n\n"; break;
      case BreakPreference::Newline: options_.joiner = "\n"; break;
      case BreakPreference::Sentence: options_.joiner = " "; break;
    }
  }
}

void BlockStreamer::append(std::string_view text) {
  if (text.empty()) return;
  pending_.append(text);
  const std::size_t tail = incomplete_tail(pending_);
  buffer_.append(pending_, 0, pending_.size() - tail);
  pending_.erase(0, pending_.size() - tail);
  drain(false);
}

void BlockStreamer::flush() {
  buffer_ += pending_;
  pending_.clear();
  drain(true);
  send_waiting();
}

void BlockStreamer::poll() {
  if (!idle_deadline_ || clock_.steady_ms() < *idle_deadline_) return;
  idle_deadline_.reset();
  if (units(waiting_) >= options_.coalesce_min_chars) send_waiting();
}

std::optional<std::int64_t> BlockStreamer::next_deadline_ms() const { return idle_deadline_; }

// ---- stage 1: cutting -------------------------------------------------------------------------

std::size_t BlockStreamer::offset_at_units(std::size_t wanted, bool round_up) const {
  std::size_t total = 0;
  std::size_t i = 0;
  while (i < buffer_.size()) {
    if (round_up && total >= wanted) return i;
    const std::size_t len = code_point_length(buffer_, i);
    const std::size_t next = total + code_point_units(len, options_.unit);
    if (!round_up && next > wanted) return i;
    total = next;
    i += len;
  }
  return buffer_.size();
}

void BlockStreamer::drain(bool force) {
  if (options_.flush_on_paragraph && !force) {
    drain_paragraphs();
    return;
  }
  while (!buffer_.empty()) {
    const std::size_t size = units(buffer_);
    if (force && size <= options_.max_chars) {
      std::string rest = std::move(buffer_);
      buffer_.clear();
      rtrim(rest);
      if (!is_blank(rest)) enqueue(std::move(rest));
      return;
    }
    if (!force && size < options_.min_chars) return;
    const Break b = pick_break(force ? 1 : options_.min_chars);
    if (b.index == 0) return;
    cut(b);
    if (!force && units(buffer_) < options_.max_chars) return;
  }
}

void BlockStreamer::drain_paragraphs() {
  while (!buffer_.empty()) {
    const std::vector<FenceSpan> spans = parse_fence_spans(buffer_);
    std::size_t at = std::string::npos;
    std::size_t len = 0;
    for (std::size_t i = buffer_.find('\n'); i != std::string::npos; i = buffer_.find('\n', i + 1)) {
      std::size_t j = i + 1;
      while (j < buffer_.size() && (buffer_[j] == ' ' || buffer_[j] == '\t')) ++j;
      if (j >= buffer_.size() || buffer_[j] != '\n' || fence_at(spans, i) != nullptr) continue;
      while (j < buffer_.size() && buffer_[j] == '\n') ++j;
      at = i;
      len = j - i;
      break;
    }
    if (at == std::string::npos || at > offset_at_units(options_.max_chars, false)) {
      if (units(buffer_) >= options_.max_chars) {
        const Break b = pick_break(1);
        if (b.index > 0) {
          cut(b);
          continue;
        }
      }
      return;
    }
    std::string block = buffer_.substr(0, at);
    buffer_ = strip_leading_newlines(std::string_view(buffer_).substr(at + len));
    rtrim(block);
    if (!is_blank(block)) enqueue(std::move(block));
  }
}

BlockStreamer::Break BlockStreamer::pick_break(std::size_t min_units) const {
  const std::vector<FenceSpan> spans = parse_fence_spans(buffer_);
  const auto safe = [&](std::size_t i) { return fence_at(spans, i) == nullptr; };
  const std::size_t min_b = offset_at_units(min_units, true);
  std::size_t max_b = offset_at_units(options_.max_chars, false);
  if (max_b == 0 && !buffer_.empty()) max_b = code_point_length(buffer_, 0);
  const bool full = units(buffer_) >= options_.max_chars;
  const std::size_t window = std::min(max_b, buffer_.size());
  const BreakPreference pref = options_.break_preference;

  // Last index i in [min_b, window) where `ok(i)` holds and a cut is fence-safe.
  const auto last_where = [&](auto ok) -> std::size_t {
    for (std::size_t i = window; i-- > std::max<std::size_t>(min_b, 1);) {
      if (ok(i) && safe(i)) return i;
    }
    return 0;
  };

  if (pref == BreakPreference::Paragraph) {
    if (const std::size_t i = last_where([&](std::size_t k) {
          return buffer_[k] == '\n' && k + 1 < buffer_.size() && buffer_[k + 1] == '\n';
        })) {
      return {i, {}, {}};
    }
  }
  if (pref != BreakPreference::Sentence) {
    if (const std::size_t i = last_where([&](std::size_t k) { return buffer_[k] == '\n'; })) return {i, {}, {}};
  }
  if (pref != BreakPreference::Newline) {
    // Just after ". ", "! " or "? " (the cut is the position after the punctuation).
    if (const std::size_t i = last_where([&](std::size_t k) {
          const char p = buffer_[k - 1];
          return (p == '.' || p == '!' || p == '?') && is_ws(buffer_[k]);
        })) {
      return {i, {}, {}};
    }
  }
  if (!full) return {};
  if (const std::size_t i = last_where([&](std::size_t k) { return is_ws(buffer_[k]); })) return {i, {}, {}};
  if (safe(max_b)) return {max_b, {}, {}};

  // Inside a fence longer than max_chars: close it at a line break that leaves room for the
  // closing marker, and reopen it in the next block.
  const FenceSpan& fence = *fence_at(spans, max_b);
  Break b;
  b.close_fence = fence.indent + fence.marker;
  b.reopen_fence = fence.open_line;
  const std::size_t reserve = units(b.close_fence) + 1;
  const std::size_t room = options_.max_chars > reserve ? offset_at_units(options_.max_chars - reserve, false) : 0;
  std::size_t cut_at = 0;
  for (std::size_t i = std::min(room, buffer_.size()); i > fence.open_line_end + 1; --i) {
    if (buffer_[i - 1] == '\n') {
      cut_at = i;
      break;
    }
  }
  if (cut_at == 0) {
    if (room <= fence.open_line_end + 1) return {max_b, {}, {}};  // max_chars too small to reopen it
    cut_at = room;
  }
  b.index = cut_at;
  return b;
}

bool BlockStreamer::cut(const Break& b) {
  std::string block = buffer_.substr(0, b.index);
  if (is_blank(block)) {
    std::string rest = strip_leading_newlines(std::string_view(buffer_).substr(b.index));
    const std::size_t first = rest.find_first_not_of(" \t\r");
    buffer_ = first == std::string::npos ? std::string() : rest.substr(first);
    return false;
  }
  if (!b.close_fence.empty()) {
    if (block.back() != '\n') block += '\n';
    block += b.close_fence;
    buffer_ = b.reopen_fence + "\n" + buffer_.substr(b.index);
  } else {
    const std::size_t next = b.index + (b.index < buffer_.size() && is_ws(buffer_[b.index]) ? 1 : 0);
    buffer_ = strip_leading_newlines(std::string_view(buffer_).substr(next));
  }
  rtrim(block);
  enqueue(std::move(block));
  return true;
}

// ---- stage 2: coalescing ----------------------------------------------------------------------

void BlockStreamer::enqueue(std::string block) {
  if (is_blank(block)) return;
  if (options_.flush_on_paragraph) {
    send_waiting();
    emit_(std::move(block));
    return;
  }
  const std::string joined = waiting_.empty() ? block : waiting_ + *options_.joiner + block;
  if (units(joined) > options_.coalesce_max_chars) {
    if (!waiting_.empty()) {
      send_waiting();
      if (units(block) >= options_.coalesce_max_chars) {
        emit_(std::move(block));
        return;
      }
      waiting_ = std::move(block);
      touch();
      return;
    }
    emit_(std::move(block));
    return;
  }
  waiting_ = joined;
  if (units(waiting_) >= options_.coalesce_max_chars) {
    send_waiting();
    return;
  }
  touch();
}

void BlockStreamer::send_waiting() {
  idle_deadline_.reset();
  if (waiting_.empty()) return;
  std::string block = std::move(waiting_);
  waiting_.clear();
  emit_(std::move(block));
}

void BlockStreamer::touch() {
  if (options_.idle_ms > 0) idle_deadline_ = clock_.steady_ms() + options_.idle_ms;
}

}  // namespace pincer::delivery
