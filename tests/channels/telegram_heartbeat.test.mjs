// The heartbeat's delivery (AT-1; docs/automation.md "The heartbeat") through the real
// `pincer gateway run` and the npm Bot API emulator `telegram-test-api`: the owner writes once
// (the agent's last chat); the heartbeat is then turned on by editing pincer.json (hot reload)
// with a short `every`. An acknowledgement (HEARTBEAT_OK) never reaches the chat; a reply that is
// not one is delivered to that chat (target "last"). The mock LLM answers the heartbeat prompt's
// ECHO keyword. No fixed sleeps: every wait is for what the chat or the mock shows.
//
//   tests/channels/setup.sh && node tests/channels/telegram_heartbeat.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '555556:heartbeat-test-token-for-the-emulator';
const OWNER = 1003;

const { pincer, srcDir } = testArguments('telegram_heartbeat.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;

function writeConfig(heartbeat) {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-heartbeat-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' }, heartbeat: ${heartbeat} } },
  session: { dmScope: 'per-channel-peer' },  // the owner's own session: never steered into a beat's turn
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
}

function botTexts() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(OWNER))
    .map((u) => String(u.message.text));
}

/// The user messages of the mock's chat requests that carry `marker`.
async function mockRequestsWith(marker) {
  const res = await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`);
  const all = await res.json();
  return all.filter((r) => JSON.stringify(r.body?.messages ?? []).includes(marker)).length;
}

async function waitFor(check, what, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(botTexts())}\n${gateway.output().slice(-3000)}`);
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tghb-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'HEARTBEAT.md'), '# Heartbeat\n- Tell me when the build breaks\n');
  writeConfig("{ every: '0m' }");
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('an acknowledgement stays quiet; an alert is delivered to the last chat', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('hello ECHO:first'));
  await waitFor(() => botTexts().includes('Hello from the mock LLM. [first]'), 'the answer to the first message');

  // On, with a prompt the mock answers "Hello from the mock LLM. [HEARTBEAT_OK]": an acknowledgement.
  writeConfig("{ every: '1s', prompt: 'Heartbeat quiet-check ECHO:HEARTBEAT_OK' }");
  await waitFor(async () => (await mockRequestsWith('quiet-check')) >= 2, 'two heartbeat turns');
  // A message after them is answered after anything those beats could have sent.
  await owner.sendMessage(owner.makeMessage('still there? ECHO:second'));
  await waitFor(() => botTexts().includes('Hello from the mock LLM. [second]'), 'the answer to the second message');
  assert.deepEqual(botTexts().filter((t) => t.includes('HEARTBEAT_OK') || t.includes('[HEARTBEAT')), [],
    `no acknowledgement in the chat: ${JSON.stringify(botTexts())}`);

  // A reply that is not an acknowledgement goes to the chat the agent last heard from.
  writeConfig("{ every: '1s', prompt: 'Heartbeat alert-check ECHO:build-broken' }");
  await waitFor(() => botTexts().includes('Hello from the mock LLM. [build-broken]'), 'the alert in the chat');
  writeConfig("{ every: '0m' }");
});
