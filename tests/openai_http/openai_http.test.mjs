// The OpenAI-compatible HTTP API end to end (IX-4, docs/interop.md): OpenAI's official Node SDK
// (`openai`, pinned in package.json, installed by setup.sh) against a real gateway whose agent
// answers from the mock LLM. Chat completions and responses, streamed and not; the model list;
// a wrong token (AuthenticationError); an endpoint that is off (404); the same `user` twice (the
// second turn's model request holds the first turn); a client that goes away mid-stream, or
// while it waits for a whole answer (its run is aborted: the session takes the next turn at once,
// the gateway stays healthy); errors in
// OpenAI's shape (400, 405, 413, a token in the query string).
//
//   node tests/openai_http/openai_http.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop, cleanEnv } from '../support/processes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/openai_http/openai_http.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
execFileSync(path.join(here, 'setup.sh'), { stdio: 'inherit' });
const require = createRequire(path.join(here, '.cache/node_modules/'));
const OpenAI = require('openai').default ?? require('openai');

const TOKEN = 'openai-http-test-token-0123456789abcdef';
const env = cleanEnv();
const homes = [];
const children = [];
let mockPort;
let mockBase;
let mockLog;  // the mock's request log: one JSON line per request, written when it arrives
let base;  // both endpoints on
let client;

async function gateway(endpoints) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-openai-http-'));
  homes.push(home);
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${TOKEN}' }, http: { endpoints: ${JSON.stringify(endpoints)} } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
}\n`);
  const gw = launch(pincer, ['gateway', 'run', '--port', '0'], { ...env, PINCER_HOME: home }, /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  children.push(gw.child);
  return `http://127.0.0.1:${(await gw.ready)[1]}`;
}

/// Resolves once the mock LLM has received a request whose body mentions `text` (fs.watch on its
/// log, no polling).
function mockReceived(text) {
  return new Promise((resolve) => {
    const seen = () => readFileSync(mockLog, 'utf8').includes(text);
    const watcher = watch(mockLog, () => {
      if (seen()) {
        watcher.close();
        resolve();
      }
    });
    if (seen()) {
      watcher.close();
      resolve();
    }
  });
}

/// The generation requests the mock LLM received whose messages mention `text`.
async function mockRequestsWith(text) {
  const all = await (await fetch(`${mockBase}/__mock/requests`)).json();
  return all.filter((r) => r.path.endsWith('/chat/completions') && JSON.stringify(r.body?.messages ?? []).includes(text));
}

before(async () => {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'pincer-openai-http-mock-'));
  homes.push(logDir);
  mockLog = path.join(logDir, 'requests.jsonl');
  writeFileSync(mockLog, '');
  const mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0', '--log', mockLog], env,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  children.push(mock.child);
  mockPort = Number((await mock.ready)[1]);
  mockBase = `http://127.0.0.1:${mockPort}`;
  base = await gateway({ chatCompletions: { enabled: true }, responses: { enabled: true } });
  client = new OpenAI({ apiKey: TOKEN, baseURL: `${base}/v1`, maxRetries: 0 });
});

after(async () => {
  for (const c of children.reverse()) await stop(c);
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

test('chat.completions, not streamed', async () => {
  const r = await client.chat.completions.create({ model: 'pincer', messages: [{ role: 'user', content: 'hello ECHO:c1' }] });
  assert.equal(r.object, 'chat.completion');
  assert.match(r.id, /^chatcmpl_/);
  assert.equal(r.model, 'pincer');
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].message.content, 'Hello from the mock LLM. [c1]');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.ok(r.usage.total_tokens > 0);
});

test('chat.completions, streamed', async () => {
  const stream = await client.chat.completions.create({
    model: 'pincer/main', stream: true, stream_options: { include_usage: true },
    // MOCK_SLOW: the mock's deltas 15 ms apart, so they reach the gateway in separate reads (a
    // read's deltas of one block are passed on as one).
    messages: [{ role: 'user', content: 'hello MOCK_SLOW:15 ECHO:c2' }],
  });
  let text = '';
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, 'Hello from the mock LLM. [c2]');
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length > 1, 'the reply arrives in several chunks');
  const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
  assert.equal(finish.length, 1);
  assert.equal(finish[0].choices[0].finish_reason, 'stop');
  assert.ok(chunks.at(-1).usage.total_tokens > 0, 'the usage chunk comes last');
});

test('responses, not streamed', async () => {
  const r = await client.responses.create({ model: 'openclaw', input: 'hello ECHO:r1' });
  assert.equal(r.object, 'response');
  assert.equal(r.status, 'completed');
  assert.equal(r.output_text, 'Hello from the mock LLM. [r1]');
});

test('responses, streamed: OpenAI\'s event sequence', async () => {
  const stream = await client.responses.create({ model: 'pincer', input: 'hello ECHO:r2', stream: true });
  const types = [];
  let deltas = '';
  let completed;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'response.output_text.delta') deltas += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added',
    'response.content_part.added']);
  assert.deepEqual(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done',
    'response.completed']);
  assert.equal(deltas, 'Hello from the mock LLM. [r2]');
  assert.equal(completed.output[0].content[0].text, deltas);
});

test('models.list: the agents as models', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, ['pincer', 'pincer/main']);
  const one = await client.models.retrieve('pincer/main');
  assert.equal(one.id, 'pincer/main');
  await assert.rejects(client.models.retrieve('gpt-4o'), (e) => e instanceof OpenAI.NotFoundError);
});

test('a wrong token is an AuthenticationError; no token either', async () => {
  const wrong = new OpenAI({ apiKey: 'not-the-token', baseURL: `${base}/v1`, maxRetries: 0 });
  await assert.rejects(wrong.chat.completions.create({ model: 'pincer', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.AuthenticationError && e.status === 401 && e.code === 'invalid_api_key');
  const res = await fetch(`${base}/v1/models`);
  assert.equal(res.status, 401);
  assert.equal((await res.json()).error.type, 'authentication_error');
});

test('the same user twice: the second turn sees the first', async () => {
  const first = await client.chat.completions.create({
    model: 'pincer', user: 'ctx-user', messages: [{ role: 'user', content: 'remember MARKER-ALPHA please' }],
  });
  assert.equal(first.choices[0].message.content, 'Hello from the mock LLM.');
  await client.chat.completions.create({ model: 'pincer', user: 'ctx-user', messages: [{ role: 'user', content: 'what did I say?' }] });
  const [second] = await mockRequestsWith('what did I say?');
  assert.ok(second, 'the second turn reached the model');
  // The first turn is in the second one's history: its user message and the reply.
  const text = (m) => JSON.stringify(m.content);
  assert.ok(second.body.messages.some((m) => m.role === 'user' && text(m).includes('remember MARKER-ALPHA please')),
    'the session kept the first question');
  assert.ok(second.body.messages.some((m) => m.role === 'assistant' && text(m).includes('Hello from the mock LLM.')),
    'the session kept the first answer');
  // Without `user`, each request is a session of its own: no earlier turn in its history (today's
  // memory notes may still mention the marker in the startup context).
  await client.chat.completions.create({ model: 'pincer', messages: [{ role: 'user', content: 'fresh question' }] });
  const [fresh] = await mockRequestsWith('fresh question');
  assert.ok(!fresh.body.messages.some((m) => m.role === 'assistant'), 'a fresh session has no history');
});

test('a client that goes away mid-stream ends its run', async () => {
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: 'pincer', user: 'abort-user', stream: true, messages: [{ role: 'user', content: 'wait MOCK_HOLD:abort1' }] },
    { signal: controller.signal });
  let seen = '';
  try {
    for await (const chunk of stream) {
      seen += chunk.choices[0]?.delta?.content ?? '';
      if (seen) controller.abort();  // half the reply is here; the mock holds the rest
    }
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIUserAbortError || e.name === 'AbortError', String(e));
  }
  assert.ok(seen.length > 0 && !seen.includes('mock LLM.'), `only the first deltas arrived: ${seen}`);
  // The held run was aborted: the session's next turn runs at once (it would wait behind the
  // held one otherwise), and the gateway answers as before.
  const next = await client.chat.completions.create({ model: 'pincer', user: 'abort-user', messages: [{ role: 'user', content: 'again ECHO:a2' }] });
  assert.equal(next.choices[0].message.content, 'Hello from the mock LLM. [a2]');
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
});

test('a client that goes away before a whole answer ends its run', async () => {
  const controller = new AbortController();
  const pending = client.chat.completions.create(
    { model: 'pincer', user: 'abort-whole', messages: [{ role: 'user', content: 'wait MOCK_HOLD:abort2' }] },
    { signal: controller.signal });
  await mockReceived('MOCK_HOLD:abort2');  // the run is at its model call, held by the mock
  controller.abort();
  await assert.rejects(pending, (e) => e instanceof OpenAI.APIUserAbortError);
  const next = await client.chat.completions.create({ model: 'pincer', user: 'abort-whole', messages: [{ role: 'user', content: 'again ECHO:a3' }] });
  assert.equal(next.choices[0].message.content, 'Hello from the mock LLM. [a3]');
});

test('errors in OpenAI\'s shape: 400, 404 model, 405, 413, a token in the query', async () => {
  await assert.rejects(client.chat.completions.create({ model: 'pincer', messages: [] }),
    (e) => e instanceof OpenAI.BadRequestError && /messages/.test(e.message));
  await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const get = await fetch(`${base}/v1/chat/completions`, { headers: auth });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  assert.equal((await get.json()).error.code, 'method_not_allowed');
  const bad = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: auth, body: '{nope' });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.message, 'the request body is not valid JSON');
  const big = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: auth,
    body: JSON.stringify({ model: 'pincer', messages: [{ role: 'user', content: 'x'.repeat(9 << 20) }] }) });
  assert.equal(big.status, 413);
  assert.equal((await big.json()).error.code, 'request_too_large');
  const query = await fetch(`${base}/v1/models?token=${TOKEN}`);
  assert.equal(query.status, 400);
  assert.equal((await query.json()).error.code, 'token_in_query');
});

test('an endpoint that is off answers 404', async () => {
  const only = await gateway({ responses: { enabled: true } });
  const c = new OpenAI({ apiKey: TOKEN, baseURL: `${only}/v1`, maxRetries: 0 });
  await assert.rejects(c.chat.completions.create({ model: 'pincer', messages: [{ role: 'user', content: 'x' }] }),
    (e) => e instanceof OpenAI.NotFoundError);
  const r = await c.responses.create({ model: 'pincer', input: 'hello ECHO:on' });
  assert.equal(r.output_text, 'Hello from the mock LLM. [on]');
  const off = await gateway({});
  const d = new OpenAI({ apiKey: TOKEN, baseURL: `${off}/v1`, maxRetries: 0 });
  await assert.rejects(d.responses.create({ model: 'pincer', input: 'x' }), (e) => e instanceof OpenAI.NotFoundError);
});
