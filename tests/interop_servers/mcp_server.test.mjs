// `pincer mcp serve` (SPEC IX-1) driven by the official MCP SDK client (@modelcontextprotocol/sdk,
// pinned; installed by setup.sh) over its StdioClientTransport, against a real gateway whose
// model is the mock LLM: the tool list, a message sent into a session and the agent's answer seen
// by events_wait and messages_read, conversations, argument errors; then raw lines on stdin for the
// JSON-RPC errors (not JSON, not a message, unknown method, bad params, an oversized line), a clean
// exit when stdin closes, and a clear failure when no gateway answers.
//
//   tests/interop_servers/setup.sh && node tests/interop_servers/mcp_server.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../channels/harness.mjs';
import { stop } from '../support/processes.mjs';
import { importSdk, rawChild, startGateway, stopGateway, testArguments } from './harness.mjs';

const { pincer, srcDir } = testArguments('mcp_server.test.mjs');
const { Client } = await importSdk('@modelcontextprotocol/sdk/dist/esm/client/index.js');
const { StdioClientTransport } = await importSdk('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');

const KEY = 'agent:main:main';
let g;
let client;
let transport;

before(async () => {
  // Every exec is asked (permissions_* below answer a real request).
  g = await startGateway(srcDir, pincer, "tools: { exec: { ask: 'always' } },");
  transport = new StdioClientTransport({ command: pincer, args: ['mcp', 'serve', '--url', g.url], env: g.env, stderr: 'pipe' });
  client = new Client({ name: 'pincer-mcp-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  await stopGateway(g);
});

const call = (name, args = {}) => client.callTool({ name, arguments: args });

test('initialize: server info and the tools capability', () => {
  assert.equal(client.getServerVersion().name, 'pincer');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
});

test('tools/list: the tools of openclaw mcp serve, each with an object input schema', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [
    'conversation_get', 'conversations_list', 'events_poll', 'events_wait', 'messages_read', 'messages_send',
    'permissions_list_open', 'permissions_respond',
  ]);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object', t.name);
  const send = tools.find((t) => t.name === 'messages_send');
  assert.deepEqual(send.inputSchema.required.sort(), ['session_key', 'text']);
});

test('messages_send: events_wait returns the agent\'s answer, messages_read shows the turn', async () => {
  const polled = await call('events_poll', {});
  const cursor = polled.structuredContent.next_cursor;
  const sent = await call('messages_send', { session_key: KEY, text: 'hello over MCP ECHO:mcp1' });
  assert.ok(!sent.isError, JSON.stringify(sent));
  assert.equal(sent.structuredContent.result.status, 'started');
  const waited = await call('events_wait', { after_cursor: cursor, session_key: KEY, timeout_ms: 120000 });
  const event = waited.structuredContent.event;
  assert.ok(event, `no event: ${JSON.stringify(waited)}`);
  assert.equal(event.type, 'message');
  assert.equal(event.sessionKey, KEY);
  assert.equal(event.role, 'assistant');
  assert.equal(event.text, 'Hello from the mock LLM. [mcp1]');
  assert.ok(event.cursor > cursor);
  assert.equal(JSON.parse(waited.content[0].text).event.cursor, event.cursor, 'the text content is the same JSON');

  const read = await call('messages_read', { session_key: KEY, limit: 10 });
  const messages = read.structuredContent.messages;
  const last = messages.at(-1);
  assert.equal(last.role, 'assistant');
  assert.equal(last.content.map((b) => b.text ?? '').join(''), 'Hello from the mock LLM. [mcp1]');
  assert.ok(messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('hello over MCP ECHO:mcp1')));

  const polledAgain = await call('events_poll', { after_cursor: cursor });
  assert.ok(polledAgain.structuredContent.events.some((e) => e.cursor === event.cursor));
  assert.equal(polledAgain.structuredContent.next_cursor, polledAgain.structuredContent.events.at(-1).cursor);
});

test('conversations_list and conversation_get', async () => {
  const list = await call('conversations_list', { limit: 50 });
  const keys = list.structuredContent.conversations.map((c) => c.sessionKey);
  assert.ok(keys.includes(KEY), JSON.stringify(keys));
  const got = await call('conversation_get', { session_key: KEY });
  assert.equal(got.structuredContent.conversation.sessionKey, KEY);
  const missing = await call('conversation_get', { session_key: 'agent:main:nobody-here' });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /conversation not found: agent:main:nobody-here/);
  // The gateway's own namespaces cannot be started from outside.
  for (const key of ['subagent:x', 'agent:main:cron:nightly']) {
    const refused = await call('messages_send', { session_key: key, text: 'hi' });
    assert.equal(refused.isError, true, key);
    assert.match(refused.content[0].text, /reserved namespace/);
  }
});

test('events_wait ends with a null event at its timeout', async () => {
  const polled = await call('events_poll', {});
  const waited = await call('events_wait', { after_cursor: polled.structuredContent.next_cursor + 1000, timeout_ms: 1 });
  assert.equal(waited.structuredContent.event, null);
});

test('permissions_list_open: none pending', async () => {
  const open = await call('permissions_list_open');
  assert.deepEqual(open.structuredContent.approvals, []);
  const bad = await call('permissions_respond', { kind: 'exec', id: 'nope', decision: 'deny' });
  assert.equal(bad.isError, true);
});

test('an exec approval: seen as an event and by permissions_list_open, answered by permissions_respond', async () => {
  const key = 'agent:main:mcp-approvals';
  const cursor = (await call('events_poll', {})).structuredContent.next_cursor;
  const command = 'echo approved > mcp-approved.txt';
  await call('messages_send', { session_key: key, text: `MOCK_TOOL:exec:${JSON.stringify({ command })}` });
  const asked = (await call('events_wait', { after_cursor: cursor, timeout_ms: 120000 })).structuredContent.event;
  assert.equal(asked?.type, 'exec_approval_requested', JSON.stringify(asked));
  const id = asked.raw.id;
  const open = (await call('permissions_list_open')).structuredContent.approvals;
  const mine = open.find((a) => a.id === id);
  assert.ok(mine, JSON.stringify(open));
  assert.equal(mine.kind, 'exec');
  assert.ok(JSON.stringify(mine.request).includes('mcp-approved.txt'));
  assert.ok(!existsSync(path.join(g.home, 'workspace', 'mcp-approved.txt')), 'nothing runs before the answer');
  const answered = await call('permissions_respond', { kind: 'exec', id, decision: 'allow-once' });
  assert.ok(!answered.isError, JSON.stringify(answered));
  const reply = (await call('events_wait', { after_cursor: asked.cursor, session_key: key, timeout_ms: 120000 })).structuredContent.event;
  assert.equal(reply?.type, 'message', JSON.stringify(reply));
  assert.match(reply.text, /^Tool said: /);
  assert.equal(readFileSync(path.join(g.home, 'workspace', 'mcp-approved.txt'), 'utf8'), 'approved\n');
  const resolved = (await call('events_poll', { after_cursor: asked.cursor, limit: 200 })).structuredContent.events;
  assert.ok(resolved.some((e) => e.type === 'exec_approval_resolved' && e.raw.id === id && e.raw.decision === 'allow-once'));
  assert.deepEqual((await call('permissions_list_open')).structuredContent.approvals, []);
});

test('bad arguments: an error result naming the field; an unknown tool: -32602', async () => {
  const bad = await call('messages_read', { session_key: KEY, limit: 0 });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /-32602.*limit: must be >= 1/);
  const missing = await call('messages_send', { text: 'x' });
  assert.match(missing.content[0].text, /session_key: required/);
  const wrongEnum = await call('permissions_respond', { kind: 'exec', id: 'a', decision: 'maybe' });
  assert.match(wrongEnum.content[0].text, /decision: must be one of allow-once \| allow-always \| deny/);
  await assert.rejects(call('no_such_tool'), (e) => e.code === -32602 && /Unknown tool: no_such_tool/.test(e.message));
});

test('raw lines: JSON-RPC errors for bad input, the line after them still served', async () => {
  const c = rawChild(pincer, ['mcp', 'serve', '--url', g.url], g.env);
  c.send('this is not json');
  let r = await c.next();
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32700);
  c.send('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  r = await c.next();
  assert.equal(r.error.code, -32600);
  c.send({ jsonrpc: '2.0', id: 7 });
  r = await c.next();
  assert.equal(r.id, 7);
  assert.equal(r.error.code, -32600);
  c.send('"just a string"');
  r = await c.next();
  assert.equal(r.error.code, -32600);
  c.send({ jsonrpc: '2.0', id: 8, method: 'resources/subscribe_to_everything' });
  r = await c.next();
  assert.deepEqual([r.id, r.error.code], [8, -32601]);
  c.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: {} });
  r = await c.next();
  assert.deepEqual([r.id, r.error.code], [9, -32602]);
  assert.match(r.error.message, /name/);
  c.send({ jsonrpc: '2.0', id: 10, method: 'initialize', params: { capabilities: {} } });
  r = await c.next();
  assert.deepEqual([r.id, r.error.code], [10, -32602]);
  assert.match(r.error.message, /protocolVersion/);
  c.send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'messages_read', arguments: { session_key: KEY, limit: 'x' } } });
  r = await c.next();
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /limit: expected integer, received string/);
  // A line over the 16 MiB limit: one error (id null), the line dropped, the next one answered.
  c.child.stdin.write('{"jsonrpc":"2.0","id":12,"method":"ping","params":{"pad":"' + 'x'.repeat(17 * 1024 * 1024) + '"}}\n');
  r = await c.next();
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32600);
  assert.match(r.error.message, /too large/);
  c.send({ jsonrpc: '2.0', id: 13, method: 'ping' });
  r = await c.next();
  assert.deepEqual([r.id, r.result], [13, {}]);
  // A notification gets no answer; a request after it does.
  c.send({ jsonrpc: '2.0', method: 'notifications/whatever' });
  c.send({ jsonrpc: '2.0', id: 14, method: 'ping' });
  r = await c.next();
  assert.equal(r.id, 14);
  c.child.stdin.end();
  const { code } = await c.exited;
  assert.equal(code, 0, c.stderr());
  assert.equal(c.pendingLines(), 0);
});

test('no gateway: a clear error on stderr, nothing on stdout, exit status 1', async () => {
  const port = await freePort();
  const c = rawChild(pincer, ['mcp', 'serve', '--url', `ws://127.0.0.1:${port}`], g.env);
  const { code } = await c.exited;
  assert.equal(code, 1);
  assert.match(c.stderr(), /cannot reach the gateway at ws:\/\/127\.0\.0\.1:\d+/);
  assert.equal(c.pendingLines(), 0);
});

test('the gateway stops while serving: a pending call gets an error result, then exit status 1', async () => {
  const c = rawChild(pincer, ['mcp', 'serve', '--url', g.url], g.env);
  c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  assert.equal((await c.next()).result.protocolVersion, '2025-06-18');
  c.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'events_wait', arguments: { after_cursor: 1e9, timeout_ms: 300000 } } });
  c.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  assert.equal((await c.next()).id, 3);  // events_wait is waiting now
  await client.close();  // the SDK client's server first, so that it does not log the closed gateway
  client = null;
  await stop(g.gateway.child);
  const r = await c.next();
  assert.equal(r.id, 2);
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /the gateway connection closed/);
  const { code } = await c.exited;
  assert.equal(code, 1);
  assert.match(c.stderr(), /the gateway connection closed/);
});
