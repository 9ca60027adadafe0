// The Matrix channel end to end: tests/matrix_emulator/matrix-emulator.mjs as the homeserver, the
// real `pincer gateway run` binary as the bot (@pincer), the mock LLM as the model, and the
// official matrix-js-sdk logged in with a password as "alice" — the person talking to the bot,
// who creates rooms, invites the bot, sends text and reads the bot's replies with /messages.
//
//   tests/matrix_emulator/setup.sh && node tests/matrix_emulator/matrix.test.mjs <pincer binary> <source dir>
//
// Covers: an invite to a DM room is joined (autoJoin "always") and a DM answered, with HTML
// formatting; in a group room a message without a mention is ignored and one with a mention
// answered (sessions keyed …:matrix:channel:<room> as OpenClaw keys Matrix rooms); a reply in a
// thread stays in it; a long reply arrives in chunks within 4000 UTF-16 units; streaming edits a
// preview with m.replace; an unknown sender gets a pairing code; a binding by room picks another
// agent; a 429 M_LIMIT_EXCEEDED delays the reply by retry_after_ms, which then arrives once; an
// encrypted event is warned about; a restart resumes from the stored since token and answers the
// message sent while it was down exactly once; an access token the homeserver stops accepting
// (401 M_UNKNOWN_TOKEN on /sync) stops the account with a reason naming channels.matrix.accessToken,
// is not retried (channels status: "not retried until the config changes") and runs again once the
// config gets a new token; the message tool's react adds an m.reaction and removes it by redaction.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cleanEnv, stop } from '../support/processes.mjs';
import { launchGateway, startMockLlm } from '../channels/harness.mjs';
import { MatrixEmulator } from './matrix-emulator.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/matrix_emulator/matrix.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
const sdkEntry = path.join(here, '.cache/node_modules/matrix-js-sdk/lib/index.js');
if (!existsSync(sdkEntry)) {
  console.error('matrix-js-sdk is not installed: run tests/matrix_emulator/setup.sh');
  process.exit(1);
}
const sdk = await import(pathToFileURL(sdkEntry).href);
// The SDK logs every request at debug level: quiet, so the test's own output stays readable.
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, getChild: () => quiet };
sdk.logger?.setLevel?.('silent');

const GATEWAY_TOKEN = 'matrix-test-gateway-token-0123456789';
const FILLER = 'The quick brown fox jumps over the lazy dog. ';
const env = cleanEnv();
let emu, mock, mockPort, gateway, home, alice;
let bot, aliceUser, carol, mallory, general, projects;

function writeConfig() {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true }, { id: 'work' } ] },
  bindings: [ { agentId: 'work', match: { channel: 'matrix', peer: { kind: 'channel', id: '${projects}' } } } ],
  session: { dmScope: 'per-channel-peer' },
  tools: { alsoAllow: ['message'] },  // the coding profile (the default) has no messaging tools
  channels: { matrix: {
    homeserver: '${emu.baseUrl}', accessToken: '${bot.token}', userId: '${bot.userId}',
    autoJoin: 'always',
    dm: { policy: 'pairing', allowFrom: ['${aliceUser.userId}'] },
    groupPolicy: 'open', groupAllowFrom: ['${aliceUser.userId}'],
    groups: { '*': { requireMention: true } },
    streaming: 'partial',
  } },
}\n`);
}

async function startGateway() {
  const startedAt = Date.now();
  gateway = launchGateway(pincer, env, home);
  gateway.startedAt = startedAt;
  await gateway.ready;
  await waitUntil(() => emu.requestsOf(bot.userId, 'GET', /\/sync$/).some((r) => r.at > gateway.startedAt), 'the bot\'s /sync');
}

async function waitUntil(predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}\n${gateway?.output().slice(-4000)}`);
}

/// The bot's messages in `roomId` as alice reads them with matrix-js-sdk (/messages), oldest
/// first, each edit (m.replace) applied to the message it replaces: [{eventId, body, html, edits, relatesTo}].
async function botSaid(roomId) {
  const page = await alice.createMessagesRequest(roomId, null, 1000, sdk.Direction.Backward);
  const events = page.chunk.slice().reverse().filter((e) => e.sender === bot.userId && e.type === 'm.room.message');
  const shown = [];
  for (const e of events) {
    const rel = e.content['m.relates_to'];
    if (rel?.rel_type === 'm.replace') {
      const target = shown.find((m) => m.eventId === rel.event_id);
      if (target) Object.assign(target, { body: e.content['m.new_content'].body, html: e.content['m.new_content'].formatted_body, edits: target.edits + 1 });
      continue;
    }
    shown.push({ eventId: e.event_id, body: e.content.body, html: e.content.formatted_body, edits: 0, relatesTo: rel });
  }
  return shown;
}
const containing = (msgs, needle) => msgs.filter((m) => m.body.includes(needle));
const squash = (s) => String(s).replace(/\s+/g, ' ').trim();

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-matrix-'));
  emu = await new MatrixEmulator().start();
  bot = emu.addUser('pincer', { displayname: 'Pincer' });
  aliceUser = emu.addUser('alice', { displayname: 'Alice' });
  carol = emu.addUser('carol');
  mallory = emu.addUser('mallory');

  alice = sdk.createClient({ baseUrl: emu.baseUrl, logger: quiet });
  const login = await alice.loginRequest({ type: 'm.login.password', identifier: { type: 'm.id.user', user: 'alice' }, password: aliceUser.password });
  assert.equal(login.user_id, aliceUser.userId);
  alice = sdk.createClient({ baseUrl: emu.baseUrl, accessToken: login.access_token, userId: login.user_id, deviceId: login.device_id, logger: quiet });
  // Rooms that exist before the bot first starts: their invites arrive in its first sync.
  ({ room_id: general } = await alice.createRoom({ name: 'general', invite: [bot.userId, carol.userId] }));
  ({ room_id: projects } = await alice.createRoom({ name: 'projects', invite: [bot.userId, carol.userId] }));
  emu.join(carol.userId, general);
  emu.join(carol.userId, projects);

  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeConfig();
  await startGateway();
  await waitUntil(() => emu.membership(general, bot.userId) === 'join' && emu.membership(projects, bot.userId) === 'join',
    'the bot joining the rooms it was invited to before it started');
});

after(async () => {
  alice?.stopClient();
  await stop(gateway?.child);
  await stop(mock?.child);
  await emu?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

let dm;
test('an invite to a DM is joined and a direct message answered, formatted as HTML', async () => {
  ({ room_id: dm } = await alice.createRoom({ is_direct: true, invite: [bot.userId], preset: 'trusted_private_chat' }));
  await waitUntil(() => emu.membership(dm, bot.userId) === 'join', 'the bot joining the DM');
  await alice.sendTextMessage(dm, 'hello ECHO:mx-dm');
  await waitUntil(async () => containing(await botSaid(dm), '[mx-dm]').length > 0, 'the DM reply');
  const [reply] = containing(await botSaid(dm), '[mx-dm]');
  assert.match(reply.body, /Hello from the mock LLM\. \[mx-dm\]/);
  assert.match(reply.html, /^<p>Hello from the mock LLM\. \[mx-dm\]<\/p>$/);
  const sent = emu.requestsOf(bot.userId, 'PUT', /\/send\/m\.room\.message\//).at(-1);
  assert.equal(sent.body.format, 'org.matrix.custom.html');
  assert.ok(emu.requestsOf(bot.userId, 'PUT', /\/typing\//).length > 0, 'typing shown');
  const syncs = emu.requestsOf(bot.userId, 'GET', /\/sync$/);
  assert.ok(syncs.some((r) => r.query.since && r.query.timeout === '30000'), 'long-polled with since and a 30 s timeout');
  assert.ok(JSON.parse(syncs.at(-1).query.filter).room.timeline.limit > 0, 'with an inline filter');
  const account = gatewayCall('channels.status').channelAccounts.matrix[0];
  assert.equal(account.running, true, JSON.stringify(account));
  assert.equal(account.userId, bot.userId);
  // `pincer channels status` says which Matrix user the account is.
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${gatewayPort()}`, '--token', GATEWAY_TOKEN], { env }).toString();
  assert.ok(human.split('\n').some((l) => l.startsWith('matrix[default]  running  ' + bot.userId)), human);
  assert.ok(sessionKeys().includes(`agent:main:matrix:direct:${aliceUser.userId}`), `DM session missing: ${sessionKeys()}`);
});

test('in a group room only a message that mentions the bot is answered', async () => {
  await alice.sendTextMessage(general, 'chatter without a mention ECHO:mx-quiet');
  await alice.sendMessage(general, { msgtype: 'm.text', body: 'Pincer: please answer ECHO:mx-old-client' });
  await alice.sendMessage(general, { msgtype: 'm.text', body: 'please answer ECHO:mx-group', 'm.mentions': { user_ids: [bot.userId] } });
  await waitUntil(async () => containing(await botSaid(general), '[mx-group]').length > 0, 'the mentioned reply');
  await waitUntil(async () => containing(await botSaid(general), '[mx-old-client]').length > 0, 'the reply to the display-name mention');
  assert.equal(containing(await botSaid(general), '[mx-quiet]').length, 0, 'an unmentioned message must not be answered');
  const keys = sessionKeys();
  assert.ok(keys.includes(`agent:main:matrix:channel:${general}`), `room session missing: ${keys}`);
});

test('a binding by room sends that room to another agent', async () => {
  await alice.sendMessage(projects, { msgtype: 'm.text', body: 'status? ECHO:mx-work', 'm.mentions': { user_ids: [bot.userId] } });
  await waitUntil(async () => containing(await botSaid(projects), '[mx-work]').length > 0, 'the projects reply');
  assert.ok(sessionKeys().includes(`agent:work:matrix:channel:${projects}`), `binding did not pick agent work: ${sessionKeys()}`);
});

test('a message in a thread is answered in the thread', async () => {
  const root = await alice.sendTextMessage(dm, 'a topic');
  await alice.sendMessage(dm, { msgtype: 'm.text', body: 'in the thread ECHO:mx-thread',
    'm.relates_to': { rel_type: 'm.thread', event_id: root.event_id, is_falling_back: true, 'm.in_reply_to': { event_id: root.event_id } } });
  await waitUntil(async () => containing(await botSaid(dm), '[mx-thread]').length > 0, 'the thread reply');
  const [reply] = containing(await botSaid(dm), '[mx-thread]');
  assert.equal(reply.relatesTo?.rel_type, 'm.thread');
  assert.equal(reply.relatesTo?.event_id, root.event_id);
});

test('media out: a reply\'s MEDIA lines are uploaded and sent as m.image and m.file events alice can download', async () => {
  // SPEC CH-1 (channels/reply_media.h): the main agent's workspace is <home>/workspace.
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const csv = Buffer.from('day,total\nmon,3\ntue,5\n');
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'dot.png'), PNG);
  writeFileSync(path.join(home, 'workspace', 'totals.csv'), csv);
  await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST',
    body: JSON.stringify(['Two files [mx-files]\nMEDIA: dot.png\nMEDIA: totals.csv']) });
  await alice.sendTextMessage(dm, 'the files please');
  const files = async () => {
    const page = await alice.createMessagesRequest(dm, null, 1000, sdk.Direction.Backward);
    return page.chunk.filter((e) => e.sender === bot.userId && ['m.image', 'm.file'].includes(e.content?.msgtype)).reverse();
  };
  await waitUntil(async () => (await files()).length >= 2, 'two file events in the DM');
  const [image, file] = await files();
  assert.equal(image.content.msgtype, 'm.image');
  assert.equal(image.content.info.mimetype, 'image/png');
  assert.equal(file.content.msgtype, 'm.file');
  assert.equal(file.content.filename, 'totals.csv');
  assert.equal(file.content.info.mimetype, 'text/csv');
  for (const [event, bytes] of [[image, PNG], [file, csv]]) {
    assert.match(event.content.url, /^mxc:\/\//);
    const got = Buffer.from(await (await fetch(alice.mxcUrlToHttp(event.content.url))).arrayBuffer());
    assert.ok(got.equals(bytes), `${event.content.body} downloads intact`);
  }
  const [text] = containing(await botSaid(dm), '[mx-files]');
  assert.ok(!text.body.includes('MEDIA:'), text.body);
});

test('a 10 000-character reply arrives complete and in order, in chunks within 4000 UTF-16 units', async () => {
  const before = (await botSaid(dm)).length;
  await alice.sendTextMessage(dm, 'write a lot MOCK_LONG:10000');
  const expected = FILLER.repeat(Math.ceil(10000 / FILLER.length)).slice(0, 10000);
  await waitUntil(async () => squash((await botSaid(dm)).slice(before).map((m) => m.body).join(' ')).length >= squash(expected).length,
    'the whole long reply');
  const chunks = (await botSaid(dm)).slice(before);
  assert.ok(chunks.length >= 3, `expected at least 3 messages, got ${chunks.length}`);
  for (const c of chunks) assert.ok(c.body.length <= 4000, `a message of ${c.body.length} UTF-16 units`);
  assert.equal(squash(chunks.map((c) => c.body).join(' ')), squash(expected), 'chunks altered or out of order');
});

test('streaming: one preview message is edited with m.replace while the reply is written', async () => {
  const before = (await botSaid(dm)).length;
  const since = emu.stream.length;
  const expected = FILLER.repeat(30).slice(0, 1200);
  await alice.sendTextMessage(dm, 'tell me a story MOCK_LONG:1200 MOCK_SLOW:150');
  await waitUntil(async () => {
    const mine = (await botSaid(dm)).slice(before);
    return mine.length > 0 && squash(mine[0].body) === squash(expected);
  }, 'the preview edited into the complete reply');
  const mine = (await botSaid(dm)).slice(before);
  assert.equal(mine.length, 1, 'the reply is one message');
  assert.ok(mine[0].edits >= 2, `expected several m.replace edits, got ${mine[0].edits}`);
  const edits = emu.roomEvents(dm).filter((e) => e.pos > since && e.sender === bot.userId && e.content['m.relates_to']?.rel_type === 'm.replace');
  assert.ok(edits.every((e) => e.content['m.relates_to'].event_id === mine[0].eventId), 'every edit targets the preview');
  assert.ok(edits.every((e) => e.content.body.startsWith('* ')), 'edits carry the "* " fallback body');
});

test('an unknown sender gets a pairing code', async () => {
  const room = emu.createRoom(mallory.userId, { invite: [bot.userId], isDirect: true });
  await waitUntil(() => emu.membership(room, bot.userId) === 'join', 'the bot joining mallory\'s DM');
  emu.send(mallory.userId, room, { msgtype: 'm.text', body: 'hi there ECHO:mx-stranger' });
  const botTexts = () => emu.roomEvents(room).filter((e) => e.sender === bot.userId && e.type === 'm.room.message').map((e) => e.content.body);
  await waitUntil(() => botTexts().some((t) => t.includes('pairing code')), 'the pairing code');
  const code = /code is ([A-Z0-9]{8})/.exec(botTexts().find((t) => t.includes('pairing code')))?.[1];
  assert.ok(code, `no code in: ${botTexts()}`);
  assert.ok(!botTexts().some((t) => t.includes('[mx-stranger]')), 'no agent reply before approval');
  const approved = execFileSync(pincer, ['pairing', 'approve', 'matrix', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, new RegExp(`Approved matrix sender ${mallory.userId.replace(/[.]/g, '\\.')}`));
  emu.send(mallory.userId, room, { msgtype: 'm.text', body: 'now ECHO:mx-approved' });
  await waitUntil(() => botTexts().some((t) => t.includes('[mx-approved]')), 'the reply after approval');
});

test('a 429 M_LIMIT_EXCEEDED delays the reply by retry_after_ms; it then arrives once', async () => {
  const route = new RegExp(`^/_matrix/client/v3/rooms/${dm.replace(/[!.]/g, '\\$&')}/send/`);
  emu.rateLimitNext('PUT', route, 1500, bot.userId);
  await alice.sendTextMessage(dm, 'again ECHO:mx-limited');
  await waitUntil(async () => containing(await botSaid(dm), '[mx-limited]').length > 0, 'the rate-limited reply');
  const puts = emu.requestsOf(bot.userId, 'PUT', /\/send\/m\.room\.message\//);
  const limited = puts.findIndex((r) => r.status === 429);
  assert.ok(limited >= 0, 'the emulator answered 429');
  const retry = puts[limited + 1];
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body, puts[limited].body, 'the same message again');
  assert.ok(retry.at - puts[limited].at >= 1500 - 5, `retried after ${retry.at - puts[limited].at} ms, retry_after_ms was 1500`);
  assert.equal(containing(await botSaid(dm), '[mx-limited]').length, 1, 'delivered exactly once');
});

test('an encrypted event is not answered and is warned about', async () => {
  emu.send(aliceUser.userId, dm, { algorithm: 'm.megolm.v1.aes-sha2', ciphertext: 'AAAA', session_id: 's', device_id: 'D' }, 'm.room.encrypted');
  await waitUntil(() => /end-to-end encrypted: Pincer cannot read encrypted messages/.test(gateway.output()), 'the E2EE warning');
});

test('a restart resumes from the stored since token: the message sent while down is answered once', async () => {
  const answered = async (needle) => containing(await botSaid(dm), needle).length;
  await stop(gateway.child);
  const state = JSON.parse(readFileSync(path.join(home, 'channels/matrix/default.json'), 'utf8'));
  assert.match(state.since, /^s\d+$/, `since token kept: ${JSON.stringify(state).slice(0, 300)}`);
  await alice.sendTextMessage(dm, 'while you were away ECHO:mx-offline');
  const before = { dm: await answered('[mx-dm]'), limited: await answered('[mx-limited]') };
  // An older since token (a state file restored from a backup) makes the homeserver send answered
  // messages again: the event ids kept per room must stop them.
  const limitedEvent = emu.roomEvents(dm).find((e) => e.sender === aliceUser.userId && e.content.body?.includes('ECHO:mx-limited'));
  const older = limitedEvent.pos - 1;
  writeFileSync(path.join(home, 'channels/matrix/default.json'), JSON.stringify({ ...state, since: `s${older}` }));
  await startGateway();
  const first = emu.requestsOf(bot.userId, 'GET', /\/sync$/).find((r) => r.at > gateway.startedAt);
  assert.equal(first.query.since, `s${older}`, 'the first sync after the restart starts from the stored token');
  await waitUntil(async () => (await answered('[mx-offline]')) > 0, 'the reply to the message sent while down');
  // The batch that carried the replayed messages was handled completely once the bot long-polls again.
  await waitUntil(() => emu.waiters.size > 0, 'the next long poll');
  await waitUntil(() => gatewayCall('channels.status').channelAccounts.matrix[0].replaysIgnored >= 1, 'the replay noticed');
  assert.equal(await answered('[mx-offline]'), 1, 'answered once');
  assert.equal(await answered('[mx-dm]'), before.dm, 'an old DM was answered again');
  assert.equal(await answered('[mx-limited]'), before.limited, 'an old message was answered again');
});

test('the message tool reacts with m.reaction and takes the reaction away by redacting it (CH-8)', async () => {
  const timeline = async () => (await alice.createMessagesRequest(dm, null, 1000, sdk.Direction.Backward)).chunk;
  const botReactionsOn = async (eventId) => (await timeline()).filter((e) => e.type === 'm.reaction' && e.sender === bot.userId &&
    e.content['m.relates_to']?.event_id === eventId);
  const liked = await alice.sendTextMessage(dm, `nice one MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: '👍' })}`);
  await waitUntil(async () => (await botReactionsOn(liked.event_id)).length > 0, 'the 👍 on the message being answered');
  const [reaction] = await botReactionsOn(liked.event_id);
  assert.deepEqual(reaction.content['m.relates_to'], { rel_type: 'm.annotation', event_id: liked.event_id, key: '👍' });
  // Another message, naming the first by id: the reaction is taken away (the bot redacts its own event).
  const undo = { action: 'react', emoji: '👍', remove: true, messageId: liked.event_id };
  await alice.sendTextMessage(dm, `take it back MOCK_TOOL:message:${JSON.stringify(undo)}`);
  await waitUntil(async () => (await timeline()).some((e) => e.type === 'm.room.redaction' && e.sender === bot.userId &&
    e.redacts === reaction.event_id), 'the redaction of the 👍');
  const redacted = (await timeline()).find((e) => e.event_id === reaction.event_id);
  assert.deepEqual(redacted.content, {}, 'alice sees the reaction redacted');
  assert.equal(redacted.unsigned?.redacted_because?.sender, bot.userId);
  // The run from Matrix was offered react; the tool's schema says so.
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  const run = requests.find((r) => JSON.stringify(r.body ?? '').includes('nice one'));
  const tool = run?.body?.tools?.find((t) => t.function?.name === 'message');
  assert.deepEqual(tool?.function?.parameters?.properties?.action?.enum, ['send', 'react'], JSON.stringify(tool));
});

test('an access token the homeserver refuses (401 M_UNKNOWN_TOKEN) stops the account until the config changes', async () => {
  const refused = /matrix\[default\]: the homeserver refused the access token \(M_UNKNOWN_TOKEN[^)]*\): check channels\.matrix\.accessToken/;
  const whoamiRefused = () => emu.requests.filter((r) => r.user === null && r.method === 'GET' && /\/account\/whoami$/.test(r.path));
  emu.logout(bot);
  await waitUntil(() => refused.test(gateway.output()), 'the refused token in the log');
  await waitUntil(() => /not retried until the config changes/.test(gateway.output()), 'the manager holding the account');
  const account = gatewayCall('channels.status').channelAccounts.matrix[0];
  assert.match(String(account.lastFailure), refused, JSON.stringify(account));
  assert.equal(account.running, false);
  assert.equal(account.permanentFailure, true, JSON.stringify(account));
  assert.equal(account.restartAt, undefined, 'no restart scheduled');
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${gatewayPort()}`, '--token', GATEWAY_TOKEN], { env }).toString();
  assert.match(human, /matrix\[default\]  stopped  failed: the homeserver refused the access token .*\(not retried until the config changes\)/, human);
  // The user puts a new token into the config: the reload starts the account with it.
  bot.token = `${bot.token}-new`;
  emu.restoreToken(bot);
  const reloadedAt = Date.now();
  writeConfig();
  await waitUntil(() => emu.requestsOf(bot.userId, 'GET', /\/sync$/).some((r) => r.at >= reloadedAt),
    'a /sync with the new token after the reload');
  assert.equal(gatewayCall('channels.status').channelAccounts.matrix[0].running, true);
  // The refused token was never tried again (a restart starts with whoami).
  assert.equal(whoamiRefused().length, 0, JSON.stringify(whoamiRefused()));
});

function gatewayPort() {
  return /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
}

function gatewayCall(method) {
  const port = gatewayPort();
  return JSON.parse(execFileSync(pincer, ['gateway', 'call', method, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString());
}

const sessionKeys = () => gatewayCall('sessions.list').sessions.map((s) => s.key);
