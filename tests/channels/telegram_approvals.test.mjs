// Exec approvals in the chat a run came from (SPEC TL-3), end to end: the npm Bot API emulator
// `telegram-test-api` as Telegram, the real `pincer gateway run` binary, the mock LLM scripting
// an `exec` call.
//
//   tests/channels/setup.sh && node tests/channels/telegram_approvals.test.mjs <pincer binary> <source dir>
//
// Covers the defaults of issue 14's "Done when": a command asked for by a group member who is not
// the owner waits; the bot posts it (command, cwd) with a code in that group; the member cannot
// approve it; the owner's `/approve <code> once` there runs it, and the run finishes. The owner's own
// command runs without being asked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '123456:TEST-token-for-the-emulator';
const OWNER = 1001;
const MEMBER = 2002;
const GROUP = -100900;

const { pincer, srcDir } = testArguments('telegram_approvals.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, mock, mockPort, gateway, home;

function botMessages(chatId) {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && u.message.chat_id !== undefined && String(u.message.chat_id) === String(chatId))
    .map((u) => u.message);
}
const replies = (msgs, needle) => msgs.filter((m) => String(m.text).includes(needle));

async function waitFor(chatId, predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  let seen = [];
  while (Date.now() < deadline) {
    seen = botMessages(chatId);
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

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-telegram-approvals-'));
  const apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-approvals-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  commands: { ownerAllowFrom: ['telegram:${OWNER}'] },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}', '${MEMBER}'],
    groupPolicy: 'open', groups: { '*': { requireMention: false } },
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('a group member\'s command runs only after the owner approves it in that group', async () => {
  const member = server.getClient(BOT_TOKEN, { userId: MEMBER, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: 'Member' });
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [
    { toolCalls: [{ name: 'exec', arguments: { command: 'echo built > built.txt' } }] },
    { text: 'BUILD DONE' },
  ]);
  await member.sendMessage(member.makeMessage('please build it'));
  const asked = await waitFor(GROUP, (m) => replies(m, 'Approval needed').length > 0, 'the approval request');
  const text = replies(asked, 'Approval needed')[0].text;
  assert.match(text, /echo built &gt; built\.txt|echo built > built\.txt/);
  assert.ok(text.includes(path.join(home, 'workspace')) || text.includes('workspace'), text);
  const code = /code <b>([a-z0-9]{6})<\/b>/.exec(text)?.[1];
  assert.ok(code, `no code in ${text}`);
  assert.ok(!existsSync(path.join(home, 'workspace', 'built.txt')), 'nothing runs before the answer');

  await member.sendMessage(member.makeMessage(`/approve ${code} once`));
  await waitFor(GROUP, (m) => replies(m, 'Only the owner can answer approvals').length > 0, 'the refusal of the member');
  assert.ok(!existsSync(path.join(home, 'workspace', 'built.txt')), 'the member cannot approve');

  await owner.sendMessage(owner.makeMessage(`/approve ${code} once`));
  await waitFor(GROUP, (m) => replies(m, 'BUILD DONE').length > 0, 'the reply after the approval');
  assert.equal(readFileSync(path.join(home, 'workspace', 'built.txt'), 'utf8'), 'built\n');
  assert.ok(replies(botMessages(GROUP), 'Approval approved once').length === 1);
});

test('the owner\'s own command is not asked', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [
    { toolCalls: [{ name: 'exec', arguments: { command: 'echo mine > mine.txt' } }] },
    { text: 'MINE DONE' },
  ]);
  await owner.sendMessage(owner.makeMessage('run mine'));
  await waitFor(OWNER, (m) => replies(m, 'MINE DONE').length > 0, 'the owner\'s reply');
  assert.equal(replies(botMessages(OWNER), 'Approval needed').length, 0);
  assert.equal(readFileSync(path.join(home, 'workspace', 'mine.txt'), 'utf8'), 'mine\n');
});
