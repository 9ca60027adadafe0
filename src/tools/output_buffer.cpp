#include "tools/output_buffer.h"

#include <algorithm>

namespace pincer::tools {

void OutputBuffer::append(std::string_view data) {
  total_ += data.size();
  if (head_.size() < head_cap_) {
    const size_t take = std::min(data.size(), head_cap_ - head_.size());
    head_.append(data.substr(0, take));
    data.remove_prefix(take);
  }
  if (tail_cap_ == 0 || data.empty()) return;
  if (data.size() >= tail_cap_) {
    tail_.assign(data.substr(data.size() - tail_cap_));
    return;
  }
  tail_.append(data);
  if (tail_.size() > 2 * tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);  // amortised O(1)
}

std::string_view OutputBuffer::kept_tail() const {
  std::string_view t(tail_);
  return t.size() > tail_cap_ ? t.substr(t.size() - tail_cap_) : t;
}

std::string omitted_marker(uint64_t bytes) {
  std::string digits = std::to_string(bytes);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return "[... " + digits + " bytes omitted ...]";
}

std::string OutputBuffer::render() const {
  const uint64_t gap = dropped();
  std::string out = head_;
  if (gap != 0) out += "\n" + omitted_marker(gap) + "\n";
  out += kept_tail();
  return out;
}

OutputBuffer::Slice OutputBuffer::read_from(uint64_t offset, size_t max_bytes) const {
  Slice s;
  offset = std::min(offset, total_);
  if (offset < head_.size()) {
    const size_t take = std::min(static_cast<size_t>(head_.size() - offset), max_bytes);
    s.text = head_.substr(static_cast<size_t>(offset), take);
    offset += take;
    if (offset < head_.size()) {
      s.next = offset;
      return s;
    }
  }
  const uint64_t start = tail_start();
  if (offset < start) {  // the reader fell behind: say how much it missed, where it missed it
    s.skipped = start - offset;
    s.text += (s.text.empty() ? "" : "\n") + omitted_marker(s.skipped) + "\n";
    offset = start;
  }
  const size_t room = max_bytes > s.text.size() ? max_bytes - s.text.size() : 0;
  const size_t take = static_cast<size_t>(std::min<uint64_t>(room, total_ - offset));
  s.text += kept_tail().substr(static_cast<size_t>(offset - start), take);
  s.next = offset + take;
  return s;
}

}  // namespace pincer::tools
