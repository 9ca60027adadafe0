// Exec approvals in the web chat, in a real browser (SPEC TL-3, issue 14 §2/§8): headless Debian
// Chromium driven by playwright-core, the real `pincer gateway run` binary with
// `tools.exec.ask: "always"`, and the mock LLM scripting an `exec` call.
//
//   tests/web/setup.sh && node tests/web/approvals.test.mjs <pincer binary> <source dir>
//
// Covers: the request shows the command exactly as it will run (argv, cwd, the env change) with
// Allow once / Allow always / Deny; "Allow once" runs it and the reply shows its output; "Deny"
// refuses it (nothing runs, the card says so); a page opened while a request waits shows it too
// (exec.approval.list).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop, cleanEnv } from '../support/processes.mjs';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'webchat-approvals-test-token-0123456789';
const WAIT = 30000;

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/web/approvals.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} not found: install Debian's chromium (scripts/install-deps.sh)`);
  process.exit(1);
}
const cacheDir = path.join(here, '.cache');
if (!existsSync(path.join(cacheDir, 'node_modules/playwright-core'))) {
  console.error('playwright-core is not installed: run tests/web/setup.sh');
  process.exit(1);
}
const { chromium } = createRequire(path.join(cacheDir, 'package.json'))('playwright-core');

const baseEnv = cleanEnv();
let mock, mockPort, gateway, pageUrl, home, browser, page, problems = [];

async function mockCall(pathname, body) {
  const res = await fetch(`http://127.0.0.1:${mockPort}${pathname}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, pathname);
  return res.json();
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webchat-approvals-'));
  mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0'], baseEnv,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  mockPort = Number((await mock.ready)[1]);
  writeFileSync(path.join(home, 'pincer.json'), `{ gateway: { auth: { token: '${TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'mock-key', api: 'openai-completions',
    models: [ { id: 'mock-model', contextWindow: 128000 } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  tools: { exec: { ask: 'always' } } }\n`);
  gateway = launch(pincer, ['gateway', 'run', '--port', '0'], { ...baseEnv, PINCER_HOME: home },
    /pincer web chat: (http:\/\/127\.0\.0\.1:(\d+)\/)\n/);
  pageUrl = (await gateway.ready)[1];
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-proxy-server'] });
});

after(async () => {
  await browser?.close();
  await stop(gateway?.child);
  await stop(mock?.child);
  if (home) rmSync(home, { recursive: true, force: true });
});

async function openPage() {
  const context = await browser.newContext();
  const p = await context.newPage();
  p.on('pageerror', (e) => problems.push('pageerror: ' + e.message));
  p.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  await p.goto(pageUrl);
  await p.waitForSelector('#token-dialog[open]', { timeout: WAIT });
  await p.fill('#token-input', TOKEN);
  await p.click('#token-save');
  await p.waitForSelector('#conn[data-state="connected"]', { timeout: WAIT });
  return p;
}

async function send(text) {
  await page.fill('#input', text);
  await page.press('#input', 'Enter');
}

const card = (id) => `.approval[data-id="${id}"]`;

test('the card shows argv, cwd and the env change; "Allow once" runs the command and the reply shows its output', async () => {
  page = await openPage();
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [
    { toolCalls: [{ name: 'exec', arguments: { command: 'echo "$GREETING from web" > web.txt; cat web.txt', env: { GREETING: 'hello' } } }] },
    {},  // the mock answers "Tool said: <the tool's result>"
  ]);
  await send('run the greeting');
  const el = await page.waitForSelector('.approval:not(.done)', { timeout: WAIT });
  const id = await el.getAttribute('data-id');
  const argv = await page.$$eval(`${card(id)} .argv li`, (li) => li.map((x) => x.textContent));
  assert.deepEqual(argv, ['/bin/sh', '-c', 'echo "$GREETING from web" > web.txt; cat web.txt']);
  assert.equal(await page.textContent(`${card(id)} .approval-cwd`), path.join(home, 'workspace'));
  assert.deepEqual(await page.$$eval(`${card(id)} .approval-env li`, (li) => li.map((x) => x.textContent)), ['GREETING=hello']);
  assert.deepEqual(await page.$$eval(`${card(id)} .approval-actions button`, (b) => b.map((x) => x.textContent)),
    ['Allow once', 'Allow always', 'Deny']);
  assert.ok(!existsSync(path.join(home, 'workspace', 'web.txt')), 'nothing runs before the answer');

  // A second page opened while it waits lists it too.
  const other = await openPage();
  await other.waitForSelector(card(id), { timeout: WAIT });
  await other.context().close();

  await page.click(`${card(id)} button[data-decision="allow-once"]`);
  await page.waitForSelector(`${card(id)}.done[data-decision="allow-once"]`, { timeout: WAIT });
  assert.match(await page.textContent(`${card(id)} .approval-status`), /Approved once/);
  await page.waitForFunction(
    () => [...document.querySelectorAll('.msg.assistant:not(.streaming) .bubble')].some((b) => b.textContent.includes('Tool said:')),
    null, { timeout: WAIT });
  assert.equal(readFileSync(path.join(home, 'workspace', 'web.txt'), 'utf8'), 'hello from web\n');
  const reply = await page.locator('.msg.assistant .bubble', { hasText: 'Tool said:' }).last().textContent();
  assert.match(reply, /hello from web/, 'the reply carries the command\'s output');
});

test('"Deny" refuses the command: nothing runs and the card says so', async () => {
  await mockCall('/__mock/reset?script=1', {});
  await mockCall('/__mock/script', [
    { toolCalls: [{ name: 'exec', arguments: { command: 'echo no > denied.txt' } }] },
    {},
  ]);
  await send('try the denied one');
  const el = await page.waitForSelector('.approval:not(.done)', { timeout: WAIT });
  const id = await el.getAttribute('data-id');
  await page.click(`${card(id)} button[data-decision="deny"]`);
  await page.waitForSelector(`${card(id)}.done[data-decision="deny"]`, { timeout: WAIT });
  assert.match(await page.textContent(`${card(id)} .approval-status`), /Denied/);
  await page.waitForFunction(
    () => [...document.querySelectorAll('.msg.assistant:not(.streaming) .bubble')].some((b) => b.textContent.includes('Tool said:') && b.textContent.includes('denied')),
    null, { timeout: WAIT });
  const reply = await page.locator('.msg.assistant .bubble', { hasText: 'denied' }).last().textContent();
  assert.match(reply, /refused/);
  assert.ok(!existsSync(path.join(home, 'workspace', 'denied.txt')), 'a denied command never runs');
  assert.deepEqual(problems, []);
});
