// Several bot accounts per channel and hot reload of pincer.json (issue #5 §1; SPEC CH-6, CH-7,
// CF-2) end to end: the npm Bot API emulator `telegram-test-api` as Telegram (two bots), the real
// `pincer gateway run`, the mock LLM. The test edits the config file while the gateway runs.
//
//   tests/channels/setup.sh && node tests/channels/telegram_reload.test.mjs <pincer binary> <source dir>
//
// Covers: adding an account (and a binding to it) starts it without touching the running one;
// changing one account's settings restarts only that account; an invalid edit, a removed file, one
// bot token in two accounts, a reserved webhook path and a busy port are rejected with a log line
// while everything keeps working; a change the running gateway cannot apply in place (logging)
// waits for the run in progress to finish, then restarts it in process (same pid).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stop, cleanEnv } from '../support/processes.mjs';
import { freePort, launchGateway, sleep, startMockLlm, tearDown, telegramServerClass, testArguments } from './harness.mjs';

const BOT_A = '111111:bot-a-token-for-the-emulator';
const BOT_B = '222222:bot-b-token-for-the-emulator';
const OWNER = 1001;
const TOKEN = 'telegram-reload-gateway-token-0123456789';

const { pincer, srcDir } = testArguments('telegram_reload.test.mjs');
const TelegramServer = telegramServerClass();

const env = cleanEnv();
const execFileAsync = promisify(execFile);
let server, apiPort, mock, mockPort, gateway, home, gatewayConfigPort;


/// The port of the newest "listening on" line (an in-process restart prints another one).
function gatewayPort() {
  const all = [...gateway.output().matchAll(/listening on ws:\/\/127\.0\.0\.1:(\d+)/g)];
  return all.length ? all[all.length - 1][1] : undefined;
}
/// `pincer gateway call` without blocking the event loop: this process also hosts the Bot API
/// emulator and its client (axios over Node's keep-alive agent). A synchronous child
/// (execFileSync, slow under the sanitizers) froze both; once a freeze outlasted the emulator's
/// 5 s keep-alive timeout, the next sendMessage reused the pooled socket while the server's
/// expired timer closed it: "read ECONNRESET" (reproduced alone: a request after a 7 s
/// execFileSync on an idle keep-alive socket of an in-process http server fails so every time).
async function call(method, params) {
  const args = ['gateway', 'call', method, '--url', `ws://127.0.0.1:${gatewayPort()}`, '--token', TOKEN];
  if (params) args.push('--params', JSON.stringify(params));
  return JSON.parse((await execFileAsync(pincer, args, { env })).stdout.toString());
}
async function until(predicate, what, ms = 20000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await predicate();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what} (last: ${JSON.stringify(last)})\n${gateway.output().slice(-3000)}`);
}
const account = (status, id) => status.channelAccounts.telegram?.find((c) => c.accountId === id);  // OpenClaw's ChannelsStatusResult

function configText({ accounts = '', bindings = '', logging = '', port = gatewayConfigPort, extra = '' } = {}) {
  return `{
  gateway: { port: ${port}, auth: { token: '${TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true }, { id: 'work' } ] },
  bindings: [ ${bindings} ],
  session: { dmScope: 'per-account-channel-peer' },
  ${logging}
  channels: { telegram: {
    botToken: '${BOT_A}', apiRoot: 'http://127.0.0.1:${apiPort}', pollTimeoutSeconds: 0,
    dmPolicy: 'allowlist', allowFrom: ['${OWNER}'],
    ${extra}
    ${accounts}
  } },
}\n`;
}
/// Saves the config as editors do: write aside, then rename over the file.
function saveConfig(text) {
  const file = path.join(home, 'pincer.json');
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}
async function answered(token, tag) {
  const owner = server.getClient(token, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  await owner.sendMessage(owner.makeMessage(`hello ECHO:${tag}`));
  await until(() => server.getUpdatesHistory(token).some((u) => u.message && String(u.message.text).includes(`[${tag}]`)),
    `the reply [${tag}] from bot ${token.split(':')[0]}`);
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-reload-'));
  apiPort = await freePort();
  server = new TelegramServer({ port: apiPort, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  gatewayConfigPort = await freePort();
  writeFileSync(path.join(home, 'pincer.json'), configText());
  gateway = launchGateway(pincer, env, home, null);  // gateway.port from the file: a reload may change it
  await gateway.ready;
});

after(() => tearDown({ gateway, mock, server, home }));

test('an added account starts, its binding applies, and the running account is not restarted', async () => {
  await answered(BOT_A, 'a-before');
  const before = account(await call('channels.status'), 'default');
  assert.equal(before.running, true);

  saveConfig(configText({
    accounts: `accounts: { alerts: { botToken: '${BOT_B}', name: 'Alerts bot' } },`,
    bindings: `{ agentId: 'work', match: { channel: 'telegram', accountId: 'alerts' } }`,
  }));
  const status = await until(async () => { const s = await call('channels.status'); return account(s, 'alerts')?.running && s; },
    'the alerts account to run');
  assert.equal(account(status, 'alerts').name, 'Alerts bot');
  assert.equal(account(status, 'default').startedAt, before.startedAt, 'the unchanged account was restarted');
  assert.equal(account(status, 'default').restarts, 0);

  // Asynchronously: the emulator lives in this process and must answer the probes' getMe.
  const { stdout: human } = await execFileAsync(pincer, ['channels', 'status', '--probe', '--url', `ws://127.0.0.1:${gatewayPort()}`,
    '--token', TOKEN], { env });
  assert.match(human, /^telegram\[default\]  running  @\S+.*probe: ok \(\d+ ms\)$/m, human);
  assert.match(human, /^telegram\[alerts\]  running  @\S+.*probe: ok \(\d+ ms\)$/m, human);
  const probed = JSON.parse((await execFileAsync(pincer, ['gateway', 'call', 'channels.status', '--params', '{"probe":true}',
    '--url', `ws://127.0.0.1:${gatewayPort()}`, '--token', TOKEN], { env })).stdout);
  assert.equal(account(probed, 'alerts').probe.ok, true);
  assert.equal(typeof account(probed, 'alerts').probe.bot.username, 'string');

  await answered(BOT_B, 'b-work');  // inherits dmPolicy/allowFrom from the channel
  await answered(BOT_A, 'a-main');
  const keys = (await call('sessions.list')).sessions.map((s) => s.key);
  assert.ok(keys.includes(`agent:work:telegram:alerts:direct:${OWNER}`), `alerts is not on agent work: ${keys}`);
  assert.ok(keys.includes(`agent:main:telegram:default:direct:${OWNER}`), `default is not on agent main: ${keys}`);
  // The health snapshot is current (at most a second old) and names channels, agents, sessions.
  await sleep(1100);
  const health = await call('health');
  assert.equal(health.channels.telegram?.running, true, JSON.stringify(health.channels));
  assert.deepEqual(Object.keys(health.channels.telegram.accounts).sort(), ['alerts', 'default']);
  assert.deepEqual(health.channelOrder, ['telegram']);
  assert.deepEqual(health.agents.map((a) => a.agentId).sort(), ['main', 'work']);
  // Top-level sessions are the default agent's store (OpenClaw's HealthSummary); each agent has its own.
  assert.ok(health.sessions.count >= 1, JSON.stringify(health.sessions));
  const perAgent = Object.fromEntries(health.agents.map((a) => [a.agentId, a.sessions?.count ?? 0]));
  assert.ok(perAgent.main >= 1 && perAgent.work >= 1, JSON.stringify(perAgent));
});

test('changing one account restarts only that account', async () => {
  const before = await call('channels.status');
  saveConfig(configText({
    accounts: `accounts: { alerts: { botToken: '${BOT_B}', name: 'Alerts bot (renamed)' } },`,
    bindings: `{ agentId: 'work', match: { channel: 'telegram', accountId: 'alerts' } }`,
  }));
  const after = await until(async () => { const s = await call('channels.status'); return account(s, 'alerts')?.name === 'Alerts bot (renamed)' && s; },
    'the alerts account to restart with its new name');
  assert.ok(account(after, 'alerts').startedAt >= account(before, 'alerts').startedAt);
  assert.equal(account(after, 'default').startedAt, account(before, 'default').startedAt, 'the other account was restarted');
  await answered(BOT_B, 'b-after-change');
});

test('an invalid edit is rejected, logged, and the running config is kept', async () => {
  // The running config's hash is status.config.hash (config.get's hash is the file's: the base a
  // config write must name, as in OpenClaw).
  const hash = (await call('status')).config.hash;
  saveConfig(configText().replace("dmPolicy: 'allowlist'", "dmPolicy: 'allowlist', dmPolicyy: 'open'"));
  await until(() => /config reload rejected.*channels\.telegram\.dmPolicyy/.test(gateway.output()), 'the rejection in the log');
  const running = (await call('status')).config;
  assert.equal(running.hash, hash);
  assert.equal(running.matchesFile, false);
  const status = await call('channels.status');
  assert.equal(account(status, 'alerts')?.running, true, 'the rejected edit stopped an account');
  await answered(BOT_A, 'a-after-invalid');
});

test('removing the file, a shared bot token, a reserved path or a busy port is rejected; the gateway goes on', async () => {
  const file = path.join(home, 'pincer.json');
  const kept = readFileSync(file, 'utf8');
  const rejections = () => (gateway.output().match(/config reload rejected/g) ?? []).length;
  let seen = rejections();
  const rejected = async (edit, why, pattern) => {
    edit();
    await until(() => rejections() > seen, `the rejection of ${why}`);
    seen = rejections();
    const lines = gateway.output().split('\n').filter((l) => l.includes('config reload rejected'));
    assert.match(lines[lines.length - 1], pattern);
  };
  await rejected(() => rmSync(file), 'a removed file', /pincer\.json was removed/);
  saveConfig(kept);
  await rejected(() => saveConfig(configText({ accounts: `accounts: { alerts: { botToken: '${BOT_A}' } },` })),
    'a bot token used twice', /channels\.telegram\.accounts\.alerts: the same bot token is already used by channels\.telegram\b/);
  await rejected(() => saveConfig(configText({ extra: "webhookPath: '/health'," })),
    'a reserved path', /webhookPath: is the gateway's own \/health endpoint/);
  const busy = net.createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  await rejected(() => saveConfig(configText({ port: busy.address().port })), 'a busy port',
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busy.address().port}`));
  busy.close();
  assert.equal((gateway.output().match(/listening on ws:/g) ?? []).length, 1, 'the gateway restarted');
  await answered(BOT_A, 'a-after-rejections');
});

test('a change that needs a restart waits for the run in progress, then restarts the gateway in process', async () => {
  const pid = gateway.child.pid;
  const listening = () => (gateway.output().match(/listening on ws:/g) ?? []).length;
  const before = listening();
  const owner = server.getClient(BOT_A, { userId: OWNER, chatId: OWNER, firstName: 'Owner' });
  // (Its own run: an earlier run's line must not count. Telegram holds a line 300 ms for more of
  // its burst — messages.inbound — before the run starts.)
  const runsStarted = () => (gateway.output().match(/run \S+ started/g) ?? []).length;
  const runsBefore = runsStarted();
  await owner.sendMessage(owner.makeMessage('take your time MOCK_SLOW:300 ECHO:a-slow'));
  await until(() => runsStarted() > runsBefore, 'the slow run to start');
  saveConfig(configText({ logging: "logging: { level: 'debug' },", accounts: `accounts: { alerts: { botToken: '${BOT_B}' } },` }));
  await until(() => /logging\.level changed; the gateway restarts once 1 run\(s\) and \d+ channel message\(s\) in progress are done/
    .test(gateway.output()), 'the restart to wait for the run');
  // A message that arrives while the restart waits is answered too (collect gathers it after the run).
  await owner.sendMessage(owner.makeMessage('meanwhile ECHO:a-queued'));
  await until(() => listening() > before, 'a second "listening on" line');
  // The reply was finished before the restart: complete, not a frozen preview.
  const replies = server.getUpdatesHistory(BOT_A).filter((u) => u.message && String(u.message.text).includes('[a-slow]'));
  assert.equal(replies.length, 1);
  assert.match(replies[0].message.text, /^Hello from the mock LLM\. \[a-slow\]$/);
  const queued = server.getUpdatesHistory(BOT_A).filter((u) => u.message && String(u.message.text).includes('[a-queued]'));
  assert.equal(queued.length, 1, 'the message that arrived while the restart waited was not answered once');
  assert.match(gateway.output(), /logging\.level changed; restarting the gateway in place/);
  assert.equal(gateway.child.exitCode, null, 'the process exited');
  assert.equal(gateway.child.pid, pid);
  await answered(BOT_A, 'a-after-restart');
  await answered(BOT_B, 'b-after-restart');
});
