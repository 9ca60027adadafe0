#include "delivery/fences.h"

#include <optional>

namespace pincer::delivery {
namespace {

struct FenceLine {
  std::string indent;
  std::string marker;
};

/// ^( {0,3})(`{3,}|~{3,})(.*)$
std::optional<FenceLine> match_fence_line(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  const char c = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == c) ++j;
  if (j - i < 3) return std::nullopt;
  return FenceLine{std::string(line.substr(0, i)), std::string(line.substr(i, j - i))};
}

}  // namespace

std::vector<FenceSpan> parse_fence_spans(std::string_view text) {
  std::vector<FenceSpan> spans;
  std::optional<FenceSpan> open;
  std::size_t offset = 0;
  while (true) {
    const std::size_t nl = text.find('\n', offset);
    const std::size_t line_end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(offset, line_end - offset);
    if (auto fence = match_fence_line(line)) {
      if (!open) {
        FenceSpan span;
        span.start = offset;
        span.open_line_end = line_end;
        span.open_line = std::string(line);
        span.indent = fence->indent;
        span.marker = fence->marker;
        open = std::move(span);
      } else if (fence->marker[0] == open->marker[0] && fence->marker.size() >= open->marker.size()) {
        open->end = line_end;
        open->close_line_start = offset;
        open->closed = true;
        spans.push_back(std::move(*open));
        open.reset();
      }
    }
    if (nl == std::string_view::npos) break;
    offset = nl + 1;
  }
  if (open) {
    open->end = text.size();
    open->close_line_start = text.size();
    spans.push_back(std::move(*open));
  }
  return spans;
}

const FenceSpan* fence_at(const std::vector<FenceSpan>& spans, std::size_t index) {
  for (const FenceSpan& span : spans) {
    if (index > span.start && index < span.end) return &span;
  }
  return nullptr;
}

bool fences_balanced(std::string_view text) {
  for (const FenceSpan& span : parse_fence_spans(text)) {
    if (!span.closed) return false;
  }
  return true;
}

}  // namespace pincer::delivery
