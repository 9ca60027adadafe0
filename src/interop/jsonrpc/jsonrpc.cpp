#include "interop/jsonrpc/jsonrpc.h"

#include <exception>

#include "llm/ndjson_parser.h"

namespace pincer::interop::jsonrpc {

namespace {

constexpr const char* kParseErrorCode = "JSONRPC_PARSE_ERROR";
constexpr const char* kInvalidRequestCode = "JSONRPC_INVALID_REQUEST";

pincer::Error invalid(std::string message) { return {kInvalidRequestCode, std::move(message)}; }

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

std::string dump(const json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

Result<Error> parse_error_member(const json& e) {
  if (!e.is_object()) return invalid("\"error\" must be an object");
  const auto code = e.find("code");
  if (code == e.end() || !code->is_number_integer()) return invalid("\"error.code\" must be an integer");
  const auto message = e.find("message");
  if (message == e.end() || !message->is_string()) return invalid("\"error.message\" must be a string");
  Error out;
  out.code = code->get<int>();
  out.message = message->get<std::string>();
  if (const auto data = e.find("data"); data != e.end()) out.data = *data;
  return out;
}

}  // namespace

Result<Message> parse_message(std::string_view text) {
  if (llm::json_nesting_exceeds(text, kMaxDepth))
    return pincer::Error{kParseErrorCode, "nesting deeper than " + std::to_string(kMaxDepth) + " levels"};
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return pincer::Error{kParseErrorCode, "not valid JSON"};
  if (doc.is_array()) return invalid("batches are not supported: send one message per line");
  if (!doc.is_object()) return invalid("a message must be a JSON object");
  if (const auto v = doc.find("jsonrpc"); v == doc.end() || *v != "2.0")
    return invalid("\"jsonrpc\" must be \"2.0\"");

  Message m;
  const auto id = doc.find("id");
  const bool has_id = id != doc.end();
  if (has_id && !id->is_null() && !valid_id(*id)) return invalid("\"id\" must be a string or an integer");
  if (has_id) m.id = *id;

  if (const auto method = doc.find("method"); method != doc.end()) {
    if (!method->is_string() || method->get_ref<const std::string&>().empty())
      return invalid("\"method\" must be a non-empty string");
    if (has_id && id->is_null()) return invalid("a request's \"id\" must not be null");
    m.kind = has_id ? Message::Kind::Request : Message::Kind::Notification;
    m.method = method->get<std::string>();
    if (const auto params = doc.find("params"); params != doc.end()) {
      if (!params->is_object() && !params->is_array()) return invalid("\"params\" must be an object or an array");
      m.params = std::move(*params);
    }
    return m;
  }

  if (!has_id) return invalid("a message needs \"method\" (request, notification) or \"id\" (response)");
  m.kind = Message::Kind::Response;
  const auto result = doc.find("result");
  const auto error = doc.find("error");
  if ((result == doc.end()) == (error == doc.end()))
    return invalid("a response has exactly one of \"result\" and \"error\"");
  if (result != doc.end()) {
    if (id->is_null()) return invalid("a result's \"id\" must not be null");
    m.result = std::move(*result);
    return m;
  }
  auto parsed = parse_error_member(*error);
  if (!parsed) return parsed.error();
  m.error = std::move(parsed.value());
  return m;
}

int rpc_code(const pincer::Error& error) {
  return error.code == kParseErrorCode ? kParseError : kInvalidRequest;
}

json recover_id(std::string_view text) {
  if (llm::json_nesting_exceeds(text, kMaxDepth)) return nullptr;
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return nullptr;
  const auto id = doc.find("id");
  return id != doc.end() && valid_id(*id) ? *id : json(nullptr);
}

std::string make_invalid_reply(std::string_view text, const pincer::Error& error) {
  return make_error(recover_id(text), rpc_code(error), error.message);
}

std::string make_request(const json& id, std::string_view method, const json& params) {
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = params;
  return dump(m);
}

std::string make_notification(std::string_view method, const json& params) {
  json m = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) m["params"] = params;
  return dump(m);
}

std::string make_result(const json& id, const json& result) {
  return dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string make_error(const json& id, int code, std::string_view message, const json& data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  return dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::string serialize(const Message& m) {
  switch (m.kind) {
    case Message::Kind::Request: return make_request(m.id, m.method, m.params);
    case Message::Kind::Notification: return make_notification(m.method, m.params);
    case Message::Kind::Response:
      if (m.error) return make_error(m.id, m.error->code, m.error->message, m.error->data);
      return make_result(m.id, m.result);
  }
  return {};
}

void LineFramer::deliver(std::string_view line, const LineHandler& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos) return;
  on_line(line);
}

void LineFramer::feed(std::string_view bytes, const LineHandler& on_line, const OverflowHandler& on_overflow) {
  while (!bytes.empty()) {
    const std::size_t lf = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, lf);
    if (discarding_) {
      overflow_seen_ += piece.size();
    } else if (partial_.size() + piece.size() > max_) {
      // Too long: report it once, keep nothing of it.
      discarding_ = true;
      overflow_seen_ = partial_.size() + piece.size();
      partial_.clear();
      partial_.shrink_to_fit();
      on_overflow(overflow_seen_);
    } else if (lf != std::string_view::npos && partial_.empty()) {
      deliver(piece, on_line);  // the common case: a whole line in one read, no copy
    } else {
      partial_.append(piece);
      if (lf != std::string_view::npos) {
        const std::string line = std::move(partial_);
        partial_.clear();
        deliver(line, on_line);
      }
    }
    if (lf == std::string_view::npos) return;
    discarding_ = false;
    overflow_seen_ = 0;
    bytes.remove_prefix(lf + 1);
  }
}

void LineFramer::finish(const LineHandler& on_line) {
  if (!discarding_ && !partial_.empty()) {
    const std::string line = std::move(partial_);
    partial_.clear();
    deliver(line, on_line);
  }
  partial_.clear();
  discarding_ = false;
  overflow_seen_ = 0;
}

}  // namespace pincer::interop::jsonrpc
