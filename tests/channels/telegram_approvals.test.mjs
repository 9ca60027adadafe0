// Exec approvals in the chat a run came from (SPEC TL-3), end to end: the npm Bot API emulator
// `telegram-test-api` as Telegram, the real `pincer gateway run` binary, the mock LLM scripting
// an `exec` call.
//
//   tests/channels/setup.sh && node tests/channels/telegram_approvals.test.mjs <pincer binary> <source dir>
//
// Covers the defaults of issue 14's "Done when": a command asked for by a group member who is not
// the owner waits; the bot posts it (command, cwd) with a code in that group; the member cannot
// approve it; the owner's `/approve <code> once` there runs it, and the run finishes. The owner's own
// command runs without being asked. The request carries inline buttons (OpenClaw's callback data
// `tga1:e:<o|a|d>:<id>`): a member's press is refused, the owner's press decides, every press is
// answered (answerCallbackQuery), and the request's message is edited to show the decision.
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
/// The bot's messages in `chatId` with their message ids (the emulator keeps the id beside the message).
function botUpdates(chatId) {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && u.message.chat_id !== undefined && String(u.message.chat_id) === String(chatId));
}

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

async function waitUntil(predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = predicate();
    if (v) return v;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}; answers: ${JSON.stringify(server.callbackAnswers)}; bot sent: ${
    JSON.stringify(botUpdates(GROUP).map((u) => u.message.text))}\n${gateway.output().slice(-3000)}`);
}

/// Asks for `command` from the member in the group and returns {update, buttons} of the request.
async function askFromMember(command, after) {
  const member = server.getClient(BOT_TOKEN, { userId: MEMBER, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: 'Member' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [{ toolCalls: [{ name: 'exec', arguments: { command } }] }, { text: after }]);
  const before = botUpdates(GROUP).length;
  await member.sendMessage(member.makeMessage(`please run ${command}`));
  const update = await waitUntil(() => botUpdates(GROUP).slice(before).find((u) => String(u.message.text).includes('Approval needed')),
    'the approval request');
  const keyboard = update.message.reply_markup?.inline_keyboard;
  assert.ok(Array.isArray(keyboard), `no inline keyboard: ${JSON.stringify(update.message)}`);
  const buttons = keyboard.flat();
  return { update, buttons };
}

function press(userId, update, data) {
  const client = server.getClient(BOT_TOKEN, { userId, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: `u${userId}` });
  return client.sendCallback(client.makeCallbackQuery(data, { message: { message_id: update.messageId } }));
}

test('the request\'s buttons: a member\'s press is refused, the owner\'s "Allow once" runs it and the message shows it', async () => {
  const { update, buttons } = await askFromMember('echo pressed > pressed.txt', 'PRESSED DONE');
  assert.deepEqual(buttons.map((b) => b.text), ['Allow once', 'Allow always', 'Deny']);
  const once = buttons[0].callback_data;
  assert.match(once, /^tga1:e:o:[0-9a-f-]{36}$/);
  assert.equal(buttons[1].callback_data, once.replace('tga1:e:o:', 'tga1:e:a:'));
  assert.equal(buttons[2].callback_data, once.replace('tga1:e:o:', 'tga1:e:d:'));

  const answered = server.callbackAnswers.length;
  await press(MEMBER, update, once);
  await waitUntil(() => server.callbackAnswers.length > answered, 'the answer to the member\'s press');
  assert.match(server.callbackAnswers[answered].text, /Only the owner/);
  assert.ok(!existsSync(path.join(home, 'workspace', 'pressed.txt')), 'the member cannot approve');

  await press(OWNER, update, once);
  await waitFor(GROUP, (m) => replies(m, 'PRESSED DONE').length > 0, 'the reply after the press');
  assert.equal(readFileSync(path.join(home, 'workspace', 'pressed.txt'), 'utf8'), 'pressed\n');
  await waitUntil(() => server.callbackAnswers.length > answered + 1, 'the answer to the owner\'s press');
  assert.equal(server.callbackAnswers[answered + 1].text, 'Approved once.');
  assert.ok(server.callbackAnswers.every((a) => a.callback_query_id), JSON.stringify(server.callbackAnswers));
  const edited = await waitUntil(() => {
    const u = botUpdates(GROUP).find((x) => x.messageId === update.messageId);
    return u && String(u.message.text).includes('Approval approved once by telegram:1001') && u;
  }, 'the request edited to show the decision');
  assert.ok(String(edited.message.text).includes('echo pressed'), 'the edit keeps the command');
});

test('the owner\'s "Deny" press refuses the command and the message says so', async () => {
  const { update, buttons } = await askFromMember('echo denied > denied.txt', 'DENIED DONE');
  await press(OWNER, update, buttons.find((b) => b.text === 'Deny').callback_data);
  await waitFor(GROUP, (m) => replies(m, 'DENIED DONE').length > 0, 'the reply after the refusal');
  assert.ok(!existsSync(path.join(home, 'workspace', 'denied.txt')), 'a denied command never runs');
  await waitUntil(() => {
    const u = botUpdates(GROUP).find((x) => x.messageId === update.messageId);
    return u && String(u.message.text).includes('Approval denied');
  }, 'the request edited to show the refusal');
  const calls = await mockCall('/__mock/requests');
  assert.ok(JSON.stringify(calls).includes('refused'), 'the model is told the command was refused');
});
