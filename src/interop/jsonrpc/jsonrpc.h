// JSON-RPC 2.0 messages and newline-delimited framing, shared by every interop protocol that is
// JSON-RPC underneath (MCP client and server, ACP; docs/interop.md). Pure: no I/O, no threads.
//
// Source of the rules: the JSON-RPC 2.0 specification (message shapes, error codes) and the
// stdio transports of MCP and ACP (one message per line, UTF-8, no embedded newlines; batches are
// not used by either protocol and are refused here).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::interop::jsonrpc {

using nlohmann::json;

/// The reserved error codes of JSON-RPC 2.0.
inline constexpr int kParseError = -32700;      ///< not JSON
inline constexpr int kInvalidRequest = -32600;  ///< JSON, but not a valid message
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

/// Nesting deeper than this is refused as a parse error (copying or dumping a deeper value
/// recurses that deep).
inline constexpr int kMaxDepth = 128;

/// The `error` member of a response. `data` is omitted from the wire when null.
struct Error {
  int code = kInternalError;
  std::string message;
  json data;
};

/// One parsed message. Which members are meaningful depends on `kind`:
/// Request: id, method, params; Notification: method, params; Response: id and either `result`
/// or `error`. `params` is null when absent, else an object or an array.
struct Message {
  enum class Kind { Request, Notification, Response };
  Kind kind = Kind::Notification;
  json id;  ///< a string or an integer (null only in an error response to an unreadable request)
  std::string method;
  json params;
  json result;
  std::optional<Error> error;
};

/// Parses one message. Failures are pincer::Error with code "JSONRPC_PARSE_ERROR" (not JSON,
/// too deep) or "JSONRPC_INVALID_REQUEST" (a batch, a missing or wrong `jsonrpc`, `method`, `id`,
/// `params`, `result`/`error`), and a one-line message naming the member; `rpc_code` maps them to
/// kParseError / kInvalidRequest. Never throws.
Result<Message> parse_message(std::string_view text);

/// The JSON-RPC code of a parse_message failure (kParseError or kInvalidRequest).
int rpc_code(const pincer::Error& error);

/// The id to answer an invalid message with: its `id` when the text is a JSON object whose `id`
/// is a string or an integer, else null (as the specification requires). Never throws.
json recover_id(std::string_view text);

/// The error response for a line parse_message refused (recovered id, mapped code, its message).
std::string make_invalid_reply(std::string_view text, const pincer::Error& error);

/// Serialized messages: compact JSON, no trailing newline (the writer adds it), never a raw
/// newline inside (JSON escapes it), invalid UTF-8 in strings replaced by U+FFFD.
std::string make_request(const json& id, std::string_view method, const json& params = nullptr);
std::string make_notification(std::string_view method, const json& params = nullptr);
std::string make_result(const json& id, const json& result);
std::string make_error(const json& id, int code, std::string_view message, const json& data = nullptr);
std::string serialize(const Message& message);

/// Splits a byte stream into lines: LF ends a line, one CR before it is dropped, blank lines are
/// skipped. A line longer than `max_line_bytes` is not buffered: `on_overflow` is called once with
/// the number of bytes seen so far, and the rest of that line is discarded up to its LF. The
/// result does not depend on how the bytes are chunked.
class LineFramer {
 public:
  static constexpr std::size_t kDefaultMaxLineBytes = 16u << 20;  ///< 16 MiB (images in MCP results)

  using LineHandler = std::function<void(std::string_view line)>;
  using OverflowHandler = std::function<void(std::size_t bytes_seen)>;

  explicit LineFramer(std::size_t max_line_bytes = kDefaultMaxLineBytes) : max_(max_line_bytes) {}

  void feed(std::string_view bytes, const LineHandler& on_line, const OverflowHandler& on_overflow);
  /// End of input: a last line without LF is delivered (or counted as overflow).
  void finish(const LineHandler& on_line);

  std::size_t buffered_bytes() const { return partial_.size(); }

 private:
  void deliver(std::string_view line, const LineHandler& on_line);

  std::size_t max_;
  std::string partial_;
  bool discarding_ = false;  ///< inside an overflowed line, until its LF
  std::size_t overflow_seen_ = 0;
};

}  // namespace pincer::interop::jsonrpc
