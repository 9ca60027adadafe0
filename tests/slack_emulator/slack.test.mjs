// The Slack channel end to end: tests/slack_emulator/slack-emulator.mjs as Slack (Web API + Socket
// Mode), the real `pincer gateway run` binary as the app, the mock LLM as the model, and the
// official @slack/web-api WebClient with alice's user token as the person talking to the bot (she
// posts with chat.postMessage and reads replies with conversations.history). The official
// @slack/socket-mode SocketModeClient connects to the emulator once to show its Socket Mode is the
// real protocol.
//
//   tests/slack_emulator/setup.sh && node tests/slack_emulator/slack.test.mjs <pincer binary> <source dir>
//
// Covers: a DM round trip (envelopes acknowledged); in a channel a message without a mention is
// ignored and one with a mention answered (…:slack:channel:<id>), a reply in a thread stays in the
// thread; a binding by channel picks another agent; a long reply arrives in chunks within 4000;
// `streaming: "partial"` edits one message with chat.update; Markdown arrives as mrkdwn; the
// message tool's react adds a reaction by Slack's name (👍 → +1) and removes it; an unknown
// DM sender gets a pairing code and is answered once approved; a cron announce to a channel right
// after a /pincer command there is posted in the channel (not on the command's response_url); a 429 with Retry-After delays a
// reply, which arrives once; `disconnect` opens a fresh connection; a restart answers the message
// sent while it was down once, and a redelivered old envelope is acknowledged but not answered again;
// `channels status` shows the bot, the team and a disabled account, and --probe fails naming
// channels.slack.appToken when the app token no longer works although auth.test passes;
// a bot or app token Slack refuses (invalid_auth) stops the account with a reason naming the key,
// not retried ("not retried until the config changes") until the fixed config starts it again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, stop } from '../support/processes.mjs';
import { launchGateway, startMockLlm } from '../channels/harness.mjs';
import { SlackEmulator } from './slack-emulator.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/slack_emulator/slack.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
if (!existsSync(path.join(here, '.cache/node_modules/@slack/web-api'))) {
  console.error('@slack/web-api is not installed: run tests/slack_emulator/setup.sh');
  process.exit(1);
}
const requireCached = createRequire(path.join(here, '.cache/package.json'));
const { WebClient } = requireCached('@slack/web-api');
const { SocketModeClient } = requireCached('@slack/socket-mode');

const GATEWAY_TOKEN = 'slack-test-gateway-token-0123456789';
const FILLER = 'The quick brown fox jumps over the lazy dog. ';
const env = cleanEnv();
let emu, mock, mockPort, gateway, home;
let bot, alice, mallory, general, projects, aliceDm, web;

const SIGNING_SECRET = 'slack-test-signing-secret-8f74223';

function writeConfig({ botToken = bot.botToken, appToken = bot.appToken, http = false } = {}) {
  const mode = http
    ? `mode: 'http', signingSecret: '${SIGNING_SECRET}', slashCommand: { enabled: true, ephemeral: false },`
    : `mode: 'socket', appToken: '${appToken}', slashCommand: { enabled: true },`;
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model', input: ['text', 'image'] } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true }, { id: 'work' } ] },
  bindings: [ { agentId: 'work', match: { channel: 'slack', peer: { kind: 'channel', id: '${projects.id}' } } } ],
  session: { dmScope: 'per-channel-peer' },
  tools: { alsoAllow: ['message'] },  // the coding profile (the default) has no messaging tools
  channels: { slack: {
    ${mode} botToken: '${botToken}', apiRoot: '${emu.apiRoot}',
    dmPolicy: 'pairing', allowFrom: ['${alice.id}'],
    groupPolicy: 'open', channels: { '${general.id}': { requireMention: true }, '${projects.id}': { requireMention: false } },
    streaming: 'partial',
    accounts: { old: { enabled: false, botToken: 'xoxb-retired', appToken: 'xapp-retired' } },  // listed as disabled
  } },
}\n`);
}

async function waitUntil(predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}\n${gateway?.output().slice(-4000)}`);
}

async function startGateway() {
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => emu.openConnections(bot.id).length > 0 && /slack\[default\]: connected/.test(gateway.output()), 'Pincer on Socket Mode');
}

function gatewayCall(method) {
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  return JSON.parse(execFileSync(pincer, ['gateway', 'call', method, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString());
}
const sessionKeys = () => gatewayCall('sessions.list').sessions.map((s) => s.key);

/// The bot's messages in a conversation as alice reads them (conversations.history), oldest first.
async function botSaid(conv, client = web) {
  const res = await client.conversations.history({ channel: conv.id, limit: 1000 });
  return res.messages.filter((m) => m.user === bot.id).reverse();
}
const containing = (msgs, needle) => msgs.filter((m) => m.text.includes(needle));
const squash = (s) => String(s).replace(/\s+/g, ' ').trim();
const envelopeOf = (ts) => emu.envelopes.filter((e) => e.app === bot.id && e.payload.event?.ts === ts);

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-slack-'));
  emu = await new SlackEmulator().start();
  bot = emu.addBot('pincer');
  alice = emu.addUser('alice');
  mallory = emu.addUser('mallory');
  general = emu.addChannel('general', [alice, mallory, bot]);
  projects = emu.addChannel('projects', [alice, bot], { type: 'group' });
  aliceDm = emu.dm(alice, bot);
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeConfig();
  web = new WebClient(alice.token, { slackApiUrl: `${emu.apiRoot}/`, retryConfig: { retries: 0 } });
  await startGateway();
});

after(async () => {
  await stop(gateway?.child);
  await stop(mock?.child);
  await emu?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('the emulator speaks Socket Mode: the official SocketModeClient receives an event and a slash command and acknowledges them', async () => {
  const probe = emu.addBot('probe');
  const room = emu.addChannel('probe-room', [alice, probe]);
  const client = new SocketModeClient({ appToken: probe.appToken, clientOptions: { slackApiUrl: `${emu.apiRoot}/` } });
  const got = new Promise((resolve) => client.on('message', async ({ event, ack }) => { await ack(); resolve(event); }));
  await client.start();
  const posted = await web.chat.postMessage({ channel: room.id, text: 'hello socket mode' });
  const event = await got;
  assert.equal(event.text, 'hello socket mode');
  assert.equal(event.user, alice.id);
  await waitUntil(() => emu.envelopes.some((e) => e.app === probe.id && e.payload.event?.ts === posted.ts && e.acked), 'the ack');
  // A slash command arrives as the client's `slash_commands` event; its ack may carry a response.
  const slash = new Promise((resolve) => client.on('slash_commands', async ({ body, ack }) => { await ack({ text: 'got it' }); resolve(body); }));
  const { envelope } = emu.slashCommand(probe, alice, room, '/probe', 'hi there');
  const body = await slash;
  assert.equal(body.command, '/probe');
  assert.equal(body.text, 'hi there');
  assert.equal(body.channel_id, room.id);
  await waitUntil(() => envelope.acked, 'the slash command acknowledged');
  assert.deepEqual(envelope.ackPayload, { text: 'got it' });
  await client.disconnect();
});

test('a direct message is answered in the DM and its envelope acknowledged', async () => {
  const auth = await web.auth.test();
  assert.equal(auth.user_id, alice.id);
  const sent = await web.chat.postMessage({ channel: aliceDm.id, text: 'hello ECHO:sl-dm' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-dm]').length > 0, 'the DM reply');
  assert.match(containing(await botSaid(aliceDm), '[sl-dm]')[0].text, /Hello from the mock LLM\. \[sl-dm\]/);
  assert.ok(envelopeOf(sent.ts).every((e) => e.acked), 'the envelope was acknowledged');
  assert.ok(sessionKeys().includes(`agent:main:slack:direct:${alice.id.toLowerCase()}`), `DM session: ${sessionKeys()}`);
  const account = gatewayCall('channels.status').channelAccounts.slack[0];
  assert.equal(account.running, true, JSON.stringify(account));
  assert.equal(account.botId, bot.id);
  assert.equal(account.teamId, emu.teamId);
  assert.equal(account.mode, 'socket');
});

test('channels status names the bot and the team and lists a disabled account; --probe checks the app token too', async () => {
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  // Asynchronous: the emulator answering the probe runs in this process.
  const status = (...args) => new Promise((resolve) => {
    execFile(pincer, ['channels', 'status', ...args, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env },
      (error, stdout) => resolve({ code: error ? error.code : 0, out: String(stdout) }));
  });
  const ok = await status('--probe');
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /^slack\[default\]  running  @pincer  team T\w+ .*probe: ok/m, ok.out);
  assert.match(ok.out, /^slack\[old\]  disabled$/m, ok.out);
  // The app token stops working (revoked in the app's settings) while the connection still runs:
  // auth.test with the bot token passes, but Socket Mode could not connect again.
  const appToken = bot.appToken;
  bot.appToken = `${appToken}-rotated`;
  let failed;
  try {
    failed = await status('--probe');
  } finally {
    bot.appToken = appToken;
  }
  assert.equal(failed.code, 1, failed.out);
  assert.match(failed.out, /^slack\[default\]  running .*probe: failed .*apps\.connections\.open failed \(invalid_auth\).*channels\.slack\.appToken/m, failed.out);
});

test('in a channel only a message that mentions the bot is answered; a thread reply stays in the thread', async () => {
  const quiet = await web.chat.postMessage({ channel: general.id, text: 'chatter without a mention ECHO:sl-quiet' });
  const asked = await web.chat.postMessage({ channel: general.id, text: `<@${bot.id}> please answer ECHO:sl-chan` });
  await waitUntil(async () => containing(await botSaid(general), '[sl-chan]').length > 0, 'the channel reply');
  await waitUntil(() => envelopeOf(quiet.ts).every((e) => e.acked) && envelopeOf(asked.ts).length === 2, 'both events of the mention');
  assert.equal(containing(await botSaid(general), '[sl-quiet]').length, 0, 'an unmentioned message must not be answered');
  assert.equal(containing(await botSaid(general), '[sl-chan]').length, 1, 'message + app_mention answered once');
  assert.ok(sessionKeys().includes(`agent:main:slack:channel:${general.id.toLowerCase()}`), `channel session: ${sessionKeys()}`);

  await web.chat.postMessage({ channel: general.id, thread_ts: asked.ts, text: `<@${bot.id}> in the thread ECHO:sl-thread` });
  await waitUntil(async () => containing(await botSaid(general), '[sl-thread]').length > 0, 'the thread reply');
  const reply = containing(await botSaid(general), '[sl-thread]')[0];
  assert.equal(reply.thread_ts, asked.ts, 'the reply went to the thread');
  assert.ok(sessionKeys().includes(`agent:main:slack:channel:${general.id.toLowerCase()}:thread:${asked.ts}`), `thread session: ${sessionKeys()}`);
});

test('a binding by channel sends that channel to another agent; its channels entry needs no mention', async () => {
  await web.chat.postMessage({ channel: projects.id, text: 'status? ECHO:sl-work' });
  await waitUntil(async () => containing(await botSaid(projects), '[sl-work]').length > 0, 'the projects reply');
  assert.ok(sessionKeys().includes(`agent:work:slack:channel:${projects.id.toLowerCase()}`), `binding did not pick agent work: ${sessionKeys()}`);
});

test('a 10 000-character reply arrives complete and in order, in chunks within 4000', async () => {
  const before = (await botSaid(aliceDm)).length;
  await web.chat.postMessage({ channel: aliceDm.id, text: 'write a lot MOCK_LONG:10000' });
  const expected = FILLER.repeat(Math.ceil(10000 / FILLER.length)).slice(0, 10000);
  await waitUntil(async () => squash((await botSaid(aliceDm)).slice(before).map((m) => m.text).join(' ')).length >= squash(expected).length,
    'the whole long reply');
  const chunks = (await botSaid(aliceDm)).slice(before);
  assert.ok(chunks.length >= 3, `expected at least 3 messages, got ${chunks.length}`);
  for (const c of chunks) assert.ok(c.text.length <= 4000, `a message of ${c.text.length} characters`);
  assert.equal(squash(chunks.map((c) => c.text).join(' ')), squash(expected), 'chunks altered or out of order');
});

test('streaming: one message is edited with chat.update while the reply is written', async () => {
  const before = (await botSaid(aliceDm)).length;
  const updates = emu.calls.filter((c) => c.method === 'chat.update').length;
  const expected = FILLER.repeat(30).slice(0, 1200);
  await web.chat.postMessage({ channel: aliceDm.id, text: 'tell me a story MOCK_LONG:1200 MOCK_SLOW:150' });
  await waitUntil(async () => {
    const said = (await botSaid(aliceDm)).slice(before);
    return said.length > 0 && squash(said[0].text) === squash(expected);
  }, 'the preview edited into the complete reply');
  const mine = emu.calls.filter((c) => c.method === 'chat.update').slice(updates);
  assert.ok(mine.length >= 2, `expected several edits, got ${mine.length}`);
  const preview = (await botSaid(aliceDm)).slice(before)[0];
  assert.ok(mine.every((c) => c.body.ts === preview.ts && c.status === 200), 'every edit targets the preview');
  assert.equal(containing((await botSaid(aliceDm)).slice(before), 'The quick').length, 1, 'the reply is one message');
});

test('the message tool reacts with Slack emoji names and takes the reaction away (CH-8)', async () => {
  const botReactions = async (ts) => (await web.reactions.get({ channel: aliceDm.id, timestamp: ts })).message.reactions
    ?.filter((r) => r.users.includes(bot.id)).map((r) => r.name) ?? [];
  const liked = await web.chat.postMessage({ channel: aliceDm.id,
    text: `nice one MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: '👍' })}` });
  await waitUntil(async () => (await botReactions(liked.ts)).includes('+1'), 'the 👍 (+1) on the message being answered');
  // Slack's own spelling works too, with colons.
  const eyes = await web.chat.postMessage({ channel: aliceDm.id,
    text: `look MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: ':eyes:' })}` });
  await waitUntil(async () => (await botReactions(eyes.ts)).includes('eyes'), 'the :eyes: reaction');
  assert.ok(emu.calls.filter((c) => c.method === 'reactions.add').every((c) => c.status === 200 && !c.error),
    `every reactions.add was accepted: ${JSON.stringify(emu.calls.filter((c) => c.method === 'reactions.add'))}`);
  // Another message, naming the first by its ts: the reaction is taken away.
  const undo = { action: 'react', emoji: '👍', remove: true, messageId: liked.ts };
  await web.chat.postMessage({ channel: aliceDm.id, text: `take it back MOCK_TOOL:message:${JSON.stringify(undo)}` });
  await waitUntil(() => emu.calls.some((c) => c.method === 'reactions.remove' && c.body.timestamp === liked.ts && c.body.name === '+1'),
    'reactions.remove of +1');
  assert.deepEqual(await botReactions(liked.ts), [], 'alice sees the 👍 gone');
  // The run from Slack was offered react; the tool's schema says so.
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  const run = requests.find((r) => JSON.stringify(r.body ?? '').includes('nice one'));
  const tool = run?.body?.tools?.find((t) => t.function?.name === 'message');
  assert.deepEqual(tool?.function?.parameters?.properties?.action?.enum, ['send', 'react'], JSON.stringify(tool));
});

test('files out: a reply\'s MEDIA line is uploaded to the DM (external upload), and alice downloads it intact', async () => {
  // SPEC CH-1 (channels/reply_media.h): the main agent's workspace is <home>/workspace.
  const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))]);
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'summary.pdf'), bytes);
  await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(['The summary [sl-file]\nMEDIA: ./summary.pdf']) });
  await web.chat.postMessage({ channel: aliceDm.id, text: 'send me the summary' });
  const shared = async () => (await botSaid(aliceDm)).filter((m) => m.files?.length);
  await waitUntil(async () => (await shared()).length > 0 && containing(await botSaid(aliceDm), '[sl-file]').length > 0, 'the file in the DM');
  const [message] = await shared();
  assert.equal(message.files[0].name, 'summary.pdf');
  assert.equal(message.files[0].mimetype, 'application/pdf');
  const downloaded = Buffer.from(await (await fetch(message.files[0].url_private, { headers: { authorization: `Bearer ${alice.token}` } })).arrayBuffer());
  assert.ok(downloaded.equals(bytes), 'the bytes alice downloads are the workspace file\'s');
  const steps = emu.calls.filter((c) => c.user === 'pincer' && c.method.startsWith('files.')).map((c) => c.method);
  assert.deepEqual(steps, ['files.getUploadURLExternal', 'files.completeUploadExternal']);
  assert.ok(!containing(await botSaid(aliceDm), '[sl-file]')[0].text.includes('MEDIA:'));
});

test('files in: an image alice shares in the DM reaches the model as an image, the message after it is answered after it', async () => {
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  // The official client's upload (files.getUploadURLExternal, the bytes, files.completeUploadExternal).
  await web.filesUploadV2({ channel_id: aliceDm.id, file: PNG, filename: 'dot.png', initial_comment: 'what is this? ECHO:sl-media' });
  await web.chat.postMessage({ channel: aliceDm.id, text: 'and after it ECHO:sl-after-media' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-after-media]').length > 0, 'the reply to the message after the file');
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-media]').length > 0, 'the reply to the file');
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  const userTurns = requests.flatMap((r) => (r.body?.messages ?? []).filter((m) => m.role === 'user'));
  const withImage = userTurns.find((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'));
  assert.ok(withImage, 'an image part reached the model');
  assert.equal(withImage.content.find((p) => p.type === 'image_url').image_url.url, `data:image/png;base64,${PNG.toString('base64')}`);
  assert.match(withImage.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n'), /what is this\?/);
  const order = (await botSaid(aliceDm)).filter((m) => /\[sl-(after-)?media\]/.test(m.text)).map((m) => /\[(sl-[a-z-]+)\]/.exec(m.text)[1]);
  assert.deepEqual(order, ['sl-media', 'sl-after-media'], 'answered in the order sent');
});

test('/pincer runs a command or a prompt in the conversation, answered only to the person (response_url)', async () => {
  const { envelope, response } = emu.slashCommand(bot, alice, general, '/pincer', '/new');
  await waitUntil(() => response.posts.length > 0, 'the answer to /pincer /new on the response_url');
  assert.match(response.posts[0].text, /Started a fresh session/);
  assert.equal(response.posts[0].response_type, 'ephemeral');
  assert.ok(envelope.acked, 'the slash_commands envelope was acknowledged');
  // A prompt: the run's reply reaches only alice, in a channel where a message needs a mention.
  const prompt = emu.slashCommand(bot, alice, general, '/pincer', 'what is new? ECHO:sl-slash');
  await waitUntil(() => prompt.response.posts.some((p) => p.text.includes('[sl-slash]')), 'the ephemeral reply to the prompt');
  assert.equal(containing(await botSaid(general), '[sl-slash]').length, 0, 'an ephemeral reply is not posted in the channel');
  assert.ok(sessionKeys().includes(`agent:main:slack:channel:${general.id.toLowerCase()}`), `channel session: ${sessionKeys()}`);
  // The next message of the channel is answered in the channel again.
  await web.chat.postMessage({ channel: general.id, text: `<@${bot.id}> and now? ECHO:sl-after-slash` });
  await waitUntil(async () => containing(await botSaid(general), '[sl-after-slash]').length > 0, 'the channel reply after the command');
  assert.equal(gatewayCall('channels.status').channelAccounts.slack[0].slashCommands, 2);
});

test('a file in an ephemeral command reply is not shared with the channel: the reply says it was not sent', async () => {
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'secret.txt'), 'only for alice\n');
  const uploadsBefore = emu.calls.filter((c) => c.user === 'pincer' && c.method.startsWith('files.')).length;
  await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(['Here it is [sl-private-file]\nMEDIA: ./secret.txt']) });
  const prompt = emu.slashCommand(bot, alice, general, '/pincer', 'send me the secret');
  await waitUntil(() => prompt.response.posts.some((p) => p.text.includes('[file secret.txt not sent')), 'the notice on the response_url');
  assert.ok(prompt.response.posts.some((p) => p.text.includes('[sl-private-file]')), JSON.stringify(prompt.response.posts));
  assert.ok(prompt.response.posts.every((p) => p.response_type === 'ephemeral'));
  assert.match(prompt.response.posts.map((p) => p.text).join('\n'), /private reply cannot carry files/);
  assert.equal(emu.calls.filter((c) => c.user === 'pincer' && c.method.startsWith('files.')).length, uploadsBefore, 'nothing uploaded');
  assert.equal(containing(await botSaid(general), 'sl-private-file').length, 0, 'nothing in the channel');
});

test('only the command\'s own run answers on its response_url: a cron announce to the channel right after is posted there', async () => {
  const prompt = emu.slashCommand(bot, alice, general, '/pincer', 'mine only ECHO:sl-own');
  await waitUntil(() => prompt.response.posts.some((p) => p.text.includes('[sl-own]')), 'the ephemeral reply to the command');
  // The response_url still lives (30 minutes) and nobody wrote in #general since: a cron job's
  // reply announced there must reach the channel, not only the person who ran the command.
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  execFileSync(pincer, ['cron', 'add', '--name', 'sl-cron', '--at', '1s', '--message', 'hello ECHO:sl-cron', '--announce',
    '--channel', 'slack', '--to', general.id, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env });
  await waitUntil(async () => containing(await botSaid(general), '[sl-cron]').length > 0 ||
    prompt.response.posts.some((p) => p.text.includes('[sl-cron]')), 'the cron announce');
  assert.equal(containing(await botSaid(general), '[sl-cron]').length, 1, 'the announce is posted in the channel');
  assert.ok(!prompt.response.posts.some((p) => p.text.includes('[sl-cron]')), 'not on the command\'s response_url');
  // The command's answer came once (by now its run is long over): no streamed preview before it,
  // as an ephemeral message cannot be edited into the final reply.
  assert.equal(prompt.response.posts.filter((p) => p.text.includes('[sl-own]')).length, 1, JSON.stringify(prompt.response.posts));
});

test('an unknown DM sender gets a pairing code, and is answered once approved', async () => {
  const mal = new WebClient(mallory.token, { slackApiUrl: `${emu.apiRoot}/`, retryConfig: { retries: 0 } });
  const dm = (await mal.conversations.open({ users: bot.id })).channel;
  await mal.chat.postMessage({ channel: dm.id, text: 'hi there ECHO:sl-before' });
  await waitUntil(async () => containing(await botSaid(dm, mal), 'pairing code').length > 0, 'the pairing code');
  const codeMsg = containing(await botSaid(dm, mal), 'pairing code')[0];
  const code = /\*([A-Z0-9]{8})\*/.exec(codeMsg.text)?.[1];
  assert.ok(code, `no mrkdwn-bold code in: ${codeMsg.text}`);
  assert.equal(containing(await botSaid(dm, mal), '[sl-before]').length, 0, 'no agent reply before approval');
  const approved = execFileSync(pincer, ['pairing', 'approve', 'slack', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, new RegExp(`Approved slack sender ${mallory.id}`));
  await mal.chat.postMessage({ channel: dm.id, text: 'now ECHO:sl-after' });
  await waitUntil(async () => containing(await botSaid(dm, mal), '[sl-after]').length > 0, 'the reply after approval');
});

test('a 429 with Retry-After holds the reply, which then arrives once', async () => {
  emu.rateLimitNext('chat.postMessage', 1, bot);
  await web.chat.postMessage({ channel: aliceDm.id, text: 'again ECHO:sl-limited' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-limited]').length > 0, 'the rate-limited reply');
  const posts = emu.calls.filter((c) => c.method === 'chat.postMessage' && c.user === 'pincer');
  const limited = posts.findIndex((c) => c.status === 429);
  assert.ok(limited >= 0, 'the emulator answered 429');
  assert.equal(posts[limited + 1].status, 200, 'the same call again after the wait');
  assert.deepEqual(posts[limited + 1].body, posts[limited].body, 'the same message');
  assert.equal(containing(await botSaid(aliceDm), '[sl-limited]').length, 1, 'delivered exactly once');
});

test('disconnect: Pincer opens a fresh connection and keeps answering', async () => {
  const opened = emu.connections.filter((c) => c.app === bot.id).length;
  emu.disconnect(bot);
  await waitUntil(() => emu.connections.filter((c) => c.app === bot.id).length > opened && emu.openConnections(bot.id).length === 1, 'a fresh connection');
  await web.chat.postMessage({ channel: aliceDm.id, text: 'still there? ECHO:sl-fresh' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-fresh]').length > 0, 'the reply on the fresh connection');
});

test('a restart answers the message sent while down once and no redelivered old message again', async () => {
  const answered = async (needle) => containing(await botSaid(aliceDm), needle).length;
  await stop(gateway.child);
  const state = JSON.parse(readFileSync(path.join(home, 'channels/slack/default.json'), 'utf8'));
  assert.ok(state.handled[aliceDm.id].length > 0, `handled ts kept: ${JSON.stringify(state)}`);
  const offline = await web.chat.postMessage({ channel: aliceDm.id, text: 'while you were away ECHO:sl-offline' });
  const before = await answered('[sl-dm]');
  await startGateway();
  await waitUntil(async () => (await answered('[sl-offline]')) > 0, 'the reply to the message sent while down');
  await waitUntil(() => envelopeOf(offline.ts).some((e) => e.acked), 'the ack of the message sent while down');
  // Slack may deliver an envelope again: the old DM's, acknowledged, must not be answered again.
  const old = emu.envelopes.find((e) => e.app === bot.id && e.payload.event.text === 'hello ECHO:sl-dm');
  const again = emu.redeliver(old);
  await waitUntil(() => again.acked, 'the redelivered envelope acknowledged');
  const gen = emu.envelopes.find((e) => e.app === bot.id && e.payload.event.text?.includes('ECHO:sl-chan'));
  const again2 = emu.redeliver(gen);
  await waitUntil(() => again2.acked, 'the redelivered channel envelope acknowledged');
  assert.equal(await answered('[sl-dm]'), before, 'an old DM was answered again');
  assert.equal(await answered('[sl-offline]'), 1, 'answered once');
  assert.equal(containing(await botSaid(general), '[sl-chan]').length, 1, 'an old channel message was answered again');
});

/// Restarts the gateway with `tokens` in the config and waits for the account's failure in the log;
/// the account is held stopped (no retry with backoff) until the config is fixed, which starts it.
async function startRefused(tokens, failure, refusedMethod) {
  await stop(gateway.child);
  writeConfig(tokens);
  const from = emu.calls.length;
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => failure.test(gateway.output()), `the failure ${failure} in the log`);
  await waitUntil(() => /not retried until the config changes/.test(gateway.output()), 'the account held stopped');
  const account = gatewayCall('channels.status').channelAccounts.slack[0];
  assert.match(String(account.lastFailure), failure, JSON.stringify(account));
  assert.equal(account.running, false);
  assert.equal(account.permanentFailure, true, JSON.stringify(account));
  assert.equal(account.restartAt, undefined, 'no restart scheduled');
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString();
  assert.match(human, /slack\[default\]  stopped  failed: Slack refused .*\(not retried until the config changes\)/, human);
  // The tokens fixed in the config: the reload starts the account.
  writeConfig();
  await waitUntil(() => gatewayCall('channels.status').channelAccounts.slack[0].connected === true, 'the account connected after the fix');
  const refused = emu.calls.slice(from).filter((c) => c.method === refusedMethod && c.error === 'invalid_auth');
  assert.equal(refused.length, 1, `the refused token was tried once, not again: ${JSON.stringify(refused)}`);
}

test('a bot token Slack refuses (invalid_auth) stops the account until the config changes, naming channels.slack.botToken', async () => {
  await startRefused({ botToken: 'xoxb-not-a-token' },
    /slack\[default\]: Slack refused the bot token \(invalid_auth\): check channels\.slack\.botToken/, 'auth.test');
});

test('an app token Slack refuses (invalid_auth) stops the account until the config changes, naming channels.slack.appToken', async () => {
  await startRefused({ appToken: 'xapp-not-a-token' },
    /slack\[default\]: Slack refused the app token \(invalid_auth\): check channels\.slack\.appToken/, 'apps.connections.open');
});

// ---- HTTP Events API mode -----------------------------------------------------------------------

const gatewayPort = () => /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];

test('HTTP mode: the Request URL answers url_verification and takes signed events into the same handler', async () => {
  await stop(gateway.child);
  writeConfig({ http: true });
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => /slack\[default\]: connected \(HTTP Events API at \/slack\/events\)/.test(gateway.output()), 'the HTTP mode account');
  emu.useHttp(bot, `http://127.0.0.1:${gatewayPort()}/slack/events`, SIGNING_SECRET);
  const challenge = { token: 'verification-token', challenge: 'challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' };
  const verified = await emu.postHttp(bot.id, 'verification', JSON.stringify(challenge), 'application/json', challenge).done;
  assert.equal(verified.attempts[0].status, 200);
  assert.equal(JSON.parse(verified.attempts[0].text).challenge, challenge.challenge);

  await web.chat.postMessage({ channel: aliceDm.id, text: 'over http ECHO:sl-http' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-http]').length > 0, 'the reply to an event POSTed over HTTP');
  const delivery = emu.httpDeliveries.find((d) => d.kind === 'event' && d.body.event.text === 'over http ECHO:sl-http');
  assert.equal((await delivery.done).attempts[0].status, 200);
  const account = gatewayCall('channels.status').channelAccounts.slack[0];
  assert.equal(account.mode, 'http');
  assert.equal(account.connected, true);
  assert.equal(emu.openConnections(bot.id).length, 0, 'no Socket Mode connection in HTTP mode');
});

test('HTTP mode: a bad signature or a timestamp older than 5 minutes is refused (401) and nothing handled', async () => {
  const forged = (text) => {
    const payload = { token: 'verification-token', team_id: emu.teamId, api_app_id: bot.appId, type: 'event_callback', event_id: emu.id('Ev'),
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'message', channel: aliceDm.id, user: alice.id, text, ts: emu.nextTs(), channel_type: 'im' } };
    return [JSON.stringify(payload), payload];
  };
  const [badBody, badPayload] = forged('forged ECHO:sl-forged');
  const bad = await emu.postHttp(bot.id, 'event', badBody, 'application/json', badPayload,
    { signature: SlackEmulator.sign('another-secret', Math.floor(Date.now() / 1000), badBody), noRetry: true }).done;
  assert.equal(bad.attempts[0].status, 401, JSON.stringify(bad.attempts));
  assert.match(bad.attempts[0].text, /does not match/);
  const [oldBody, oldPayload] = forged('replayed ECHO:sl-stale');
  const old = Math.floor(Date.now() / 1000) - 6 * 60;
  const stale = await emu.postHttp(bot.id, 'event', oldBody, 'application/json', oldPayload,
    { timestamp: old, signature: SlackEmulator.sign(SIGNING_SECRET, old, oldBody), noRetry: true }).done;
  assert.equal(stale.attempts[0].status, 401, JSON.stringify(stale.attempts));
  assert.match(stale.attempts[0].text, /5 minutes/);
  // A genuine message after them is answered; the refused ones never were.
  await web.chat.postMessage({ channel: aliceDm.id, text: 'genuine ECHO:sl-genuine' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-genuine]').length > 0, 'the genuine reply');
  assert.equal(containing(await botSaid(aliceDm), '[sl-forged]').length, 0, 'a forged event was answered');
  assert.equal(containing(await botSaid(aliceDm), '[sl-stale]').length, 0, 'a stale event was answered');
  assert.equal(gatewayCall('channels.status').channelAccounts.slack[0].http.refused, 2);
});

test('HTTP mode: Slack retrying an event (X-Slack-Retry-Num, same event_id) does not answer it twice', async () => {
  await web.chat.postMessage({ channel: aliceDm.id, text: 'once only ECHO:sl-retried' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-retried]').length > 0, 'the first answer');
  const first = emu.httpDeliveries.find((d) => d.kind === 'event' && d.body.event.text === 'once only ECHO:sl-retried');
  // The same request again, as Slack's retry of an answer it did not get.
  const retried = await emu.postHttp(bot.id, 'event', first.raw, 'application/json', first.body, { retryNum: 1, noRetry: true }).done;
  assert.equal(retried.attempts[0].status, 200, 'a retry is acknowledged');
  assert.ok(gatewayCall('channels.status').channelAccounts.slack[0].http.retries >= 1);
  await web.chat.postMessage({ channel: aliceDm.id, text: 'next ECHO:sl-after-retry' });
  await waitUntil(async () => containing(await botSaid(aliceDm), '[sl-after-retry]').length > 0, 'the next reply');
  assert.equal(containing(await botSaid(aliceDm), '[sl-retried]').length, 1, 'a retried event was answered again');
});

test('HTTP mode: a slash command arrives as a signed form; with ephemeral false the reply is posted in the channel', async () => {
  const { delivery, response } = emu.slashCommand(bot, alice, general, '/pincer', 'over http please ECHO:sl-http-slash');
  assert.equal((await delivery.done).attempts[0].status, 200);
  await waitUntil(async () => containing(await botSaid(general), '[sl-http-slash]').length > 0, 'the reply in the channel');
  assert.equal(response.posts.length, 0, 'nothing on the response_url with ephemeral: false');
});
