// Channel docking end to end (RT-5: `/dock_<channel>`): Alice talks to the real `pincer gateway
// run` from Telegram (the npm Bot API emulator `telegram-test-api`) and has a Discord account
// (tests/discord_emulator/discord-emulator.mjs, Gateway + REST v10) linked to hers by
// `session.identityLinks`. `/dock_discord` in her Telegram DM is confirmed there; the reply to her
// next Telegram message arrives in her Discord DM — in the same session, whose transcript keeps
// the earlier turn, its sessions.json deliveryContext naming the Discord DM — and the agent's last
// chat (cron/heartbeat "last") is the Discord DM, where a reminder she asks for arrives;
// `/dock-telegram` brings the replies back. A sender with no linked account, an unconfigured
// channel, docking where the replies already go and a group are refused with the reason; /help
// lists the dock commands of the configured channels.
//
//   tests/channels/setup.sh && tests/discord_emulator/setup.sh &&
//   node tests/channels/dock.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../support/processes.mjs';
import { botTextsIn, freePort, launchGateway, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { pincer, srcDir } = testArguments('dock.test.mjs');
if (!existsSync(path.join(here, '../discord_emulator/.cache/node_modules/ws'))) {
  console.error('the Discord emulator is not installed: run tests/discord_emulator/setup.sh');
  process.exit(1);
}
const { DiscordEmulator } = await import('../discord_emulator/discord-emulator.mjs');

const BOT_TOKEN = '666666:dock-test-token-for-the-emulator';
const ALICE = 1001;  // linked to her Discord account
const BOB = 1002;    // linked to nothing
const GROUP = -100777;
const env = cleanEnv();
let server, mock, gateway, home, emu, bot, aliceDiscord, aliceDm;

const telegramTexts = (chat) => botTextsIn(server, BOT_TOKEN, chat);
/// What the bot wrote in Alice's Discord DM, oldest first.
const discordTexts = () => [...emu.messages.values()]
  .filter((m) => m.channel_id === aliceDm.id && m.author.id === bot.id)
  .map((m) => m.content);
const context = () => `telegram alice: ${JSON.stringify(telegramTexts(ALICE))}; telegram bob: ${JSON.stringify(telegramTexts(BOB))}; ` +
  `discord: ${JSON.stringify(discordTexts())}\n${gateway?.output().slice(-3000)}`;
const until = (predicate, what) => waitUntil(predicate, what, context);
const has = (texts, needle) => texts.some((t) => t.includes(needle));

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-dock-'));
  const apiPort = await freePort();
  const TelegramServer = telegramServerClass();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  emu = await new DiscordEmulator().start();
  bot = emu.addUser({ username: 'pincer', bot: true });
  aliceDiscord = emu.addUser({ username: 'alice', globalName: 'Alice' });
  aliceDm = emu.dmChannel(aliceDiscord, bot);
  let mockPort;
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'dock-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  commands: { ownerAllowFrom: ['${ALICE}'] },  // the cron tool is the owner's
  session: { dmScope: 'per-peer', identityLinks: { alice: ['telegram:${ALICE}', 'discord:${aliceDiscord.id}'] } },
  channels: {
    telegram: { botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
      dmPolicy: 'allowlist', allowFrom: ['${ALICE}', '${BOB}'],
      groupPolicy: 'open', groups: { '*': { requireMention: false } } },
    discord: { token: '${bot.token}', apiRoot: '${emu.apiRoot}', dmPolicy: 'allowlist', allowFrom: ['${aliceDiscord.id}'] },
  },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await waitUntil(() => emu.liveSessions(bot).length > 0, 'Pincer on the Discord Gateway', context);
});

after(async () => {
  await emu?.stop();
  await tearDown({ gateway, mock, server, home });
});

function aliceSession() {
  const index = JSON.parse(readFileSync(path.join(home, 'agents/main/sessions/sessions.json'), 'utf8'));
  return { keys: Object.keys(index), entry: index['agent:main:direct:alice'] };
}
function transcriptUserTexts(sessionId) {
  return readFileSync(path.join(home, 'agents/main/sessions', `${sessionId}.jsonl`), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l)).filter((e) => e.type === 'message' && e.message?.role === 'user')
    .map((e) => JSON.stringify(e.message.content));
}

test('/dock_discord from Telegram: confirmed there, the next reply arrives in the Discord DM, same session', async () => {
  const alice = server.getClient(BOT_TOKEN, { userId: ALICE, chatId: ALICE, firstName: 'Alice' });
  await alice.sendMessage(alice.makeMessage('hello ECHO:one'));
  await until(() => has(telegramTexts(ALICE), '[one]'), 'the first reply on Telegram');
  const before = aliceSession().entry;
  assert.ok(before, `alice's session: ${JSON.stringify(aliceSession().keys)}`);
  // Every channel turn records where the session's replies go, as OpenClaw does on each inbound
  // message (not only a /dock): the MCP bridge and OpenClaw's own tools read it.
  await until(() => aliceSession().entry?.lastChannel === 'telegram', 'the delivery address in sessions.json');
  assert.deepEqual(aliceSession().entry.deliveryContext, { channel: 'telegram', to: String(ALICE), accountId: 'default' });
  assert.equal(aliceSession().entry.lastTo, String(ALICE));

  await alice.sendMessage(alice.makeMessage('/dock_discord'));
  await until(() => has(telegramTexts(ALICE), 'Replies now go to discord'), 'the confirmation on Telegram');
  assert.equal(discordTexts().length, 0, 'the confirmation is not sent to Discord');

  await alice.sendMessage(alice.makeMessage('still there? ECHO:two'));
  await until(() => has(discordTexts(), '[two]'), 'the reply in the Discord DM');
  assert.ok(!has(telegramTexts(ALICE), '[two]'), 'not answered on Telegram');

  // A reminder she asks for from Telegram now is announced in the Discord DM as well.
  const job = { action: 'add', job: { name: 'docked reminder', schedule: { kind: 'at', at: new Date(Date.now() + 1500).toISOString() },
    payload: { kind: 'agentTurn', message: 'Time to stretch ECHO:cron' } } };
  await alice.sendMessage(alice.makeMessage(`remind me MOCK_TOOL:cron:${JSON.stringify(job)}`));
  await until(() => has(discordTexts(), '[cron]'), 'the reminder announced in the Discord DM');
  assert.ok(!has(telegramTexts(ALICE), '[cron]'));

  // Context stays: one session, the same id, the transcript with both turns.
  const after = aliceSession().entry;
  assert.equal(after.sessionId, before.sessionId);
  const users = transcriptUserTexts(after.sessionId);
  assert.ok(users.some((t) => t.includes('ECHO:one')) && users.some((t) => t.includes('ECHO:two')), JSON.stringify(users));
  // Cron and heartbeat deliveries to "last" follow.
  const last = JSON.parse(readFileSync(path.join(home, 'channels/last-route.json'), 'utf8')).main;
  assert.deepEqual({ channel: last.channel, to: last.to }, { channel: 'discord', to: `user:${aliceDiscord.id}` });
  // The session's delivery address in sessions.json, as OpenClaw keeps it.
  assert.deepEqual(after.deliveryContext, { channel: 'discord', to: `user:${aliceDiscord.id}`, accountId: 'default' });
  assert.equal(after.lastChannel, 'discord');
  const docks = JSON.parse(readFileSync(path.join(home, 'channels/docks.json'), 'utf8'));
  assert.equal(docks['agent:main:direct:alice'].channel, 'discord');

  // From Discord itself: answered there (the replies already go there).
  emu.createMessage(aliceDiscord, aliceDm.id, { content: 'from discord ECHO:three' });
  await until(() => has(discordTexts(), '[three]'), 'the reply to a Discord message');
  emu.createMessage(aliceDiscord, aliceDm.id, { content: '/dock_discord' });
  await until(() => has(discordTexts(), 'Replies already go to discord'), 'docking where the replies go is refused');

  // Back: /dock-telegram from Telegram.
  await alice.sendMessage(alice.makeMessage('/dock-telegram'));
  await until(() => has(telegramTexts(ALICE), 'Replies go to telegram again'), 'the undock confirmation');
  await alice.sendMessage(alice.makeMessage('back ECHO:four'));
  await until(() => has(telegramTexts(ALICE), '[four]'), 'the reply on Telegram again');
  assert.ok(!has(discordTexts(), '[four]'));
  const back = aliceSession().entry;
  assert.equal(back.sessionId, before.sessionId);
  assert.deepEqual(back.deliveryContext, { channel: 'telegram', to: String(ALICE), accountId: 'default' });
});

test('refusals: an unlinked sender, an unconfigured channel, the channel itself, a group', async () => {
  const bob = server.getClient(BOT_TOKEN, { userId: BOB, chatId: BOB, firstName: 'Bob' });
  await bob.sendMessage(bob.makeMessage('/dock_discord'));
  await until(() => has(telegramTexts(BOB), 'is not linked to a discord account'), 'the unlinked refusal');
  await bob.sendMessage(bob.makeMessage('/dock_slack'));
  await until(() => has(telegramTexts(BOB), 'no slack account is configured here (configured: discord, telegram)'), 'the unconfigured refusal');
  const alice = server.getClient(BOT_TOKEN, { userId: ALICE, chatId: ALICE, firstName: 'Alice' });
  await alice.sendMessage(alice.makeMessage('/dock_telegram'));
  await until(() => has(telegramTexts(ALICE), 'Replies already go to telegram'), 'docking to the channel itself');
  const inGroup = server.getClient(BOT_TOKEN, { userId: ALICE, chatId: GROUP, type: 'group', chatTitle: 'Team', firstName: 'Alice' });
  await inGroup.sendMessage(inGroup.makeMessage('/dock_discord'));
  await until(() => has(telegramTexts(GROUP), 'direct chat'), 'the group refusal');
  // /help lists the dock command of every configured channel.
  await bob.sendMessage(bob.makeMessage('/help'));
  await until(() => has(telegramTexts(BOB), '/dock_telegram') && has(telegramTexts(BOB), '/dock_discord'), '/help with the dock commands');
  // Bob's next message is answered on Telegram as before.
  await bob.sendMessage(bob.makeMessage('hi ECHO:bob'));
  await until(() => has(telegramTexts(BOB), '[bob]'), "bob's reply");
  assert.ok(!has(discordTexts(), '[bob]'));
});
