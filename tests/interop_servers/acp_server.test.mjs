// `pincer acp` (SPEC IX-3) driven by the official ACP SDK (@agentclientprotocol/sdk, pinned;
// installed by setup.sh): its ClientSideConnection over the child's stdio, as an editor (Zed) runs
// it, against a real gateway whose model is the mock LLM. initialize, session/new, a prompt that
// streams agent_message_chunk updates and ends with end_turn, a tool call as tool_call /
// tool_call_update, session/cancel in the middle of a reply (the mock holds it: no timing) ending
// with cancelled, session/load in a second process replaying the history; then raw lines for the
// JSON-RPC errors and a clean exit when stdin closes.
//
//   tests/interop_servers/setup.sh && node tests/interop_servers/acp_server.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { importSdk, mockCall, rawChild, startGateway, stopGateway, testArguments } from './harness.mjs';

const { pincer, srcDir } = testArguments('acp_server.test.mjs');
const acp = await importSdk('@agentclientprotocol/sdk/dist/acp.js');

let g;
const children = [];
const permissionAsks = [];  // session/request_permission params, in order
let permissionAnswer = { outcome: { outcome: 'cancelled' } };

/// Spawns `pincer acp` and connects the SDK's client side to it: {conn, updates, onUpdate(fn), child}.
function connectAgent(extraArgs = []) {
  const child = spawn(pincer, ['acp', '--url', g.url, ...extraArgs], { env: g.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  children.push(child);
  const updates = [];
  const listeners = [];
  const client = {
    async sessionUpdate(params) {
      updates.push(params);
      for (const l of [...listeners]) l(params);
    },
    async requestPermission(params) {
      permissionAsks.push(params);
      return permissionAnswer;
    },
    async readTextFile() {
      throw new Error('not offered');
    },
    async writeTextFile() {
      throw new Error('not offered');
    },
  };
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const conn = new acp.ClientSideConnection(() => client, stream);
  return {
    conn,
    child,
    updates,
    stderr: () => stderr,
    /// Resolves with the first update for which `predicate` holds (already received or coming).
    waitUpdate(predicate) {
      const seen = updates.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const l = (u) => {
          if (!predicate(u)) return;
          listeners.splice(listeners.indexOf(l), 1);
          resolve(u);
        };
        listeners.push(l);
      });
    },
  };
}

const textOf = (updates, sessionId, kind = 'agent_message_chunk') =>
  updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind).map((u) => u.update.content.text).join('');

before(async () => {
  // Every exec is asked: the editor answers it (session/request_permission).
  g = await startGateway(srcDir, pincer, "tools: { exec: { ask: 'always' } },");
  writeFileSync(path.join(g.home, 'workspace', 'notes.txt'), 'NOTES-FOR-ACP\n');
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await stopGateway(g);
});

let first;  // {agent, sessionId} of the first prompt, loaded again later

test('initialize, session/new, a prompt streamed as agent_message_chunk ending with end_turn', async () => {
  const agent = connectAgent();
  const init = await agent.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentInfo.name, 'pincer');
  const { sessionId } = await agent.conn.newSession({ cwd: g.home, mcpServers: [] });
  assert.match(sessionId, /^[0-9a-f-]{36}$/);
  const res = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello from the editor ECHO:acp1' }] });
  assert.equal(res.stopReason, 'end_turn');
  const chunks = agent.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk');
  assert.ok(chunks.length >= 1, 'streamed chunks');
  assert.equal(textOf(agent.updates, sessionId), 'Hello from the mock LLM. [acp1]');
  // The gateway got it through chat.send, with the editor's working directory before the text.
  const reqs = await mockCall(g.mockPort, '/__mock/requests');
  const body = JSON.stringify(reqs.at(-1).body.messages);
  assert.ok(body.includes('[Working directory: ') && body.includes('hello from the editor ECHO:acp1'), body.slice(0, 400));
  first = { agent, sessionId };
});

test('the chat commands are offered; /status runs as a command, not a model turn', async () => {
  const { agent } = first;
  const { sessionId } = await agent.conn.newSession({ cwd: g.home, mcpServers: [] });
  const offered = await agent.waitUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'available_commands_update');
  const names = offered.update.availableCommands.map((c) => c.name);
  assert.ok(names.includes('status') && names.includes('new'), JSON.stringify(names));
  const model = offered.update.availableCommands.find((c) => c.name === 'model');
  assert.ok(model?.input?.hint, JSON.stringify(model));
  const summarize = offered.update.availableCommands.find((c) => c.name === 'summarize');  // a bundled skill's command
  assert.ok(summarize?.input?.hint && summarize.description, JSON.stringify(names));
  const before = (await mockCall(g.mockPort, '/__mock/requests')).length;
  const res = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: '/status' }] });
  assert.equal(res.stopReason, 'end_turn');
  assert.match(textOf(agent.updates, sessionId), /acp-bridge/);
  assert.equal((await mockCall(g.mockPort, '/__mock/requests')).length, before, 'no model call');
});

test('a tool call streams tool_call and tool_call_update, then the answer', async () => {
  const { agent } = first;
  const { sessionId } = await agent.conn.newSession({ cwd: g.home, mcpServers: [] });
  const res = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'MOCK_TOOL:read:{"path":"notes.txt"}' }] });
  assert.equal(res.stopReason, 'end_turn');
  const mine = agent.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  const call = mine.find((u) => u.sessionUpdate === 'tool_call');
  assert.ok(call, JSON.stringify(mine));
  assert.equal(call.kind, 'read');
  assert.equal(call.status, 'in_progress');
  assert.match(call.title, /^read: path: notes\.txt/);
  const done = mine.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId);
  assert.equal(done.status, 'completed');
  assert.ok(JSON.stringify(done.content).includes('NOTES-FOR-ACP'));
  assert.ok(mine.indexOf(done) > mine.indexOf(call));
  assert.match(textOf(agent.updates, sessionId), /Tool said: .*NOTES-FOR-ACP/);
});

test('an exec approval is asked of the editor: allowed runs the command, cancelled denies it', async () => {
  const { agent } = first;
  const { sessionId } = await agent.conn.newSession({ cwd: g.home, mcpServers: [] });
  permissionAnswer = { outcome: { outcome: 'selected', optionId: 'allow-once' } };
  const allowed = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'MOCK_TOOL:exec:{"command":"echo editor > acp-approved.txt"}' }] });
  assert.equal(allowed.stopReason, 'end_turn');
  const ask = permissionAsks.at(-1);
  assert.equal(ask.sessionId, sessionId);
  assert.equal(ask.toolCall.kind, 'execute');
  assert.equal(ask.toolCall.rawInput.command, 'echo editor > acp-approved.txt');
  assert.deepEqual(ask.options.map((o) => o.optionId), ['allow-once', 'allow-always', 'deny']);
  const call = agent.updates.find((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'tool_call');
  assert.equal(ask.toolCall.toolCallId, call.update.toolCallId, 'the permission names the tool call the editor shows');
  assert.equal(readFileSync(path.join(g.home, 'workspace', 'acp-approved.txt'), 'utf8'), 'editor\n');

  permissionAnswer = { outcome: { outcome: 'cancelled' } };
  const asks = permissionAsks.length;
  const denied = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'MOCK_TOOL:exec:{"command":"echo no > acp-denied.txt"}' }] });
  assert.equal(denied.stopReason, 'end_turn');
  assert.equal(permissionAsks.length, asks + 1);
  assert.ok(!existsSync(path.join(g.home, 'workspace', 'acp-denied.txt')), 'a cancelled permission denies');
  const failed = agent.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'tool_call_update').at(-1);
  assert.equal(failed.update.status, 'failed');
});

test('session/cancel in the middle of a reply ends the prompt with cancelled', async () => {
  const { agent } = first;
  const { sessionId } = await agent.conn.newSession({ cwd: g.home, mcpServers: [] });
  const prompt = agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'long answer please MOCK_HOLD:acpcancel' }] });
  await agent.waitUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk');
  await agent.conn.cancel({ sessionId });
  const res = await prompt;
  assert.equal(res.stopReason, 'cancelled');
  await mockCall(g.mockPort, '/__mock/release?name=acpcancel', {});
  // The session takes the next prompt.
  const next = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'again ECHO:after-cancel' }] });
  assert.equal(next.stopReason, 'end_turn');
  assert.ok(textOf(agent.updates, sessionId).endsWith('Hello from the mock LLM. [after-cancel]'));
});

test('session/load in a new process replays the history of that session', async () => {
  const agent = connectAgent();
  await agent.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  await agent.conn.loadSession({ sessionId: first.sessionId, cwd: g.home, mcpServers: [] });
  assert.equal(textOf(agent.updates, first.sessionId, 'user_message_chunk'), 'hello from the editor ECHO:acp1');
  assert.equal(textOf(agent.updates, first.sessionId), 'Hello from the mock LLM. [acp1]');
  const res = await agent.conn.prompt({ sessionId: first.sessionId, prompt: [{ type: 'text', text: 'and again ECHO:loaded' }] });
  assert.equal(res.stopReason, 'end_turn');
  agent.child.stdin.end();
  const code = await new Promise((resolve) => agent.child.on('exit', resolve));
  assert.equal(code, 0, agent.stderr());
});

test('errors: unknown session, bad prompt, per-session MCP servers', async () => {
  const { agent } = first;
  await assert.rejects(agent.conn.prompt({ sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'x' }] }),
    (e) => e.code === -32602 && /Session no-such-session not found/.test(e.message));
  await assert.rejects(
    agent.conn.newSession({ cwd: g.home, mcpServers: [{ name: 'x', command: 'x', args: [], env: [] }] }),
    (e) => e.code === -32602 && /per-session MCP servers are not supported/.test(e.message));
  // A session key in the gateway's own namespaces is refused, naming it.
  await assert.rejects(agent.conn.newSession({ cwd: g.home, mcpServers: [], _meta: { sessionKey: 'subagent:evil' } }),
    (e) => e.code === -32602 && /reserved namespace `subagent:`/.test(e.message));
});

test('raw lines: JSON-RPC errors for bad input, a clean exit when stdin closes', async () => {
  const c = rawChild(pincer, ['acp', '--url', g.url], g.env);
  c.send('{"jsonrpc":"2.0","id":1,"method":');
  let r = await c.nextResponse();
  assert.deepEqual([r.id, r.error.code], [null, -32700]);
  c.send({ jsonrpc: '2.0', id: 2, method: 'session/fly' });
  r = await c.nextResponse();
  assert.deepEqual([r.id, r.error.code], [2, -32601]);
  c.send({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 'one' } });
  r = await c.nextResponse();
  assert.deepEqual([r.id, r.error.code], [3, -32602]);
  c.send({ jsonrpc: '2.0', id: 4, method: 'session/new', params: { mcpServers: [] } });
  r = await c.nextResponse();
  assert.deepEqual([r.id, r.error.code], [4, -32602]);
  assert.match(r.error.message, /cwd/);
  c.send({ jsonrpc: '2.0', id: 5, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
  r = await c.nextResponse();
  const sessionId = r.result.sessionId;
  c.send({ jsonrpc: '2.0', id: 6, method: 'session/prompt', params: { sessionId, prompt: [{ text: 'no type' }] } });
  r = await c.nextResponse();
  assert.deepEqual([r.id, r.error.code], [6, -32602]);
  assert.match(r.error.message, /prompt\[0\]/);
  c.send({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: 'not an object' });
  r = await c.nextResponse();
  assert.equal(r.error.code, -32600);  // params must be an object or an array (JSON-RPC)
  c.child.stdin.end();
  const { code } = await c.exited;
  assert.equal(code, 0, c.stderr());
});
