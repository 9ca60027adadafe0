// A Slack test server: the Web API over HTTP (POST /api/<method>, JSON or form bodies, tokens in
// `Authorization: Bearer` or the body — auth.test, apps.connections.open, chat.postMessage,
// chat.update, conversations.history, conversations.open, users.info) and Socket Mode (the
// WebSocket URL apps.connections.open hands out: `hello`, `events_api` envelopes, acknowledgements
// {envelope_id}, `disconnect`; an envelope not acknowledged within 3 s is sent again with
// retry_attempt + 1, at most 3 times, as Slack does). Close enough that the official
// @slack/web-api WebClient (slackApiUrl → emu.apiRoot) talks to it as the person and the official
// @slack/socket-mode SocketModeClient connects to it as an app. Records every call and every frame.
//
//   const emu = new SlackEmulator(); await emu.start();       // emu.apiRoot, emu.port
//   const bot = emu.addBot('pincer');  // bot.botToken, bot.appToken, bot.id (user id)
//   const alice = emu.addUser('alice'); // alice.token (xoxp-), alice.id
//   const general = emu.addChannel('general', [alice, bot]);  const dm = emu.dm(alice, bot);
//
// Uses `ws` (installed by setup.sh into .cache/).
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.cache/package.json'));
const { WebSocketServer } = require('ws');

export class SlackEmulator {
  constructor({ teamId = 'T0PINCER1', ackTimeoutMs = 3000 } = {}) {
    this.teamId = teamId;
    this.ackTimeoutMs = ackTimeoutMs;
    this.n = 0;
    this.clock = Math.floor(Date.now() / 1000);
    this.tsCounter = 0;
    this.users = new Map();          // id -> {id, name, token, bot?, botToken?, appToken?, botId?}
    this.conversations = new Map();  // id -> {id, name, type: im|channel|group|mpim, members:[ids], messages:[]}
    this.calls = [];                 // every Web API call: {method, user (name), body, status, error?}
    this.frames = [];                // every Socket Mode frame received: {app, data}
    this.envelopes = [];             // every envelope sent: {id, app, payload, acked, attempts}
    this.connections = [];           // every Socket Mode connection: {app, socket, opened, closed}
    this.pending429 = [];            // [{method, retryAfter}]: rateLimitNext
    this.tickets = new Map();        // ticket -> app user id
  }

  id(prefix) { return `${prefix}${String(++this.n).padStart(8, '0')}`; }
  nextTs() { return `${this.clock}.${String(++this.tsCounter).padStart(6, '0')}`; }

  addUser(name) {
    const u = { id: this.id('U'), name, token: `xoxp-${name}-${this.n}` };
    this.users.set(u.id, u);
    return u;
  }

  addBot(name) {
    const u = this.addUser(name);
    Object.assign(u, { bot: true, botId: this.id('B'), appId: this.id('A'), botToken: `xoxb-${name}-${this.n}`, appToken: `xapp-1-${name}-${this.n}` });
    delete u.token;
    return u;
  }

  addChannel(name, members, { type = 'channel' } = {}) {
    const c = { id: this.id(type === 'group' ? 'G' : 'C'), name, type, members: members.map((m) => m.id), messages: [] };
    this.conversations.set(c.id, c);
    return c;
  }

  /// The DM (im) of two users, opened on first use.
  dm(a, b) {
    for (const c of this.conversations.values()) {
      if (c.type === 'im' && c.members.includes(a.id) && c.members.includes(b.id)) return c;
    }
    const c = { id: this.id('D'), name: '', type: 'im', members: [a.id, b.id], messages: [] };
    this.conversations.set(c.id, c);
    return c;
  }

  /// The next call of `method` (by `user`, when given) is answered HTTP 429 with Retry-After `retryAfter` seconds.
  rateLimitNext(method, retryAfter = 1, user = null) { this.pending429.push({ method, retryAfter, user: user?.id }); }

  /// Messages of a conversation as stored (oldest first): {ts, user, text, thread_ts?, bot_id?, edits}.
  messagesIn(conversation) { return this.conversations.get(conversation.id ?? conversation).messages; }

  start() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Node's default keep-alive of 5 s races the client's reuse of an idle connection on a loaded
    // machine (the client sends on a socket the server is closing: "fetch failed", seen in the
    // sanitizer run); a minute is longer than any pause in a test.
    this.server.keepAliveTimeout = 60_000;
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url, 'http://x');
      const app = this.tickets.get(url.searchParams.get('ticket'));
      if (!url.pathname.startsWith('/link') || !app) return socket.destroy();
      this.tickets.delete(url.searchParams.get('ticket'));
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws, app));
    });
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => {
      this.port = this.server.address().port;
      this.apiRoot = `http://127.0.0.1:${this.port}/api`;
      resolve(this);
    }));
  }

  async stop() {
    for (const e of this.envelopes) clearTimeout(e.timer);
    for (const c of this.connections) c.socket.terminate();
    this.wss?.close();
    await new Promise((r) => this.server.close(r));
  }

  // ---- Socket Mode ---------------------------------------------------------------------------

  onSocket(ws, appUserId) {
    const conn = { app: appUserId, socket: ws, opened: Date.now(), closed: false };
    this.connections.push(conn);
    ws.on('message', (data) => {
      const text = data.toString();
      this.frames.push({ app: appUserId, data: text });
      let msg;
      try { msg = JSON.parse(text); } catch { return; }
      const e = msg.envelope_id && this.envelopes.find((x) => x.id === msg.envelope_id);
      if (e && !e.acked) {
        e.acked = true;
        clearTimeout(e.timer);
      }
    });
    ws.on('close', () => { conn.closed = true; });
    ws.send(JSON.stringify({ type: 'hello', num_connections: this.openConnections(appUserId).length,
      debug_info: { host: 'applink-emulator', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.users.get(appUserId).appId } }));
    // Envelopes not acknowledged yet go out again on the new connection.
    for (const e of this.envelopes) if (e.app === appUserId && !e.acked) this.deliver(e);
  }

  openConnections(app) { return this.connections.filter((c) => c.app === app && !c.closed); }

  /// Sends `disconnect` (reason refresh_requested) on every open connection of `bot`.
  disconnect(bot, reason = 'refresh_requested') {
    for (const c of this.openConnections(bot.id)) c.socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-emulator' } }));
  }

  deliver(e) {
    const conns = this.openConnections(e.app);
    clearTimeout(e.timer);
    if (conns.length === 0) return;  // waits for the next connection
    e.attempts += 1;
    conns[conns.length - 1].socket.send(JSON.stringify({ envelope_id: e.id, payload: e.payload, type: 'events_api',
      accepts_response_payload: false, retry_attempt: e.attempts - 1, retry_reason: e.attempts > 1 ? 'timeout' : '' }));
    if (e.attempts < 4) e.timer = setTimeout(() => { if (!e.acked) this.deliver(e); }, this.ackTimeoutMs);
  }

  /// Sends an already acknowledged envelope again (a redelivery Slack may make after a reconnect).
  redeliver(envelope) {
    const e = { ...envelope, id: `${envelope.id}-again`, acked: false, attempts: 1 };
    this.envelopes.push(e);
    this.deliver(e);
    return e;
  }

  emitEvent(app, event) {
    const payload = { token: 'verification-token', team_id: this.teamId, api_app_id: this.users.get(app).appId,
      event, type: 'event_callback', event_id: this.id('Ev'), event_time: Math.floor(Date.now() / 1000) };
    const e = { id: `env-${this.id('')}`, app, payload, acked: false, attempts: 0 };
    this.envelopes.push(e);
    this.deliver(e);
    return e;
  }

  /// Events a posted message produces for every app in the conversation: `message` (also for the
  /// app's own posts, with bot_id), and `app_mention` for a mention of the app outside DMs.
  fanOut(conv, message) {
    for (const id of conv.members) {
      const app = this.users.get(id);
      if (!app?.bot) continue;
      const event = { type: 'message', channel: conv.id, user: message.user, text: message.text, ts: message.ts,
        event_ts: message.ts, team: this.teamId, channel_type: conv.type,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}), ...(message.bot_id ? { bot_id: message.bot_id } : {}) };
      this.emitEvent(app.id, event);
      if (conv.type !== 'im' && !message.bot_id && message.text.includes(`<@${app.id}>`)) {
        const { channel_type: _, ...mention } = event;
        this.emitEvent(app.id, { ...mention, type: 'app_mention' });
      }
    }
  }

  // ---- Web API --------------------------------------------------------------------------------

  async handle(req, res) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url, 'http://x');
    const method = url.pathname.replace(/^\/api\//, '');
    let body = {};
    if ((req.headers['content-type'] || '').includes('json')) {
      try { body = JSON.parse(raw || '{}'); } catch { body = null; }
    } else {
      body = Object.fromEntries(new URLSearchParams(raw));
    }
    const auth = (req.headers.authorization || '').replace(/^Bearer /, '') || body?.token || '';
    let caller;
    const reply = (status, json, headers = {}) => {
      this.calls.push({ method, user: caller?.name, body, status, error: json.ok ? undefined : json.error });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(json));
    };
    if (body === null) return reply(200, { ok: false, error: 'invalid_json' });
    caller = [...this.users.values()].find((u) => u.token === auth || u.botToken === auth || u.appToken === auth);
    const limited = this.pending429.findIndex((p) => p.method === method && (!p.user || p.user === caller?.id));
    if (limited >= 0) {
      const [p] = this.pending429.splice(limited, 1);
      return reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(p.retryAfter) });
    }
    if (!auth) return reply(200, { ok: false, error: 'not_authed' });
    if (!caller) return reply(200, { ok: false, error: 'invalid_auth' });
    const isApp = auth === caller.appToken;
    if (isApp !== (method === 'apps.connections.open')) return reply(200, { ok: false, error: 'not_allowed_token_type' });
    const handler = this.methods[method];
    if (!handler) return reply(404, { ok: false, error: 'unknown_method' });
    const answer = handler.call(this, caller, body);
    reply(200, answer);
  }

  conversationFor(caller, channel) {
    if (!channel) return undefined;
    if (this.conversations.has(channel)) return this.conversations.get(channel);
    const user = this.users.get(channel);  // a user id: the DM with them
    return user ? this.dm(caller, user) : undefined;
  }

  get methods() {
    return {
      'auth.test': (caller) => ({ ok: true, url: 'https://pincer-test.slack.com/', team: 'Pincer Test', user: caller.name,
        team_id: this.teamId, user_id: caller.id, ...(caller.bot ? { bot_id: caller.botId } : {}), is_enterprise_install: false }),
      'apps.connections.open': (caller) => {
        const ticket = this.id('ticket-');
        this.tickets.set(ticket, caller.id);
        return { ok: true, url: `ws://127.0.0.1:${this.port}/link/?ticket=${ticket}&app_id=${caller.appId}` };
      },
      'chat.postMessage': (caller, b) => {
        const conv = this.conversationFor(caller, b.channel);
        if (!conv) return { ok: false, error: 'channel_not_found' };
        if (!conv.members.includes(caller.id)) return { ok: false, error: 'not_in_channel' };
        if (!b.text) return { ok: false, error: 'no_text' };
        if (b.text.length > 40000) return { ok: false, error: 'msg_too_long' };
        const message = { type: 'message', ts: this.nextTs(), user: caller.id, text: b.text, edits: [],
          ...(b.thread_ts ? { thread_ts: b.thread_ts } : {}), ...(caller.bot ? { bot_id: caller.botId } : {}) };
        conv.messages.push(message);
        this.fanOut(conv, message);
        const { edits: _, ...shown } = message;
        return { ok: true, channel: conv.id, ts: message.ts, message: shown };
      },
      'chat.update': (caller, b) => {
        const conv = this.conversationFor(caller, b.channel);
        if (!conv) return { ok: false, error: 'channel_not_found' };
        const message = conv.messages.find((m) => m.ts === b.ts);
        if (!message) return { ok: false, error: 'message_not_found' };
        if (message.user !== caller.id) return { ok: false, error: 'cant_update_message' };
        message.edits.push(message.text);
        message.text = b.text;
        return { ok: true, channel: conv.id, ts: message.ts, text: message.text };
      },
      'conversations.history': (caller, b) => {
        const conv = this.conversationFor(caller, b.channel);
        if (!conv) return { ok: false, error: 'channel_not_found' };
        const oldest = b.oldest ?? '0';
        const messages = conv.messages.filter((m) => m.ts > oldest).map(({ edits, ...m }) => ({ ...m, ...(edits.length ? { edited: { user: m.user, ts: m.ts } } : {}) }));
        return { ok: true, messages: messages.reverse().slice(0, Number(b.limit ?? 100)), has_more: false };
      },
      'conversations.open': (caller, b) => {
        const other = this.users.get(String(b.users ?? '').split(',')[0]);
        if (!other) return { ok: false, error: 'user_not_found' };
        return { ok: true, channel: { id: this.dm(caller, other).id } };
      },
      'users.info': (caller, b) => {
        const u = this.users.get(b.user);
        if (!u) return { ok: false, error: 'user_not_found' };
        return { ok: true, user: { id: u.id, team_id: this.teamId, name: u.name, real_name: u.name, is_bot: !!u.bot, profile: { display_name: u.name } } };
      },
    };
  }
}
