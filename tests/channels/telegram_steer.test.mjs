// `messages.queue.mode: "steer"` end to end (SPEC QL-3, AG-4): the npm Bot API emulator
// `telegram-test-api` as Telegram, the real `pincer gateway run` binary long-polling it, the mock
// LLM as the model (scripted tool calls and slow streams).
//
//   tests/channels/setup.sh && node tests/channels/telegram_steer.test.mjs <pincer binary> <source dir>
//
// Covers: a message sent while a tool runs enters that run (the remaining tool call is skipped,
// the model sees the message, one reply answers both, no second run); a message sent while the
// model writes its final reply (no tool-call boundary left) is answered by a run of its own,
// exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '123456:TEST-token-for-the-emulator';
const OWNER = 1001;

const { pincer, srcDir } = testArguments('telegram_steer.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, mock, mockPort, gateway, home;

/// Bot messages sent to the owner's chat so far (the emulator's store), oldest first.
function botMessages() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && u.message.chat_id !== undefined && String(u.message.chat_id) === String(OWNER))
    .map((u) => u.message);
}
const replies = (msgs, needle) => msgs.filter((m) => String(m.text).includes(needle));

async function waitFor(predicate, what, ms = 20000) {
  const deadline = Date.now() + ms;
  let seen = [];
  while (Date.now() < deadline) {
    seen = botMessages();
    if (predicate(seen)) return seen;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(seen.map((m) => m.text))}\n${gateway.output().slice(-3000)}`);
}

async function mockCall(pathname, body) {
  const res = await fetch(`http://127.0.0.1:${mockPort}${pathname}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, `${pathname}: HTTP ${res.status}`);
  return res.json();
}

/// Waits until the mock LLM has received `n` generation requests.
async function waitForRequests(n, ms = 20000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await mockCall('/health')).requests >= n) return;
    await sleep(50);
  }
  assert.fail(`the model was not called ${n} time(s)\n${gateway.output().slice(-3000)}`);
}

/// The texts of the user messages of a recorded Chat Completions request.
function userTexts(request) {
  return request.body.messages.filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content
      : m.content.filter((b) => !String(b.text ?? '').startsWith('[Turn context]')).map((b) => b.text ?? '').join('')));
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-telegram-steer-'));
  const apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-steer-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  commands: { ownerAllowFrom: ['${OWNER}'] },  // the owner's commands run without approvals (TL-3)
  messages: { queue: { mode: 'steer' } },
  session: { dmScope: 'per-channel-peer' },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('steer: a message sent while a tool runs enters that run, and one reply answers both', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [
    { toolCalls: [{ name: 'exec', arguments: { command: 'sleep 3; echo slow-tool-done' } },
                  { name: 'exec', arguments: { command: 'echo skipped-tool-ran' } }] },
    { text: 'ONE REPLY FOR BOTH' },
  ]);
  await owner.sendMessage(owner.makeMessage('please run the slow tools'));
  await waitForRequests(1);
  await sleep(300);  // the first tool (3 s) is running now
  await owner.sendMessage(owner.makeMessage('STEER: also check the logs'));
  await waitFor((m) => replies(m, 'ONE REPLY FOR BOTH').length > 0, 'the steered reply');
  await sleep(1500);  // nothing else may follow
  assert.equal(replies(botMessages(), 'ONE REPLY FOR BOTH').length, 1);
  const requests = await mockCall('/__mock/requests');
  assert.equal(requests.length, 2, 'two model calls in one run: no followup run for the steered message');
  const second = requests[1];
  assert.deepEqual(userTexts(second), ['please run the slow tools', 'STEER: also check the logs']);
  const tools = second.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
  assert.equal(tools.length, 2, 'both tool calls have a result');
  assert.match(tools[0], /slow-tool-done/);
  assert.match(tools[1], /Skipped: the user sent a new message/);
  assert.ok(!JSON.stringify(second.body).includes('skipped-tool-ran\\n'), 'the skipped tool must not run');
});

test('steer: a message sent during the final reply runs as its own turn, exactly once', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  // 5 deltas, 400 ms apart: the model is writing its final reply (no tool calls) for 2 s.
  await mockCall('/__mock/script', [{ text: 'SLOW FINAL REPLY', delayMs: 400 }, { text: 'REPLY TO THE LATE ONE' }]);
  await owner.sendMessage(owner.makeMessage('a plain question'));
  await waitForRequests(1);
  await sleep(300);
  await owner.sendMessage(owner.makeMessage('a late remark'));
  await waitFor((m) => replies(m, 'REPLY TO THE LATE ONE').length > 0, 'the followup reply');
  await sleep(1500);
  const msgs = botMessages();
  assert.equal(replies(msgs, 'SLOW FINAL REPLY').length, 1);
  assert.equal(replies(msgs, 'REPLY TO THE LATE ONE').length, 1, 'the late message must be answered exactly once');
  const requests = await mockCall('/__mock/requests');
  assert.equal(requests.length, 2);
  assert.ok(!userTexts(requests[0]).includes('a late remark'));
  assert.equal(userTexts(requests[1]).at(-1), 'a late remark');
});
