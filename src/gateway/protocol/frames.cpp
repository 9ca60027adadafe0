#include "gateway/protocol/frames.h"

#include <algorithm>

#include "gateway/protocol/constants.h"
#include "gateway/protocol/frame_fast_path.h"
#include "core/json_dump.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

void append_json_string(std::string& out, std::string_view s) {
  // Ids are almost always plain ASCII: copy them as they are; anything else goes through the
  // JSON encoder (escapes, invalid UTF-8 replaced).
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += s;
    out += '"';
  } else {
    out += json_dump::compact(json(s));
  }
}

}  // namespace

json RpcError::to_json() const {
  json e = {{"code", code}, {"message", message}};
  if (!details.is_null()) e["details"] = details;
  if (retryable) e["retryable"] = *retryable;
  if (retry_after_ms) e["retryAfterMs"] = *retry_after_ms;
  return e;
}

std::variant<RequestFrame, FrameError> parse_request(std::string_view text) {
  if (auto frame = try_parse_simple_request(text)) return std::move(*frame);
  return parse_request_strict(text);
}

std::variant<RequestFrame, FrameError> parse_request_strict(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return FrameError{FrameError::NotJson, "invalid request frame: not valid JSON", "invalid"};
  if (!doc.is_object()) return FrameError{FrameError::Invalid, "invalid request frame: must be an object", "invalid"};

  std::string id = "invalid";
  if (auto it = doc.find("id"); it != doc.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
    id = it->get<std::string>();
  }
  auto fail = [&](std::string why) { return FrameError{FrameError::Invalid, "invalid request frame: " + why, id}; };

  // Strict: only the keys of the RequestFrame schema (additionalProperties: false).
  for (const auto& [key, value] : doc.items()) {
    if (key != "type" && key != "id" && key != "method" && key != "params") {
      return fail("unexpected property \"" + key + "\"");
    }
  }
  auto type = doc.find("type");
  if (type == doc.end()) return fail("must have required property 'type'");
  if (!type->is_string() || *type != "req") return fail("type must be \"req\"");
  auto idv = doc.find("id");
  if (idv == doc.end()) return fail("must have required property 'id'");
  if (!idv->is_string() || idv->get_ref<const std::string&>().empty()) return fail("id must be a non-empty string");
  auto method = doc.find("method");
  if (method == doc.end()) return fail("must have required property 'method'");
  if (!method->is_string() || method->get_ref<const std::string&>().empty()) {
    return fail("method must be a non-empty string");
  }

  RequestFrame frame;
  frame.id = std::move(id);
  frame.method = method->get<std::string>();
  if (auto params = doc.find("params"); params != doc.end()) frame.params = std::move(*params);
  return frame;
}

std::string build_ok(std::string_view id, std::string_view payload_json) {
  std::string out;
  out.reserve(40 + id.size() + payload_json.size());
  out += R"({"type":"res","id":)";
  append_json_string(out, id);
  out += R"(,"ok":true,"payload":)";
  out += payload_json;
  out += '}';
  return out;
}

std::string build_ok_value(std::string_view id, const json& payload) {
  return build_ok(id, json_dump::compact(payload));
}

std::string build_error(std::string_view id, const RpcError& error) {
  return build_error(id, json_dump::compact(error.to_json()));
}

std::string build_error(std::string_view id, std::string_view error_json) {
  std::string out = R"({"type":"res","id":)";
  append_json_string(out, id);
  out += R"(,"ok":false,"error":)";
  out += error_json;
  out += '}';
  return out;
}

std::string build_event(std::string_view event, std::string_view payload_json, int64_t seq,
                        const json& state_version) {
  std::string out = R"({"type":"event","event":)";
  append_json_string(out, event);
  out += R"(,"payload":)";
  out += payload_json;
  if (seq >= 0) {
    out += R"(,"seq":)";
    out += std::to_string(seq);
  }
  if (!state_version.is_null()) {
    out += R"(,"stateVersion":)";
    out += state_version.dump();
  }
  out += '}';
  return out;
}

std::string truncate_close_reason(std::string_view reason) {
  if (reason.size() <= kMaxCloseReasonBytes) return std::string(reason);
  size_t n = kMaxCloseReasonBytes;
  // Back up over UTF-8 continuation bytes so that the cut lands on a code point boundary.
  while (n > 0 && (static_cast<unsigned char>(reason[n]) & 0xC0) == 0x80) --n;
  return std::string(reason.substr(0, n));
}

}  // namespace pincer::gateway
