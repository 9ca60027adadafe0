// Gateway::on_message_too_large (gateway.h): a message over the connection's limit, read to its
// end by the transport and not kept, is answered like any bad request when its id can be read
// from its first bytes — so a chat.send with too large an image gets an error naming the sizes
// instead of a closed socket. Event-loop thread only.
#include <spdlog/spdlog.h>

#include "agent/attachments.h"
#include "gateway/gateway.h"
#include "gateway/protocol/constants.h"

namespace pincer::gateway {
namespace detail_gateway_oversized {

using nlohmann::json;

// The attachment limits fit in one message: all of them base64-encoded, plus room for the text.
static_assert((agent::kMaxAttachmentsTotalBytes + 2) / 3 * 4 + 1024 * 1024 <= kMaxPayloadBytes,
              "chat.send attachments within their limits must fit in one gateway message");

/// Reads the top-level "type", "id" and "method" strings of a JSON object that is cut short: a
/// SAX parse of the head, which ends at the cut (a parse error there is expected).
struct HeadFields : json::json_sax_t {
  int depth = 0;
  std::string last_key;  ///< the last top-level key
  std::string type, id, method;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (depth == 1) {
      if (last_key == "type") type = value;
      else if (last_key == "id") id = value;
      else if (last_key == "method") method = value;
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth, true; }
  bool key(string_t& k) override {
    if (depth == 1) last_key = k;
    return true;
  }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return ++depth, true; }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t, const std::string&, const json::exception&) override { return false; }
};

}  // namespace detail_gateway_oversized

void Gateway::on_message_too_large(ConnId id, std::string_view head, std::size_t bytes) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->closing) return;
  Client& client = *it->second;
  const std::size_t limit = client.connected ? kMaxPayloadBytes : kMaxPreConnectBytes;
  std::string text = message_too_large(bytes, limit);
  detail_gateway_oversized::HeadFields fields;
  if (client.connected) (void)nlohmann::json::sax_parse(head.begin(), head.end(), &fields, nlohmann::json::input_format_t::json, false);
  // (Keys may come in any order: "type" is often last, after the params that made it too large.)
  if (!client.connected || fields.id.empty() || (!fields.type.empty() && fields.type != "req")) {
    spdlog::warn("conn {}: {} from {}; closed 1009 (message too big)", id, text, client.peer.client_ip());
    close_client(client, kCloseTooBig, text);
    return;
  }
  if (fields.method == "chat.send" || fields.method == "agent") {
    text += " (attachments: at most " + std::to_string(agent::kMaxAttachmentBytes) + " bytes each and " +
            std::to_string(agent::kMaxAttachmentsTotalBytes) + " bytes in all, before base64)";
  }
  const std::string method = fields.method.empty() ? "request" : fields.method;
  spdlog::warn("conn {}: {} {} from {}: {}; answered INVALID_REQUEST", id, method, fields.id, client.peer.client_ip(), text);
  send_frame(client, build_error(fields.id, RpcError::invalid(method + ": " + text,
                                                              nlohmann::json{{"bytes", bytes}, {"maxPayload", limit}})));
}

}  // namespace pincer::gateway
