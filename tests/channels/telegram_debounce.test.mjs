// Inbound debounce (`messages.inbound`, src/channels/inbound_debounce.h) end to end: the real
// `pincer gateway run` long-polling the npm Bot API emulator `telegram-test-api`, the mock LLM as the
// model. `messages.queue.mode` is `followup` throughout, so that every message the debounce lets
// through alone is a run of its own.
//
//   tests/channels/setup.sh && node tests/channels/telegram_debounce.test.mjs <pincer binary> <source dir>
//
// Covers: three quick lines become one run whose prompt holds all three (joined with newlines) and
// one reply; a slash command is not held (with a 10-minute window it is answered at once, after the
// line held before it, which it lets go first), `/stop` drops the held lines; with the window 0 each
// line is its own run; lines held when the gateway is killed (SIGKILL) are answered after the
// restart, once, as one run. No timing asserts: a message sent after an answer is the fence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '555555:debounce-test-token-for-the-emulator';
const OWNER = 1001;
const TEN_MINUTES = 600000;

const { pincer, srcDir } = testArguments('telegram_debounce.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home, owner;

/// (Re)starts the gateway with `messages.inbound` = `inbound`.
async function startGateway(inbound) {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-debounce-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  messages: { queue: { mode: 'followup' }, inbound: ${JSON.stringify(inbound)} },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'], streaming: 'off',
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
}

/// The texts the bot sent to the owner, oldest first.
const botTexts = () => server.getUpdatesHistory(BOT_TOKEN)
  .filter((u) => u.message && String(u.message.chat_id) === String(OWNER)).map((u) => String(u.message.text));

async function waitForText(needle, what, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (botTexts().some((t) => t.includes(needle))) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(botTexts())}\n${gateway.output().slice(-3000)}`);
}

const mockCall = async (p, method = 'GET') => (await fetch(`http://127.0.0.1:${mockPort}${p}`, { method })).json();

/// The last user message of each model request since the last reset, oldest first.
async function prompts() {
  const userText = (m) => (typeof m.content === 'string' ? m.content
    : m.content.filter((b) => !String(b.text ?? '').startsWith('[Turn context]')).map((b) => b.text ?? '').join(''));
  return (await mockCall('/__mock/requests')).map((r) => userText(r.body.messages.filter((m) => m.role === 'user').at(-1)));
}

const send = (text) => owner.sendMessage(owner.makeMessage(text));

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-telegram-debounce-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
});

after(() => tearDown({ gateway, mock, server, home }));

test('three quick lines from one sender become one run with all three', async () => {
  await startGateway({ byChannel: { telegram: 2000 } });
  await mockCall('/__mock/reset', 'POST');
  await send('hi');
  await send('can you');
  await send('check the logs ECHO:burst');
  await waitForText('[burst]', 'the answer to the burst');
  await send('ECHO:fence1');  // answered after anything else the burst could have started
  await waitForText('[fence1]', 'the answer to the fence');
  assert.deepEqual(await prompts(), ['hi\ncan you\ncheck the logs ECHO:burst', 'ECHO:fence1']);
  assert.equal(botTexts().filter((t) => t.includes('[burst]')).length, 1, 'one reply to the burst');
  await stop(gateway.child);
});

test('a slash command is not held: it lets the held lines go first; /stop drops them', async () => {
  await startGateway({ debounceMs: 0, byChannel: { telegram: TEN_MINUTES } });
  await mockCall('/__mock/reset', 'POST');
  // With a 10-minute window only the command can let the line go (the test would time out otherwise).
  await send('wait for me ECHO:held');
  await send('/status');
  await waitForText('session', 'the /status answer');
  await waitForText('[held]', 'the answer to the line held before the command');
  // /stop drops what its session holds; the next held line runs alone.
  await send('drop me ECHO:dropped');
  await send('/stop');
  await waitForText('Nothing to stop', 'the /stop answer');
  await send('after the stop ECHO:after');
  await send('/help');
  await waitForText('[after]', 'the answer to the line after /stop');
  assert.deepEqual(await prompts(), ['wait for me ECHO:held', 'after the stop ECHO:after']);
  assert.ok(!botTexts().some((t) => t.includes('[dropped]')), 'the line /stop dropped is not answered');
  await stop(gateway.child);
});

test('with the window 0 each line is its own run', async () => {
  await startGateway({ debounceMs: 2000, byChannel: { telegram: 0 } });  // byChannel wins
  await mockCall('/__mock/reset', 'POST');
  await send('one ECHO:a');
  await send('two ECHO:b');
  await send('three ECHO:c');
  for (const tag of ['[a]', '[b]', '[c]']) await waitForText(tag, `the answer ${tag}`);
  assert.deepEqual(await prompts(), ['one ECHO:a', 'two ECHO:b', 'three ECHO:c']);
  await stop(gateway.child);
});

test('lines held when the gateway is killed are answered once after the restart, as one run', async () => {
  await startGateway({ byChannel: { telegram: TEN_MINUTES } });
  await mockCall('/__mock/reset', 'POST');
  await send('first line');
  await send('second line ECHO:crash');
  // Held (a 10-minute window) and acknowledged to Telegram: the next getUpdates offset passed them,
  // which Pincer sends only once they are in its run journal.
  const last = Math.max(...server.storage.userMessages.filter((u) => u.botToken === BOT_TOKEN).map((u) => u.updateId));
  const deadline = Date.now() + 40000;
  while ((server.offsets.get(BOT_TOKEN) ?? 0) <= last) {
    if (Date.now() > deadline) assert.fail(`the lines were not acknowledged\n${gateway.output().slice(-3000)}`);
    await sleep(50);
  }
  assert.equal((await mockCall('/health')).requests, 0, 'still held: no run yet');
  await stop(gateway.child, 'SIGKILL');
  await startGateway({ byChannel: { telegram: 2000 } });
  await waitForText('[crash]', 'the answer to the held lines after the restart');
  await send('ECHO:fence2');
  await waitForText('[fence2]', 'the answer to the fence');
  assert.deepEqual(await prompts(), ['first line\nsecond line ECHO:crash', 'ECHO:fence2']);
  assert.equal(botTexts().filter((t) => t.includes('[crash]')).length, 1, 'answered once');
});
