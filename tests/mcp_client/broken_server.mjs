// A deliberately broken MCP server for the MCP client's tests (tests/integration/mcp_client_test.cpp):
//   node broken_server.mjs garbage   answers the first message with a line that is not JSON
//   node broken_server.mjs exit      says why on stderr and exits with code 3 at once
//   node broken_server.mjs hang      reads everything and never answers
import readline from "node:readline";

const mode = process.argv[2] ?? "hang";
if (mode === "exit") {
  process.stderr.write("broken server: exiting on purpose\n");
  process.exit(3);
}
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", () => {
  if (mode === "garbage") process.stdout.write("this is not json-rpc at all\n");
});
