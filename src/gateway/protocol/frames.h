// Frames of the gateway protocol (GW-2; openclaw-protocol.md §1.2): parsing of inbound request
// frames with strict validation, and building of outbound `res` / `event` frames.
// Pure functions, no I/O; fuzzed by fuzz/frame_fuzz.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::gateway {

/// An error answered to a request: `{code, message, details?, retryable?, retryAfterMs?}`.
/// `code` is one of NOT_LINKED, NOT_PAIRED, AGENT_TIMEOUT, FORBIDDEN, INVALID_REQUEST,
/// UNAVAILABLE (§1.3); `details.code` carries the finer reason (e.g. AUTH_TOKEN_MISMATCH).
struct RpcError {
  std::string code;
  std::string message;
  nlohmann::json details;             ///< null: omitted
  std::optional<bool> retryable;
  std::optional<int64_t> retry_after_ms;

  static RpcError invalid(std::string message, nlohmann::json details = nullptr) {
    return {"INVALID_REQUEST", std::move(message), std::move(details), std::nullopt, std::nullopt};
  }
  static RpcError unavailable(std::string message, nlohmann::json details = nullptr) {
    return {"UNAVAILABLE", std::move(message), std::move(details), std::nullopt, std::nullopt};
  }
  nlohmann::json to_json() const;
};

/// `{"type":"req","id","method","params"?}`, validated: exactly these keys, id and method
/// non-empty strings.
struct RequestFrame {
  std::string id;
  std::string method;
  nlohmann::json params;  ///< null when absent
};

/// Why an inbound text could not become a RequestFrame.
struct FrameError {
  enum Kind { NotJson, Invalid } kind;
  std::string message;     ///< e.g. "invalid request frame: unexpected property \"extra\""
  std::string request_id;  ///< the frame's id when one could be read, else "invalid"
};

/// Parses and validates one inbound text frame. Never throws. Tries the fast path
/// (frame_fast_path.h) first, then the strict parser.
std::variant<RequestFrame, FrameError> parse_request(std::string_view text);
/// The strict parser alone (a full JSON parse); the reference for the fast path.
std::variant<RequestFrame, FrameError> parse_request_strict(std::string_view text);

/// `{"type":"res","id":…,"ok":true,"payload":…}`; `payload_json` is already-serialised JSON.
std::string build_ok(std::string_view id, std::string_view payload_json);
std::string build_ok_value(std::string_view id, const nlohmann::json& payload);
/// `{"type":"res","id":…,"ok":false,"error":…}`.
std::string build_error(std::string_view id, const RpcError& error);
/// Same, with the error object already serialised.
std::string build_error(std::string_view id, std::string_view error_json);
/// `{"type":"event","event":…,"payload":…,"seq"?:…,"stateVersion"?:…}`; seq < 0 omits it.
std::string build_event(std::string_view event, std::string_view payload_json, int64_t seq = -1,
                        const nlohmann::json& state_version = nullptr);

/// Cuts a close reason to kMaxCloseReasonBytes without splitting a UTF-8 sequence.
std::string truncate_close_reason(std::string_view reason);

}  // namespace pincer::gateway
