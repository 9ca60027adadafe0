#include "core/config_schema_mcp.h"

namespace pincer::config::schema {

namespace detail_config_schema_mcp {

// OpenClaw takes env and header values as strings, numbers or booleans (written as text).
Node scalar_value(const char* what) {
  return union_of({string().sensitive(), number(), boolean()}).doc(what);
}

Node server_entry() {
  return object({
             field("command", string().doc(
                                  "Stdio server: the program to start (a name looked up on `PATH`, or a path). "
                                  "It speaks MCP on its stdin/stdout, one JSON-RPC message per line.")),
             field("args", array_of(string()).doc("Stdio server: its arguments.")),
             field("env", map_of(scalar_value("A value (numbers and booleans are passed as text).")).doc(
                              "Stdio server: variables added to its environment (the gateway's own, "
                              "minus secret-looking names, is the base). Values are secrets: masked in logs.")),
             field("cwd", string().doc("Stdio server: its working directory (default: the gateway's state directory).")),
             field("workingDirectory", string().doc("Alias of `cwd` (OpenClaw).")),
             field("url", string().format("http-url").doc(
                              "Streamable HTTP server: its MCP endpoint, e.g. `https://example.com/mcp`. "
                              "Set either `command` or `url`.")),
             field("transport", one_of({"streamable-http", "sse"}).default_note("`streamable-http`").doc(
                                    "HTTP transport. `sse` (the 2024 HTTP+SSE transport) is accepted for "
                                    "OpenClaw compatibility but not supported: the server is shown unavailable "
                                    "with that reason.")),
             field("headers", map_of(scalar_value("A header value.")).doc(
                                  "HTTP server: headers sent with every request (e.g. `Authorization`). Values "
                                  "are secrets: masked in logs.")),
             field("auth", one_of({"oauth"}).doc(
                               "OpenClaw's OAuth for remote servers: not supported yet; a server that sets it "
                               "is shown unavailable with that reason.")),
             field("connectionTimeoutMs", integer().min(100).max(kMaxTimerMs).def(30000).doc(
                                              "How long starting the server and its `initialize` handshake may "
                                              "take before it is marked unavailable.")),
             field("toolTimeoutMs", integer().min(100).max(kMaxTimerMs).def(120000).doc(
                                        "How long one `tools/call` may take before it fails as timed out.")),
             field("enabled", boolean().def(true).doc("`false`: the server is not started and offers no tools.")),
         })
      .doc("One MCP server.");
}

}  // namespace detail_config_schema_mcp

Node mcp_section() {
  namespace d = detail_config_schema_mcp;
  return object({
             field("servers", map_of(d::server_entry()).doc(
                                  "MCP servers by name. Each server's tools become agent tools named "
                                  "`<server>__<tool>`, subject to the tool policy (group `mcp`). Servers start "
                                  "in the background when the first run that could use them begins.")),
             field("eagerToolLimit", integer().min(0).max(10000).def(32).doc(
                                         "With more MCP tools than this (after the tool policy), the model gets "
                                         "a `tool_search` tool with a one-line catalogue instead of every schema; "
                                         "the tools it finds become callable in the run's next model call.")),
         })
      .doc("MCP (Model Context Protocol) client: tools of external MCP servers (docs/interop.md).");
}

}  // namespace pincer::config::schema
