// The run journal with a real chat (issue 15 items 6-7; SPEC SS-6): the real `pincer gateway run`
// against the npm Bot API emulator `telegram-test-api` is killed with SIGKILL while the model is
// half-way through a reply that already shows as a live preview (streaming "partial", the
// default). After a restart the message is answered in the same chat, exactly once: the preview is
// edited into the complete reply (no second message), and the model is asked once more, not twice.
// The mock LLM's MOCK_HOLD gate says when the reply is half-streamed (no timing).
//
//   tests/channels/setup.sh && node tests/channels/telegram_journal.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '444444:journal-test-token-for-the-emulator';
const OWNER = 1001;
const FILLER = 'The quick brown fox jumps over the lazy dog. ';  // the mock's MOCK_LONG text

const { pincer, srcDir } = testArguments('telegram_journal.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;

function startGateway() {
  gateway = launchGateway(pincer, env, home);
  return gateway.ready;
}

/// The bot's messages in the owner's chat (edits applied), oldest first.
function botMessages() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(OWNER))
    .map((u) => u.message);
}

async function waitFor(predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const seen = botMessages();
    if (await predicate(seen)) return seen;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(botMessages().map((m) => m.text))}\n` +
    `${gateway.output().slice(-3000)}`);
}

const mockJson = async (p, method = 'GET') => (await fetch(`http://127.0.0.1:${mockPort}${p}`, { method })).json();

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-journal-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-journal-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  await startGateway();
});

after(() => tearDown({ gateway, mock, server, home }));

test('SIGKILL while the model writes a reply: after a restart it is answered once, in the same chat', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('tell me a story MOCK_LONG:600 MOCK_HOLD:tgk9'));
  // Half-way: the model waits at the hold, and the preview of its first 64 characters is in the chat.
  await waitFor(async (seen) => {
    const holds = await mockJson('/__mock/holds');
    return (holds.tgk9?.waiting ?? 0) >= 1 && seen.some((m) => String(m.text).includes('quick brown fox'));
  }, 'the held, previewed reply');
  assert.equal(botMessages().length, 1, 'one preview message before the kill');

  await stop(gateway.child, 'SIGKILL');
  await mockJson('/__mock/release?name=tgk9', 'POST');  // the rerun streams through
  await startGateway();

  const want = FILLER.repeat(Math.ceil(600 / FILLER.length)).slice(0, 600).replace(/\s+/g, '');
  await waitFor((seen) => seen.map((m) => String(m.text)).join('').replace(/\s+/g, '') === want,
    'the complete reply');
  // A later message is answered after anything the restart might have queued for the first one
  // (one session, one run at a time): once its answer is here, a second answer would be too.
  await owner.sendMessage(owner.makeMessage('and now? ECHO:after'));
  const seen = await waitFor((s) => s.some((m) => String(m.text).includes('[after]')), 'the answer to the next message');
  const fox = seen.filter((m) => String(m.text).includes('quick brown fox'));
  assert.equal(fox.length, 1, `the reply must be one message (the preview edited), got ${fox.length}`);
  assert.equal(String(fox[0].text).replace(/\s+/g, ''), want);
  assert.equal(seen.length, 2, `two bot messages in all, got ${JSON.stringify(seen.map((m) => m.text))}`);
  assert.equal((await mockJson('/health')).requests, 3, 'the cut request, its rerun, the next message');
  assert.match(gateway.output(), /answering message \S+ from before the restart/);
});
