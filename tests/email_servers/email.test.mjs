// The e-mail channel end to end, against real mail servers on loopback: Debian's Dovecot (run
// unprivileged by dovecot.mjs) holds the bot's mailbox — Pincer reads it over IMAP with implicit
// TLS (IDLE) — and npm smtp-server (outgoing.mjs) is Pincer's outgoing server, reached with
// STARTTLS and AUTH, recording and parsing (npm mailparser) every message Pincer sends. The person
// is npm nodemailer delivering their mail into the bot's mailbox over LMTP, as an MTA would.
// The real `pincer gateway run` binary is the bot, the mock LLM the model.
//
//   tests/email_servers/setup.sh && node tests/email_servers/email.test.mjs <pincer binary> <source dir>
//
// Covers: a mail answered in its thread (In-Reply-To, References, "Re:" subject, plain + HTML
// parts, From "Pincer <bot@…>", the inbound marked \Seen); a reply in the thread is the same
// session and its quoted text never reaches the model, a new subject is a new session; an
// HTML-only mail; an image attachment reaches the model as an image block, a file labelled an
// image that is not one is named with the reason; an unknown sender gets the pairing code by mail and is answered once approved;
// auto-submitted mail and a mailer-daemon bounce are never answered (not even with a pairing
// code); a binding by peer (the sender's address) picks another agent; a restart answers nothing
// twice and answers the mail that arrived while it was down; a wrong IMAP password stops that
// account with a reason naming channels.email…imap.password; `pincer channels status` shows the
// mailbox idling; a wrong SMTP password keeps the reply (status names channels.email.smtp.password)
// and the reply goes out once the config is fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, stop } from '../support/processes.mjs';
import { launchGateway, startMockLlm } from '../channels/harness.mjs';
import { startDovecot } from './dovecot.mjs';
import { loadPeers, startOutgoing } from './outgoing.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/email_servers/email.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
const { nodemailer } = loadPeers();  // fails naming setup.sh when the packages are missing

const GATEWAY_TOKEN = 'email-test-gateway-token-0123456789';
const BOT = 'bot@example.org';
const BOT_IMAP_PASSWORD = 'imap-secret';
const BOT_SMTP_PASSWORD = 'smtp-secret';
const env = cleanEnv();
let dovecot, outgoing, lmtp, mock, mockPort, gateway, home, mailDir;

function writeConfig(smtpPassword = BOT_SMTP_PASSWORD) {
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model', input: ['text', 'image'] } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } }, list: [ { id: 'main', default: true }, { id: 'work' } ] },
  bindings: [ { agentId: 'work', match: { channel: 'email', peer: { kind: 'direct', id: 'bob@example.net' } } } ],
  session: { dmScope: 'per-channel-peer' },
  channels: { email: {
    address: '${BOT}', name: 'Pincer',
    imap: { host: '127.0.0.1', port: ${dovecot.imapsPort}, security: 'tls', user: '${BOT}', password: '${BOT_IMAP_PASSWORD}' },
    smtp: { host: '127.0.0.1', port: ${outgoing.port}, security: 'starttls', user: '${BOT}', password: '${smtpPassword}' },
    dmPolicy: 'pairing', allowFrom: ['Alice@Example.net', 'bob@example.net'],
    accounts: {
      wrongpw: {
        address: 'other@example.org',
        imap: { host: '127.0.0.1', port: ${dovecot.imapPort}, security: 'none', user: 'other@example.org', password: 'not-the-password' },
        smtp: { host: '127.0.0.1', port: ${outgoing.port}, security: 'starttls', user: '${BOT}', password: '${BOT_SMTP_PASSWORD}' },
      },
    },
  } },
}\n`);
}

async function startGateway() {
  gateway = launchGateway(pincer, { ...env, SSL_CERT_FILE: dovecot.caFile }, home);
  await gateway.ready;
  // Mail delivered before the account's first IMAP login would count as already in the mailbox.
  await waitUntil(() => emailAccount('default')?.idle === true, 'the account idling on its mailbox');
}

const emailAccount = (id) => (gatewayCall('channels.status').channelAccounts.email ?? []).find((a) => a.accountId === id);

async function waitUntil(predicate, what, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}\n--- gateway:\n${gateway?.output().slice(-4000)}\n--- dovecot:\n${dovecot?.log().slice(-2000)}`);
}

/** The person's mail, delivered into the bot's mailbox over LMTP; answers the Message-ID. */
async function mail(from, subject, fields = {}) {
  const info = await lmtp.sendMail({ from, to: BOT, subject, ...fields });
  assert.match(info.response, /^250 /);
  return info.messageId;
}

/** What Pincer sent through the outgoing server to `to` whose plain text contains `needle`. */
const sentTo = (to, needle) => outgoing.messages.filter((m) => m.envelope.to.includes(to) && (m.parsed.text ?? '').includes(needle));

function gatewayCall(method) {
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  return JSON.parse(execFileSync(pincer, ['gateway', 'call', method, '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString());
}
const sessionKeys = () => gatewayCall('sessions.list').sessions.map((s) => s.key);

/** The user texts the model was sent (mock LLM recordings), as one JSON string per request. */
async function modelRequests() {
  const res = await fetch(`http://127.0.0.1:${mockPort}/__mock/requests`);
  const body = await res.json();
  return (Array.isArray(body) ? body : body.requests ?? []).map((r) => JSON.stringify(r.body ?? {}));
}

before(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'pincer-email-'));
  mailDir = mkdtempSync(path.join(os.tmpdir(), 'pincer-email-dovecot-'));
  dovecot = await startDovecot({ dir: mailDir, users: [
    { user: BOT, password: BOT_IMAP_PASSWORD }, { user: 'other@example.org', password: 'right-password' }] });
  outgoing = await startOutgoing({ user: BOT, password: BOT_SMTP_PASSWORD, security: 'starttls',
    cert: dovecot.caFile, key: path.join(mailDir, 'key.pem') });
  lmtp = nodemailer.createTransport({ host: '127.0.0.1', port: dovecot.lmtpPort, lmtp: true, name: 'localhost', ignoreTLS: true });
  // Already in the mailbox before the first start: not answered (the first start begins at UIDNEXT).
  await mail('Alice <alice@example.net>', 'Old news', { text: 'from before ECHO:em-old' });
  ({ mock, port: mockPort } = await startMockLlm(srcDir, env));
  writeConfig();
  await startGateway();
});

after(async () => {
  await stop(gateway?.child);
  await stop(mock?.child);
  await outgoing?.stop();
  await dovecot?.stop();
  for (const d of [home, mailDir]) if (d) rmSync(d, { recursive: true, force: true });
});

let first;  // alice's first mail and the bot's answer
test('a mail is answered in its thread with plain and HTML parts, over STARTTLS with AUTH', async () => {
  const id = await mail('Alice <alice@example.net>', 'Lunch plans', { text: 'hello there ECHO:em-dm' });
  await waitUntil(() => sentTo('alice@example.net', '[em-dm]').length > 0, 'the answer to the first mail');
  const [answer] = sentTo('alice@example.net', '[em-dm]');
  const p = answer.parsed;
  assert.equal(p.subject, 'Re: Lunch plans');
  assert.equal(p.inReplyTo, id);
  assert.deepEqual([].concat(p.references), [id]);
  assert.equal(p.from.value[0].address, BOT);
  assert.equal(p.from.value[0].name, 'Pincer');
  assert.equal(p.to.value[0].address, 'alice@example.net');
  assert.match(p.messageId, /^<[^@>]+@example\.org>$/);
  assert.match(p.text, /Hello from the mock LLM\. \[em-dm\]/);
  assert.match(p.html, /<p>Hello from the mock LLM\. \[em-dm\]<\/p>/);
  assert.match(answer.raw, /Content-Type: multipart\/alternative/i);
  assert.equal(answer.envelope.from, BOT);
  assert.deepEqual(answer.envelope.to, ['alice@example.net']);
  assert.ok(outgoing.logins.some((l) => l.user === BOT && l.ok && l.secure), `AUTH after STARTTLS: ${JSON.stringify(outgoing.logins)}`);
  assert.equal(sentTo('alice@example.net', '[em-old]').length, 0, 'a mail from before the first start was answered');
  // The answered mail is \Seen in the maildir (the S flag on a file in cur/).
  await waitUntil(() => readdirSync(path.join(dovecot.maildir(BOT), 'cur')).some((f) => /:2,[A-Z]*S/.test(f)), 'the \\Seen flag');
  first = { id, answer: p };
});

test('a reply in the thread is the same session and its quoted text is not sent to the model; a new subject is a new session', async () => {
  assert.ok(first, 'needs the first test');
  const aliceKeys = () => sessionKeys().filter((k) => k.includes('email') && k.includes('alice@example.net'));
  const before = aliceKeys();
  assert.equal(before.length, 1, `one session for alice: ${sessionKeys()}`);
  const id2 = await mail('Alice <alice@example.net>', 'Re: Lunch plans', {
    inReplyTo: first.answer.messageId, references: [first.id, first.answer.messageId],
    text: 'thanks, noon it is ECHO:em-thread\n\nOn Sun, 6 Dec 2026 at 01:00, Pincer <bot@example.org> wrote:\n' +
          '> Hello from the mock LLM. [em-dm]\n> QUOTED-MARKER-1\n',
  });
  await waitUntil(() => sentTo('alice@example.net', '[em-thread]').length > 0, 'the answer in the thread');
  const [answer] = sentTo('alice@example.net', '[em-thread]');
  assert.equal(answer.parsed.subject, 'Re: Lunch plans');
  assert.equal(answer.parsed.inReplyTo, id2);
  assert.deepEqual([].concat(answer.parsed.references), [first.id, first.answer.messageId, id2]);
  assert.deepEqual(aliceKeys(), before, 'the reply in the thread started another session');
  const asked = (await modelRequests()).filter((r) => r.includes('ECHO:em-thread'));
  assert.ok(asked.length > 0, 'the model got the reply');
  assert.ok(asked.every((r) => !r.includes('QUOTED-MARKER-1') && !r.includes('at 01:00, Pincer')), `quoted text reached the model: ${asked.at(-1).slice(0, 2000)}`);

  await mail('Alice <alice@example.net>', 'Another topic', { text: 'something else ECHO:em-new' });
  await waitUntil(() => sentTo('alice@example.net', '[em-new]').length > 0, 'the answer to the new subject');
  assert.equal(sentTo('alice@example.net', '[em-new]')[0].parsed.subject, 'Re: Another topic');
  assert.equal(aliceKeys().length, 2, `a new subject is a new session: ${sessionKeys()}`);
});

test('an HTML-only mail is read as text', async () => {
  await mail('Alice <alice@example.net>', 'Formatted', { html: '<p>Hi <b>there</b>,<br>please answer ECHO:em-html</p>' });
  await waitUntil(() => sentTo('alice@example.net', '[em-html]').length > 0, 'the answer to the HTML mail');
  const asked = (await modelRequests()).filter((r) => r.includes('ECHO:em-html'));
  assert.ok(asked.length > 0 && asked.every((r) => !r.includes('<b>')), 'HTML tags reached the model');
});

test('an image attachment reaches the model as an image; one that is not an image is named with why', async () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  await mail('Alice <alice@example.net>', 'A picture', { text: 'what is this? ECHO:em-image', attachments: [
    { filename: 'dot.png', content: png, contentType: 'image/png' },
    { filename: 'fake.png', content: Buffer.from('not an image'), contentType: 'image/png' }] });
  await waitUntil(() => sentTo('alice@example.net', '[em-image]').length > 0, 'the answer to the mail with an image');
  const asked = (await modelRequests()).filter((r) => r.includes('ECHO:em-image'));
  assert.ok(asked.length > 0);
  // OpenAI Chat Completions: the image is an image_url block of the user message, its bytes a data URL.
  const blocks = asked.map((r) => JSON.parse(r).messages.filter((m) => m.role === 'user').flatMap((m) => Array.isArray(m.content) ? m.content : []));
  assert.ok(blocks.some((b) => b.some((c) => c.type === 'image_url' && c.image_url?.url === `data:image/png;base64,${png.toString('base64')}`)),
    JSON.stringify(blocks).slice(0, 2000));
  assert.ok(asked.some((r) => r.includes('[attachment fake.png (image/png, 12 bytes): not passed on — is not a PNG, JPEG, GIF or WebP image')),
    'the refused file is named with the reason');
});

test('an unknown sender gets the pairing code by mail and is answered once approved', async () => {
  await mail('Mallory <mallory@example.com>', 'hi', { text: 'let me in ECHO:em-stranger' });
  await waitUntil(() => sentTo('mallory@example.com', 'pairing code').length > 0, 'the pairing code mail');
  const text = sentTo('mallory@example.com', 'pairing code')[0].parsed.text;
  const code = /code is \**([A-Z0-9]{8})/.exec(text)?.[1];  // the plain part is the Markdown: **CODE**
  assert.ok(code, `no code in: ${text}`);
  assert.equal(sentTo('mallory@example.com', '[em-stranger]').length, 0, 'answered before approval');
  const approved = execFileSync(pincer, ['pairing', 'approve', 'email', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, /Approved email sender mallory@example\.com/);
  await mail('Mallory <mallory@example.com>', 'hi again', { text: 'now ECHO:em-approved' });
  await waitUntil(() => sentTo('mallory@example.com', '[em-approved]').length > 0, 'the answer after approval');
});

test('auto-submitted mail and a mailer-daemon bounce are never answered', async () => {
  await mail('Alice <alice@example.net>', 'Out of office', { text: 'I am away ECHO:em-auto', headers: { 'Auto-Submitted': 'auto-replied' } });
  await mail('Alice <alice@example.net>', 'Newsletter', { text: 'news ECHO:em-list', headers: { 'List-Id': '<news.example.net>', Precedence: 'list' } });
  await mail('Mail Delivery System <MAILER-DAEMON@example.net>', 'Undelivered Mail Returned to Sender', { text: 'bounce ECHO:em-bounce' });
  // Handled in mailbox order: once the mail after them is answered, they were seen and skipped.
  await mail('Alice <alice@example.net>', 'After the noise', { text: 'still there? ECHO:em-after' });
  await waitUntil(() => sentTo('alice@example.net', '[em-after]').length > 0, 'the answer to the mail after them');
  assert.equal(sentTo('alice@example.net', '[em-auto]').length, 0, 'answered an auto-reply');
  assert.equal(sentTo('alice@example.net', '[em-list]').length, 0, 'answered a list mail');
  assert.equal(outgoing.messages.filter((m) => m.envelope.to.some((t) => /mailer-daemon/i.test(t))).length, 0, 'wrote to the mailer-daemon');
});

test('a binding by peer (the sender\'s address) picks another agent', async () => {
  await mail('Bob <bob@example.net>', 'Work', { text: 'status? ECHO:em-work' });
  await waitUntil(() => sentTo('bob@example.net', '[em-work]').length > 0, 'the answer to bob');
  assert.ok(sessionKeys().some((k) => k.startsWith('agent:work:') && k.includes('bob@example.net')), `binding did not pick agent work: ${sessionKeys()}`);
});

test('a restart answers nothing twice and answers the mail that arrived while it was down', async () => {
  const counts = () => ['[em-dm]', '[em-thread]', '[em-new]', '[em-html]', '[em-after]'].map((m) => sentTo('alice@example.net', m).length);
  const before = counts();
  assert.deepEqual(before, [1, 1, 1, 1, 1]);
  await stop(gateway.child);
  await mail('Alice <alice@example.net>', 'While you were away', { text: 'are you back? ECHO:em-offline' });
  await startGateway();
  await waitUntil(() => sentTo('alice@example.net', '[em-offline]').length > 0, 'the answer to the mail sent while down');
  // One more mail after the restart, answered: everything before it was looked at by then.
  await mail('Alice <alice@example.net>', 'Ping', { text: 'ping ECHO:em-ping' });
  await waitUntil(() => sentTo('alice@example.net', '[em-ping]').length > 0, 'the answer after the restart');
  assert.deepEqual(counts(), before, 'a mail was answered again after the restart');
  assert.equal(sentTo('alice@example.net', '[em-offline]').length, 1);
});

test('a wrong IMAP password stops that account with a reason naming the password key', async () => {
  const refused = /imap[^\n]*password/i;
  await waitUntil(() => {
    const account = (gatewayCall('channels.status').channelAccounts.email ?? []).find((a) => a.accountId === 'wrongpw');
    return account && refused.test(String(account.lastFailure ?? account.lastError ?? ''));
  }, 'the refused IMAP login in channels status');
  const account = gatewayCall('channels.status').channelAccounts.email.find((a) => a.accountId === 'wrongpw');
  assert.match(String(account.lastFailure ?? account.lastError), /channels\.email\.(accounts\.wrongpw\.)?imap\.password/, JSON.stringify(account));
  // A refused login is not retried until the config changes (channel_run.h FailureKind::Permanent).
  await waitUntil(() => emailAccount('wrongpw')?.permanentFailure === true, 'the refused login marked permanent');
  const def = gatewayCall('channels.status').channelAccounts.email.find((a) => a.accountId === 'default');
  assert.equal(def.running, true, `the other account keeps running: ${JSON.stringify(def)}`);
});

test('pincer channels status shows the mailbox idling', async () => {
  await waitUntil(() => emailAccount('default')?.idle === true, 'the account idling');
  const port = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(gateway.output())[1];
  const human = execFileSync(pincer, ['channels', 'status', '--url', `ws://127.0.0.1:${port}`, '--token', GATEWAY_TOKEN], { env }).toString();
  assert.match(human, /email\[default\]  running  \S+@\S+  connected, idle on INBOX/, human);  // its address, then the mailbox
});

test('a wrong SMTP password keeps the reply, names the key, and the reply goes out once the config is fixed', async () => {
  const restarts = () => (gateway.output().match(/channel email\[default\] stopped \(config changed\)/g) ?? []).length;
  const before = restarts();
  writeConfig('not-the-smtp-password');
  await waitUntil(() => restarts() > before, 'the config reload restarting the account');
  await waitUntil(() => emailAccount('default')?.idle === true, 'the account idling again');
  const failedLogins = () => outgoing.logins.filter((l) => !l.ok).length;
  await mail('Alice <alice@example.net>', 'Outgoing broken', { text: 'can you answer? ECHO:em-smtp-fix' });
  await waitUntil(() => /SMTP: .*refused the login.*channels\.email\.smtp\.password/.test(String(emailAccount('default')?.lastError ?? '')),
    'the refused SMTP login in channels status');
  assert.ok(failedLogins() > 0, 'no refused SMTP login');
  assert.equal(sentTo('alice@example.net', '[em-smtp-fix]').length, 0);
  const fixed = restarts();
  writeConfig();
  await waitUntil(() => restarts() > fixed, 'the config reload after the fix');
  await waitUntil(() => sentTo('alice@example.net', '[em-smtp-fix]').length > 0, 'the kept reply sent after the fix');
  assert.equal(sentTo('alice@example.net', '[em-smtp-fix]')[0].parsed.subject, 'Re: Outgoing broken');
  await waitUntil(() => emailAccount('default')?.lastError === undefined, 'the SMTP error cleared');
});
