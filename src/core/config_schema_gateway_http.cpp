#include "core/config_schema_gateway_http.h"

namespace pincer::config::schema {

Node gateway_http_section() {
  return object({
             field("endpoints",
                   object({
                       field("chatCompletions",
                             object({
                                 field("enabled", boolean().def(false).doc(
                                                      "Serve the OpenAI-compatible `POST /v1/chat/completions` and "
                                                      "`GET /v1/models` on the gateway's port (docs/interop.md); "
                                                      "callers authenticate with the gateway's token or password as "
                                                      "`Authorization: Bearer`. Applied without a restart.")),
                             }).doc("The OpenAI Chat Completions endpoint.")),
                       field("responses",
                             object({
                                 field("enabled", boolean().def(false).doc(
                                                      "Serve the OpenAI-compatible `POST /v1/responses` (and "
                                                      "`GET /v1/models`) on the gateway's port (docs/interop.md). "
                                                      "Applied without a restart.")),
                             }).doc("The OpenAI Responses endpoint.")),
                   }).doc("HTTP endpoints beside the WebSocket protocol, each off by default.")),
         })
      .doc("The gateway's HTTP API.");
}

}  // namespace pincer::config::schema
