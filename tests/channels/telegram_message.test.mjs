// The `message` tool with a real chat (issue 16 item 5; SPEC TL-1): the owner writes to the bot in
// the npm Bot API emulator `telegram-test-api`; the mock LLM calls `message` twice — once without a
// target (this chat) and once to another chat of the same bot — and once for a channel that is not
// configured (refused). The real `pincer gateway run` is killed with SIGKILL while the model is
// held after the tool calls; after a restart the turn is answered and each message is in its chat
// exactly once (the outbox records a message before it is sent, the tool records each call).
// The same call made twice in one turn sends one message. And the announce step of sessions_send
// (MA-2) posts the target's announcement in the chat of the target session (here: the main
// session, whose chat is the one the agent last heard from), once.
// No fixed sleeps: every wait is for what the chats show or the mock's hold, with a deadline.
//
//   tests/channels/setup.sh && node tests/channels/telegram_message.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { botTextsIn, countContaining, freePort, launchGateway, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';

const BOT_TOKEN = '666666:message-test-token-for-the-emulator';
const OWNER = 1004;
const TEAM = 1005;  // another chat the bot can write to

const { pincer, srcDir } = testArguments('telegram_message.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;

let gatewayPort = 0;

async function startGateway() {
  gateway = launchGateway(pincer, env, home);
  gatewayPort = Number((await gateway.ready)[1]);
}

const botTexts = (chat) => botTextsIn(server, BOT_TOKEN, chat);
const waitFor = (predicate, what, ms) => waitUntil(predicate, what, () => `owner chat: ${JSON.stringify(botTexts(OWNER))}, team chat: ${JSON.stringify(botTexts(TEAM))}\n` +
  gateway.output().slice(-3000), ms);

const mockJson = async (p, method = 'GET', body) =>
  (await fetch(`http://127.0.0.1:${mockPort}${p}`, { method, body, headers: { 'content-type': 'application/json' } })).json();
const count = countContaining;

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tgmsg-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-message-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  tools: { alsoAllow: ['message'] },  // group:messaging is not in the default coding profile
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  },
  // Configured but never running: nothing listens on port 1.
  irc: { host: '127.0.0.1', port: 1, tls: false, nick: 'pincer', channels: ['#ops'] } },
}\n`);
  await startGateway();
});

after(() => tearDown({ gateway, mock, server, home }));

test('message sends to this chat and another, refuses an unconfigured channel, once across a SIGKILL', async () => {
  // The first request answers with the tool calls (keywords), the one after the results is held.
  await mockJson('/__mock/script', 'POST', JSON.stringify([{}, { hold: 'tgmsg' }]));
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const here = JSON.stringify({ message: 'Deploy finished [m1]' });
  const team = JSON.stringify({ channel: 'telegram', target: String(TEAM), message: 'Note for the team [m2]' });
  const slack = JSON.stringify({ channel: 'slack', target: 'C1', message: 'nowhere [m3]' });
  await owner.sendMessage(owner.makeMessage(`tell them MOCK_TOOL:message:${here} MOCK_TOOL:message:${team} MOCK_TOOL:message:${slack}`));

  await waitFor(async () => count(botTexts(OWNER), '[m1]') === 1 && count(botTexts(TEAM), '[m2]') === 1 &&
    ((await mockJson('/__mock/holds')).tgmsg?.waiting ?? 0) >= 1, 'both messages, the model held');

  await stop(gateway.child, 'SIGKILL');
  await mockJson('/__mock/release?name=tgmsg', 'POST');
  await startGateway();

  await waitFor(() => botTexts(OWNER).some((t) => t.startsWith('Tool said:')), 'the answer of the turn after the restart');
  // A later message is answered after anything else the restart might have sent.
  await owner.sendMessage(owner.makeMessage('and now? ECHO:after'));
  await waitFor(() => botTexts(OWNER).some((t) => t.includes('[after]')), 'the answer to the next message');

  const answer = botTexts(OWNER).find((t) => t.startsWith('Tool said:'));
  assert.match(answer, /"ok": true/, answer);
  assert.match(answer, /slack.*is not configured|is not configured.*slack/s, `the slack call is refused: ${answer}`);
  assert.equal(count(botTexts(OWNER), '[m1]'), 1, `this chat's message once: ${JSON.stringify(botTexts(OWNER))}`);
  assert.equal(count(botTexts(TEAM), '[m2]'), 1, `the team's message once: ${JSON.stringify(botTexts(TEAM))}`);
  assert.equal(count(botTexts(OWNER).concat(botTexts(TEAM)), '[m3]'), 0);
});

test('the same call twice in one turn sends one message (the id of each call is recorded)', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const twice = JSON.stringify({ message: 'Twice [m4]' });
  await owner.sendMessage(owner.makeMessage(`again MOCK_TOOL:message:${twice} MOCK_TOOL:message:${twice}`));
  // Waited for by content: the answer is streamed as a preview edited in place (under the
  // sanitizers the first state of that message can be seen before the rest of it).
  await waitFor(() => botTexts(OWNER).join('\n').includes('"duplicate": true'), 'the answer of the turn, with the duplicate');
  assert.equal(count(botTexts(OWNER), '[m4]'), 1, `one message: ${JSON.stringify(botTexts(OWNER))}`);
  assert.match(readFileSync(path.join(home, 'channels', 'message-tool.jsonl'), 'utf8'), /"id":"message-/);
});

test('react: the message being answered gets the reaction; one Telegram does not allow is refused with its reason (CH-8)', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage(`great news MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: '👍' })}`));
  await waitFor(() => server.reactions.length > 0, 'the reaction');
  const inbound = server.storage.userMessages.find((u) => String(u.message?.text).startsWith('great news'));
  assert.ok(inbound, 'the owner\'s message in the emulator');
  assert.deepEqual(server.reactions[0], { chat_id: String(OWNER), message_id: inbound.messageId, reaction: [{ type: 'emoji', emoji: '👍' }] });
  // The model hears Telegram's refusal (the turn's answer shows the tool result) and nothing is recorded.
  await owner.sendMessage(owner.makeMessage(`and this MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: '🦀' })}`));
  await waitFor(() => botTexts(OWNER).join('\n').includes('REACTION_INVALID'), 'the refusal in the answer');
  assert.equal(server.reactions.length, 1);
  // Taking it away: an empty reaction list.
  const undo = { action: 'react', emoji: '👍', remove: true, messageId: String(inbound.messageId) };
  await owner.sendMessage(owner.makeMessage(`never mind MOCK_TOOL:message:${JSON.stringify(undo)}`));
  await waitFor(() => server.reactions.length > 1, 'the reaction removed');
  assert.deepEqual(server.reactions[1], { chat_id: String(OWNER), message_id: inbound.messageId, reaction: [] });
});

test('a configured channel that is not running is refused, not answered "sent" (the message would wait unseen)', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const down = JSON.stringify({ channel: 'irc', target: '#ops', message: 'Anyone there? [m5]' });
  await owner.sendMessage(owner.makeMessage(`ping ops MOCK_TOOL:message:${down}`));
  await waitFor(() => botTexts(OWNER).join('\n').includes('is not running now'), 'the refusal in the answer');
  const answer = botTexts(OWNER).find((t) => t.includes('is not running now'));
  assert.match(answer, /channel irc is not running now \(pincer channels status shows why\); nothing was sent/, answer);
  assert.doesNotMatch(answer, /"ok": true/, answer);
  assert.equal(readFileSync(path.join(home, 'channels', 'outbox.jsonl'), 'utf8').includes('[m5]'), false, 'nothing queued');
  // And pincer channels status says why, and when it tries again.
  // (Asked again if it caught the account in the moment of a restart, trying to connect.)
  let stdout = '';
  await waitFor(async () => {
    ({ stdout } = await promisify(execFile)(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${gatewayPort}`],
      { env: { ...env, PINCER_HOME: home, PINCER_GATEWAY_TOKEN: 'telegram-message-gateway-token-0123456789' }, timeout: 30000 }));
    return /^irc\[default\]  stopped/m.test(stdout);
  }, 'the IRC account stopped between restarts');
  assert.match(stdout, /^irc\[default\]  stopped \(restarting in \d+ s\)  failed: .*127\.0\.0\.1/m, stdout);
  // The reason once: not again as its last error (it is the same sentence).
  const ircLine = stdout.split('\n').find((l) => l.startsWith('irc[default]'));
  assert.doesNotMatch(ircLine, /last error:/, `the reason is repeated: ${ircLine}`);
  assert.match(stdout, /^telegram\[default\]  running/m, stdout);
});

test('the announce step of sessions_send posts to the chat of the target session, once', async () => {
  // Another session of the agent (a CLI turn in session `side`) asks the main session, whose chat
  // is the owner's Telegram chat. Requests: side's tool call, main's reply, side's answer, the
  // ping-pong's first turn (side: REPLY_SKIP), the announce step (main).
  await mockJson('/__mock/script', 'POST', JSON.stringify([{}, 'Main is fine [r1]', {}, 'REPLY_SKIP', 'All good here [r2]']));
  const call = JSON.stringify({ sessionKey: 'agent:main:main', message: 'status please', timeoutSeconds: 60 });
  const { stdout } = await promisify(execFile)(pincer, ['agent', '--session', 'side', '--url', `ws://127.0.0.1:${gatewayPort}`,
    '-m', `ask main MOCK_TOOL:sessions_send:${call}`], { env: { ...env, PINCER_HOME: home, PINCER_GATEWAY_TOKEN: 'telegram-message-gateway-token-0123456789' }, timeout: 60000 });
  assert.match(stdout, /Main is fine \[r1\]/, stdout);
  await waitFor(() => count(botTexts(OWNER), '[r2]') === 1, 'the announcement in the owner chat');
  // A later message is answered after anything else the exchange might still post.
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('ok ECHO:later'));
  await waitFor(() => botTexts(OWNER).some((t) => t.includes('[later]')), 'the answer to the next message');
  assert.equal(count(botTexts(OWNER), '[r2]'), 1, JSON.stringify(botTexts(OWNER)));
  assert.equal(count(botTexts(OWNER), '[r1]'), 0, 'the reply itself goes to the requester, not to the chat');
});
