// libFuzzer target: inbound gateway frames. Feeds the input to parse_request() and, as a whole
// session, to the Gateway core (connect handshake, dispatch) through a fake link, so that every
// parser facing a WebSocket peer (frames, connect params, method params) sees hostile bytes.
// Property: no crash, and every request frame that parses gets exactly one response or a close.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "core/clock.h"
#include "gateway/gateway.h"
#include "gateway/protocol/frame_fast_path.h"

namespace {

using namespace pincer;
using namespace pincer::gateway;

class NullLink final : public ClientLink {
 public:
  void send(std::string text) override { ++sent; (void)text; }
  std::size_t buffered_bytes() const override { return 0; }
  void close(uint16_t, std::string) override { closed = true; }
  void set_max_message_bytes(std::size_t) override {}
  int sent = 0;
  bool closed = false;
};

Gateway& shared_gateway() {
  static ManualClock clock;
  static Gateway* gw = [] {
    spdlog::set_level(spdlog::level::off);
    GatewaySettings s;
    s.auth.mode = "token";
    s.auth.token = "fuzz-token";
    return new Gateway(s, clock);
  }();
  return *gw;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Differential: whatever the fast path accepts, the strict parser accepts identically.
  if (auto fast = try_parse_simple_request(text)) {
    auto strict = parse_request_strict(text);
    const auto* frame = std::get_if<RequestFrame>(&strict);
    if (!frame || frame->id != fast->id || frame->method != fast->method || frame->params != fast->params) {
      __builtin_trap();
    }
  }

  // A session: a valid connect first (so later frames reach dispatch), then the input split on
  // newlines into frames.
  NullLink link;
  Gateway& gw = shared_gateway();
  ConnId id = gw.open(link, PeerInfo{"127.0.0.1", true, "", std::nullopt, {}, "", false});
  const bool authenticated = size > 0 && (data[0] & 1);
  if (authenticated) {
    gw.on_message(id, R"({"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,)"
                      R"("client":{"id":"test","version":"1","platform":"fuzz","mode":"test"},)"
                      R"("scopes":["operator.admin"],"auth":{"token":"fuzz-token"}}})");
  }
  size_t start = 0;
  while (start <= text.size() && !link.closed) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const int before = link.sent;
    const bool is_request = std::holds_alternative<RequestFrame>(parse_request(text.substr(start, nl - start)));
    gw.on_message(id, text.substr(start, nl - start));
    // An accepted connection answers every well-formed request (or closes).
    if (authenticated && is_request && !link.closed && link.sent == before) __builtin_trap();
    start = nl + 1;
  }
  gw.on_closed(id);
  return 0;
}
