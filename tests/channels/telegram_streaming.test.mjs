// Streaming replies to Telegram end to end (SPEC CH-4): the npm Bot API emulator
// `telegram-test-api` as Telegram, the real `pincer gateway run` binary long-polling it, the mock
// LLM streaming a reply slowly (MOCK_SLOW) as the model.
//
//   tests/channels/setup.sh && node tests/channels/telegram_streaming.test.mjs <pincer binary> <source dir>
//
// Covers: `streaming: "partial"` shows a preview message that is edited (editMessageText) while the
// multi-second reply is written, and the chat ends with the complete reply exactly once (the
// preview replaced, no extra message); `streaming: "block"` sends the reply as several messages,
// in order, with no edits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_TOKEN = '123456:TEST-token-for-the-emulator';
const OWNER = 1001;  // in allowFrom
const FILLER = 'The quick brown fox jumps over the lazy dog. ';  // the mock's MOCK_LONG text

const { pincer, srcDir } = testArguments('telegram_streaming.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;
/// Every editMessageText the emulator applied: the edited message's id and its text afterwards.
const edits = [];

async function startGateway() {
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
}

function writeConfig(streaming, extraDefaults = '') {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-test-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } ${extraDefaults} } },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
    streaming: '${streaming}',
  } },
}\n`);
}

/// Bot messages in the chat of `client` (the emulator's store, edits applied), oldest first.
function botMessages(client) {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(client.chatId))
    .map((u) => u.message);
}

async function waitFor(client, predicate, what, ms = 30000) {
  const deadline = Date.now() + ms;
  let seen = [];
  while (Date.now() < deadline) {
    seen = botMessages(client);
    if (predicate(seen)) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(seen.map((m) => m.text))}\n${gateway.output().slice(-3000)}`);
}

const squash = (s) => String(s).replace(/\s+/g, ' ').trim();
const longText = (n) => FILLER.repeat(Math.ceil(n / FILLER.length)).slice(0, n);

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-telegram-stream-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  server.on('EditedMessageText', () => {
    // The emulator merges the edit into its stored message; find the message edited last.
    const latest = server.storage.botMessages.map((u) => ({ id: u.messageId, text: String(u.message.text) }));
    edits.push(latest);
  });
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeConfig('partial');
  await startGateway();
});

after(() => tearDown({ gateway, mock, server, home }));

test('partial: a preview is edited while the reply is written, then the chat shows the reply once', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const before = botMessages(owner).length;
  const editsBefore = edits.length;
  // 1200 characters in 32-character deltas, 150 ms apart: about 6 seconds of streaming.
  const expected = longText(1200);
  await owner.sendMessage(owner.makeMessage('tell me a long story MOCK_LONG:1200 MOCK_SLOW:150'));

  // The preview appears long before the reply is complete …
  const early = await waitFor(owner, (m) => m.length > before, 'the preview message', 10000);
  const preview = early[before];
  assert.ok(squash(preview.text).length < expected.length - 100, `the first message is already the whole reply: ${preview.text.length}`);
  assert.equal(preview.parse_mode, 'HTML');
  // … and grows in place.
  await waitFor(owner, (m) => m.length > before && squash(m[before].text) === squash(expected), 'the complete reply', 30000);
  await sleep(1500);  // nothing else may follow
  const msgs = botMessages(owner).slice(before);
  assert.equal(msgs.length, 1, `the reply must be one message (preview replaced), got ${msgs.length}: ${JSON.stringify(msgs.map((m) => m.text.length))}`);
  assert.equal(squash(msgs[0].text), squash(expected), 'the chat shows the complete reply');

  const mine = edits.slice(editsBefore).map((all) => all.find((x) => x.id === preview.message_id)?.text ?? '');
  assert.ok(mine.length >= 3, `expected several editMessageText calls over ~6 s, got ${mine.length}`);
  assert.ok(mine.length <= 12, `edits must be throttled (about one a second), got ${mine.length}`);
  const partials = mine.filter((t) => squash(t).length < squash(expected).length);
  assert.ok(partials.length >= 2, `expected intermediate previews, got lengths ${mine.map((t) => t.length)}`);
  for (let i = 1; i < mine.length; i++) assert.ok(mine[i].length >= mine[i - 1].length, 'the preview only grows');
  assert.equal(botMessages(owner).slice(before).filter((m) => squash(m.text) === squash(expected)).length, 1,
    'the complete reply exactly once');
});

test('block: the reply arrives as several messages, in order, without edits', async () => {
  await stop(gateway.child);
  writeConfig('block', `, blockStreamingChunk: { minChars: 200, maxChars: 400 },
    blockStreamingCoalesce: { minChars: 1, maxChars: 400 }, humanDelay: { mode: 'custom', minMs: 100, maxMs: 200 }`);
  assert.match(readFileSync(path.join(home, 'pincer.json'), 'utf8'), /streaming: 'block'/);
  await startGateway();
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const before = botMessages(owner).length;
  const editsBefore = edits.length;
  const expected = longText(1500);
  await owner.sendMessage(owner.makeMessage('tell me in blocks MOCK_LONG:1500 MOCK_SLOW:60'));
  const firstSeen = await waitFor(owner, (m) => m.length > before, 'the first block', 15000);
  const firstAt = Date.now();
  assert.ok(squash(firstSeen[before].text).length <= 400, 'a block is at most maxChars');
  const msgs = await waitFor(owner, (m) => squash(m.slice(before).map((x) => x.text).join(' ')).length >= squash(expected).length,
    'all blocks', 30000);
  assert.ok(Date.now() - firstAt > 500, 'blocks arrive while the reply is written, not all at once at the end');
  await sleep(1500);
  const blocks = botMessages(owner).slice(before);
  assert.ok(blocks.length >= 3, `expected at least 3 blocks, got ${blocks.length}`);
  for (const b of blocks) assert.ok(squash(b.text).length <= 400, `block of ${b.text.length} characters is over maxChars 400`);
  assert.equal(squash(blocks.map((b) => b.text).join(' ')), squash(expected), 'blocks complete, in order, none repeated');
  assert.equal(edits.length, editsBefore, 'block streaming never edits');
  assert.equal(msgs.length >= before + 3, true);
});
