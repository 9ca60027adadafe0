// The web chat in a real browser (issue #4 §4 and §6): headless Debian Chromium driven by
// playwright-core, the real `pincer gateway run` binary, and the mock LLM over real HTTP.
//
//   tests/web/setup.sh && node tests/web/webchat.test.mjs <pincer binary> <source dir>
//
// Covers: token entry, a streamed Markdown reply, model output with HTML/script shown as text,
// abort, new session and switching back to the first one's history, reload (token and history
// remembered), reconnect after a gateway restart, a reply cut off by kill -9 of the gateway
// (shown as interrupted, not as still replying), and a link carrying ?token=…&gatewayUrl=…
// that must be ignored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop, cleanEnv } from '../support/processes.mjs';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'webchat-browser-test-token-0123456789';
const WAIT = 20000;

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/web/webchat.test.mjs <pincer binary> <source dir>');
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

// --- processes -----------------------------------------------------------------------------------

const baseEnv = cleanEnv();

let mock, mockPort, gateway, gwPort, pageUrl, home, browser;

async function startGateway(port) {
  gateway = launch(pincer, ['gateway', 'run', '--port', String(port)], { ...baseEnv, PINCER_HOME: home },
    /pincer web chat: (http:\/\/127\.0\.0\.1:(\d+)\/)\n/);
  const m = await gateway.ready;
  return { url: m[1], port: Number(m[2]) };
}

async function mockScript(entries) {
  const res = await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(entries) });
  assert.equal(res.status, 200);
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-webchat-'));
  mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0'], baseEnv,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  mockPort = Number((await mock.ready)[1]);
  writeFileSync(path.join(home, 'pincer.json'), `{ gateway: { auth: { token: '${TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'mock-key', api: 'openai-completions',
    models: [ { id: 'mock-model', contextWindow: 128000 } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } } }\n`);
  ({ url: pageUrl, port: gwPort } = await startGateway(0));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-proxy-server'] });
});

after(async () => {
  await browser?.close();
  await stop(gateway?.child);
  await stop(mock?.child);
  if (home) rmSync(home, { recursive: true, force: true });
});

// --- page helpers --------------------------------------------------------------------------------

/// A fresh browser context (own localStorage) and page that records console errors and page errors.
async function openPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push('pageerror: ' + e.message));
  page.on('console', (m) => {
    // WebSocket failures while the gateway restarts are expected; CSP violations never are.
    if (m.type() === 'error' && !/WebSocket connection to .* failed/.test(m.text())) page.problems.push('console: ' + m.text());
  });
  return { context, page };
}

const connState = (page) => page.getAttribute('#conn', 'data-state');
const waitState = (page, state) => page.waitForSelector(`#conn[data-state="${state}"]`, { timeout: WAIT });

async function send(page, text) {
  await page.fill('#input', text);
  await page.press('#input', 'Enter');
}

/// Waits until an assistant bubble that is done streaming contains `text`; returns that bubble.
async function waitReply(page, text) {
  await page.waitForFunction(
    (t) => [...document.querySelectorAll('.msg.assistant:not(.streaming) .bubble')].some((b) => b.textContent.includes(t)),
    text,
    { timeout: WAIT },
  );
  return page.locator('.msg.assistant:not(.streaming) .bubble', { hasText: text }).last();
}

const transcript = (page) => page.$$eval('#messages .msg', (rows) => rows.map((r) => `${r.className.split(' ')[1]}: ${r.textContent}`));

// --- the scenario (steps share one gateway and run in order) -------------------------------------

let main;  // the first page, used through most steps

test('the page asks for the token, then connects', async () => {
  main = await openPage();
  const { page } = main;
  const res = await page.goto(pageUrl);
  assert.equal(res.status(), 200);
  assert.match(res.headers()['content-security-policy'], /script-src 'self'/);
  await waitState(page, 'auth');
  await page.waitForSelector('#token-dialog[open]', { timeout: WAIT });
  assert.equal(await page.isVisible('#token-error'), false);  // a first visit is not an error
  await page.fill('#token-input', 'wrong-token');
  await page.click('#token-save');
  await page.waitForSelector('#token-error:not([hidden])', { timeout: WAIT });
  assert.match(await page.textContent('#token-error'), /token mismatch/);
  assert.equal(await connState(page), 'auth');
  await page.fill('#token-input', TOKEN);
  await page.click('#token-save');
  await waitState(page, 'connected');
  assert.equal(await page.isVisible('#token-dialog'), false);
  assert.equal(await page.evaluate(() => localStorage.getItem('pincer.webchat.token')), TOKEN);
  assert.equal(await page.textContent('#session-title'), 'Main chat');
});

test('a reply streams in and renders as Markdown', async () => {
  const { page } = main;
  // Record every text the reply bubble shows while it streams.
  await page.evaluate(() => {
    window.__seen = [];
    new MutationObserver(() => {
      const b = [...document.querySelectorAll('.msg.assistant .bubble')].pop();
      if (b) window.__seen.push(b.textContent);
    }).observe(document.getElementById('messages'), { childList: true, subtree: true, characterData: true });
  });
  await send(page, 'hello MOCK_SLOW:250 ECHO:**bold**');
  await page.waitForSelector('.msg.user .bubble >> text=hello MOCK_SLOW:250 ECHO:**bold**', { timeout: WAIT });
  const bubble = await waitReply(page, 'Hello from the mock LLM. [bold]');
  assert.equal(await bubble.locator('strong').textContent(), 'bold');
  const full = await bubble.textContent();
  const seen = await page.evaluate(() => window.__seen);
  const partial = seen.filter((s) => s && s !== full && full.startsWith(s));
  assert.ok(partial.length >= 2, `expected partial renders while streaming, saw ${JSON.stringify(seen)}`);
  assert.equal(await page.isVisible('#stop'), false);
});

test('HTML and script in a reply stay text and run nothing', async () => {
  const { page } = main;
  const evil =
    'Look: <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> ' +
    '<svg onload="window.__pwned=3"></svg> [click](javascript:window.__pwned=4) **fine** `<b>code</b>`';
  await mockScript([{ text: evil }]);
  await send(page, 'show me some html ECHO:<svg/onload=window.__pwned=5>');
  const bubble = await waitReply(page, 'Look:');
  const text = await bubble.textContent();
  assert.ok(text.includes('<img src=x onerror="window.__pwned=1">'), text);
  assert.ok(text.includes('<script>window.__pwned=2</script>'), text);
  assert.ok(text.includes('[click](javascript:window.__pwned=4)'), text);
  assert.equal(await bubble.locator('strong').textContent(), 'fine');
  assert.equal(await bubble.locator('code').textContent(), '<b>code</b>');
  const injected = await page.$$eval('#messages img, #messages script, #messages svg, #messages b, #messages a', (n) => n.length);
  assert.equal(injected, 0);
  // The user's own message is text too.
  assert.equal(await page.$$eval('.msg.user svg', (n) => n.length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('a running reply can be stopped', async () => {
  const { page } = main;
  await send(page, 'a slow one MOCK_SLOW:1500');
  await page.waitForSelector('#stop:not([hidden])', { timeout: WAIT });
  await page.click('#stop');
  await page.waitForSelector('.note.aborted', { timeout: WAIT });
  await page.waitForSelector('#stop', { state: 'hidden', timeout: WAIT });
});

test('a new session, then switching back shows the first one\'s history', async () => {
  const { page } = main;
  const firstKey = await page.getAttribute('#session-list button[aria-current="true"]', 'data-key');
  assert.equal(firstKey, 'agent:main:main');
  await page.click('#new-chat');
  assert.equal(await page.textContent('#session-title'), 'New chat');
  assert.equal(await page.$$eval('#messages .msg', (n) => n.length), 0);
  await send(page, 'second chat ECHO:two');
  await waitReply(page, '[two]');
  const newKey = await page.getAttribute('#session-list button[aria-current="true"]', 'data-key');
  assert.match(newKey, /^agent:main:webchat-[0-9a-f]+$/);
  await page.waitForFunction(() => document.querySelectorAll('#session-list button.session').length >= 2, null, { timeout: WAIT });

  await page.click(`#session-list button[data-key="${firstKey}"]`);
  await waitReply(page, 'Hello from the mock LLM. [bold]');
  const rows = await transcript(page);
  assert.ok(rows.some((r) => r === 'user: hello MOCK_SLOW:250 ECHO:**bold**'), rows.join('\n'));
  assert.ok(rows.some((r) => r.startsWith('assistant: Look: <img')), rows.join('\n'));
  assert.ok(!rows.some((r) => r.includes('[two]')), rows.join('\n'));
  // History renders Markdown as the live reply did.
  assert.equal(await page.locator('.msg.assistant .bubble strong', { hasText: 'bold' }).count(), 1);

  await page.click(`#session-list button[data-key="${newKey}"]`);
  await waitReply(page, '[two]');
  assert.equal(await page.textContent('#session-title'), 'second chat ECHO:two');
  assert.ok(!(await transcript(page)).some((r) => r.includes('[bold]')));
});

test('after a reload the token and the open session are remembered', async () => {
  const { page } = main;
  await page.reload();
  await waitState(page, 'connected');
  assert.equal(await page.isVisible('#token-dialog'), false);
  await waitReply(page, '[two]');
  assert.equal(await page.textContent('#session-title'), 'second chat ECHO:two');
  await page.click('#session-list button[data-key="agent:main:main"]');
  await waitReply(page, 'Hello from the mock LLM. [bold]');
});

test('the page reconnects after the gateway restarts', async () => {
  const { page } = main;
  await stop(gateway.child);
  await page.waitForFunction(() => document.getElementById('conn').dataset.state !== 'connected', null, { timeout: WAIT });
  assert.equal(await page.isDisabled('#send'), true);
  await startGateway(gwPort);
  await waitState(page, 'connected');
  await waitReply(page, 'Hello from the mock LLM. [bold]');  // history reloaded
  await send(page, 'after restart ECHO:back');
  await waitReply(page, '[back]');
});

test('a reply cut off by kill -9 is finished after the restart (the run journal), not left replying', async () => {
  const { page } = main;
  await send(page, 'cut off MOCK_SLOW:600');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.msg.assistant.streaming .bubble')].some((b) => b.textContent.trim() !== ''),
    null,
    { timeout: WAIT },
  );
  await stop(gateway.child, 'SIGKILL');
  await page.waitForFunction(() => document.getElementById('conn').dataset.state !== 'connected', null, { timeout: WAIT });
  await startGateway(gwPort);
  await waitState(page, 'connected');
  // The gateway resumes the cut-off turn (SS-6) and the page shows its reply once it is complete.
  await waitReply(page, 'Hello from the mock LLM.');
  await page.waitForSelector('#stop', { state: 'hidden', timeout: WAIT });
  await page.waitForFunction(
    () => ![...document.querySelectorAll('#session-list .meta')].some((m) => m.textContent === 'replying…'),
    null,
    { timeout: WAIT },
  );
  await send(page, 'after the cut ECHO:resumed');
  await waitReply(page, '[resumed]');
});

test('a link with ?token= and ?gatewayUrl= is not obeyed', async () => {
  // A trap where the gateway URL from the link points: nothing may connect to it.
  let trapped = 0;
  const trap = net.createServer((s) => {
    trapped++;
    s.destroy();
  });
  await new Promise((r) => trap.listen(0, '127.0.0.1', r));
  const trapUrl = `ws://127.0.0.1:${trap.address().port}/`;
  const { context, page } = await openPage();
  const sockets = [];
  const sent = [];
  page.on('websocket', (ws) => {
    sockets.push(ws.url());
    ws.on('framesent', (f) => sent.push(String(f.payload)));
  });
  try {
    const q = `token=${TOKEN}&gatewayUrl=${encodeURIComponent(trapUrl)}&gateway=${encodeURIComponent(trapUrl)}`;
    await page.goto(`${pageUrl}?${q}#${q}`);
    await waitState(page, 'auth');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(trapped, 0);
    assert.ok(sockets.length >= 1);
    for (const u of sockets) assert.equal(u, `ws://127.0.0.1:${gwPort}/`);
    assert.ok(!sent.some((f) => f.includes(TOKEN)), 'the token from the link was sent');
    assert.equal(await page.inputValue('#token-input'), '');
    assert.equal(await page.evaluate(() => localStorage.getItem('pincer.webchat.token')), null);
    assert.equal(new URL(page.url()).search + new URL(page.url()).hash, '', 'the token stays in the address bar');
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
    trap.close();
  }
});

test('an image picked with the file picker is previewed, sent as an attachment and shown in the bubble', async () => {
  const { page } = main;
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await page.setInputFiles('#picker', { name: 'dot.png', mimeType: 'image/png', buffer: png });
  await page.waitForSelector('#chips .chip img', { timeout: WAIT });
  await send(page, 'look at this [img1]');
  await page.waitForSelector('.msg.user .bubble img.attached', { timeout: WAIT });
  assert.equal(await page.locator('#chips .chip').count(), 0, 'the chip is cleared after sending');
  // The mock model is text-only: the gateway sent it the notice in the image's place. (Wait for that
  // request itself: earlier tests' replies have the same text.)
  let last;
  for (const deadline = Date.now() + WAIT; Date.now() < deadline && !last; await new Promise((r) => setTimeout(r, 50))) {
    const requests = await (await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`)).json();
    const found = requests.filter((r) => JSON.stringify(r.body ?? '').includes('[img1]')).pop();
    if (found) last = JSON.stringify(found);
  }
  await waitReply(page, 'Hello from the mock LLM.');
  assert.ok(last && last.includes('[image omitted: model mock/mock-model does not accept images]'), last);
});

test('no script errors or CSP violations on the page', async () => {
  assert.deepEqual(main.page.problems, []);
  assert.notEqual(await connState(main.page), null);
  await main.context.close();
});
