// Incremental Server-Sent Events parser (WHATWG HTML "Server-sent events", §9.2.6 "Event stream
// interpretation"), used by the streaming LLM decoders (PV-1). Fuzzed by fuzz/sse_fuzz.cpp.
//
// Feed it the response body in chunks of any size (a line, a CRLF pair or the UTF-8 BOM may be
// split across feeds); complete events come out in order. Per the spec:
//   - lines end with CRLF, LF or CR; a UTF-8 BOM at the very start of the stream is skipped;
//   - `:` starts a comment line (ignored); a line without `:` is a field name with an empty value;
//     one space after the colon is removed;
//   - fields: `event` (type), `data` (appended with a trailing LF), `id` (ignored when it contains
//     NUL; otherwise it becomes the last event id, which persists across events), `retry` (only
//     ASCII digits; sets the reconnection time); other fields are ignored;
//   - a blank line dispatches: when the data buffer is empty nothing is dispatched (the event type
//     is reset); otherwise the final LF of the data is removed and the event goes out with type
//     "message" when no `event` field was given;
//   - at the end of the stream an event not closed by a blank line is discarded (`finish`), or —
//     leniently, for servers that omit the final blank line — dispatched (`flush`).
// Not UTF-8 validated: bytes are passed through (JSON decoders validate the payload).
//
// Guard: a line, or the data of one event, longer than `max_event_bytes` is an error
// {code:"SSE_EVENT_TOO_LARGE"}. Errors are sticky: the parser then refuses further input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::llm {

/// One dispatched event.
struct SseEvent {
  std::string type = "message";  ///< the `event` field, "message" by default
  std::string data;              ///< `data` lines joined by "\n" (no trailing "\n")
  std::string id;                ///< last event id at dispatch time ("" when none seen)

  bool operator==(const SseEvent&) const = default;
};

class SseParser {
 public:
  /// Default guard: 16 MiB per line / per event's data.
  static constexpr std::size_t kDefaultMaxEventBytes = 16u << 20;

  explicit SseParser(std::size_t max_event_bytes = kDefaultMaxEventBytes);

  /// Consumes `bytes`, appending every event completed by them to `out`. Returns
  /// SSE_EVENT_TOO_LARGE (events completed before the oversized one are still in `out`).
  Status feed(std::string_view bytes, std::vector<SseEvent>& out);

  /// End of stream per the spec: a pending unterminated line is processed, and an event not closed
  /// by a blank line is discarded. Returns whether such an incomplete event was discarded.
  bool finish();

  /// End of stream, lenient: like finish(), but a pending event is dispatched into `out`.
  void flush(std::vector<SseEvent>& out);

  /// The reconnection time most recently given by a `retry` field, in ms.
  std::optional<int64_t> retry_ms() const { return retry_ms_; }
  /// The last event id (the `id` field most recently seen).
  const std::string& last_event_id() const { return last_event_id_; }

 private:
  void process_line(std::string_view line, std::vector<SseEvent>& out);
  void process_field(std::string_view name, std::string_view value);
  void dispatch(std::vector<SseEvent>& out);
  Status too_large();
  Status take_line_bytes(std::string_view bytes, std::vector<SseEvent>& out);

  std::size_t max_;
  std::string line_;           ///< the current, not yet terminated line
  std::string data_;           ///< data buffer of the pending event
  std::string type_;           ///< event type buffer of the pending event
  std::string last_event_id_;
  std::optional<int64_t> retry_ms_;
  std::size_t bom_checked_ = 0;  ///< bytes of the BOM matched so far (3 = done)
  bool after_cr_ = false;        ///< the previous byte was a CR ending a line (skip one LF)
  bool failed_ = false;
};

}  // namespace pincer::llm
