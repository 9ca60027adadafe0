// Photos and documents from Telegram reach the model (issue 17 item 4): the owner sends a photo
// with a caption and a CSV document to the bot in the npm Bot API emulator `telegram-test-api`
// (harness.mjs serves getFile and /file/bot<token>/<path>); the gateway downloads them through the
// Bot API and the mock LLM receives an image part (the model's input includes "image") and the
// CSV inlined as a fenced block; a document over the size cap is not downloaded and is named in
// the text instead. The other way (media out): a reply's MEDIA: lines upload a photo and a document
// (multipart sendPhoto/sendDocument, recorded by the emulator byte for byte). No fixed sleeps: every wait is for what the chat or the mock shows.
//
//   tests/channels/setup.sh && node tests/channels/telegram_media.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../support/processes.mjs';
import { botTextsIn, countContaining, freePort, launchGateway, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';

const BOT_TOKEN = '777777:media-test-token-for-the-emulator';
const OWNER = 1204;
// A 1x1 PNG (Telegram's photos are JPEGs; the gateway goes by the bytes).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const { pincer, srcDir } = testArguments('telegram_media.test.mjs');
const TelegramServer = telegramServerClass();
const env = cleanEnv();
let server, apiPort, mock, mockPort, gateway, home;

const botTexts = () => botTextsIn(server, BOT_TOKEN, OWNER);
const mockJson = async (p, method = 'GET', body) =>
  (await fetch(`http://127.0.0.1:${mockPort}${p}`, { method, body, headers: { 'content-type': 'application/json' } })).json();
const userParts = async () => {
  const parts = [];
  for (const r of await mockJson('/__mock/requests')) {
    for (const m of r.body?.messages ?? []) if (m.role === 'user' && Array.isArray(m.content)) parts.push(...m.content);
  }
  lastParts = parts;
  return parts;
};
let lastParts = [];
const waitFor = (predicate, what) => waitUntil(predicate, what, () => `chat: ${JSON.stringify(botTexts())}\nuser parts: ${JSON.stringify(lastParts).slice(0, 2000)}\n` + gateway.output().slice(-3000));

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tgmedia-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-media-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'eyes', input: ['text', 'image'] } ] } } },
  agents: { defaults: { model: { primary: 'mock/eyes' } } },
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  gateway = launchGateway(pincer, env, home);
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('a photo with a caption reaches the model as an image, stored beside the transcript', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  server.addFile('photo-small', PNG, 'photos/small.png');
  server.addFile('photo-big', PNG, 'photos/big.png');
  await owner.sendMessage(owner.makeMessage('', {
    caption: 'what is in this picture? [p1]',
    photo: [{ file_id: 'photo-small', file_unique_id: 's', width: 1, height: 1, file_size: PNG.length },
            { file_id: 'photo-big', file_unique_id: 'b', width: 2, height: 2, file_size: PNG.length }],
  }));
  const url = `data:image/png;base64,${PNG.toString('base64')}`;
  await waitFor(async () => (await userParts()).some((p) => p.type === 'image_url' && p.image_url?.url === url), 'an image part at the model');
  const parts = await userParts();
  assert.ok(parts.some((p) => p.type === 'text' && p.text.includes('[p1]')), `the caption is the text: ${JSON.stringify(parts)}`);
  assert.deepEqual(server.fileDownloads, ['photos/big.png'], 'the largest size under the cap is downloaded');
  await waitFor(() => botTexts().length > 0, 'a reply in the chat');
  const sessions = path.join(home, 'agents', 'main', 'sessions');
  const transcript = readdirSync(sessions).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(path.join(sessions, f), 'utf8')).join('');
  assert.ok(!transcript.includes(PNG.toString('base64')), 'no base64 in the transcript');
  // One stored image, and the session's link to it (media/by-session/<sessionId>/, deleted with the session).
  const media = path.join(sessions, 'media');
  assert.deepEqual(readdirSync(media).filter((f) => f !== 'by-session').length, 1);
  const linked = readdirSync(path.join(media, 'by-session')).flatMap((id) => readdirSync(path.join(media, 'by-session', id)));
  assert.equal(linked.length, 1);
});

test('a text document is inlined; a document over the cap is named, never downloaded', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  server.addFile('doc-csv', 'a,b\n1,2', 'documents/t.csv');
  await owner.sendMessage(owner.makeMessage('', {
    caption: 'sum it [d1]', document: { file_id: 'doc-csv', file_unique_id: 'c', file_name: 't.csv', mime_type: 'text/csv', file_size: 7 },
  }));
  await waitFor(async () => (await userParts()).some((p) => p.type === 'text' && p.text.includes('[file: t.csv]\n```\na,b\n1,2\n```')),
    'the CSV inlined');
  server.addFile('doc-huge', 'x', 'documents/huge.bin');
  await owner.sendMessage(owner.makeMessage('', {
    caption: 'and this [d2]', document: { file_id: 'doc-huge', file_unique_id: 'h', file_name: 'huge.bin', mime_type: 'application/zip', file_size: 50000000 },
  }));
  await waitFor(async () => (await userParts()).some((p) => p.type === 'text' && p.text.includes('[d2]') &&
    p.text.includes('[file omitted: huge.bin, application/zip, 50000000 bytes')), 'the big file named in the text');
  assert.ok(!server.fileDownloads.includes('documents/huge.bin'));
  assert.equal(countContaining(server.fileDownloads, 'documents/t.csv'), 1);
});

test('a reply\'s MEDIA lines go out as a photo and a document; a file outside the workspace is refused', async () => {
  // SPEC CH-1 media out (channels/reply_media.h): the agent's workspace is <home>/workspace.
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  const workspace = path.join(home, 'workspace');
  mkdirSync(path.join(workspace, 'out'), { recursive: true });
  writeFileSync(path.join(workspace, 'out', 'chart.png'), PNG);
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000)]);  // any byte, none altered on the way
  writeFileSync(path.join(workspace, 'Q3 report.pdf'), pdf);
  await mockJson('/__mock/script', 'POST', JSON.stringify([
    'Here are your files [mo1]\nMEDIA: ./out/chart.png\nMEDIA: "Q3 report.pdf"\nMEDIA: /etc/passwd']));
  await owner.sendMessage(owner.makeMessage('send me the chart and the report'));
  await waitFor(() => server.uploads.length >= 2 && botTexts().some((t) => t.includes('[mo1]')), 'two uploads and the text');
  const [photo, doc] = server.uploads;
  assert.equal(photo.method, 'sendPhoto');
  assert.equal(photo.fields.chat_id, String(OWNER));
  assert.equal(photo.file.filename, 'chart.png');
  assert.equal(photo.file.contentType, 'image/png');
  assert.ok(photo.file.bytes.equals(PNG), 'the photo arrives intact');
  assert.equal(doc.method, 'sendDocument');
  assert.equal(doc.file.filename, 'Q3 report.pdf');
  assert.equal(doc.file.contentType, 'application/pdf');
  assert.ok(doc.file.bytes.equals(pdf), 'the document arrives intact');
  const text = botTexts().find((t) => t.includes('[mo1]'));
  assert.ok(!text.includes('MEDIA:'), `no directive in the chat: ${text}`);
  assert.ok(text.includes('[file passwd not sent: outside the workspace and the media folder]'), text);
  assert.equal(server.uploads.length, 2, 'nothing else was uploaded');
});
