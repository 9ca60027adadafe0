// Discord slash commands end to end (UI-4; src/channels/discord/discord_commands.h): the emulator
// with interactions.mjs as Discord, the real `pincer gateway run` as the bot, the mock LLM as the
// model, and discord.js logged in as "alice", the person running the commands.
//
//   tests/discord_emulator/setup.sh && node tests/discord_emulator/commands.test.mjs <pincer binary> <source dir>
//
// Covers: on connect the chat commands are registered with one bulk overwrite (discord.js's REST
// reads them back), and a restart with the same set does not write them again; /ask in a DM is
// deferred (ephemeral) and answered by an agent turn that edits the deferred response; a long
// answer continues in follow-ups; a cron announce to the same DM right after a command is an
// ordinary channel message (only the command's own run answers through the interaction); /status in a guild channel without a mention runs the command;
// a file in a command's answer is an ephemeral follow-up of the interaction, not a channel message;
// a person the access policy does not allow gets a refusal and no run reaches the model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, stop } from '../support/processes.mjs';
import { launchGateway, startMockLlm } from '../channels/harness.mjs';
import { DiscordEmulator } from './discord-emulator.mjs';
import { enableInteractions } from './interactions.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/discord_emulator/commands.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
if (!existsSync(path.join(here, '.cache/node_modules/discord.js'))) {
  console.error('discord.js is not installed: run tests/discord_emulator/setup.sh');
  process.exit(1);
}
const { Client, GatewayIntentBits, Partials } = createRequire(path.join(here, '.cache/package.json'))('discord.js');

const env = cleanEnv();
const GATEWAY_TOKEN = 'discord-commands-test-gateway-token-0123';
let emu, mock, mockPort, gateway, home, alice;
let bot, aliceUser, stranger, guild, general, aliceDm, strangerDm;
const seen = [];  // messages alice's discord.js client received: {id, channelId, authorId, content, flags}

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
  assert.fail(`timed out waiting for ${what}; alice saw: ${JSON.stringify(seen.map((m) => m.content.slice(0, 80)))}\n` +
    `calls: ${JSON.stringify(emu.interactionCalls.map((c) => [c.method, c.path.replace(/\/[^/]*emu-token/, '/<token>'), c.status]))}\n${gateway?.output().slice(-4000)}`);
}

const callsOf = (interaction) => emu.interactionCalls.filter((c) => c.interaction === interaction.id);
const modelRequests = async () => (await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json());
const userTexts = (requests) => JSON.stringify(requests);

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-discord-commands-'));
  emu = enableInteractions(await new DiscordEmulator().start());
  bot = emu.addUser({ username: 'pincer', bot: true });
  aliceUser = emu.addUser({ username: 'alice', globalName: 'Alice' });
  stranger = emu.addUser({ username: 'mallory' });
  guild = emu.addGuild({ name: 'Team', members: [[bot, []], [aliceUser, []], [stranger, []]] });
  general = emu.addTextChannel(guild, 'general');
  aliceDm = emu.dmChannel(aliceUser, bot);
  strangerDm = emu.dmChannel(stranger, bot);
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true } ] },
  session: { dmScope: 'per-channel-peer' },
  channels: { discord: {
    token: '${bot.token}', apiRoot: '${emu.apiRoot}',
    dmPolicy: 'allowlist', allowFrom: ['${aliceUser.id}'],
    groupPolicy: 'open', groups: { '*': { requireMention: true } },
  } },
}\n`);
  await startGateway();

  alice = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Channel],
    rest: { api: emu.apiRoot },
  });
  const record = (m) => {
    const i = seen.findIndex((x) => x.id === m.id);
    const entry = { id: m.id, channelId: m.channelId, authorId: m.author?.id, content: m.content ?? '', flags: m.flags?.bitfield ?? 0 };
    if (i >= 0) seen[i] = { ...seen[i], content: entry.content, flags: entry.flags, edits: (seen[i].edits || 0) + 1 };
    else seen.push(entry);
  };
  alice.on('messageCreate', record);
  alice.on('messageUpdate', (_old, m) => record(m));
  const ready = new Promise((r) => alice.once('clientReady', r));
  await alice.login(aliceUser.token);
  await ready;
  assert.equal((await (await alice.users.fetch(bot.id)).createDM()).id, aliceDm.id);  // her DM with the bot, known to her client
});

after(async () => {
  await alice?.destroy();
  await stop(gateway?.child);
  await stop(mock?.child);
  await emu?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('the chat commands are registered on connect, and not written again when unchanged', async () => {
  await waitUntil(() => emu.commandPuts.length === 1, 'the bulk overwrite of the commands');
  // What Discord now lists for the application, read with discord.js's own REST client.
  const listed = await alice.rest.get(`/applications/${bot.id}/commands`);
  const names = listed.map((c) => c.name);
  for (const name of ['new', 'reset', 'status', 'stop', 'model', 'think', 'compact', 'help', 'dock', 'ask']) assert.ok(names.includes(name), names.join());
  assert.ok(!names.includes('quit') && !names.includes('agent'), 'terminal-only commands are not offered');
  const think = listed.find((c) => c.name === 'think');
  assert.deepEqual(think.options.map((o) => [o.name, o.type, o.required]), [['level', 3, true]]);
  assert.ok(listed.every((c) => c.description.length >= 1 && c.description.length <= 100));
  // The skills' commands (skills/skill_commands.h): the bundled ones, an optional `input` each.
  const summarize = listed.find((c) => c.name === 'summarize');
  assert.ok(summarize && names.includes('daily_notes'), names.join());
  assert.deepEqual(summarize.options.map((o) => [o.name, o.type, o.required ?? false]), [['input', 3, false]]);

  // A restart resumes the Gateway session (no READY): the application id comes from the state
  // file, the set is compared with Discord's list and not written again.
  await stop(gateway.child);
  await startGateway();
  await waitUntil(() => /slash commands are registered already/.test(gateway.output()), 'the check after the restart');
  assert.ok(/session resumed/.test(gateway.output()));
  assert.equal(emu.commandPuts.length, 1, 'the same set is not written twice');
});

test('/ask in a DM is deferred, then the agent turn edits the deferred response', async () => {
  const i = emu.runCommand(aliceUser, aliceDm, 'ask', [{ name: 'message', value: 'hello ECHO:sc-ask' }]);
  await waitUntil(() => seen.some((m) => m.channelId === aliceDm.id && m.content.includes('[sc-ask]')), 'the answer');
  const calls = callsOf(i);
  assert.equal(calls[0].method, 'POST');
  assert.match(calls[0].path, /\/callback$/);
  assert.equal(calls[0].body.type, 5, 'a deferred response');
  assert.equal(calls[0].body.data.flags, 64, 'ephemeral (OpenClaw\'s default)');
  assert.ok(calls.some((c) => c.method === 'PATCH' && /\/messages\/@original$/.test(c.path) && c.status === 200), JSON.stringify(calls.map((c) => c.path)));
  const answer = seen.find((m) => m.content.includes('[sc-ask]'));
  assert.equal(answer.id, emu.interactions.get(i.token).originalId, 'the deferred response itself carries the answer');
  assert.equal(answer.flags & 64, 64);
  // Not sent as an ordinary channel message.
  assert.equal(emu.requestsOf(bot, 'POST', new RegExp(`^/channels/${aliceDm.id}/messages$`)).length, 0);
  // The model saw the text as a message of alice's.
  assert.ok(userTexts(await modelRequests()).includes('hello ECHO:sc-ask'));
});

test('a skill command runs a turn with OpenClaw\'s instruction to use that skill', async () => {
  const i = emu.runCommand(aliceUser, aliceDm, 'summarize', [{ name: 'input', value: 'the meeting notes ECHO:sc-skill' }]);
  await waitUntil(() => callsOf(i).some((c) => c.method === 'PATCH' && String(c.body?.content).includes('[sc-skill]') && c.status === 200),
    'the skill command\'s answer in its deferred response');
  assert.ok(userTexts(await modelRequests()).includes(
    JSON.stringify('Use the "summarize" skill for this request.\n\nUser input:\nthe meeting notes ECHO:sc-skill').slice(1, -1)));
});

test('only the command\'s own run answers through the interaction: a cron announce to that DM right after is an ordinary message', async () => {
  const i = emu.runCommand(aliceUser, aliceDm, 'ask', [{ name: 'message', value: 'mine ECHO:sc-own' }]);
  await waitUntil(() => callsOf(i).some((c) => c.method === 'PATCH' && String(c.body?.content).includes('[sc-own]') && c.status === 200),
    'the command\'s answer in its deferred response');
  // The interaction's token still lives (15 minutes) and no message was typed since: a cron job's
  // reply announced to the same DM must still reach everyone there, not only alice's interaction.
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  execFileSync(pincer, ['cron', 'add', '--name', 'sc-cron', '--at', '1s', '--message', 'hello ECHO:sc-cron', '--announce',
    '--channel', 'discord', '--to', `channel:${aliceDm.id}`, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env });
  const posted = () => emu.requestsOf(bot, 'POST', new RegExp(`^/channels/${aliceDm.id}/messages$`))
    .filter((r) => JSON.stringify(r.body ?? '').includes('[sc-cron]'));
  await waitUntil(() => posted().length > 0 || emu.interactionCalls.some((c) => JSON.stringify(c.body ?? '').includes('[sc-cron]')),
    'the cron announce');
  assert.equal(posted().length, 1, 'the announce is an ordinary channel message');
  assert.ok(!emu.interactionCalls.some((c) => JSON.stringify(c.body ?? '').includes('[sc-cron]')), 'not a follow-up of the interaction');
  const announce = seen.find((m) => m.content.includes('[sc-cron]'));
  assert.equal(announce?.flags & 64, 0, 'not ephemeral');
});

test('a long answer continues in follow-ups, each within 2000 characters', async () => {
  const i = emu.runCommand(aliceUser, aliceDm, 'ask', [{ name: 'message', value: 'write a lot MOCK_LONG:4500' }]);
  await waitUntil(() => callsOf(i).filter((c) => c.method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(c.path) && c.status === 200).length >= 2,
    'the follow-ups');
  const texts = [];
  await waitUntil(() => {
    texts.length = 0;
    for (const m of seen) if (m.channelId === aliceDm.id && m.content.includes('fox jumps')) texts.push(m.content);
    return texts.join('').replace(/\s+/g, '').length >= 4500 - 900;  // whitespace at chunk edges may go
  }, 'the whole long answer');
  assert.ok(texts.every((t) => t.length <= 2000));
  const followups = callsOf(i).filter((c) => c.method === 'POST' && /^\/webhooks\//.test(c.path));
  assert.ok(followups.every((c) => c.body.flags === 64), 'follow-ups are ephemeral too');
});

test('a file in a command\'s answer goes to the interaction, as private as its text', async () => {
  const bytes = Buffer.from('only for alice\n');
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  writeFileSync(path.join(home, 'workspace', 'secret.txt'), bytes);
  const channelPosts = () => emu.requestsOf(bot, 'POST', new RegExp(`^/channels/${aliceDm.id}/messages$`)).length;
  const before = channelPosts();
  await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(['Here it is [sc-file]\nMEDIA: ./secret.txt']) });
  const i = emu.runCommand(aliceUser, aliceDm, 'ask', [{ name: 'message', value: 'send me the secret' }]);
  await waitUntil(() => emu.uploads.some((u) => u.interaction === i.id), 'the file sent through the interaction');
  const upload = emu.uploads.find((u) => u.interaction === i.id);
  assert.equal(upload.filename, 'secret.txt');
  assert.ok(Buffer.from(upload.bytes).equals(bytes));
  const followup = callsOf(i).find((c) => c.method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(c.path) && c.status === 200);
  assert.ok(followup, JSON.stringify(callsOf(i).map((c) => [c.method, c.path, c.status])));
  assert.equal(followup.body.flags, 64, 'an ephemeral follow-up, as the text');
  const message = [...emu.messages.values()].find((m) => m.attachments?.some((a) => a.filename === 'secret.txt'));
  assert.equal(message.flags & 64, 64, 'only alice sees it');
  assert.equal(message.interaction_metadata?.id, i.id);
  assert.equal(channelPosts(), before, 'nothing posted to the DM as an ordinary message');
});

test('/status in a guild channel runs the command without a mention', async () => {
  const i = emu.runCommand(aliceUser, general, 'status');
  await waitUntil(() => callsOf(i).some((c) => c.method === 'PATCH' && c.status === 200), 'the status answer');
  const patch = callsOf(i).find((c) => c.method === 'PATCH');
  assert.match(patch.body.content, /main/i, patch.body.content);
  assert.doesNotMatch(patch.body.content, /not allowed/);
});

test('a person the access policy does not allow gets a refusal and no run', async () => {
  const before = (await modelRequests()).length;
  const i = emu.runCommand(stranger, strangerDm, 'ask', [{ name: 'message', value: 'let me in ECHO:sc-stranger' }]);
  await waitUntil(() => callsOf(i).some((c) => c.method === 'PATCH' && c.status === 200), 'the refusal');
  const patch = callsOf(i).find((c) => c.method === 'PATCH');
  assert.match(patch.body.content, /not allowed/);
  // A command of alice's after it is answered: the stranger's text never reached the model.
  const j = emu.runCommand(aliceUser, aliceDm, 'ask', [{ name: 'message', value: 'still here ECHO:sc-after' }]);
  await waitUntil(() => callsOf(j).some((c) => c.method === 'PATCH' && String(c.body?.content).includes('[sc-after]')), 'alice\'s answer');
  const requests = await modelRequests();
  assert.ok(!userTexts(requests.slice(before)).includes('sc-stranger'));
});
