// A small MCP server (stdio, newline-delimited JSON-RPC) for what the reference servers do not
// exercise (tests/integration/mcp_client_test.cpp):
//   - tools/list in two pages (`nextCursor`): `first` on page 1, `second` on page 2;
//   - calling `first` adds a tool `third` and sends notifications/tools/list_changed, and answers
//     the call only after the client has listed the tools again (so the new list is known first).
import readline from "node:readline";

const tools = [
  { name: "first", description: "The tool on the first page", inputSchema: { type: "object", properties: {} } },
  { name: "second", description: "The tool on the second page", inputSchema: { type: "object", properties: { word: { type: "string" } } } },
];
let heldCall = null;
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const text = (id, t) => send({ id, result: { content: [{ type: "text", text: t }] } });

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({ id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "paged", version: "1" } } });
  } else if (m.method === "tools/list") {
    const cursor = m.params?.cursor;
    if (!cursor) send({ id: m.id, result: { tools: [tools[0]], nextCursor: "page-2" } });
    else send({ id: m.id, result: { tools: tools.slice(1) } });
    if (cursor && heldCall !== null) {
      text(heldCall, "first called; a third tool was added");
      heldCall = null;
    }
  } else if (m.method === "tools/call") {
    if (m.params.name === "first") {
      tools.push({ name: "third", description: "Added while running", inputSchema: { type: "object", properties: {} } });
      heldCall = m.id;
      send({ method: "notifications/tools/list_changed" });
    } else {
      text(m.id, `${m.params.name} called with ${JSON.stringify(m.params.arguments)}`);
    }
  } else if (m.id !== undefined) {
    send({ id: m.id, error: { code: -32601, message: "no " + m.method } });
  }
});
