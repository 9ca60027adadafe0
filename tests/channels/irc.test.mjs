// The IRC channel end to end (issue #5 §5 IRC, §6): a real IRC server (Debian's ngIRCd, started
// here on a loopback port with a config of its own), the real `pincer gateway run` binary
// connected to it, the mock LLM as the model, and raw IRC clients (node:net) as the users.
//
//   node tests/channels/irc.test.mjs <pincer binary> <source dir>     (exit 77 when ngircd is missing)
//
// Covers: a DM from an allowed nick answered; an unknown nick gets a pairing code and is answered
// after `pincer pairing approve irc CODE`; in a channel only a message that mentions the bot is
// answered; a 3 000-character reply arrives complete, in order, every PRIVMSG line within 512
// bytes as received; a reply with "\r\nQUIT" cannot inject a command (the bot stays, answers the
// next message); an exec asked for by a non-owner in the channel waits for the owner's
// `/approve <code> once` there (another sender's is refused); the bot reconnects after ngIRCd restarts; TLS with certificate verification
// (a test CA given to the gateway through SSL_CERT_FILE).
// ngIRCd has no SASL and no NickServ: those are covered at the protocol level in
// tests/unit/irc_protocol_test.cpp (IrcSession.*).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop, cleanEnv } from '../support/processes.mjs';

const NGIRCD = ['/usr/sbin/ngircd', '/usr/bin/ngircd'].find((p) => existsSync(p));
const BOT = 'pincer';
const CHANNEL = '#pincer';
const GATEWAY_TOKEN = 'irc-test-gateway-token-0123456789';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binArg, srcArg] = process.argv.slice(2);
const pincer = binArg || process.env.PINCER_BINARY;
const srcDir = srcArg || path.resolve(here, '../..');
if (!pincer || !existsSync(pincer)) {
  console.error('usage: node tests/channels/irc.test.mjs <pincer binary> <source dir>');
  process.exit(2);
}
if (!NGIRCD) {
  console.error('ngircd is not installed (scripts/install-deps.sh installs it): skipping');
  process.exit(77);
}

const env = cleanEnv();
let dir, home, ircPort, tlsPort, ircd, mock, mockPort, gateway;
const clients = [];

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// Resolves once something accepts connections on 127.0.0.1:port.
async function waitForPort(port, ms = 15000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on port ${port}`);
}

/// A self-signed CA and a server certificate for "localhost" (openssl CLI), for the TLS port.
function makeCertificates() {
  const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Pincer Test CA',
    '-keyout', 'ca.key', '-out', 'ca.pem');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr');
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost\n');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2',
    '-extfile', 'ext.cnf', '-out', 'server.pem');
}

async function startIrcd() {
  // Loopback only, no PAM/ident/DNS, foreground (-n); TLS on a second port with the test certificate.
  writeFileSync(path.join(dir, 'ngircd.conf'), `[Global]
Name = irc.pincer.test
Info = Pincer test server
AdminInfo1 = Pincer tests
AdminInfo2 = loopback only
AdminEMail = nobody@invalid
Listen = 127.0.0.1
Ports = ${ircPort}
MotdPhrase = "Pincer test server"
[Limits]
MaxNickLength = 30
MaxConnectionsIP = 0
[Options]
PAM = no
Ident = no
DNS = no
[SSL]
CertFile = ${dir}/server.pem
KeyFile = ${dir}/server.key
Ports = ${tlsPort}
`);
  ircd = launch(NGIRCD, ['-n', '-f', path.join(dir, 'ngircd.conf')], env, /$^/);
  ircd.ready.catch(() => {});  // readiness is the open port, below
  await waitForPort(ircPort);
  await waitForPort(tlsPort);
}

/// A raw IRC client: registers as `nick`, answers PING, records every line (and its size in bytes).
class IrcClient {
  constructor(nick) {
    this.nick = nick;
    this.lines = [];  // {raw, bytes, prefix, command, params}
    this.buffer = Buffer.alloc(0);
  }

  connect(localAddress = undefined) {
    this.socket = net.connect({ port: ircPort, host: '127.0.0.1', localAddress });
    this.socket.on('data', (d) => this.onData(d));
    this.socket.on('error', () => {});
    this.send(`NICK ${this.nick}`);
    this.send(`USER ${this.nick} 0 * :${this.nick}`);
    clients.push(this);
    return this.waitLine((l) => l.command === '001', 'registration');
  }

  onData(d) {
    this.buffer = Buffer.concat([this.buffer, d]);
    for (let nl = this.buffer.indexOf(10); nl !== -1; nl = this.buffer.indexOf(10)) {
      const bytes = nl + 1;  // with its CR LF, as the 512-byte limit counts
      const raw = this.buffer.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      this.buffer = this.buffer.subarray(nl + 1);
      const m = /^(?::(\S+) )?(\S+)(.*)$/.exec(raw);
      if (!m) continue;
      const [, prefix = '', command, rest] = m;
      const params = [];
      let r = rest.trimStart();
      while (r) {
        if (r.startsWith(':')) {
          params.push(r.slice(1));
          break;
        }
        const sp = r.indexOf(' ');
        params.push(sp === -1 ? r : r.slice(0, sp));
        r = sp === -1 ? '' : r.slice(sp + 1).trimStart();
      }
      const line = { raw, bytes, prefix, command: command.toUpperCase(), params };
      if (line.command === 'PING') this.send(`PONG :${params[0] ?? ''}`);
      this.lines.push(line);
    }
  }

  send(line) {
    this.socket.write(`${line}\r\n`);
  }

  async waitLine(predicate, what, ms = 20000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const found = this.lines.find(predicate);
      if (found) return found;
      await sleep(50);
    }
    assert.fail(`${this.nick}: timed out waiting for ${what}; got:\n${this.lines.slice(-20).map((l) => l.raw).join('\n')}\n` +
      `gateway:\n${gateway?.output().slice(-3000)}`);
  }

  /// PRIVMSGs from the bot to `target` (our nick for DMs, or a channel), from line `since` on.
  fromBot(target = this.nick, since = 0) {
    return this.lines.slice(since).filter((l) => l.command === 'PRIVMSG' && l.prefix.split('!')[0] === BOT && l.params[0] === target);
  }

  async waitBotText(needle, target = this.nick, ms = 20000) {
    return this.waitLine((l) => l.command === 'PRIVMSG' && l.prefix.split('!')[0] === BOT && l.params[0] === target &&
      l.params[1].includes(needle), `the bot's "${needle}" in ${target}`, ms);
  }

  /// Waits until the bot is on the server and in `channel` (NAMES polled).
  async waitBotIn(channel, ms = 30000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const mark = this.lines.length;
      this.send(`NAMES ${channel}`);
      const end = await this.waitLine((l, i) => i >= mark && l.command === '366', 'NAMES end', 5000);
      const names = this.lines.slice(mark, this.lines.indexOf(end)).filter((l) => l.command === '353')
        .flatMap((l) => l.params[l.params.length - 1].split(' ')).map((n) => n.replace(/^[@+]/, ''));
      if (names.includes(BOT)) return;
      await sleep(200);
    }
    assert.fail(`the bot never joined ${channel}\n${gateway?.output().slice(-3000)}`);
  }

  get connected() {
    return this.socket && !this.socket.destroyed && this.socket.readyState === 'open';
  }

  close() {
    if (this.connected) this.send('QUIT :bye');
    this.socket?.end();
  }
}

/// The allowed user, connected and in the channel (reconnected after a server restart).
let aliceClient;
async function alice() {
  if (!aliceClient?.connected) {
    aliceClient = new IrcClient('alice');
    await aliceClient.connect();
    aliceClient.send(`JOIN ${CHANNEL}`);
  }
  return aliceClient;
}

async function aliceClientReady(ms = 30000) {
  const a = await alice();
  await a.waitBotIn(CHANNEL, ms);
  return a;
}

function gatewayConfig() {
  return `{
  gateway: { auth: { token: '${GATEWAY_TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  session: { dmScope: 'per-channel-peer' },
  commands: { ownerAllowFrom: ['irc:@olive'] },  // olive is the owner; alice is let in but is not
  messages: { queue: { mode: 'followup' } },
  channels: { irc: {
    host: '127.0.0.1', port: ${ircPort}, nick: '${BOT}', realname: 'Pincer test bot',
    channels: ['${CHANNEL}'],
    dmPolicy: 'pairing', allowFrom: ['@alice', '@olive'],
    groupPolicy: 'allowlist', groups: { '${CHANNEL}': { requireMention: true } },
  } },
}\n`;
}

async function startGateway(extraEnv = {}) {
  gateway = launch(pincer, ['gateway', 'run', '--port', '0'], { ...env, PINCER_HOME: home, ...extraEnv },
    /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  await gateway.ready;
}

async function script(entries) {
  const res = await fetch(`http://127.0.0.1:${mockPort}/__mock/script`, { method: 'POST', body: JSON.stringify(entries) });
  assert.equal(res.status, 200);
}

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pincer-irc-'));
  home = path.join(dir, 'home');
  ircPort = await freePort();
  tlsPort = await freePort();
  makeCertificates();
  await startIrcd();
  mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0'], env,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  mockPort = Number((await mock.ready)[1]);
  mkdirSync(home);
  writeFileSync(path.join(home, 'pincer.json'), gatewayConfig());
  await startGateway();
});

after(async () => {
  for (const c of clients) c.close();
  await stop(gateway?.child);
  await stop(mock?.child);
  await stop(ircd?.child);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a direct message from an allowed nick is answered', async () => {
  const a = await alice();
  await a.waitBotIn(CHANNEL);
  a.send(`PRIVMSG ${BOT} :hello ECHO:irc-dm`);
  const reply = await a.waitBotText('[irc-dm]');
  assert.match(reply.params[1], /Hello from the mock LLM\. \[irc-dm\]/);
});

test('an unknown nick gets a pairing code, and is answered once approved', async () => {
  const bob = new IrcClient('bob');
  await bob.connect();
  await bob.waitBotIn(CHANNEL);
  bob.send(`PRIVMSG ${BOT} :hi there ECHO:irc-before`);
  const pairing = await bob.waitBotText('pairing code');
  const code = /\b([A-Z0-9]{8})\b/.exec(pairing.params[1])?.[1];
  assert.ok(code, `no code in: ${pairing.params[1]}`);
  assert.equal(bob.fromBot().filter((l) => l.params[1].includes('[irc-before]')).length, 0, 'no agent reply before approval');
  const approved = execFileSync(pincer, ['pairing', 'approve', 'irc', code], { env: { ...env, PINCER_HOME: home } }).toString();
  assert.match(approved, /Approved irc sender bob!/);  // the full nick!user@host is what was paired
  bob.send(`PRIVMSG ${BOT} :now ECHO:irc-after`);
  await bob.waitBotText('[irc-after]');
  bob.close();
});

test('nick changes from one host cannot take every pairing slot, and the code is sent once per request', async () => {
  const mallory = new IrcClient('mallory');
  await mallory.connect();
  await mallory.waitBotIn(CHANNEL);
  mallory.send(`PRIVMSG ${BOT} :let me in`);
  await mallory.waitBotText('pairing code', 'mallory');
  for (let i = 1; i <= 4; i++) {
    mallory.send(`NICK mallory${i}`);
    await mallory.waitLine((l) => l.command === 'NICK' && l.params[0] === `mallory${i}`, `the nick mallory${i}`);
    mallory.nick = `mallory${i}`;
    mallory.send(`PRIVMSG ${BOT} :let me in as mallory${i}`);
  }
  mallory.send(`PRIVMSG ${BOT} :let me in again`);
  // A newcomer from another address still gets a code.
  const nina = new IrcClient('nina');
  await nina.connect('127.0.0.2');
  nina.send(`PRIVMSG ${BOT} :hello`);
  await nina.waitBotText('pairing code');
  const codes = mallory.lines.filter((l) => l.command === 'PRIVMSG' && l.prefix.split('!')[0] === BOT && l.params[1].includes('pairing code'));
  assert.equal(codes.length, 1, `mallory got ${codes.length} codes`);
  const pending = JSON.parse(execFileSync(pincer, ['pairing', 'list', '--json'], { env: { ...env, PINCER_HOME: home } }).toString())
    .pending.filter((p) => p.channel === 'irc');
  assert.deepEqual(pending.map((p) => p.senderId.split('!')[0]).sort(), ['mallory', 'nina'], JSON.stringify(pending));
  assert.match(gateway.output(), /pairing request from mallory1!\S+ refused/);
  for (const p of pending) execFileSync(pincer, ['pairing', 'reject', 'irc', p.code], { env: { ...env, PINCER_HOME: home } });
  mallory.close();
  nina.close();
});

test('in a channel, only a message that mentions the bot is answered', async () => {
  const a = await alice();
  await a.waitBotIn(CHANNEL);
  a.send(`PRIVMSG ${CHANNEL} :chatter without a mention ECHO:irc-quiet`);
  a.send(`PRIVMSG ${CHANNEL} :a pincer is a claw ECHO:irc-bare-word`);
  a.send(`PRIVMSG ${CHANNEL} :${BOT}: please answer ECHO:irc-group`);
  await a.waitBotText('[irc-group]', CHANNEL);
  await sleep(500);
  const texts = a.fromBot(CHANNEL).map((l) => l.params[1]).join('\n');
  assert.doesNotMatch(texts, /irc-quiet|irc-bare-word/, 'an unmentioned channel message must not be answered');
});

test('a 3 000-character reply arrives complete, in order, each PRIVMSG line within 512 bytes', async () => {
  const a = await alice();
  await a.waitBotIn(CHANNEL);
  const mark = a.lines.length;
  a.send(`PRIVMSG ${BOT} :write a lot MOCK_LONG:3000`);
  const deadline = Date.now() + 60000;  // flood control: 5 lines, then one every 2 s
  let lines = [];
  while (Date.now() < deadline) {
    lines = a.fromBot('alice', mark);
    if (lines.map((l) => l.params[1]).join(' ').length >= 3000 - 1) break;
    await sleep(200);
  }
  for (const l of lines) {
    assert.ok(l.bytes <= 512, `a line of ${l.bytes} bytes arrived: ${l.raw}`);
  }
  // ngIRCd cuts a relayed line at 512 bytes: a line the bot made too long shows up as lost text here.
  const filler = 'The quick brown fox jumps over the lazy dog. ';
  const expected = filler.repeat(Math.ceil(3000 / filler.length)).slice(0, 3000).trim();
  assert.equal(lines.map((l) => l.params[1]).join(' '), expected, 'lines out of order, altered or missing');
  assert.ok(lines.length >= 9, `expected at least 9 lines of at most 342 bytes, got ${lines.length}`);
});

test('a reply containing "\\r\\nQUIT" cannot inject a command', async () => {
  const alice = await aliceClientReady();
  await script([{ text: 'before\r\nQUIT :injected\r\nJOIN #evil\r\nPRIVMSG alice :forged\u0000x [irc-inject]' }]);
  alice.send(`PRIVMSG ${BOT} :say something`);
  await alice.waitBotText('[irc-inject]');
  const texts = alice.fromBot().map((l) => l.params[1]);
  assert.ok(texts.includes('QUIT :injected'), `the QUIT arrived as text: ${JSON.stringify(texts)}`);
  assert.ok(texts.includes('JOIN #evil'), `the JOIN arrived as text: ${JSON.stringify(texts)}`);
  // Still connected, still in the channel, and never joined #evil: it answers the next message.
  assert.equal(alice.lines.filter((l) => l.command === 'QUIT' && l.prefix.startsWith(`${BOT}!`)).length, 0, 'the bot quit');
  alice.send(`PRIVMSG ${BOT} :still there? ECHO:irc-alive`);
  await alice.waitBotText('[irc-alive]');
  const mark = alice.lines.length;
  alice.send('NAMES #evil');
  await alice.waitLine((l, i) => i >= mark && l.command === '366', 'NAMES #evil');
  assert.ok(!alice.lines.slice(mark).some((l) => l.command === '353' && l.params.at(-1).includes(BOT)), 'the bot joined #evil');
});

test('a non-owner\'s command in the channel runs only after the owner answers its reply code there', async () => {
  const a = await aliceClientReady();
  const olive = new IrcClient('olive');
  await olive.connect();
  olive.send(`JOIN ${CHANNEL}`);
  await olive.waitBotIn(CHANNEL);
  let res = await fetch(`http://127.0.0.1:${mockPort}/__mock/reset?script=1`, { method: 'POST', body: '{}' });
  assert.equal(res.status, 200);
  await script([{ toolCalls: [{ name: 'exec', arguments: { command: 'echo irc > irc-built.txt' } }] }, { text: 'IRC BUILD DONE' }]);
  const built = path.join(home, 'workspace', 'irc-built.txt');
  a.send(`PRIVMSG ${CHANNEL} :${BOT}: please build it`);
  const asked = await a.waitBotText('Approval needed', CHANNEL, 30000);
  const code = /code ([a-z0-9]{6})/.exec(asked.params[1])?.[1];
  assert.ok(code, `no code in: ${asked.params[1]}`);
  await a.waitBotText('echo irc > irc-built.txt', CHANNEL);  // the command as it will run
  assert.ok(!existsSync(built), 'nothing runs before the answer');

  a.send(`PRIVMSG ${CHANNEL} :${BOT}: /approve ${code} once`);
  await a.waitBotText('Only the owner can answer approvals', CHANNEL);
  assert.ok(!existsSync(built), 'alice is not the owner');

  olive.send(`PRIVMSG ${CHANNEL} :${BOT}: /approve ${code} once`);
  await olive.waitBotText('IRC BUILD DONE', CHANNEL, 30000);
  assert.equal(readFileSync(built, 'utf8'), 'irc\n');
  await olive.waitBotText('Approval approved once', CHANNEL);
  olive.close();
});

test('the gateway reconnects after the IRC server restarts', async () => {
  await stop(ircd.child);
  await startIrcd();
  const alice = await aliceClientReady(60000);
  alice.send(`PRIVMSG ${BOT} :back? ECHO:irc-reconnected`);
  await alice.waitBotText('[irc-reconnected]');
  const status = JSON.parse(execFileSync(pincer, ['gateway', 'call', 'channels.status', '--url',
    `ws://127.0.0.1:${(await gateway.ready)[1]}`, '--token', GATEWAY_TOKEN], { env }).toString());
  const irc = status.channelAccounts.irc.find((c) => c.accountId === 'default');  // OpenClaw's ChannelsStatusResult
  assert.equal(irc.running, true);
  assert.equal(irc.registered, true);
  assert.ok(irc.restarts >= 1, `restarts: ${irc.restarts}`);
  assert.deepEqual(irc.joined, [CHANNEL]);
});

test('TLS: the server certificate is verified (test CA trusted through SSL_CERT_FILE)', async () => {
  await stop(gateway.child);
  const tlsConfig = (host) => gatewayConfig().replace(`host: '127.0.0.1', port: ${ircPort},`, `host: '${host}', port: ${tlsPort}, tls: true,`);
  // Trusted CA and matching name: connects.
  writeFileSync(path.join(home, 'pincer.json'), tlsConfig('localhost'));
  await startGateway({ SSL_CERT_FILE: path.join(dir, 'ca.pem') });
  const alice = await aliceClientReady();
  alice.send(`PRIVMSG ${BOT} :over TLS ECHO:irc-tls`);
  await alice.waitBotText('[irc-tls]');
  await stop(gateway.child);
  // The CA not trusted: the handshake fails and the bot never appears.
  await startGateway();
  const deadline = Date.now() + 4000;
  while (Date.now() < deadline && !/TLS handshake/.test(gateway.output())) await sleep(100);
  assert.match(gateway.output(), /TLS handshake with localhost: .*certificate verify failed/);
  alice.send(`ISON ${BOT}`);
  const ison = await alice.waitLine((l) => l.command === '303', 'ISON');
  assert.equal(ison.params.at(-1).trim(), '', 'the bot connected over TLS with an untrusted certificate');
  await stop(gateway.child);
  writeFileSync(path.join(home, 'pincer.json'), gatewayConfig());
});
