// The webhook channel end to end (issue #5 §5, issue 22 §8): signed HTTP POSTs to the real
// gateway's port, the agent answering from the mock LLM, the reply in the HTTP response (sync) or
// POSTed, signed with the callback key, to a callback server (callback). Replays are refused: the
// same signed request twice (unless its messageId is known: then it is that message's retry), a stale timestamp, a captured callback posted back in, and a replay
// after a gateway restart. An exec asked for by a sender who is not the owner waits for the owner's
// `/approve <code> once` (another sender's is refused), every message through the callback. `/dreaming on|off` is
// the owner's: it writes pincer.json and the reload adds or removes the managed sweep job. No npm dependencies.
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
import { spawnSync } from 'node:child_process';
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

const hmac = (key, text) => createHmac('sha256', key).update(text).digest('hex');
const now = () => String(Math.floor(Date.now() / 1000));
/// What a sender computes (docs/channels.md, Webhook): HMAC-SHA256(secret, "<timestamp>.<body>").
const sign = (body, ts, secret = SECRET) => 'sha256=' + hmac(secret, `${ts}.${body}`);
/// The key callbacks are signed with: hex(HMAC-SHA256(secret, "pincer-webhook-callback")).
const callbackKey = (secret = SECRET) => hmac(secret, 'pincer-webhook-callback');

/// Starts a gateway with `webhookConfig` (in `home`, a new one by default) and `extra` top-level
/// config entries; returns its base URL.
async function gateway(webhookConfig, home = undefined, extra = '') {
  if (!home) {
    home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
    homes.push(home);
  }
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'webhook-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  session: { dmScope: 'per-channel-peer' },
  messages: { queue: { mode: 'followup' } },
  channels: { webhook: ${JSON.stringify(webhookConfig)} },${extra}
}\n`);
  const gw = launch(pincer, ['gateway', 'run', '--port', '0'], { ...env, PINCER_HOME: home }, /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  children.push(gw.child);
  lastGateway = gw.child;
  return `http://127.0.0.1:${(await gw.ready)[1]}`;
}
let lastGateway;

/// The headers of a signed request for `text` (now, unless `ts` is given).
function signed(text, ts = now()) {
  return { 'content-type': 'application/json', 'x-pincer-timestamp': ts, 'x-pincer-signature': sign(text, ts) };
}

async function send(base, text, headers, pathname = '/webhook') {
  const res = await fetch(base + pathname, { method: 'POST', body: text, headers });
  return { status: res.status, json: await res.json().catch(() => null) };
}

async function post(base, body, headers = {}, pathname = '/webhook') {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return send(base, text, { ...signed(text), ...headers }, pathname);
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

test('sync: a sync caller is not the agent\'s last chat: a cron job announcing to "last" has nowhere to go', async () => {
  // The sync sender above got its reply in its HTTP response; it is not a chat a scheduled
  // message can be sent to later, so it is not recorded as the agent's last route (OpenClaw's
  // lastChannel skips non-deliverable channels the same way).
  const routes = path.join(homes[0], 'channels', 'last-route.json');
  assert.ok(!existsSync(routes) || !readFileSync(routes, 'utf8').includes('webhook'),
    existsSync(routes) ? readFileSync(routes, 'utf8') : '');
  const gatewayEnv = { ...env, PINCER_HOME: homes[0], PINCER_GATEWAY_URL: syncBase.replace('http:', 'ws:'),
    PINCER_GATEWAY_TOKEN: 'webhook-test-gateway-token-0123456789' };
  const at = new Date(Date.now() + 1000).toISOString();
  const added = spawnSync(pincer, ['cron', 'add', '--name', 'wh-announce', '--at', at, '--message', 'ping ECHO:wh-cron'],
    { env: gatewayEnv, encoding: 'utf8' });
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stderr, /agent main has no chat to announce to yet/);
  const jobs = path.join(homes[0], 'cron', 'jobs.json');
  const readJob = () => (existsSync(jobs) ? JSON.parse(readFileSync(jobs, 'utf8')).jobs.find((j) => j.name === 'wh-announce') : undefined);
  const deadline = Date.now() + 60000;
  while (readJob()?.state?.lastStatus === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const job = readJob();
  assert.equal(job?.state?.lastStatus, 'error', JSON.stringify(job));
  assert.match(job.state.lastError, /no chat to announce to/);
});

test('the same messageId twice is answered once', async () => {
  // Signed anew (another timestamp): the same signature again would be a replay (409). 100 s back
  // (inside the ±300 s window) can never be the second the first test signed in, a second ago.
  const again = await post(syncBase, { text: 'hello ECHO:wh-sync', senderId: 'svc-1', messageId: 'm-1' },
    signed(JSON.stringify({ text: 'hello ECHO:wh-sync', senderId: 'svc-1', messageId: 'm-1' }), String(Number(now()) - 100)));
  assert.equal(again.status, 200);
  // Not run again: the retry gets the reply the first request got.
  assert.deepEqual(again.json, { ok: true, duplicate: true, conversationId: 'svc-1', reply: 'Hello from the mock LLM. [wh-sync]' });
});

test('sync: /compact answers once, with its result, when the compaction is done', async () => {
  for (let i = 0; i < 4; i++) {
    const r = await post(syncBase, { text: `Please keep going with step alpha bravo charlie delta echo ${i} ECHO:wh-c${i}`, senderId: 'svc-compact' });
    assert.equal(r.json.reply, `Hello from the mock LLM. [wh-c${i}]`, JSON.stringify(r.json));
  }
  const r = await post(syncBase, { text: '/compact', senderId: 'svc-compact' });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.match(r.json.reply, /^Compacting the session…\nCompacted the session: about \d+ → \d+ tokens\.$/);
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
  const ts = now();
  assert.equal((await post(syncBase, body, { 'x-pincer-signature': sign(body, ts, 'another-secret-0123456789'), 'x-pincer-timestamp': ts })).status, 401);
  const unsigned = await fetch(syncBase + '/webhook', { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-pincer-timestamp': ts } });
  assert.equal(unsigned.status, 401);
  assert.match((await unsigned.json()).error, /X-Pincer-Signature/);
  // The old form (the body alone signed, no timestamp) is refused with what to send instead.
  const old = await send(syncBase, body, { 'content-type': 'application/json', 'x-pincer-signature': 'sha256=' + hmac(SECRET, body) });
  assert.equal(old.status, 401);
  assert.match(old.json.error, /X-Pincer-Timestamp/);
  // A timestamp that is not Unix seconds, or one signed for another time.
  assert.equal((await post(syncBase, body, { 'x-pincer-timestamp': '2026-12-01T10:00:00Z' })).status, 401);
  const latin1 = await post(syncBase, body, { 'x-pincer-timestamp': '\u00e9t\u00e9' });  // not UTF-8 on the wire
  assert.equal(latin1.status, 401);
  assert.match(latin1.json.error, /X-Pincer-Timestamp must be/);
  // Signed for `ts`, sent as ts + 1. (post() would sign with the clock, which may have ticked to
  // ts + 1 by now: a valid request, and a flaky test.)
  const moved = await send(syncBase, body, { 'content-type': 'application/json', 'x-pincer-timestamp': String(Number(ts) + 1),
    'x-pincer-signature': sign(body, ts) });
  assert.equal(moved.status, 401, JSON.stringify(moved.json));
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

test('bad input is a 400 with a JSON error naming the field; a numeric id is its decimal string', async () => {
  const blank = await post(syncBase, { text: '  \n ', senderId: 'svc-b' });
  assert.equal(blank.status, 400, JSON.stringify(blank.json));
  assert.deepEqual(blank.json, { ok: false, error: '"text" is only whitespace' });
  const newline = await post(syncBase, { text: 'hi', senderId: 'svc-b', conversationId: 'a\nb' });
  assert.equal(newline.status, 400);
  assert.deepEqual(newline.json, { ok: false, error: '"conversationId" contains a control character (0x0a)' });
  const object = await post(syncBase, { text: 'hi', senderId: 'svc-b', conversationId: { id: 1 } });
  assert.equal(object.status, 400);
  assert.match(object.json.error, /"conversationId" must be a string or an integer, got object/);
  const numeric = await post(syncBase, { text: 'numbers ECHO:wh-num', senderId: 'svc-b', conversationId: 42 });
  assert.equal(numeric.status, 200, JSON.stringify(numeric.json));
  assert.equal(numeric.json.conversationId, '42');
  assert.equal(numeric.json.reply, 'Hello from the mock LLM. [wh-num]');
});

test('a replayed request is refused, but a retry of a messageId already taken gets its reply, re-sent in the same second or signed anew', async () => {
  const text = JSON.stringify({ text: 'once ECHO:wh-replay', senderId: 'svc-r', messageId: 'r-1' });
  const headers = signed(text);
  const first = await send(syncBase, text, headers);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.json.reply, 'Hello from the mock LLM. [wh-replay]');
  const expected = { ok: true, duplicate: true, conversationId: 'svc-r', reply: 'Hello from the mock LLM. [wh-replay]' };
  // The same bytes again (a retry re-sent within the same second signs them the same): its
  // messageId is known, so it is answered as the retry it is, not run again.
  const again = await send(syncBase, text, headers);
  assert.equal(again.status, 200, JSON.stringify(again.json));
  assert.deepEqual(again.json, expected);
  // A sender's retry signed anew (new timestamp): the messageId keeps it from running twice.
  await new Promise((r) => setTimeout(r, 1100));
  const retry = await send(syncBase, text, signed(text));
  assert.deepEqual(retry.json, expected);
  // Without a messageId nothing tells a retry from a replay: refused.
  const plain = JSON.stringify({ text: 'plain ECHO:wh-replay-2', senderId: 'svc-r' });
  const plainHeaders = signed(plain);
  assert.equal((await send(syncBase, plain, plainHeaders)).status, 200);
  const replay = await send(syncBase, plain, plainHeaders);
  assert.equal(replay.status, 409, JSON.stringify(replay.json));
  assert.match(replay.json.error, /replayed/);
});

test('a stale or far-future timestamp is refused even with a valid signature', async () => {
  const text = JSON.stringify({ text: 'late ECHO:wh-stale', senderId: 'svc-s' });
  for (const offset of [-310, -3600, 310]) {  // clear of the ±300 s edge: the two clocks may tick apart
    const r = await send(syncBase, text, signed(text, String(Number(now()) + offset)));
    assert.equal(r.status, 401, `offset ${offset}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error, /stale X-Pincer-Timestamp/);
  }
  const inside = await send(syncBase, text, signed(text, String(Number(now()) - 240)));
  assert.equal(inside.status, 200, 'four minutes of clock skew are accepted');
});

test('a request replayed after a gateway restart is refused', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  const config = { secret: SECRET, replyTimeoutSeconds: 20 };
  let base = await gateway(config, home);
  const text = JSON.stringify({ text: 'before the restart ECHO:wh-restart', senderId: 'svc-x' });  // no messageId
  const headers = signed(text);
  const first = await send(base, text, headers);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  await stop(lastGateway);
  base = await gateway(config, home);
  const replay = await send(base, text, headers);
  assert.equal(replay.status, 409, `replayed after the restart: ${JSON.stringify(replay.json)}`);
  const fresh = await post(base, { text: 'after the restart ECHO:wh-restart-2', senderId: 'svc-x' });
  assert.equal(fresh.json.reply, 'Hello from the mock LLM. [wh-restart-2]');
});

test('a retry of a messageId after a gateway restart is answered as a duplicate, not run again', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  const config = { secret: SECRET, replyTimeoutSeconds: 20 };
  let base = await gateway(config, home);
  const message = { text: 'once only ECHO:wh-dedupe', senderId: 'svc-d', messageId: 'd-1' };
  const first = await post(base, message);
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.json.reply, 'Hello from the mock LLM. [wh-dedupe]');
  await stop(lastGateway);
  base = await gateway(config, home);
  // The sender's retry: signed anew (another timestamp, so not a replay), the same messageId.
  const text = JSON.stringify(message);
  const retry = await send(base, text, signed(text, String(Number(now()) - 60)));
  assert.equal(retry.status, 200, JSON.stringify(retry.json));
  assert.deepEqual(retry.json, { ok: true, duplicate: true, conversationId: 'svc-d', reply: 'Hello from the mock LLM. [wh-dedupe]' });
  const other = await post(base, { ...message, messageId: 'd-2', text: 'another ECHO:wh-dedupe-2' });
  assert.equal(other.json.reply, 'Hello from the mock LLM. [wh-dedupe-2]');
});

/// Lets the mock LLM's MOCK_HOLD:name stream go on.
async function release(name) {
  const r = await fetch(`http://127.0.0.1:${mockPort}/__mock/release?name=${name}`, { method: 'POST' });
  assert.equal(r.status, 200);
}

test('sync: a retry of a message that timed out gets its reply: waited for while it runs, stored once done, also after a restart', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  const config = { secret: SECRET, replyTimeoutSeconds: 1 };
  let base = await gateway(config, home);
  const message = { text: 'slow MOCK_HOLD:wh-slow ECHO:wh-slow', senderId: 'slowbox', messageId: 'slow-1' };
  const text = JSON.stringify(message);
  const first = await send(base, text, signed(text));
  assert.equal(first.status, 504, JSON.stringify(first.json));
  // The run is held: a retry waits for it as the request did, and times out the same way.
  const early = await send(base, text, signed(text, String(Number(now()) - 10)));
  assert.equal(early.status, 504, JSON.stringify(early.json));
  assert.match(early.json.error, /retry with the same messageId/);
  // A retry waiting when the run ends gets the reply (or, if it ends first, the stored one).
  const waiting = send(base, text, signed(text, String(Number(now()) - 20)));
  await release('wh-slow');
  const got = await waiting;
  assert.equal(got.status, 200, JSON.stringify(got.json));
  assert.deepEqual(got.json, { ok: true, duplicate: true, conversationId: 'slowbox', reply: 'Hello from the mock LLM. [wh-slow]' });
  const later = await send(base, text, signed(text, String(Number(now()) - 30)));
  assert.deepEqual(later.json, got.json, 'a retry after the run is done gets the stored reply');

  // Killed while the run is held: the restarted gateway resumes it, and a retry gets its reply.
  const held = { text: 'held MOCK_HOLD:wh-resume ECHO:wh-resume', senderId: 'slowbox', messageId: 'slow-2' };
  const heldText = JSON.stringify(held);
  assert.equal((await send(base, heldText, signed(heldText))).status, 504);
  await stop(lastGateway, 'SIGKILL');
  await release('wh-resume');
  base = await gateway(config, home);
  let resumed;
  for (let i = 0; i < 20; i++) {  // each retry waits up to the 1 s reply timeout for the resumed run
    resumed = await send(base, heldText, signed(heldText, String(Number(now()) - 40 - i)));
    if (resumed.status !== 504) break;
  }
  assert.equal(resumed.status, 200, JSON.stringify(resumed.json));
  assert.deepEqual(resumed.json, { ok: true, duplicate: true, conversationId: 'slowbox', reply: 'Hello from the mock LLM. [wh-resume]' });
  // The first message's stored reply survived the restart too.
  const stored = await send(base, text, signed(text, String(Number(now()) - 70)));
  assert.deepEqual(stored.json, got.json);
});

test('with dmScope main a webhook sender gets its own session: its /new never resets the owner\'s main session', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'webhook-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  channels: { webhook: { secret: '${SECRET}', replyTimeoutSeconds: 20 } },
}\n`);
  const gw = launch(pincer, ['gateway', 'run', '--port', '0'], { ...env, PINCER_HOME: home }, /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  children.push(gw.child);
  const base = `http://127.0.0.1:${(await gw.ready)[1]}`;
  const hi = await post(base, { text: 'hello ECHO:wh-main', senderId: 'svc-m' });
  assert.equal(hi.json.reply, 'Hello from the mock LLM. [wh-main]');
  const reset = await post(base, { text: '/new', senderId: 'svc-m' });
  assert.equal(reset.status, 200, JSON.stringify(reset.json));
  const index = path.join(home, 'agents/main/sessions/sessions.json');
  let keys = [];
  for (let i = 0; i < 100 && !keys.some((k) => k.endsWith(':thread:svc-m')); i++) {
    await new Promise((r) => setTimeout(r, 100));
    keys = existsSync(index) ? Object.keys(JSON.parse(readFileSync(index, 'utf8'))) : [];
  }
  assert.ok(keys.includes('agent:main:main:thread:svc-m'), `the sender's own session expected: ${keys}`);
  assert.ok(!keys.includes('agent:main:main'), `the owner's main session was used: ${keys}`);
});

test('callback: 202 at once, then the reply is POSTed, signed with the callback key, to callbackUrl', async () => {
  const received = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      received.push({ body: data, signature: req.headers['x-pincer-signature'], timestamp: req.headers['x-pincer-timestamp'] });
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
    const cb = received[0];
    assert.ok(Math.abs(Number(cb.timestamp) - Number(now())) <= 60, `callback timestamp ${cb.timestamp}`);
    assert.equal(cb.signature, 'sha256=' + hmac(callbackKey(), `${cb.timestamp}.${cb.body}`));
    assert.deepEqual(JSON.parse(cb.body), { conversationId: 'conv-9', text: 'Hello from the mock LLM. [wh-cb]' });
    // A captured callback is not a valid inbound request: posted back in, it is refused.
    const back = await send(base, cb.body, { 'content-type': 'application/json', 'x-pincer-timestamp': cb.timestamp,
      'x-pincer-signature': cb.signature });
    assert.equal(back.status, 401, JSON.stringify(back.json));
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(received.length, 1, 'the captured callback ran the agent');
  } finally {
    server.close();
  }
});

test('callback: a non-owner\'s command runs only after the owner answers its reply code', async () => {
  const received = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      received.push(JSON.parse(data));
      res.writeHead(200).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const waitText = async (needle) => {
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      const hit = received.find((m) => String(m.text).includes(needle));
      if (hit) return hit;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.fail(`no callback with "${needle}"; got ${JSON.stringify(received)}`);
  };
  try {
    const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
    homes.push(home);
    const base = await gateway({ secret: SECRET, mode: 'callback', callbackUrl: `http://127.0.0.1:${server.address().port}/hook` },
      home, `\n  commands: { ownerAllowFrom: ['webhook:ops-owner'] },`);
    let res = await fetch(`http://127.0.0.1:${mockPort}/__mock/reset?script=1`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 200);
    res = await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify([
      { toolCalls: [{ name: 'exec', arguments: { command: 'echo hook > hook-built.txt' } }] }, { text: 'WH BUILD DONE' }]) });
    assert.equal(res.status, 200);
    const built = path.join(home, 'workspace', 'hook-built.txt');
    assert.equal((await post(base, { text: 'please build', senderId: 'svc-9', conversationId: 'conv-build' })).status, 202);
    const asked = await waitText('Approval needed');
    assert.equal(asked.conversationId, 'conv-build');
    assert.ok(asked.text.includes('echo hook > hook-built.txt'), asked.text);
    const code = /code \**([a-z0-9]{6})/.exec(asked.text)?.[1];
    assert.ok(code, `no code in ${asked.text}`);
    assert.ok(!existsSync(built), 'nothing runs before the answer');

    assert.equal((await post(base, { text: `/approve ${code} once`, senderId: 'svc-9', conversationId: 'conv-build' })).status, 202);
    await waitText('Only the owner can answer approvals');
    assert.ok(!existsSync(built), 'svc-9 is not the owner');

    assert.equal((await post(base, { text: `/approve ${code} once`, senderId: 'ops-owner', conversationId: 'conv-ops' })).status, 202);
    const done = await waitText('WH BUILD DONE');
    assert.equal(done.conversationId, 'conv-build', 'the run answers where it started');
    assert.equal(readFileSync(built, 'utf8'), 'hook\n');
    await waitText('Approval approved once');
  } finally {
    server.close();
  }
});

test('/dreaming on|off is the owner\'s: it writes pincer.json, and the reload adds or removes the managed sweep job', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webhook-'));
  homes.push(home);
  const base = await gateway({ secret: SECRET, replyTimeoutSeconds: 20 }, home,
    `\n  commands: { ownerAllowFrom: ['webhook:ops-owner'] },\n  plugins: { entries: { 'memory-core': { config: { dreaming: { timezone: 'UTC' } } } } },`);
  const config = path.join(home, 'pincer.json');
  const jobs = path.join(home, 'cron', 'jobs.json');
  const before = readFileSync(config, 'utf8');
  let asked = 0;  // a messageId per request: the same body signed in the same second is a replay
  const ask = async (text, senderId) => {
    const r = await post(base, { text, senderId, messageId: `dream-${++asked}` });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json.reply;
  };
  const until = async (what, check) => {
    for (const end = Date.now() + 60000; !(await check());) {
      assert.ok(Date.now() < end, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const managedJobs = () => existsSync(jobs)
    ? JSON.parse(readFileSync(jobs, 'utf8')).jobs.filter((j) => j.declarationKey === 'memory-core:memory-dreaming-promotion')
    : [];

  assert.match(await ask('/dreaming on', 'svc-7'), /requires owner status/);
  assert.equal(readFileSync(config, 'utf8'), before, 'a sender who is not the owner changed nothing');
  assert.match(await ask('/dreaming status', 'svc-7'), /^Dreaming status:\n- enabled: off \(UTC\)/, 'anyone may look');

  const on = await ask('/dreaming on', 'ops-owner');
  assert.match(on, /^Dreaming enabled\.\n\nDreaming status:\n- enabled: on \(UTC\)\n- sweep cadence: 0 3 \* \* \*; next sweep /);
  const written = readFileSync(config, 'utf8');
  assert.match(written, /dreaming: \{[^}]*enabled: true/, written);
  assert.ok(written.includes("timezone: 'UTC'"), 'the rest of the block is kept as written');
  await until('the managed sweep job', () => managedJobs().length === 1);
  assert.equal(managedJobs()[0].schedule.expr, '0 3 * * *');
  await until('the reloaded status', async () => (await ask('/dreaming status', 'svc-7')).includes('enabled: on'));

  assert.match(await ask('/dreaming off', 'ops-owner'), /^Dreaming disabled\./);
  await until('the managed job to go', () => managedJobs().length === 0);
});
