// The webhook channel end to end (issue #5 §5): signed HTTP POSTs to the real gateway's port, the
// agent answering from the mock LLM, the reply in the HTTP response (sync) or POSTed, signed, to a
// callback server (callback). No npm dependencies.
//
//   node tests/channels/webhook.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop, cleanEnv } from '../support/processes.mjs';

const SECRET = 'webhook-test-secret-0123456789';
const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/channels/webhook.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}

const env = cleanEnv();
const homes = [];
const children = [];
let mockPort;

const sign = (body, secret = SECRET) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

async function gateway(webhookConfig) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'webhook-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  session: { dmScope: 'per-channel-peer' },
  messages: { queue: { mode: 'followup' } },
  channels: { webhook: ${JSON.stringify(webhookConfig)} },
}\n`);
  const gw = launch(pincer, ['gateway', 'run', '--port', '0'], { ...env, PINCER_HOME: home }, /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  children.push(gw.child);
  return `http://127.0.0.1:${(await gw.ready)[1]}`;
}

async function post(base, body, headers = {}, pathname = '/webhook') {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(base + pathname, { method: 'POST', body: text, headers: { 'content-type': 'application/json', 'x-pincer-signature': sign(text), ...headers } });
  return { status: res.status, json: await res.json().catch(() => null) };
}

let syncBase;

before(async () => {
  const mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0'], env,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(mock.child);
  mockPort = Number((await mock.ready)[1]);
  syncBase = await gateway({ secret: SECRET, maxBodyBytes: 2048, replyTimeoutSeconds: 20 });
});

after(async () => {
  for (const c of children.reverse()) await stop(c);
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

test('sync: a signed message gets the agent reply in the HTTP response', async () => {
  const r = await post(syncBase, { text: 'hello ECHO:wh-sync', senderId: 'svc-1', messageId: 'm-1' });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.ok, true);
  assert.equal(r.json.reply, 'Hello from the mock LLM. [wh-sync]');
  assert.equal(r.json.conversationId, 'svc-1');
});

test('the same messageId twice is answered once', async () => {
  const again = await post(syncBase, { text: 'hello ECHO:wh-sync', senderId: 'svc-1', messageId: 'm-1' });
  assert.equal(again.status, 200);
  assert.deepEqual(again.json, { ok: true, duplicate: true });
});

test('two conversations of one sender are two sessions: concurrent sync requests get their own replies', async () => {
  const [a, b] = await Promise.all([
    post(syncBase, { text: 'first MOCK_SLOW:100 ECHO:wh-conv-a', senderId: 'svc-3', conversationId: 'conv-a' }),
    post(syncBase, { text: 'second MOCK_SLOW:100 ECHO:wh-conv-b', senderId: 'svc-3', conversationId: 'conv-b' }),
  ]);
  assert.equal(a.status, 200, JSON.stringify(a.json));
  assert.equal(b.status, 200, JSON.stringify(b.json));
  assert.equal(a.json.reply, 'Hello from the mock LLM. [wh-conv-a]');
  assert.equal(b.json.reply, 'Hello from the mock LLM. [wh-conv-b]');
  // The sessions index is written at most a second after a turn.
  const index = path.join(homes[0], 'agents/main/sessions/sessions.json');
  let keys = [];
  for (let i = 0; i < 50 && keys.filter((k) => k.includes(':thread:conv-')).length < 2; i++) {
    await new Promise((r) => setTimeout(r, 100));
    keys = existsSync(index) ? Object.keys(JSON.parse(readFileSync(index, 'utf8'))) : [];
  }
  assert.ok(keys.some((k) => k.endsWith(':thread:conv-a')) && keys.some((k) => k.endsWith(':thread:conv-b')),
    `one session per conversation expected: ${keys}`);
});

test('bad requests are refused with a clear status', async () => {
  const body = JSON.stringify({ text: 'x' });
  assert.equal((await post(syncBase, body, { 'x-pincer-signature': sign(body, 'another-secret-0123456789') })).status, 401);
  const unsigned = await fetch(syncBase + '/webhook', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  assert.equal(unsigned.status, 401);
  assert.match((await unsigned.json()).error, /X-Pincer-Signature/);
  assert.equal((await post(syncBase, '{not json')).status, 400);
  assert.equal((await post(syncBase, { text: '' })).status, 400);
  assert.equal((await fetch(syncBase + '/webhook')).status, 405);
  const big = await post(syncBase, { text: 'a'.repeat(4000) });
  assert.equal(big.status, 413);
  assert.deepEqual(big.json, { ok: false, error: 'body too large' });  // JSON like every other error
  assert.equal((await fetch(syncBase + '/webhookx', { method: 'POST', body })).status, 404);
  // Still serving after all that.
  const ok = await post(syncBase, { text: 'still there ECHO:wh-after', senderId: 'svc-2' });
  assert.equal(ok.json.reply, 'Hello from the mock LLM. [wh-after]');
});

test('callback: 202 at once, then the reply is POSTed, signed, to callbackUrl', async () => {
  const received = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      received.push({ body: data, signature: req.headers['x-pincer-signature'] });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const base = await gateway({ secret: SECRET, mode: 'callback', callbackUrl: `http://127.0.0.1:${server.address().port}/hook` });
    const r = await post(base, { text: 'later ECHO:wh-cb', senderId: 'svc-3', conversationId: 'conv-9' });
    assert.equal(r.status, 202);
    assert.deepEqual(r.json, { ok: true, accepted: true, conversationId: 'conv-9' });
    const deadline = Date.now() + 20000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    assert.equal(received.length, 1, 'no callback arrived');
    assert.equal(received[0].signature, sign(received[0].body));
    assert.deepEqual(JSON.parse(received[0].body), { conversationId: 'conv-9', text: 'Hello from the mock LLM. [wh-cb]' });
  } finally {
    server.close();
  }
});
