// A gateway killed with SIGKILL in the middle of delivering a reply (issue #5 §4, §6; SPEC CH-4,
// SS-6; LESSONS "no duplicate, no loss"): the real `pincer gateway run` against the npm Bot API
// emulator `telegram-test-api`, through a small proxy that holds the third message of a long
// reply (three chunks; or a streamed preview and two chunks) so that the kill lands while it is
// in flight. After a restart the reply must be complete, in order, with no chunk twice, and the
// model must not be asked again.
//
//   tests/channels/setup.sh && node tests/channels/telegram_crash.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '333333:crash-test-token-for-the-emulator';
const OWNER = 1001;

const { pincer, srcDir } = testArguments('telegram_crash.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, proxy, proxyPort, mock, mockPort, gateway, home;

// The proxy: forwards every Bot API call to the emulator, except that while `hold.armed` it
// keeps the third sendMessage of the long reply unanswered (and never forwards it).
const hold = { armed: false, sends: 0, caught: null, resolve: null };
function startProxy() {
  proxy = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', async () => {
      const body = Buffer.concat(parts);
      if (hold.armed && req.url.endsWith('/sendMessage') && body.toString().includes('quick brown fox')) {
        hold.sends += 1;
        if (hold.sends === 3) {
          hold.caught = body.toString();
          hold.resolve?.();
          return;  // in flight forever: the gateway dies waiting for it
        }
      }
      try {
        const answer = await fetch(`http://127.0.0.1:${apiPort}${req.url}`, {
          method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body: req.method === 'GET' ? undefined : body,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (e) {
        res.writeHead(502).end(String(e));
      }
    });
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy.address().port)));
}

function startGateway() {
  gateway = launchGateway(pincer, env, home);
  return gateway.ready;
}

/// The bot's messages in the owner's chat with the fox text, as the emulator holds them now.
function foxMessages() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(OWNER) && String(u.message.text).includes('quick brown fox'))
    .map((u) => u.message);
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-crash-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  proxyPort = await startProxy();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-crash-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${proxyPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  await startGateway();
});

after(async () => {
  proxy?.closeAllConnections?.();
  proxy?.close();
  await tearDown({ gateway, mock, server, home });
});

test('SIGKILL while a chunk is in flight: after a restart the reply is complete, in order, once', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  hold.armed = true;
  const caught = new Promise((resolve) => { hold.resolve = resolve; });
  await owner.sendMessage(owner.makeMessage('write a lot MOCK_LONG:10000'));
  let timer;
  await Promise.race([caught, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the third message never came\n${gateway.output().slice(-3000)}`)), 30000);
  })]);
  clearTimeout(timer);
  const beforeKill = foxMessages();
  assert.ok(beforeKill.length >= 2, 'the first chunks should have arrived before the kill');
  const modelCalls = (await (await fetch(`http://127.0.0.1:${mockPort}/health`)).json()).requests;

  await stop(gateway.child, 'SIGKILL');
  hold.armed = false;
  proxy.closeAllConnections();  // the held request dies with its client
  await startGateway();

  const full = 'The quick brown fox jumps over the lazy dog. ';  // the mock's filler (MOCK_LONG)
  const want = full.repeat(Math.ceil(10000 / full.length)).slice(0, 10000).replace(/\s+/g, '');
  const deadline = Date.now() + 30000;
  let joined = '';
  while (Date.now() < deadline && joined.length < want.length) {
    joined = foxMessages().map((m) => m.text).join('').replace(/\s+/g, '');
    await sleep(100);
  }
  await sleep(1500);  // anything sent twice would arrive now
  const msgs = foxMessages();
  joined = msgs.map((m) => m.text).join('').replace(/\s+/g, '');
  // The text is one sentence repeated: a missing, repeated or reordered chunk changes the text.
  assert.equal(joined, want, `reply incomplete or repeated: ${msgs.length} messages, ${joined.length} of ${want.length} characters`);
  const after = (await (await fetch(`http://127.0.0.1:${mockPort}/health`)).json()).requests;
  assert.equal(after, modelCalls, 'the model was asked again after the restart');
  assert.match(gateway.output(), /outbox: resuming reply/);
});
