// A Slack test server: the Web API over HTTP (POST /api/<method>, JSON or form bodies, tokens in
// `Authorization: Bearer` or the body — auth.test, apps.connections.open, chat.postMessage,
// chat.update, conversations.history, conversations.open, users.info, reactions.add / remove / get,
// files.getUploadURLExternal + the upload URL + files.completeUploadExternal, url_private downloads:
// names as Slack spells them, Unicode refused with invalid_name) and Socket Mode (the
// WebSocket URL apps.connections.open hands out: `hello`, `events_api` and `slash_commands`
// envelopes, acknowledgements {envelope_id, payload?}, `disconnect`; an envelope not acknowledged
// within 3 s is sent again with retry_attempt + 1, at most 3 times, as Slack does). A slash
// command's response_url is served here too (POST /commands/<id>, 5 uses, as Slack allows), and
// chat.postEphemeral keeps what only one user sees. An app switched to HTTP mode (useHttp) gets
// its events and commands as signed POSTs to its Request URL instead (X-Slack-Signature v0 over
// "v0:<ts>:<body>", X-Slack-Request-Timestamp; an event answered other than 2xx within 3 s is sent
// again with X-Slack-Retry-Num, at most 3 times). Close enough that the official
// @slack/web-api WebClient (slackApiUrl → emu.apiRoot) talks to it as the person and the official
// @slack/socket-mode SocketModeClient connects to it as an app. Records every call and every frame.
//
//   const emu = new SlackEmulator(); await emu.start();       // emu.apiRoot, emu.port
//   const bot = emu.addBot('pincer');  // bot.botToken, bot.appToken, bot.id (user id)
//   const alice = emu.addUser('alice'); // alice.token (xoxp-), alice.id
//   const general = emu.addChannel('general', [alice, bot]);  const dm = emu.dm(alice, bot);
//
// Uses `ws` (installed by setup.sh into .cache/).
import crypto from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMultipart } from '../support/multipart.mjs';

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
    this.responseUrls = new Map();   // id -> {app, user, channel, uses, posts: [{response_type, text}]}
    this.ephemerals = [];            // chat.postEphemeral: {channel, user, text}
    this.httpApps = new Map();       // app user id -> {url, signingSecret}: HTTP mode
    this.httpDeliveries = [];        // every HTTP-mode POST: {app, kind, body, headers, status, attempt}
    this.files = new Map();          // id -> {id, name, length, bytes?, mimetype?, shared}: files.*UploadExternal
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
        e.ackPayload = msg.payload;
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
    conns[conns.length - 1].socket.send(JSON.stringify({ envelope_id: e.id, payload: e.payload, type: e.type ?? 'events_api',
      accepts_response_payload: e.type === 'slash_commands', retry_attempt: e.attempts - 1, retry_reason: e.attempts > 1 ? 'timeout' : '' }));
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
    if (this.httpApps.has(app)) return this.postHttp(app, 'event', JSON.stringify(payload), 'application/json', payload);
    const e = { id: `env-${this.id('')}`, app, payload, acked: false, attempts: 0 };
    this.envelopes.push(e);
    this.deliver(e);
    return e;
  }

  /// `user` runs `command` (e.g. '/pincer') with `text` in `conv`, for app `bot`: a `slash_commands`
  /// envelope (Socket Mode) or a signed form POST (HTTP mode). Returns the envelope (or delivery)
  /// and the command's response_url record ({posts}).
  slashCommand(bot, user, conv, command, text) {
    const rid = this.id('R');
    const response = { id: rid, app: bot.id, user: user.id, channel: conv.id, uses: 0, posts: [] };
    this.responseUrls.set(rid, response);
    const payload = { token: 'verification-token', team_id: this.teamId, team_domain: 'pincer-test', channel_id: conv.id,
      channel_name: conv.type === 'im' ? 'directmessage' : conv.type === 'mpim' ? `mpdm-${conv.id}` : conv.name,
      user_id: user.id, user_name: user.name, command, text, api_app_id: bot.appId, is_enterprise_install: 'false',
      response_url: `http://127.0.0.1:${this.port}/commands/${rid}`, trigger_id: `${this.clock}.${this.n}.${rid.toLowerCase()}` };
    if (this.httpApps.has(bot.id)) {
      return { delivery: this.postHttp(bot.id, 'command', new URLSearchParams(payload).toString(), 'application/x-www-form-urlencoded', payload), response };
    }
    const e = { id: `env-${this.id('')}`, app: bot.id, payload, acked: false, attempts: 0, type: 'slash_commands' };
    this.envelopes.push(e);
    this.deliver(e);
    return { envelope: e, response };
  }

  // ---- HTTP mode ------------------------------------------------------------------------------

  /// From now on `bot`'s events and commands are POSTed to `url`, signed with `signingSecret`.
  useHttp(bot, url, signingSecret) { this.httpApps.set(bot.id, { url, signingSecret }); }

  /// Slack's signature of a request body at Unix time `ts` (seconds).
  static sign(signingSecret, ts, body) {
    return `v0=${crypto.createHmac('sha256', signingSecret).update(`v0:${ts}:${body}`).digest('hex')}`;
  }

  /// POSTs `body` as Slack does (signed, now); `opts` may override the timestamp or signature (tests
  /// of refusals). Resolves to the delivery record once answered (or failed); retries a non-2xx
  /// event answer up to 3 times with X-Slack-Retry-Num.
  postHttp(app, kind, body, contentType, parsed, opts = {}) {
    const { url, signingSecret } = this.httpApps.get(app);
    const record = { app, kind, body: parsed, raw: body, attempts: [] };
    this.httpDeliveries.push(record);
    const attempt = async (n) => {
      const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
      const headers = { 'content-type': contentType, 'x-slack-request-timestamp': ts,
        'x-slack-signature': opts.signature ?? SlackEmulator.sign(signingSecret, ts, body), 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' };
      if (n > 0 || opts.retryNum) Object.assign(headers, { 'x-slack-retry-num': String(n || opts.retryNum), 'x-slack-retry-reason': 'http_error' });
      let status = 0, text = '';
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(3000) });
        status = res.status;
        text = await res.text();
      } catch (e) { text = String(e); }
      record.attempts.push({ status, text, retryNum: n });
      if (kind === 'event' && (status < 200 || status > 299) && n < 3 && !opts.noRetry) return attempt(n + 1);
      return record;
    };
    record.done = attempt(0);
    return record;
  }

  /// Events a posted message produces for every app in the conversation: `message` (also for the
  /// app's own posts, with bot_id), and `app_mention` for a mention of the app outside DMs.
  fanOut(conv, message) {
    for (const id of conv.members) {
      const app = this.users.get(id);
      if (!app?.bot) continue;
      const event = { type: 'message', channel: conv.id, user: message.user, text: message.text, ts: message.ts,
        event_ts: message.ts, team: this.teamId, channel_type: conv.type,
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}), ...(message.bot_id ? { bot_id: message.bot_id } : {}),
        ...(message.files ? { subtype: 'file_share', files: message.files } : {}) };
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
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString();
    const url = new URL(req.url, 'http://x');
    if (url.pathname.startsWith('/upload/')) return this.receiveUpload(url.pathname.slice('/upload/'.length), bytes, req, res);
    if (url.pathname.startsWith('/files/')) return this.serveFile(url.pathname.slice('/files/'.length), req, res);
    if (url.pathname.startsWith('/commands/')) return this.respondToCommand(url.pathname.slice('/commands/'.length), raw, res);
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

  /// A POST to a response_url: at most 5, within 30 minutes (Slack's limits); 404 used_url after.
  respondToCommand(id, raw, res) {
    const r = this.responseUrls.get(id);
    const answer = (status, text) => { res.writeHead(status, { 'content-type': 'text/plain' }); res.end(text); };
    if (!r) return answer(404, 'no_such_url');
    if (r.uses >= 5) return answer(404, 'used_url');
    let body;
    try { body = JSON.parse(raw); } catch { return answer(400, 'invalid_payload'); }
    if (!body.text) return answer(400, 'no_text');
    r.uses += 1;
    r.posts.push({ response_type: body.response_type ?? 'ephemeral', text: body.text });
    if (body.response_type === 'in_channel') {
      const conv = this.conversations.get(r.channel);
      const app = this.users.get(r.app);
      conv.messages.push({ type: 'message', ts: this.nextTs(), user: app.id, bot_id: app.botId, text: body.text, edits: [] });
    }
    return answer(200, 'ok');
  }

  /// POST <upload_url>: the file's bytes, raw or as the one file of a multipart/form-data body (the
  /// official client's filesUploadV2), as Slack's upload service takes them. Without a specific
  /// content type the mimetype comes from the file name, as Slack infers it.
  receiveUpload(id, bytes, req, res) {
    const f = this.files.get(id);
    if (!f || f.bytes) { res.writeHead(404); return res.end('no such upload'); }
    const form = parseMultipart(bytes, req.headers['content-type']);
    const part = form?.files[0];
    f.bytes = part ? part.bytes : bytes;
    const given = (part ? part.contentType : req.headers['content-type']) || 'application/octet-stream';
    const byName = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
      pdf: 'application/pdf', txt: 'text/plain' }[path.extname(f.name).slice(1).toLowerCase()];
    f.mimetype = given === 'application/octet-stream' && byName ? byName : given;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`OK - ${bytes.length}`);
  }

  /// GET a shared file's url_private (any member's token).
  serveFile(id, req, res) {
    const f = this.files.get(id);
    const token = (req.headers.authorization || '').replace(/^Bearer /, '');
    const who = [...this.users.values()].find((u) => u.token === token || u.botToken === token);
    if (!f?.shared || !who) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': f.mimetype });
    res.end(f.bytes);
  }

  conversationFor(caller, channel) {
    if (!channel) return undefined;
    if (this.conversations.has(channel)) return this.conversations.get(channel);
    const user = this.users.get(channel);  // a user id: the DM with them
    return user ? this.dm(caller, user) : undefined;
  }

  /// reactions.add / reactions.remove: Slack's errors (invalid_name for anything but a short name
  /// such as "+1", "eyes" or "+1::skin-tone-2", already_reacted, no_reaction, message_not_found).
  react(caller, b, add) {
    const conv = this.conversationFor(caller, b.channel);
    if (!conv) return { ok: false, error: 'channel_not_found' };
    const message = conv.messages.find((m) => m.ts === b.timestamp);
    if (!message) return { ok: false, error: 'message_not_found' };
    if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(String(b.name ?? ''))) return { ok: false, error: 'invalid_name' };
    const reactions = message.reactions ?? [];
    const entry = reactions.find((r) => r.name === b.name);
    if (add) {
      if (entry?.users.includes(caller.id)) return { ok: false, error: 'already_reacted' };
      if (entry) entry.users.push(caller.id);
      else reactions.push({ name: b.name, users: [caller.id] });
    } else {
      if (!entry?.users.includes(caller.id)) return { ok: false, error: 'no_reaction' };
      entry.users = entry.users.filter((u) => u !== caller.id);
    }
    message.reactions = reactions.filter((r) => r.users.length > 0).map((r) => ({ ...r, count: r.users.length }));
    if (message.reactions.length === 0) delete message.reactions;
    return { ok: true };
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
      'chat.postEphemeral': (caller, b) => {
        const conv = this.conversationFor(caller, b.channel);
        if (!conv) return { ok: false, error: 'channel_not_found' };
        if (!conv.members.includes(caller.id)) return { ok: false, error: 'not_in_channel' };
        if (!conv.members.includes(b.user)) return { ok: false, error: 'user_not_in_channel' };
        if (!b.text) return { ok: false, error: 'no_text' };
        this.ephemerals.push({ channel: conv.id, user: b.user, text: b.text });
        return { ok: true, message_ts: this.nextTs() };
      },
      'files.getUploadURLExternal': (caller, b) => {
        const length = Number(b.length);
        if (!b.filename || !Number.isInteger(length) || length <= 0) return { ok: false, error: 'invalid_arguments' };
        const f = { id: this.id('F'), name: b.filename, length, bytes: null, shared: false };
        this.files.set(f.id, f);
        return { ok: true, upload_url: `http://127.0.0.1:${this.port}/upload/${f.id}`, file_id: f.id };
      },
      'files.completeUploadExternal': (caller, b) => {
        const list = typeof b.files === 'string' ? JSON.parse(b.files) : b.files;
        if (!Array.isArray(list) || list.length === 0) return { ok: false, error: 'invalid_arguments' };
        const conv = this.conversationFor(caller, b.channel_id);
        if (b.channel_id && !conv) return { ok: false, error: 'channel_not_found' };
        if (conv && !conv.members.includes(caller.id)) return { ok: false, error: 'not_in_channel' };
        const shown = [];
        for (const { id, title } of list) {
          const f = this.files.get(id);
          if (!f || !f.bytes) return { ok: false, error: 'file_not_found' };
          if (f.bytes.length !== f.length) return { ok: false, error: 'file_upload_size_mismatch' };
          f.shared = !!conv;
          f.title = title ?? f.name;
          shown.push({ id: f.id, name: f.name, title: f.title, mimetype: f.mimetype, size: f.length,
            url_private: `http://127.0.0.1:${this.port}/files/${f.id}` });
        }
        if (conv) {
          const message = { type: 'message', subtype: 'file_share', ts: this.nextTs(), user: caller.id, text: b.initial_comment ?? '',
            files: shown, edits: [], ...(b.thread_ts ? { thread_ts: b.thread_ts } : {}), ...(caller.bot ? { bot_id: caller.botId } : {}) };
          conv.messages.push(message);
          this.fanOut(conv, message);  // a file_share message event, with the files (url_private)
        }
        return { ok: true, files: shown.map(({ id, title }) => ({ id, title })) };
      },
      'reactions.add': (caller, b) => this.react(caller, b, true),
      'reactions.remove': (caller, b) => this.react(caller, b, false),
      'reactions.get': (caller, b) => {
        const conv = this.conversationFor(caller, b.channel);
        const message = conv?.messages.find((m) => m.ts === b.timestamp);
        if (!message) return { ok: false, error: conv ? 'message_not_found' : 'channel_not_found' };
        const { edits: _, ...shown } = message;
        return { ok: true, type: 'message', channel: conv.id, message: shown };
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
