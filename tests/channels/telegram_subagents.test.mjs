// A subagent's result in a real chat (issue 16 item 3; SPEC MA-3): the owner writes to the bot in
// the npm Bot API emulator `telegram-test-api`; the mock LLM calls sessions_spawn; the child runs
// in its own session and ends; its result is announced into the owner's session, and the reply of
// that announce turn reaches the owner's chat, once. The child's keywords are JSON-escaped in the
// tool arguments (\u0045CHO) so that only the child's (and the announce's) text carries them.
// No fixed sleeps: every wait is for what the chat shows, with a deadline.
//
//   tests/channels/setup.sh && node tests/channels/telegram_subagents.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../support/processes.mjs';
import { botTextsIn, countContaining, freePort, launchGateway, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';

const BOT_TOKEN = '777777:subagents-test-token-for-the-emulator';
const OWNER = 1006;

const { pincer, srcDir } = testArguments('telegram_subagents.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, gateway, home;

const botTexts = (chat) => botTextsIn(server, BOT_TOKEN, chat);
const waitFor = (predicate, what, ms) => waitUntil(predicate, what, () => `owner chat: ${JSON.stringify(botTexts(OWNER))}\n` +
  gateway.output().slice(-3000), ms);

const count = countContaining;

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tgsub-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  let mockPort;
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-subagents-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('the announce turn of a subagent result answers in the chat that spawned it, once', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const spawn = '{"task":"look it up \\u0045CHO:kidtg","label":"\\u0045CHO:tgdone"}';
  await owner.sendMessage(owner.makeMessage(`research this MOCK_TOOL:sessions_spawn:${spawn}`));
  await waitFor(() => botTexts(OWNER).some((t) => t.startsWith('Tool said:')), 'the answer of the spawning turn');
  await waitFor(() => count(botTexts(OWNER), '[tgdone]') === 1, 'the announce turn\'s reply in the chat');
  const reply = botTexts(OWNER).find((t) => t.includes('[tgdone]'));
  assert.doesNotMatch(reply, /Subagent result|session_key/, `internal details stay out of the chat: ${reply}`);
  // A later message is answered after anything else the announce might still send.
  await owner.sendMessage(owner.makeMessage('ok ECHO:later'));
  await waitFor(() => botTexts(OWNER).some((t) => t.includes('[later]')), 'the answer to the next message');
  assert.equal(count(botTexts(OWNER), '[tgdone]'), 1, JSON.stringify(botTexts(OWNER)));
  assert.equal(count(botTexts(OWNER), '[kidtg]'), 0, `the child's own reply is not sent to the chat: ${JSON.stringify(botTexts(OWNER))}`);
});
