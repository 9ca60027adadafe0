// A reminder made from a chat (issue 15, done-when; AT-2): the owner writes to the bot in the npm
// Bot API emulator `telegram-test-api`; the mock LLM calls the agent's `cron` tool (MOCK_TOOL) to
// add a one-shot job a few seconds ahead; the real `pincer gateway run` fires it in the job's own
// session and announces its reply in that Telegram chat — once, also when the gateway is
// restarted between the job's creation and its time. No fixed sleeps: every wait is for what the
// chat shows, with a generous deadline.
//
//   tests/channels/setup.sh && node tests/channels/telegram_cron.test.mjs <pincer binary> <source dir>
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments, waitUntil } from './harness.mjs';

const BOT_TOKEN = '555555:cron-test-token-for-the-emulator';
const OWNER = 1002;

const { pincer, srcDir } = testArguments('telegram_cron.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
let server, apiPort, mock, gateway, home;

function startGateway() {
  gateway = launchGateway(pincer, env, home);
  return gateway.ready;
}

function botTexts() {
  return server.getUpdatesHistory(BOT_TOKEN)
    .filter((u) => u.message && String(u.message.chat_id) === String(OWNER))
    .map((u) => String(u.message.text));
}

async function waitFor(predicate, what, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const seen = botTexts();
    if (predicate(seen)) return seen;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}; bot sent: ${JSON.stringify(botTexts())}\n${gateway.output().slice(-3000)}`);
}

/// The owner's message that makes the mock call `cron` add: a job `delayMs` from now whose turn
/// answers "Hello from the mock LLM. [<marker>]".
function reminderRequest(marker, delayMs) {
  const args = {
    action: 'add',
    job: {
      name: `remind ${marker}`,
      schedule: { kind: 'at', at: new Date(Date.now() + delayMs).toISOString() },
      payload: { kind: 'agentTurn', message: `Time to water the plants ECHO:${marker}` },
    },
  };
  return `remind me to water the plants MOCK_TOOL:cron:${JSON.stringify(args)}`;
}

const toolAnswers = (seen) => seen.filter((t) => t.startsWith('Tool said:')).length;
const announced = (marker) => (seen) => seen.filter((t) => t === `Hello from the mock LLM. [${marker}]`).length;

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-tgcron-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  let mockPort;
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: 'telegram-cron-gateway-token-0123456789' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  commands: { ownerAllowFrom: ['${OWNER}'] },  // the cron tool is the owner's (TL-2 owner-only)
  channels: { telegram: {
    botToken: '${BOT_TOKEN}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
  } },
}\n`);
  await startGateway();
});

after(() => tearDown({ gateway, mock, server, home }));

test('a reminder the agent schedules from Telegram is announced in that chat', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage(reminderRequest('first', 1500)));
  // The tool's answer (the job, with this chat as its delivery target) comes back first.
  await waitFor((seen) => toolAnswers(seen) === 1, 'the cron tool answer');
  await waitFor((seen) => announced('first')(seen) === 1, 'the reminder in the chat');
  // The run's record reaches jobs.json after the delivery (slower under the sanitizers): wait for it.
  const readJob = () => JSON.parse(readFileSync(path.join(home, 'cron', 'jobs.json'), 'utf8')).jobs.find((j) => j.name === 'remind first');
  await waitUntil(() => readJob()?.state?.lastStatus !== undefined, 'the run recorded in cron/jobs.json', () => JSON.stringify(readJob()));
  const job = readJob();
  assert.equal(job.delivery.to, String(OWNER));
  assert.equal(job.enabled, false, 'a one-shot job is done after its run');
  assert.equal(job.state.lastStatus, 'ok');
});

test('a gateway restart between the creation and the time: announced once after it', async () => {
  const owner = server.getClient(BOT_TOKEN, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage(reminderRequest('second', 4000)));
  await waitFor((seen) => toolAnswers(seen) === 2, 'the cron tool answer');
  await stop(gateway.child);  // SIGTERM; the job is in cron/jobs.json only
  await startGateway();
  await waitFor((seen) => announced('second')(seen) >= 1, 'the reminder after the restart');
  // A later message is answered after anything else the restart might have sent.
  await owner.sendMessage(owner.makeMessage('thanks ECHO:after'));
  const seen = await waitFor((s) => s.some((t) => t.includes('[after]')), 'the answer to the next message');
  assert.equal(announced('second')(seen), 1, `the reminder exactly once: ${JSON.stringify(seen)}`);
  assert.equal(announced('first')(seen), 1, 'the first reminder is not repeated by the restart');
});
