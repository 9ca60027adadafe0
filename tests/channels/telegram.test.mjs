// The Telegram channel end to end (issue #5 §5, §6): the npm Bot API emulator `telegram-test-api`
// as Telegram, the real `pincer gateway run` binary long-polling it, the mock LLM as the model.
// A user (the emulator's client API) talks to the agent.
//
//   tests/channels/setup.sh && node tests/channels/telegram.test.mjs <pincer binary> <source dir>
//
// Covers: a DM answered; a group answered only when the bot is mentioned; an unknown sender gets a
// pairing code and is answered after `pincer pairing approve`; a 10 000-character reply arrives
// complete, in order, in chunks within Telegram's limit with balanced code fences; /new; the
// update offset survives a restart (no message answered twice); /compact's result arrives as a
// second reply; a memory flush's NO_REPLY never reaches the chat, nor a normal turn's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '123456:TEST-token-for-the-emulator';
const OWNER = 1001;     // in allowFrom
const STRANGER = 2002;  // not: must pair
const GROUP = -100500;
const WORK_GROUP = -100600;  // bound to the agent "work"
const FORUM = -100700;       // a forum supergroup; its topic 42 is bound to the agent "work"
const FLOODER = 2003;        // an unknown sender who keeps writing
const NOTER = 1004;          // allowed; bound to the agent "notes", whose model has a small window

const { pincer, srcDir } = testArguments('telegram.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;

async function startGateway(port = 0) {
  gateway = launchGateway(pincer, env, home, port);
  await gateway.ready;
}

/// Bot messages sent to the chat of `client` so far (the emulator's store), oldest first.
async function botMessages(client) {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && u.message.chat_id !== undefined && String(u.message.chat_id) === String(client.chatId))
    .map((u) => u.message);
}

/// Waits until `predicate(messages)` holds for the bot's messages to this client.
async function waitFor(client, predicate, what, ms = 20000) {
  const deadline = Date.now() + ms;
  let seen = [];
  while (Date.now() < deadline) {
    seen = await botMessages(client);
    if (predicate(seen)) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(seen.map((m) => m.text))}\n${gateway.output().slice(-3000)}`);
}

const replies = (msgs, needle) => msgs.filter((m) => String(m.text).includes(needle));

/// Waits until the mock LLM has received `n` model requests: a run has started its call and is
/// busy while the mock delays its answer. (A fixed sleep is not enough: Telegram's inbound debounce
/// holds a line to an idle session for 300 ms, longer on a loaded machine.)
async function untilModelRequests(n, ms = 20000) {
  const deadline = Date.now() + ms;
  while ((await mockCall('/health')).requests < n) {
    assert.ok(Date.now() < deadline, `the mock LLM did not get ${n} request(s)`);
    await sleep(20);
  }
}

async function mockCall(pathname, body) {
  const res = await fetch(`http://127.0.0.1:${mockPort}${pathname}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, `${pathname}: HTTP ${res.status}`);
  return res.json();
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-telegram-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' }, { id: 'mock-two' }, { id: 'mock-small', contextWindow: 40000 } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' }, compaction: { memoryFlush: { softThresholdTokens: 12000 } } },
            list: [ { id: 'main', default: true }, { id: 'work' }, { id: 'notes', model: { primary: 'mock/mock-small' } } ] },
  bindings: [ { agentId: 'work', match: { channel: 'telegram', peer: { kind: 'group', id: '${WORK_GROUP}' } } },
              { agentId: 'notes', match: { channel: 'telegram', peer: { kind: 'direct', id: '${NOTER}' } } },
              { agentId: 'work', match: { channel: 'telegram', peer: { kind: 'group', id: '${FORUM}:topic:42' } } } ],
  session: { dmScope: 'per-channel-peer' },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'pairing', allowFrom: ['${OWNER}', '${NOTER}'],
    groupPolicy: 'open', groups: { '*': { requireMention: true } },
  } },
}\n`);
  await startGateway();
});

after(() => tearDown({ gateway, mock, server, home }));

test('a direct message from an allowed sender is answered', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner', userName: 'owner' });
  await owner.sendMessage(owner.makeMessage('hello ECHO:tg-dm'));
  const msgs = await waitFor(owner, (m) => replies(m, '[tg-dm]').length > 0, 'the DM reply');
  const reply = replies(msgs, '[tg-dm]')[0];
  assert.equal(String(reply.chat_id), String(OWNER));
  assert.equal(reply.parse_mode, 'HTML');
  assert.match(reply.text, /Hello from the mock LLM\. \[tg-dm\]/);
});

test('in a group, only a message that mentions the bot is answered', async () => {
  const member = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: 'Owner' });
  await member.sendMessage(member.makeMessage('chatter without a mention ECHO:tg-quiet'));
  // Not mentions of @TestNameBot: another user whose name starts like it, an e-mail address.
  await member.sendMessage(member.makeMessage('@TestNameBotfan says hi ECHO:tg-fan'));
  await member.sendMessage(member.makeMessage('mail x@TestNameBot.example ECHO:tg-mail'));
  await member.sendMessage(member.makeMessage('@TestNameBot please answer ECHO:tg-group'));
  const msgs = await waitFor(member, (m) => replies(m, '[tg-group]').length > 0, 'the group reply');
  assert.equal(replies(msgs, '[tg-quiet]').length, 0, 'an unmentioned group message must not be answered');
  assert.equal(replies(msgs, '[tg-fan]').length + replies(msgs, '[tg-mail]').length, 0, 'a substring is not a mention');
  assert.equal(String(replies(msgs, '[tg-group]')[0].chat_id), String(GROUP));
});

test('bindings send two groups to two agents', async () => {
  const team = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: WORK_GROUP, type: 'group', chatTitle: 'Work', firstName: 'Owner' });
  await team.sendMessage(team.makeMessage('@TestNameBot status ECHO:tg-work'));
  await waitFor(team, (m) => replies(m, '[tg-work]').length > 0, 'the work group reply');
  const list = JSON.parse(execFileSync(pincer, ['gateway', 'call', 'sessions.list', '--url', `ws://127.0.0.1:${(await gateway.ready)[1]}`,
    '--token', 'telegram-test-gateway-token-0123456789'], { env }).toString());
  const keys = list.sessions.map((s) => s.key);
  assert.ok(keys.includes(`agent:work:telegram:group:${WORK_GROUP}`), `work group not on agent work: ${keys}`);
  assert.ok(keys.includes(`agent:main:telegram:group:${GROUP}`), `other group not on the default agent: ${keys}`);
});

test('forum topics: a session per topic (OpenClaw keys), a binding can name one, General has no thread id', async () => {
  const member = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: FORUM, type: 'supergroup', chatTitle: 'Forum', firstName: 'Owner' });
  const inTopic = (id) => ({ chat: { is_forum: true }, message_thread_id: id, is_topic_message: true });
  await member.sendMessage(member.makeMessage('@TestNameBot in topic 42 ECHO:tg-topic42', inTopic(42)));
  await member.sendMessage(member.makeMessage('@TestNameBot in topic 7 ECHO:tg-topic7', inTopic(7)));
  await member.sendMessage(member.makeMessage('@TestNameBot in General ECHO:tg-general', { chat: { is_forum: true } }));
  const msgs = await waitFor(member, (m) => ['[tg-topic42]', '[tg-topic7]', '[tg-general]'].every((n) => replies(m, n).length > 0),
    'the three topic replies');
  assert.equal(String(replies(msgs, '[tg-topic42]')[0].message_thread_id), '42', 'the reply goes into its topic');
  assert.equal(String(replies(msgs, '[tg-topic7]')[0].message_thread_id), '7');
  assert.equal(replies(msgs, '[tg-general]')[0].message_thread_id, undefined, 'Telegram refuses message_thread_id 1');
  const list = JSON.parse(execFileSync(pincer, ['gateway', 'call', 'sessions.list', '--url', `ws://127.0.0.1:${(await gateway.ready)[1]}`,
    '--token', 'telegram-test-gateway-token-0123456789'], { env }).toString());
  const keys = list.sessions.map((s) => s.key);
  for (const key of [`agent:work:telegram:group:${FORUM}:topic:42`, `agent:main:telegram:group:${FORUM}:topic:7`,
    `agent:main:telegram:group:${FORUM}:topic:1`]) {
    assert.ok(keys.includes(key), `${key} missing: ${keys}`);
  }
  assert.ok(!keys.some((k) => k.includes(':thread:')), `no thread keys for topics: ${keys}`);
});

test('an unknown sender gets a pairing code, and is answered once approved', async () => {
  const stranger = server.getClient(BOT_TOKEN, { userId: STRANGER, chatId: STRANGER, firstName: 'Stranger', userName: 'stranger' });
  await stranger.sendMessage(stranger.makeMessage('hi there ECHO:tg-before'));
  const msgs = await waitFor(stranger, (m) => replies(m, 'pairing code').length > 0, 'the pairing code');
  assert.equal(replies(msgs, '[tg-before]').length, 0, 'no agent reply before approval');
  const code = /<b>([A-Z0-9]{8})<\/b>/.exec(replies(msgs, 'pairing code')[0].text)?.[1];
  assert.ok(code, `no code in: ${replies(msgs, 'pairing code')[0].text}`);

  const listed = execFileSync(pincer, ['pairing', 'list', '--json'], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.equal(JSON.parse(listed).pending[0].code, code);
  const approved = execFileSync(pincer, ['pairing', 'approve', 'telegram', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, /Approved telegram sender 2002/);

  await stranger.sendMessage(stranger.makeMessage('now ECHO:tg-after'));
  await waitFor(stranger, (m) => replies(m, '[tg-after]').length > 0, 'the reply after approval');
});

test('an unknown sender gets the pairing code once, not once per message', async () => {
  const flooder = server.getClient(BOT_TOKEN, { userId: FLOODER, chatId: FLOODER, firstName: 'Flooder', userName: 'flooder' });
  for (let i = 0; i < 5; i++) await flooder.sendMessage(flooder.makeMessage(`let me in ${i}`));
  await waitFor(flooder, (m) => replies(m, 'pairing code').length > 0, 'the pairing code');
  await sleep(1500);  // every message has been handled by now
  assert.equal(replies(await botMessages(flooder), 'pairing code').length, 1, 'one code per request');
  assert.match(gateway.output(), /pairing request from 2003/);
});

test('a 10 000-character reply arrives complete, in order, in chunks within the limit', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const before = (await botMessages(owner)).length;
  await owner.sendMessage(owner.makeMessage('/new'));
  await waitFor(owner, (m) => replies(m, 'fresh session').length > 0, 'the /new confirmation');
  await owner.sendMessage(owner.makeMessage('write a lot MOCK_LONG:10000'));
  const msgs = await waitFor(owner, (m) => {
    const text = m.slice(before).filter((x) => !String(x.text).includes('fresh session')).map((x) => x.text).join(' ');
    return text.replace(/\s+/g, ' ').trim().length >= 10000 - 10;  // cuts drop only whitespace
  }, 'the whole long reply', 30000);
  const chunks = msgs.slice(before).filter((m) => !String(m.text).includes('fresh session'));
  assert.ok(chunks.length >= 3, `expected at least 3 chunks, got ${chunks.length}`);
  for (const c of chunks) {
    const units = String(c.text).length;  // JS string length = UTF-16 code units
    assert.ok(units <= 4096, `chunk of ${units} UTF-16 units is over Telegram's limit`);
  }
  const joined = chunks.map((c) => c.text).join(' ').replace(/\s+/g, ' ');
  assert.match(joined, /^The quick brown fox/);
  // In order: the mock's text is one sentence repeated; the reassembled text must be that text.
  const expected = 'The quick brown fox jumps over the lazy dog. ';
  assert.ok(joined.replace(/\s+/g, '').startsWith(expected.repeat(20).replace(/\s+/g, '')), 'chunks out of order or altered');
});

test('a command addressed to another bot is not ours: the agent gets it as text', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const before = (await botMessages(owner)).length;
  await owner.sendMessage(owner.makeMessage('/new@SomeOtherBot ECHO:tg-otherbot'));
  const msgs = await waitFor(owner, (m) => replies(m.slice(before), '[tg-otherbot]').length > 0, 'the agent reply');
  assert.equal(replies(msgs.slice(before), 'fresh session').length, 0, 'another bot\'s /new reset our session');
});

test('the bot\'s command menu offers the chat and skill commands, and a typed skill command runs its skill', async () => {
  const deadline = Date.now() + 20000;
  while (!server.commandMenus.get(BOT_TOKEN) && Date.now() < deadline) await sleep(50);
  const menu = server.commandMenus.get(BOT_TOKEN) ?? [];
  const names = menu.map((c) => c.command);
  for (const name of ['new', 'status', 'model', 'help', 'skills', 'summarize', 'daily_notes']) assert.ok(names.includes(name), names.join());
  assert.ok(!names.includes('quit'), 'terminal-only commands are not offered');
  assert.equal(server.commandMenuCalls.filter((c) => c === 'setMyCommands').length, 1);

  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('/summarize the week ECHO:tg-skill'));
  await waitFor(owner, (m) => replies(m, '[tg-skill]').length > 0, 'the skill command\'s reply');
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  assert.ok(JSON.stringify(requests).includes(JSON.stringify('Use the "summarize" skill for this request.\n\nUser input:\nthe week ECHO:tg-skill').slice(1, -1)));
});

test('after a restart, already handled updates are not answered again', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage('once ECHO:tg-once'));
  await waitFor(owner, (m) => replies(m, '[tg-once]').length > 0, 'the reply');
  const offset = readFileSync(path.join(home, 'channels/telegram/default.offset'), 'utf8');
  assert.match(offset, /^\d+$/);
  await stop(gateway.child);
  await startGateway();
  await owner.sendMessage(owner.makeMessage('after restart ECHO:tg-restart'));
  const msgs = await waitFor(owner, (m) => replies(m, '[tg-restart]').length > 0, 'the reply after restart');
  assert.equal(replies(msgs, '[tg-once]').length, 1, 'an update was answered twice');
  const status = JSON.parse(execFileSync(pincer, ['gateway', 'call', 'channels.status', '--url', `ws://127.0.0.1:${(await gateway.ready)[1]}`,
    '--token', 'telegram-test-gateway-token-0123456789'], { env }).toString());
  assert.deepEqual(status.channelOrder, ['telegram']);  // OpenClaw's ChannelsStatusResult
  assert.equal(status.channels.telegram.running, true);
  assert.equal(status.channelAccounts.telegram[0].running, true);
  assert.equal(status.channelAccounts.telegram[0].bot, 'TestNameBot');
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${(await gateway.ready)[1]}`,
    '--token', 'telegram-test-gateway-token-0123456789'], { env }).toString();
  assert.match(human, /^telegram\[default\]  running  @TestNameBot/);
  // The menu Telegram lists already is the wanted one: read, not written again.
  assert.equal(server.commandMenuCalls.filter((c) => c === 'setMyCommands').length, 1, server.commandMenuCalls.join());
  assert.ok(server.commandMenuCalls.filter((c) => c === 'getMyCommands').length >= 2);
  assert.match(status.channelAccounts.telegram[0].commands.menu, /^set \(\d+ commands\)$/);
});

test('collect (default): messages sent while a run is busy become one run', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [{ text: 'SLOW FIRST REPLY', delayMs: 1500 }, { text: 'ONE MERGED REPLY' }]);
  await owner.sendMessage(owner.makeMessage('start something slow'));
  await untilModelRequests(1);  // the slow run is busy now
  for (const t of ['collect one', 'collect two', 'collect three']) await owner.sendMessage(owner.makeMessage(t));
  const msgs = await waitFor(owner, (m) => replies(m, 'ONE MERGED REPLY').length > 0, 'the merged reply');
  assert.equal(replies(msgs, 'SLOW FIRST REPLY').length, 1);
  await sleep(1500);  // nothing else may follow
  const after = await botMessages(owner);
  assert.equal(replies(after, 'ONE MERGED REPLY').length, 1, 'the three messages must be answered once');
  const health = await mockCall('/health');
  assert.equal(health.requests, 2, 'two model calls: the slow run and one merged run');
  const requests = await mockCall('/__mock/requests');
  const last = JSON.stringify(requests[requests.length - 1]);
  for (const t of ['collect one', 'collect two', 'collect three']) assert.ok(last.includes(t), `merged run lacks "${t}"`);
});

test('interrupt: a new message aborts the busy run and only it is answered', async () => {
  await stop(gateway.child);
  const configFile = path.join(home, 'pincer.json');
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replace("session: {", "messages: { queue: { mode: 'interrupt' } },\n  session: {"));
  await startGateway();
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [{ text: 'OLD REPLY THAT MUST NOT ARRIVE', delayMs: 1500 }, { text: 'NEW REPLY ONLY' }]);
  await owner.sendMessage(owner.makeMessage('slow question'));
  await untilModelRequests(1);  // the slow run is busy now
  await owner.sendMessage(owner.makeMessage('never mind, this instead'));
  await waitFor(owner, (m) => replies(m, 'NEW REPLY ONLY').length > 0, 'the reply to the newest message');
  await sleep(1500);
  const msgs = await botMessages(owner);
  assert.equal(replies(msgs, 'OLD REPLY').length, 0, 'the interrupted run must not answer');
  assert.equal(replies(msgs, 'NEW REPLY ONLY').length, 1);
});

test('/model switches the chat\'s session to another model from the next message (AG-6), /model default undoes it', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner', userName: 'owner' });
  await owner.sendMessage(owner.makeMessage('/model mock/mock-two'));
  await waitFor(owner, (m) => replies(m, 'mock/mock-two').length > 0, 'the /model confirmation');
  await mockCall('/__mock/reset', {});
  await owner.sendMessage(owner.makeMessage('which model? ECHO:tg-model'));
  await waitFor(owner, (m) => replies(m, '[tg-model]').length > 0, 'the reply after /model');
  const body = (r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body);
  const calls = (await mockCall('/__mock/requests')).filter((r) => body(r) && body(r).messages);
  assert.ok(calls.length > 0, 'no model call');
  assert.equal(body(calls[calls.length - 1]).model, 'mock-two');
  await owner.sendMessage(owner.makeMessage('/model default'));
  await waitFor(owner, (m) => replies(m, 'mock/mock-model').length > 0, 'the /model default confirmation');
});

test('/compact in a chat: "Compacting…" at once, then the result as a second reply', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner', userName: 'owner' });
  await owner.sendMessage(owner.makeMessage('one more thing ECHO:tg-before-compact'));
  await waitFor(owner, (m) => replies(m, '[tg-before-compact]').length > 0, 'the reply before /compact');
  await owner.sendMessage(owner.makeMessage('/compact keep the ids'));
  const msgs = await waitFor(owner, (m) => replies(m, 'Compacted the session').length > 0 || replies(m, '/compact failed').length > 0,
    'the result of /compact');
  assert.equal(replies(msgs, '/compact failed').length, 0, JSON.stringify(replies(msgs, '/compact').map((m) => m.text)));
  const ack = msgs.findIndex((m) => String(m.text).includes('Compacting the session'));
  const result = msgs.findIndex((m) => String(m.text).includes('Compacted the session: about'));
  assert.ok(ack >= 0 && result > ack, 'the acknowledgement comes first, then the result');
});

test('a memory flush\'s NO_REPLY is never sent to the chat (CX-10)', async () => {
  const noter = server.getClient(BOT_TOKEN, { userId: NOTER, chatId: NOTER, firstName: 'Noter', userName: 'noter' });
  // About 15 000 tokens of history in a 40 000-token window: the next turn is preceded by the
  // silent flush turn (a write to memory/, then NO_REPLY).
  await noter.sendMessage(noter.makeMessage('MOCK_LONG:46000'));
  await waitFor(noter, (m) => m.reduce((n, x) => n + String(x.text).length, 0) >= 45000, 'the long reply', 180000);
  await mockCall('/__mock/reset', {});
  await noter.sendMessage(noter.makeMessage('what next? ECHO:tg-after-flush'));
  // Replies reach a chat in order: a delivered NO_REPLY would be before this one.
  const msgs = await waitFor(noter, (m) => replies(m, '[tg-after-flush]').length > 0, 'the reply after the flush', 60000);
  const body = (r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body);
  const flushCalls = (await mockCall('/__mock/requests')).filter((r) => JSON.stringify(body(r) ?? '').includes('Pre-compaction memory flush'));
  assert.ok(flushCalls.length > 0, 'no memory flush turn ran');
  assert.equal(replies(msgs, 'NO_REPLY').length, 0, 'the silent reply reached the chat');
  assert.equal(replies(msgs, 'MOCK_FLUSHED').length, 0, 'the flush turn\'s work reached the chat');
});

test('a normal turn\'s NO_REPLY is never sent to the chat, and the transcript keeps it (CX-10)', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner', userName: 'owner' });
  const sessions = path.join(home, 'agents', 'main', 'sessions');
  const transcript = () => execFileSync('ls', [sessions]).toString().split('\n').filter((f) => f.endsWith('.jsonl'))
    .map((f) => readFileSync(path.join(sessions, f), 'utf8')).join('');
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', ['NO_REPLY', 'Noted. NO_REPLY']);  // the next two model calls
  // One at a time (messages sent during a run would be collected into one turn).
  await owner.sendMessage(owner.makeMessage('just so you know: tg-silent-ask'));
  const deadline = Date.now() + 60000;
  while (!transcript().includes('"text":"NO_REPLY"') && Date.now() < deadline) await sleep(100);
  assert.ok(transcript().includes('"text":"NO_REPLY"'), `the silent turn was not recorded\n${gateway.output().slice(-3000)}`);
  await owner.sendMessage(owner.makeMessage('and this: tg-stray-ask'));
  await waitFor(owner, (m) => replies(m, 'Noted.').length > 0, 'the answer with a stray token', 60000);
  await owner.sendMessage(owner.makeMessage('what now? ECHO:tg-after-silent'));
  // Replies reach a chat in order: a delivered NO_REPLY would be before this one.
  const msgs = await waitFor(owner, (m) => replies(m, '[tg-after-silent]').length > 0, 'the reply after the silent one', 60000);
  assert.equal(replies(msgs, 'NO_REPLY').length, 0, 'a silent reply (or the stray token) reached the chat');
  assert.equal(replies(msgs, 'Noted.').length, 1, 'the answer with a stray token was not sent once');
  assert.ok(transcript().includes('Noted. NO_REPLY'), 'the transcript keeps what the model wrote');
});

test('webhook mode: updates arrive by POST, and the same update twice is answered once', async () => {
  await stop(gateway.child);
  const port = await freePort();
  const configFile = path.join(home, 'pincer.json');
  const secret = 'tg-webhook-secret-0123456789';  // required with webhookUrl
  writeFileSync(configFile, readFileSync(configFile, 'utf8').replace("pollTimeoutSeconds: 0,",
    `pollTimeoutSeconds: 0, webhookUrl: 'http://127.0.0.1:${port}/telegram-webhook', webhookSecret: '${secret}',`));
  // Telegram sends setWebhook's secret_token back with every update; the emulator (its axios) does not.
  const axios = createRequire(new URL('./.cache/package.json', import.meta.url))('axios');
  axios.interceptors.request.use((request) => {
    const hook = Object.values(server.webhooks ?? {}).find((w) => w.url === request.url);
    if (hook?.secret_token) request.headers = { ...request.headers, 'X-Telegram-Bot-Api-Secret-Token': hook.secret_token };
    return request;
  });
  await startGateway(port);
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  // The emulator POSTs to the webhook once it is set; wait for setWebhook to land.
  const deadline = Date.now() + 10000;
  while (!server.webhooks?.[BOT_TOKEN] && Date.now() < deadline) await sleep(50);
  assert.ok(server.webhooks?.[BOT_TOKEN], 'setWebhook was not called');
  await mockCall('/__mock/reset?script=1', {});
  await owner.sendMessage(owner.makeMessage('by webhook ECHO:tg-hook'));
  await waitFor(owner, (m) => replies(m, '[tg-hook]').length > 0, 'the reply to a webhook update');

  // Telegram retries a webhook delivery it thinks failed: the same update must be answered once.
  const update = { update_id: 900001, message: { message_id: 777001, date: Math.floor(Date.now() / 1000), text: 'twice ECHO:tg-twice',
    from: { id: OWNER, is_bot: false, first_name: 'Owner' }, chat: { id: OWNER, type: 'private' } } };
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/telegram-webhook`, { method: 'POST', body: JSON.stringify(update),
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret } });
    assert.equal(res.status, 200);
  }
  await waitFor(owner, (m) => replies(m, '[tg-twice]').length > 0, 'the reply to the repeated update');
  await sleep(1500);
  assert.equal(replies(await botMessages(owner), '[tg-twice]').length, 1, 'a repeated update was answered twice');
});
