// The Discord channel end to end: tests/discord_emulator/discord-emulator.mjs as Discord (Gateway
// WebSocket + REST v10), the real `pincer gateway run` binary as the bot, the mock LLM as the
// model, and the official discord.js client logged in as "alice" — the person talking to the bot,
// who sends through REST and reads the bot's replies from her own Gateway connection.
//
//   tests/discord_emulator/setup.sh && node tests/discord_emulator/discord.test.mjs <pincer binary> <source dir>
//
// Covers: a DM round trip (typing shown first); in a guild channel a message without a mention is
// ignored and one with a mention answered (sessions keyed …:discord:channel:<id> as OpenClaw keys
// them); a thread inherits its parent channel's binding and groups entry; a long reply arrives in chunks within 2000 UTF-16 units;
// `streaming: "partial"` edits one preview message; an unknown DM sender gets a pairing code and
// is answered once approved; a binding by guild + role picks another agent; a 429 with
// retry_after delays the reply, which then arrives once; RECONNECT and a zombie connection (no
// heartbeat ACK) resume the session; Remaining 0 holds a route until its reset, a global 429 every
// route; an unknown session is identified anew; a restart resumes the Gateway session
// and answers the message sent while it was down, once, and none of the earlier ones again; a
// token the Gateway refuses (4004) stops the account with that reason, not retried until the config changes;
// a reply's MEDIA: line is uploaded (multipart files[0]) and alice downloads the file intact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, stop } from '../support/processes.mjs';
import { launchGateway, startMockLlm } from '../channels/harness.mjs';
import { DiscordEmulator } from './discord-emulator.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/discord_emulator/discord.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
if (!existsSync(path.join(here, '.cache/node_modules/discord.js'))) {
  console.error('discord.js is not installed: run tests/discord_emulator/setup.sh');
  process.exit(1);
}
const { Client, GatewayIntentBits, Partials } = createRequire(path.join(here, '.cache/package.json'))('discord.js');

const GATEWAY_TOKEN = 'discord-test-gateway-token-0123456789';
const FILLER = 'The quick brown fox jumps over the lazy dog. ';
const env = cleanEnv();
let emu, mock, mockPort, gateway, home, alice;
let bot, aliceUser, stranger, guild, general, ops, projects, opsRole, aliceDm;
const seen = [];  // messages alice's discord.js client received: {id, channelId, authorId, content}

function writeConfig(extra = '') {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model', input: ['text', 'image'] } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true }, { id: 'work' } ] },
  bindings: [ { agentId: 'work', match: { channel: 'discord', guildId: '${guild.id}', roles: ['${opsRole}'] } },
              { agentId: 'work', match: { channel: 'discord', peer: { kind: 'channel', id: '${projects.id}' } } } ],
  session: { dmScope: 'per-channel-peer' },
  tools: { alsoAllow: ['message'] },  // the coding profile (the default) has no messaging tools
  channels: { discord: {
    token: '${bot.token}', apiRoot: '${emu.apiRoot}', ackReaction: '👀',
    dmPolicy: 'pairing', allowFrom: ['${aliceUser.id}'],
    groupPolicy: 'open', groups: { '*': { requireMention: true }, '${projects.id}': { requireMention: false } },
    streaming: 'partial', ${extra}
  } },
}\n`);
}

async function startGateway() {
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => emu.liveSessions(bot).length > 0, 'Pincer on the Gateway');
}

async function waitUntil(predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}; alice saw: ${JSON.stringify(seen.map((m) => m.content.slice(0, 80)))}\n${gateway?.output().slice(-4000)}`);
}

/// The bot's messages in `channelId` as alice's discord.js client saw them (edits applied).
const botSaid = (channelId) => seen.filter((m) => m.channelId === channelId && m.authorId === bot.id);
const containing = (msgs, needle) => msgs.filter((m) => m.content.includes(needle));
const squash = (s) => String(s).replace(/\s+/g, ' ').trim();

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-discord-'));
  emu = await new DiscordEmulator().start();
  bot = emu.addUser({ username: 'pincer', bot: true });
  aliceUser = emu.addUser({ username: 'alice', globalName: 'Alice' });  // a person: discord.js logs in with her token
  stranger = emu.addUser({ username: 'mallory' });
  guild = emu.addGuild({ name: 'Team', members: [], roles: [{ name: 'ops' }] });
  opsRole = emu.role(guild, 'ops');
  guild.members.set(bot.id, []);
  guild.members.set(aliceUser.id, []);
  guild.members.set(stranger.id, []);
  general = emu.addTextChannel(guild, 'general');
  ops = emu.addTextChannel(guild, 'ops');
  projects = emu.addTextChannel(guild, 'projects');
  aliceDm = emu.dmChannel(aliceUser, bot);
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeConfig();
  await startGateway();

  alice = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Channel],
    rest: { api: emu.apiRoot },
  });
  const record = (m) => {
    const i = seen.findIndex((x) => x.id === m.id);
    const entry = { id: m.id, channelId: m.channelId, authorId: m.author?.id, content: m.content ?? '' };
    if (i >= 0) seen[i] = { ...seen[i], content: entry.content, edits: (seen[i].edits || 0) + 1 };
    else seen.push(entry);
  };
  alice.on('messageCreate', record);
  alice.on('messageUpdate', (_old, m) => record(m));
  const ready = new Promise((r) => alice.once('clientReady', r));
  await alice.login(aliceUser.token);
  await ready;
});

after(async () => {
  await alice?.destroy();
  await stop(gateway?.child);
  await stop(mock?.child);
  await emu?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('a direct message is answered in the DM, with typing and the ack reaction first', async () => {
  const user = await alice.users.fetch(bot.id);
  const dm = await user.createDM();
  assert.equal(dm.id, aliceDm.id);
  const sent = await dm.send('hello ECHO:dc-dm');
  await waitUntil(() => containing(botSaid(dm.id), '[dc-dm]').length > 0, 'the DM reply');
  assert.match(containing(botSaid(dm.id), '[dc-dm]')[0].content, /Hello from the mock LLM\. \[dc-dm\]/);
  assert.ok(emu.requestsOf(bot, 'POST', new RegExp(`^/channels/${dm.id}/typing$`)).length > 0, 'typing shown');
  const reaction = emu.requestsOf(bot, 'PUT', new RegExp(`^/channels/${dm.id}/messages/${sent.id}/reactions/`));
  assert.equal(reaction.length, 1, 'one ack reaction on the message');
  assert.equal(decodeURIComponent(reaction[0].path.split('/')[6]), '👀');
  const account = gatewayCall('channels.status').channelAccounts.discord[0];
  assert.equal(account.running, true, JSON.stringify(account));
  assert.equal(account.bot, 'pincer');
  assert.equal(account.botId, bot.id);
  const identify = emu.frames.find((f) => f.op === 2 && f.d.properties?.browser === 'pincer');
  assert.equal(identify.d.intents, (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15), 'identified with GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT');
});

test('the message tool reacts to the message being answered and takes the reaction away (CH-8)', async () => {
  const dm = await (await alice.users.fetch(bot.id)).createDM();
  const reactionsOn = (id, method) => emu.requestsOf(bot, method, new RegExp(`^/channels/${dm.id}/messages/${id}/reactions/[^/]+/@me$`))
    .map((r) => decodeURIComponent(r.path.split('/')[6]));
  const liked = await dm.send(`nice one MOCK_TOOL:message:${JSON.stringify({ action: 'react', emoji: '👍' })}`);
  await waitUntil(() => reactionsOn(liked.id, 'PUT').includes('👍'), 'the 👍 on the message being answered');
  assert.deepEqual(emu.messages.get(liked.id).reactions.map((r) => r.emoji).sort(), ['👀', '👍'].sort());
  // Another message, named by id: the reaction is taken away again.
  const undo = { action: 'react', emoji: '👍', remove: true, messageId: liked.id };
  await dm.send(`undo that MOCK_TOOL:message:${JSON.stringify(undo)}`);
  await waitUntil(() => reactionsOn(liked.id, 'DELETE').includes('👍'), 'the 👍 removed');
  assert.deepEqual(emu.messages.get(liked.id).reactions.map((r) => r.emoji), ['👀']);
  // The run from Discord was offered react; the tool's schema says so.
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  const run = requests.find((r) => JSON.stringify(r.body ?? '').includes('nice one'));
  const tool = run?.body?.tools?.find((t) => t.function?.name === 'message');
  assert.deepEqual(tool?.function?.parameters?.properties?.action?.enum, ['send', 'react'], JSON.stringify(tool));
});

test('in a guild channel only a message that mentions the bot is answered', async () => {
  const channel = await alice.channels.fetch(general.id);
  await channel.send('chatter without a mention ECHO:dc-quiet');
  await channel.send(`<@${bot.id}> please answer ECHO:dc-guild`);
  await waitUntil(() => containing(botSaid(general.id), '[dc-guild]').length > 0, 'the guild reply');
  assert.equal(containing(botSaid(general.id), '[dc-quiet]').length, 0, 'an unmentioned message must not be answered');
  const keys = sessionKeys();
  assert.ok(keys.includes(`agent:main:discord:channel:${general.id}`), `guild channel session missing: ${keys}`);
});

test('a binding by guild and role sends a member with that role to another agent', async () => {
  guild.members.set(aliceUser.id, [opsRole]);
  const channel = await alice.channels.fetch(ops.id);
  await channel.send(`<@${bot.id}> deploy status ECHO:dc-ops`);
  await waitUntil(() => containing(botSaid(ops.id), '[dc-ops]').length > 0, 'the ops reply');
  guild.members.set(aliceUser.id, []);
  const keys = sessionKeys();
  assert.ok(keys.includes(`agent:work:discord:channel:${ops.id}`), `role binding did not pick agent work: ${keys}`);
});

test('a thread is a conversation of its own that inherits its parent channel\'s binding and groups entry', async () => {
  const thread = emu.addThread(guild, projects, 'launch plan');
  await waitUntil(() => alice.channels.cache.has(thread.id), 'alice sees the thread');
  await (await alice.channels.fetch(thread.id)).send('no mention needed here ECHO:dc-thread');
  await waitUntil(() => containing(botSaid(thread.id), '[dc-thread]').length > 0, 'the reply in the thread');
  const keys = sessionKeys();
  assert.ok(keys.includes(`agent:work:discord:channel:${thread.id}`), `the thread is not its own session of the parent's agent: ${keys}`);
  assert.equal(containing(botSaid(projects.id), '[dc-thread]').length, 0, 'the reply stays in the thread');
});

test('a 10 000-character reply arrives complete and in order, in chunks within 2000 UTF-16 units', async () => {
  const before = botSaid(aliceDm.id).length;
  await (await alice.channels.fetch(aliceDm.id)).send('write a lot MOCK_LONG:10000');
  const expected = FILLER.repeat(Math.ceil(10000 / FILLER.length)).slice(0, 10000);
  await waitUntil(() => squash(botSaid(aliceDm.id).slice(before).map((m) => m.content).join(' ')).length >= squash(expected).length,
    'the whole long reply');
  const chunks = botSaid(aliceDm.id).slice(before);
  assert.ok(chunks.length >= 5, `expected at least 5 messages, got ${chunks.length}`);
  for (const c of chunks) assert.ok(c.content.length <= 2000, `a message of ${c.content.length} UTF-16 units`);
  assert.equal(squash(chunks.map((c) => c.content).join(' ')), squash(expected), 'chunks altered or out of order');
  const refused = emu.requestsOf(bot, 'POST', /\/messages$/).filter((r) => r.status === 400);
  assert.equal(refused.length, 0, 'Discord refused no message');
});

test('streaming: one preview message is edited while the reply is written', async () => {
  const before = botSaid(aliceDm.id).length;
  const patches = emu.requestsOf(bot, 'PATCH', /\/messages\/\d+$/).length;
  const expected = FILLER.repeat(30).slice(0, 1200);
  await (await alice.channels.fetch(aliceDm.id)).send('tell me a story MOCK_LONG:1200 MOCK_SLOW:150');
  await waitUntil(() => botSaid(aliceDm.id).length > before && squash(botSaid(aliceDm.id)[before].content) === squash(expected),
    'the preview edited into the complete reply');
  const mine = emu.requestsOf(bot, 'PATCH', /\/messages\/\d+$/).slice(patches);
  assert.ok(mine.length >= 2, `expected several edits, got ${mine.length}`);
  const previewId = botSaid(aliceDm.id)[before].id;
  assert.ok(mine.every((r) => r.path.endsWith(`/messages/${previewId}`)), 'every edit targets the preview');
  const lengths = mine.map((r) => r.body.content.length);
  for (let i = 1; i < lengths.length; i++) assert.ok(lengths[i] >= lengths[i - 1], `the preview only grows: ${lengths}`);
  assert.equal(containing(botSaid(aliceDm.id).slice(before), 'The quick').length, 1, 'the reply is one message');
});

test('an unknown DM sender gets a pairing code, and is answered once approved', async () => {
  const dm = emu.dmChannel(stranger, bot);
  emu.createMessage(stranger, dm.id, { content: 'hi there ECHO:dc-before' });
  await waitUntil(() => emu.channelMessages(dm.id).some((m) => m.author.id === bot.id && m.content.includes('pairing code')), 'the pairing code');
  const codeMsg = emu.channelMessages(dm.id).find((m) => m.author.id === bot.id && m.content.includes('pairing code'));
  const code = /\*\*([A-Z0-9]{8})\*\*/.exec(codeMsg.content)?.[1];
  assert.ok(code, `no code in: ${codeMsg.content}`);
  assert.ok(!emu.channelMessages(dm.id).some((m) => m.content.includes('[dc-before]')), 'no agent reply before approval');
  const approved = execFileSync(pincer, ['pairing', 'approve', 'discord', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, new RegExp(`Approved discord sender ${stranger.id}`));
  emu.createMessage(stranger, dm.id, { content: 'now ECHO:dc-after' });
  await waitUntil(() => emu.channelMessages(dm.id).some((m) => m.author.id === bot.id && m.content.includes('[dc-after]')), 'the reply after approval');
});

test('a 429 with retry_after holds the message, which then arrives once', async () => {
  const route = new RegExp(`^/channels/${aliceDm.id}/messages$`);
  emu.rateLimitNext('POST', route, 1.5, { user: bot });
  await (await alice.channels.fetch(aliceDm.id)).send('again ECHO:dc-limited');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-limited]').length > 0, 'the rate-limited reply');
  const posts = emu.requestsOf(bot, 'POST', route);
  const limited = posts.findIndex((r) => r.status === 429);
  assert.ok(limited >= 0, 'the emulator answered 429');
  const retry = posts[limited + 1];
  assert.equal(retry.status, 200, 'the same request again after the wait');
  assert.deepEqual(retry.body, posts[limited].body, 'the same message');
  assert.ok(retry.at - posts[limited].at >= 1500 - 5, `retried after ${retry.at - posts[limited].at} ms, retry_after was 1.5 s`);
  assert.equal(containing(botSaid(aliceDm.id), '[dc-limited]').length, 1, 'delivered exactly once');
});

test('a bucket reported used up (X-RateLimit-Remaining 0) holds the next request until its reset; a global 429 holds every route', async () => {
  const route = new RegExp(`^/channels/${aliceDm.id}/messages$`);
  const before = emu.requestsOf(bot, 'POST', route).length;
  emu.exhaustBucketNext('POST', route, 1.2, { user: bot });
  const dm = await alice.channels.fetch(aliceDm.id);
  await dm.send('first ECHO:dc-bucket1');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-bucket1]').length > 0, 'the first reply');
  await dm.send('second ECHO:dc-bucket2');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-bucket2]').length > 0, 'the second reply');
  const posts = emu.requestsOf(bot, 'POST', route).slice(before);
  const first = posts.find((r) => String(r.body?.content).includes('[dc-bucket1]'));
  const second = posts.find((r) => String(r.body?.content).includes('[dc-bucket2]'));
  assert.ok(second.at - first.at >= 1200 - 5, `the held request went after ${second.at - first.at} ms, the bucket reset after 1.2 s`);

  emu.rateLimitNext('POST', route, 1.0, { user: bot, global: true });
  await dm.send('third ECHO:dc-global');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-global]').length > 0, 'the reply after a global 429');
  const all = emu.requestsOf(bot, 'POST', route);
  const limited = all.findLastIndex((r) => r.status === 429);
  assert.equal(all[limited + 1].status, 200);
  assert.deepEqual(all[limited + 1].body, all[limited].body);
  const typingAfter = emu.requestsOf(bot, 'POST', /\/typing$/).filter((r) => r.at > all[limited].at && r.at < all[limited + 1].at);
  assert.equal(typingAfter.length, 0, 'no other route was called during the global hold');
});

test('attachments: an image reaches the model as an image, a file too large for the cap becomes a notice', async () => {
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const image = emu.addAttachment(PNG, 'dot.png', 'image/png');
  const big = { ...emu.addAttachment(Buffer.from('x'), 'huge.bin', 'application/octet-stream'), size: 6_000_000 };
  emu.createMessage(aliceUser, aliceDm.id, { content: 'what is this? ECHO:dc-media', attachments: [image, big] });
  emu.createMessage(aliceUser, aliceDm.id, { content: 'and after it ECHO:dc-after-media' });
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-after-media]').length > 0, 'the reply to the message after the attachment');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-media]').length > 0, 'the reply to the attachment');
  const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
  const userTurns = requests.flatMap((r) => (r.body?.messages ?? []).filter((m) => m.role === 'user'));
  const withImage = userTurns.find((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url'));
  assert.ok(withImage, 'an image part reached the model');
  assert.equal(withImage.content.find((p) => p.type === 'image_url').image_url.url, `data:image/png;base64,${PNG.toString('base64')}`);
  const text = withImage.content.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  assert.match(text, /file omitted: huge\.bin, application\/octet-stream, 6000000 bytes/);
  assert.deepEqual(emu.downloads, [`/attachments/${image.id}/dot.png`], 'only the file within the cap was downloaded');
  const order = seen.filter((m) => m.authorId === bot.id && /\[dc-(after-)?media\]/.test(m.content)).map((m) => /\[(dc-[a-z-]+)\]/.exec(m.content)[1]);
  assert.deepEqual(order, ['dc-media', 'dc-after-media'], 'answered in the order sent');
});

test('media out: a reply\'s MEDIA line is a message with the file, which alice downloads intact', async () => {
  // SPEC CH-1 (channels/reply_media.h): the main agent's workspace is <home>/workspace.
  const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))]);
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'summary.pdf'), bytes);
  const files = [];
  const onFile = (m) => { if (m.author?.id === bot.id && m.attachments.size > 0) files.push(...m.attachments.values()); };
  alice.on('messageCreate', onFile);
  try {
    await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(['The summary [dc-file]\nMEDIA: ./summary.pdf\nMEDIA: ../pincer.json']) });
    emu.createMessage(aliceUser, aliceDm.id, { content: 'send me the summary' });
    await waitUntil(() => files.length > 0 && containing(botSaid(aliceDm.id), '[dc-file]').length > 0, 'the file in the DM');
    assert.equal(files.length, 1);
    assert.equal(files[0].name, 'summary.pdf');
    assert.equal(files[0].contentType, 'application/pdf');
    const downloaded = Buffer.from(await (await fetch(files[0].url)).arrayBuffer());
    assert.ok(downloaded.equals(bytes), 'the bytes alice downloads are the workspace file\'s');
    assert.equal(emu.uploads.length, 1, 'one upload: ../pincer.json is outside the workspace');
    const text = containing(botSaid(aliceDm.id), '[dc-file]')[0].content;
    assert.ok(!text.includes('MEDIA:'), text);
    assert.ok(text.includes('[file pincer.json not sent: outside the workspace and the media folder]'), text);
  } finally {
    alice.off('messageCreate', onFile);
  }
});

test('a cron job announces to user:<id> in the DM (opened for it) and to channel:<id>', async () => {
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  const cron = (marker, to) => execFileSync(pincer, ['cron', 'add', '--name', marker, '--at', '1s', '--message', `hello ECHO:${marker}`,
    '--announce', '--channel', 'discord', '--to', to, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env });
  cron('dc-cron-dm', `user:${aliceUser.id}`);
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-cron-dm]').length > 0, 'the reminder in alice\'s DM');
  assert.ok(emu.requestsOf(bot, 'POST', /^\/users\/@me\/channels$/).length >= 1, 'the DM channel was opened by user id');
  cron('dc-cron-ch', `channel:${general.id}`);
  await waitUntil(() => containing(botSaid(general.id), '[dc-cron-ch]').length > 0, 'the reminder in #general');
  assert.equal(containing(botSaid(aliceDm.id), '[dc-cron-dm]').length, 1, 'announced once');
});

test('a session Discord no longer knows (INVALID_SESSION) is identified anew', async () => {
  const identifies = () => emu.frames.filter((f) => f.op === 2 && f.d.properties?.browser === 'pincer').length;
  const before = identifies();
  emu.dropConnections(bot, { terminate: true });
  for (const [id, x] of emu.sessions) if (x.user.id === bot.id) emu.sessions.delete(id);  // forgotten by Discord
  await waitUntil(() => identifies() > before, 'a new IDENTIFY after op 9');
  await waitUntil(() => emu.liveSessions(bot).length > 0, 'the new session');
  assert.ok(emu.frames.some((f) => f.op === 6 && f.d.properties === undefined), 'it tried to resume first');
  await (await alice.channels.fetch(aliceDm.id)).send('new session ECHO:dc-reidentified');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-reidentified]').length > 0, 'a reply on the new session');
});

test('RECONNECT (op 7) and a zombie connection (heartbeats never acknowledged) both resume the session', async () => {
  const session = [...emu.sessions.values()].find((x) => x.user.id === bot.id && x.socket);
  const resumes = session.resumes || 0;
  const identifies = emu.frames.filter((f) => f.op === 2 && f.d.properties?.browser === 'pincer').length;
  emu.heartbeatIntervalMs = 200;  // the next HELLO: beats every 200 ms
  emu.requestReconnect(bot);
  await waitUntil(() => (session.resumes || 0) > resumes, 'a RESUME after op 7');
  emu.ackHeartbeats = false;
  await waitUntil(() => (session.resumes || 0) > resumes + 1, 'a RESUME after the unacknowledged heartbeat');
  emu.ackHeartbeats = true;
  emu.heartbeatIntervalMs = 41250;
  assert.match(gateway.output(), /no heartbeat ACK \(zombie connection\)/);
  const beats = emu.frames.filter((f) => f.user === 'pincer' && f.op === 1);
  assert.ok(beats.length >= 1 && beats.every((b) => Number.isInteger(b.d) && b.d > 0), `heartbeats carry the last seq: ${JSON.stringify(beats)}`);
  await (await alice.channels.fetch(aliceDm.id)).send('still there? ECHO:dc-resumed');
  await waitUntil(() => containing(botSaid(aliceDm.id), '[dc-resumed]').length > 0, 'a reply on the resumed session');
  assert.equal(emu.frames.filter((f) => f.op === 2 && f.d.properties?.browser === 'pincer').length, identifies, 'no new IDENTIFY: every reconnect resumed');
});

test('a restart resumes the session: the message sent while down is answered once, none again', async () => {
  const answered = (needle) => containing(botSaid(aliceDm.id), needle).length;
  await stop(gateway.child);
  const state = JSON.parse(readFileSync(path.join(home, 'channels/discord/default.json'), 'utf8'));
  assert.ok(state.sessionId && state.seq > 0, `session state kept: ${JSON.stringify(state)}`);
  await (await alice.channels.fetch(aliceDm.id)).send('while you were away ECHO:dc-offline');
  // Resume from an older seq than Pincer handled, so the emulator replays messages already
  // answered: the newest message id kept per channel must stop them.
  const session = emu.sessions.get(state.sessionId);
  state.seq = 1;
  writeFileSync(path.join(home, 'channels/discord/default.json'), JSON.stringify(state));
  const before = { dm: answered('[dc-dm]'), limited: answered('[dc-limited]') };
  await startGateway();
  await waitUntil(() => answered('[dc-offline]') > 0, 'the reply to the message sent while down');
  await waitUntil(() => (session.resumes || 0) > 0, 'a RESUME');
  await new Promise((r) => setTimeout(r, 1500));  // anything answered twice would have been by now
  assert.equal(answered('[dc-offline]'), 1, 'answered once');
  assert.match(gateway.output(), /discord: session resumed/, 'the Gateway session was resumed, not identified anew');
  assert.equal(answered('[dc-dm]'), before.dm, 'an old DM was answered again');
  assert.equal(answered('[dc-limited]'), before.limited, 'an old message was answered again');
});

test('a token the Gateway refuses (close 4004) stops the account until the config changes', async () => {
  await stop(gateway.child);
  emu.acceptIdentify = false;
  const identifies = () => emu.frames.filter((f) => (f.op === 2 || f.op === 6) && f.at >= launchedAt).length;  // IDENTIFY or RESUME
  const launchedAt = Date.now();
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => /close 4004/.test(gateway.output()), 'the 4004 in the log');
  await waitUntil(() => /not retried until the config changes/.test(gateway.output()), 'the account held stopped');
  const account = gatewayCall('channels.status').channelAccounts.discord[0];
  assert.match(String(account.lastError), /token was rejected.*: check channels\.discord\.token/, JSON.stringify(account));
  assert.equal(account.running, false);
  assert.equal(account.permanentFailure, true, JSON.stringify(account));
  assert.equal(account.restartAt, undefined, 'no restart scheduled');
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString();
  assert.match(human, /discord\[default\]  stopped  failed: the bot token was rejected .*\(not retried until the config changes\)/, human);
  // The token accepted again and the config changed: the reload starts the account.
  emu.acceptIdentify = true;
  writeConfig("name: 'Pincer (token fixed)',");
  await waitUntil(() => gatewayCall('channels.status').channelAccounts.discord[0].connected === true, 'the account connected after the reload');
  assert.equal(identifies(), 2, 'one refused IDENTIFY/RESUME, none retried, one after the reload');
});

function gatewayCall(method) {
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  return JSON.parse(execFileSync(pincer, ['gateway', 'call', method, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString());
}

const sessionKeys = () => gatewayCall('sessions.list').sessions.map((s) => s.key);
