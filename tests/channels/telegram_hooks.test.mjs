// A webhook's turn answered in a Telegram chat (issue 15, AT-3): a program POSTs to the gateway's
// `/hooks/agent` with the hook token (plain HTTP, as curl would), naming `channel: "telegram"` and
// the owner's chat; the real `pincer gateway run` runs the isolated turn on the mock LLM and
// announces its reply in that chat of the npm Bot API emulator `telegram-test-api`; with
// `channel: "last"` the reply goes to the chat the agent last heard from; `deliver: false` sends
// nothing. No fixed sleeps: every wait is for what the chat shows, with a generous deadline.
//
//   tests/channels/setup.sh && node tests/channels/telegram_hooks.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '555556:hooks-test-token-for-the-emulator';
const HOOK_TOKEN = 'hook-token-for-the-telegram-test-0123';
const OWNER = 1003;

const { pincer, srcDir } = testArguments('telegram_hooks.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, gateway, gatewayPort, home;

function botTexts() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(OWNER))
    .map((u) => String(u.message.text));
}

async function waitFor(predicate, what, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const seen = botTexts();
    if (predicate(seen)) return seen;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(botTexts())}\n${gateway.output().slice(-3000)}`);
}

async function hook(body) {
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/hooks/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  assert.equal(res.status, 200, JSON.stringify(answer));
  assert.match(answer.runId, /^hook-/);
  return answer;
}

const said = (marker) => (seen) => seen.filter((t) => t === `Hello from the mock LLM. [${marker}]`).length;

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tghooks-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  let mockPort;
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-hooks-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' }, heartbeat: { every: '0m' } } },
  hooks: { enabled: true, token: '${HOOK_TOKEN}' },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  gatewayPort = Number((await gateway.ready)[1]);
});

after(() => tearDown({ gateway, mock, server, home }));

test('a hook names the Telegram chat: its reply arrives there', async () => {
  await hook({ message: 'New order #17 ECHO:order-17', name: 'Shop', channel: 'telegram', to: String(OWNER) });
  await waitFor((seen) => said('order-17')(seen) === 1, 'the hook reply in the chat');
});

test('channel last: the chat the agent last heard from; deliver false: nothing', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('hi ECHO:hi'));
  await waitFor((seen) => said('hi')(seen) === 1, 'the answer to the owner');
  await hook({ message: 'Quiet one ECHO:quiet', deliver: false });
  await hook({ message: 'Build failed ECHO:build' });  // channel defaults to last
  const seen = await waitFor((s) => said('build')(s) === 1, 'the hook reply in the last chat');
  assert.equal(said('quiet')(seen), 0, `deliver:false sent nothing: ${JSON.stringify(seen)}`);
});
