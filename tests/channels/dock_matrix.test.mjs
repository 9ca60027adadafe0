// Channel docking to Matrix end to end (RT-5; src/channels/matrix/matrix_direct.cpp): Alice talks
// to the real `pincer gateway run` from Telegram (the npm Bot API emulator) and has a Matrix
// account (tests/matrix_emulator/matrix-emulator.mjs) linked to hers by `session.identityLinks`.
// She has no room with the bot yet: after `/dock_matrix` the next reply opens one — a room created
// with is_direct, inviting her — and arrives there; the following reply and, after a restart of
// the gateway, the next one go to the same room (remembered in the channel's state file). Her
// message from that room is answered there; `/dock-telegram` brings the replies back.
//
//   tests/channels/setup.sh && node tests/channels/dock_matrix.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, stop } from '../support/processes.mjs';
import { botTextsIn, freePort, launchGateway, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';
import { MatrixEmulator } from '../matrix_emulator/matrix-emulator.mjs';

const { pincer, srcDir } = testArguments('dock_matrix.test.mjs');

const BOT_TOKEN = '777777:dock-matrix-test-token-for-the-emulator';
const ALICE = 2001;
const env = cleanEnv();
let server, mock, gateway, home, hs, bot, aliceMatrix;

const telegramTexts = () => botTextsIn(server, BOT_TOKEN, ALICE);
/// Rooms the bot created with is_direct for alice, and the bot's message bodies in `roomId`.
const createdRooms = () => hs.requestsOf(bot.userId, 'POST', /^\/_matrix\/client\/v3\/createRoom$/);
const botTextsInRoom = (roomId) => hs.roomEvents(roomId).filter((e) => e.type === 'm.room.message' && e.sender === bot.userId)
  .map((e) => e.content.body);
const directRoom = () => [...hs.rooms.keys()].find((id) => hs.membership(id, aliceMatrix.userId) !== 'leave' && hs.membership(id, bot.userId) === 'join');
const context = () => `telegram: ${JSON.stringify(telegramTexts())}; matrix room ${directRoom()}: ` +
  `${JSON.stringify(directRoom() ? botTextsInRoom(directRoom()) : [])}\n${gateway?.output().slice(-3000)}`;
const until = (predicate, what) => waitUntil(predicate, what, context);
const has = (texts, needle) => texts.some((t) => t.includes(needle));

async function startGateway() {
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
  await until(() => hs.requestsOf(bot.userId, 'GET', /\/sync/).length > 0, 'Pincer syncing with the homeserver');
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-dock-matrix-'));
  const apiPort = await freePort();
  const TelegramServer = telegramServerClass();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  hs = await new MatrixEmulator().start();
  bot = hs.addUser('pincer', { displayname: 'Pincer' });
  aliceMatrix = hs.addUser('alice', { displayname: 'Alice' });
  let mockPort;
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'dock-matrix-test-gateway-token-0123' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  session: { dmScope: 'per-peer', identityLinks: { alice: ['telegram:${ALICE}', 'matrix:${aliceMatrix.userId}'] } },
  channels: {
    telegram: { botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
      dmPolicy: 'allowlist', allowFrom: ['${ALICE}'] },
    matrix: { homeserver: '${hs.baseUrl}', accessToken: '${bot.token}', dm: { policy: 'allowlist', allowFrom: ['${aliceMatrix.userId}'] } },
  },
}\n`);
  await startGateway();
});

after(async () => {
  await hs?.stop();
  await tearDown({ gateway, mock, server, home });
});

test('/dock_matrix: the next reply opens a direct room with the linked account and arrives there', async () => {
  const alice = server.getClient(BOT_TOKEN, { userId: ALICE, chatId: ALICE, firstName: 'Alice' });
  await alice.sendMessage(alice.makeMessage('hello ECHO:m-one'));
  await until(() => has(telegramTexts(), '[m-one]'), 'the first reply on Telegram');

  await alice.sendMessage(alice.makeMessage('/dock_matrix'));
  await until(() => has(telegramTexts(), 'Replies now go to matrix'), 'the confirmation on Telegram');
  assert.equal(createdRooms().length, 0, 'no room before a reply needs one');

  await alice.sendMessage(alice.makeMessage('still there? ECHO:m-two'));
  await until(() => directRoom() && has(botTextsInRoom(directRoom()), '[m-two]'), 'the reply in a Matrix room');
  assert.ok(!has(telegramTexts(), '[m-two]'), 'not answered on Telegram');
  const room = directRoom();
  assert.equal(createdRooms().length, 1);
  assert.deepEqual(createdRooms()[0].body, { is_direct: true, invite: [aliceMatrix.userId], preset: 'trusted_private_chat' });
  assert.equal(hs.membership(room, aliceMatrix.userId), 'invite', 'alice is invited');
  const invite = hs.roomEvents(room).find((e) => e.type === 'm.room.member' && e.state_key === aliceMatrix.userId);
  assert.equal(invite.content.is_direct, true, 'marked as a direct chat for her client');

  await alice.sendMessage(alice.makeMessage('and again ECHO:m-three'));
  await until(() => has(botTextsInRoom(room), '[m-three]'), 'the second reply in the same room');
  assert.equal(createdRooms().length, 1, 'the room is reused');
  const state = JSON.parse(readFileSync(path.join(home, 'channels/matrix/default.json'), 'utf8'));
  assert.equal(state.dmRooms[aliceMatrix.userId], room, 'kept in the channel state file');

  // A restart keeps the room: the next docked reply goes there without creating another.
  await stop(gateway.child);
  await startGateway();
  await alice.sendMessage(alice.makeMessage('after the restart ECHO:m-four'));
  await until(() => has(botTextsInRoom(room), '[m-four]'), 'the reply after a restart in the same room');
  assert.equal(createdRooms().length, 1);

  // Alice joins and writes from Matrix: answered there, in the same session.
  hs.join(aliceMatrix.userId, room);
  hs.send(aliceMatrix.userId, room, { msgtype: 'm.text', body: 'from matrix ECHO:m-five' });
  await until(() => has(botTextsInRoom(room), '[m-five]'), 'the reply to a Matrix message');

  // Back to Telegram.
  await alice.sendMessage(alice.makeMessage('/dock-telegram'));
  await until(() => has(telegramTexts(), 'Replies go to telegram again'), 'the undock confirmation');
  await alice.sendMessage(alice.makeMessage('back ECHO:m-six'));
  await until(() => has(telegramTexts(), '[m-six]'), 'the reply on Telegram again');
  assert.ok(!has(botTextsInRoom(room), '[m-six]'));
});
