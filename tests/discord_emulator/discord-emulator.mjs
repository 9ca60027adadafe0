// A Discord test server (API v10): the Gateway WebSocket (HELLO, IDENTIFY → READY + GUILD_CREATE,
// heartbeats and ACKs, RESUME with a replay of the missed dispatches, RECONNECT, INVALID_SESSION,
// close codes) and the REST routes bots use (GET /gateway/bot, users/@me, channels, create / edit
// messages — with files as multipart/form-data, kept on its CDN —, typing, reactions, DM channels) with X-RateLimit-* headers and injectable 429s.
// Close enough to the wire protocol that the official discord.js client connects to it as a
// second bot — the other participant of the tests — and it records every request and frame.
//
//   const emu = new DiscordEmulator(); await emu.start();          // emu.apiRoot, emu.port
//   const bot = emu.addUser({ username: 'pincer', bot: true });  // bot.token
//   const guild = emu.addGuild({ name: 'g', members: [[bot, []]] }); emu.addTextChannel(guild, 'general')
//
// Uses `ws` (installed by setup.sh into .cache/).
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMultipart } from '../support/multipart.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.cache/package.json'));
const { WebSocketServer } = require('ws');

const EPOCH = 1420070400000n;
const INTENT = { GUILDS: 1, GUILD_MESSAGES: 1 << 9, GUILD_MESSAGE_REACTIONS: 1 << 10, DIRECT_MESSAGES: 1 << 12, MESSAGE_CONTENT: 1 << 15 };

export class DiscordEmulator {
  constructor({ heartbeatIntervalMs = 41250 } = {}) {
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.counter = 0n;
    this.users = new Map();     // id -> {id, username, global_name, bot, token}
    this.guilds = new Map();    // id -> {id, name, owner_id, roles:[], members: Map(userId -> roles[])}
    this.channels = new Map();  // id -> {id, type, guild_id?, name?, recipients?: [userId]}
    this.messages = new Map();  // id -> message object (latest version)
    this.sessions = new Map();  // session_id -> {user, intents, seq, events:[{s, t, d}], socket}
    this.requests = [];         // every REST request: {user (username), method, path, body, status, at}
    this.frames = [];           // every Gateway payload received: {user, op, d}
    this.pending429 = [];       // [{method, pathRe, retryAfter, global, user}]: rateLimitNext
    this.pendingExhausted = []; // [{method, pathRe, resetAfter, user}]: exhaustBucketNext
    this.ackHeartbeats = true;  // false: heartbeats go unanswered (zombie connections)
    this.files = new Map();     // attachment id -> {bytes, contentType}: served under /attachments/ (the CDN)
    this.downloads = [];        // attachment paths downloaded, in order
    this.uploads = [];          // files of created messages (multipart files[n]): {channelId, filename, contentType, bytes}
    this.acceptIdentify = true;  // false: IDENTIFY and RESUME are closed with 4004 (a revoked token)
    this.routes = [];  // more REST routes (interactions.mjs): (req, p, body, user, {ok, reply, rl, record, res}) → true when answered
  }

  snowflake() {
    this.counter += 1n;
    return String(((BigInt(Date.now()) - EPOCH) << 22n) | (this.counter & 0x3fffffn));
  }

  addUser({ username, bot = false, globalName = null }) {
    const id = this.snowflake();
    const user = { id, username, global_name: globalName, discriminator: '0', avatar: null, bot, token: `${Buffer.from(id).toString('base64')}.emu.${username}-token` };
    this.users.set(id, user);
    return user;
  }

  /// members: [[user, [roleId…]], …]; roles: [{name}] → created with ids.
  addGuild({ name, owner, members = [], roles = [] }) {
    const id = this.snowflake();
    const guild = { id, name, owner_id: owner ? owner.id : members[0]?.[0]?.id, roles: [{ id, name: '@everyone', position: 0, permissions: '1071698660929', color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }], members: new Map() };
    for (const r of roles) guild.roles.push({ id: this.snowflake(), name: r.name, position: guild.roles.length, permissions: '0', color: 0, hoist: false, managed: false, mentionable: true, flags: 0 });
    for (const [user, roleIds] of members) guild.members.set(user.id, roleIds);
    this.guilds.set(id, guild);
    return guild;
  }

  role(guild, name) { return guild.roles.find((r) => r.name === name).id; }

  addTextChannel(guild, name) {
    const channel = { id: this.snowflake(), type: 0, guild_id: guild.id, name, position: 0, permission_overwrites: [], nsfw: false, topic: null, last_message_id: null, parent_id: null, rate_limit_per_user: 0 };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /// A public thread of `parent` (type 11); announced with THREAD_CREATE to the guild's sessions.
  addThread(guild, parent, name) {
    const thread = { id: this.snowflake(), type: 11, guild_id: guild.id, parent_id: parent.id, name, owner_id: guild.owner_id,
      last_message_id: null, rate_limit_per_user: 0, message_count: 0, member_count: 1,
      thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false } };
    this.channels.set(thread.id, thread);
    this.dispatchTo(thread, 'THREAD_CREATE', () => ({ ...thread, newly_created: true }));
    return thread;
  }

  dmChannel(a, b) {
    for (const c of this.channels.values()) {
      if (c.type === 1 && c.recipients.includes(a.id) && c.recipients.includes(b.id)) return c;
    }
    const channel = { id: this.snowflake(), type: 1, recipients: [a.id, b.id], last_message_id: null };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /// An uploaded file as Discord's attachment object; its url is served by this server (the CDN).
  addAttachment(bytes, filename, contentType) {
    const id = this.snowflake();
    this.files.set(id, { bytes: Buffer.from(bytes), contentType });
    const url = `http://127.0.0.1:${this.port}/attachments/${id}/${encodeURIComponent(filename)}`;
    return { id, filename, content_type: contentType, size: Buffer.from(bytes).length, url, proxy_url: url };
  }

  /// Payload user object (no token).
  publicUser(u) { const { token, ...rest } = u; return rest; }

  member(guild, user) {
    return { user: this.publicUser(user), roles: guild.members.get(user.id) || [], nick: null, joined_at: new Date(0).toISOString(), deaf: false, mute: false, flags: 0 };
  }

  guildPayload(guild) {
    const channels = [...this.channels.values()].filter((c) => c.guild_id === guild.id && c.type !== 11).map(({ guild_id, ...c }) => c);
    const threads = [...this.channels.values()].filter((c) => c.guild_id === guild.id && c.type === 11);
    return { id: guild.id, name: guild.name, icon: null, owner_id: guild.owner_id, roles: guild.roles, emojis: [], stickers: [], features: [],
      member_count: guild.members.size, large: false, unavailable: false, joined_at: new Date(0).toISOString(),
      members: [...guild.members.keys()].map((uid) => this.member(guild, this.users.get(uid))), channels, threads, presences: [],
      voice_states: [], stage_instances: [], guild_scheduled_events: [], soundboard_sounds: [], premium_tier: 0, preferred_locale: 'en-US',
      system_channel_flags: 0, verification_level: 0, default_message_notifications: 0, explicit_content_filter: 0, mfa_level: 0, nsfw_level: 0, afk_timeout: 300 };
  }

  canSee(user, channel) {
    if (channel.type === 1) return channel.recipients.includes(user.id);
    const g = this.guilds.get(channel.guild_id);
    return !!g && g.members.has(user.id);
  }

  // ---- messages --------------------------------------------------------------------------------

  /// Creates a message as `author` (what POST /channels/{id}/messages does), dispatched to every
  /// session that can see the channel. Returns the message.
  createMessage(author, channelId, body) {
    const channel = this.channels.get(channelId);
    const content = String(body.content ?? '');
    const mentions = [];
    for (const m of content.matchAll(/<@!?(\d+)>/g)) {
      const u = this.users.get(m[1]);
      if (u && !mentions.some((x) => x.id === u.id)) mentions.push(this.publicUser(u));
    }
    let referenced = null;
    if (body.message_reference && body.message_reference.message_id) referenced = this.messages.get(String(body.message_reference.message_id)) || null;
    const msg = { id: this.snowflake(), channel_id: channelId, author: this.publicUser(author), content, timestamp: new Date().toISOString(), edited_timestamp: null,
      tts: false, mention_everyone: false, mentions, mention_roles: [], attachments: body.attachments || [], embeds: [], pinned: false, type: referenced ? 19 : 0, flags: 0, components: [] };
    if (referenced) {
      msg.message_reference = { message_id: referenced.id, channel_id: channelId, guild_id: channel.guild_id };
      msg.referenced_message = referenced;
    }
    channel.last_message_id = msg.id;
    this.messages.set(msg.id, msg);
    this.dispatchTo(channel, 'MESSAGE_CREATE', (viewer) => {
      const d = { ...msg };
      if (channel.guild_id) {
        d.guild_id = channel.guild_id;
        const g = this.guilds.get(channel.guild_id);
        const { user, ...member } = this.member(g, author);
        d.member = member;
      }
      if (!this.hasIntent(viewer, INTENT.MESSAGE_CONTENT) && viewer.user.id !== author.id && !mentions.some((m) => m.id === viewer.user.id) && channel.type !== 1) d.content = '';
      return d;
    });
    return msg;
  }

  editMessage(channelId, messageId, content) {
    const msg = this.messages.get(messageId);
    msg.content = String(content);
    msg.edited_timestamp = new Date().toISOString();
    msg.edits = (msg.edits || 0) + 1;
    const channel = this.channels.get(channelId);
    this.dispatchTo(channel, 'MESSAGE_UPDATE', () => ({ ...msg, guild_id: channel.guild_id }));
    return msg;
  }

  /// Messages in a channel, oldest first.
  channelMessages(channelId) { return [...this.messages.values()].filter((m) => m.channel_id === channelId); }

  // ---- gateway -----------------------------------------------------------------------------------

  hasIntent(session, bit) { return (session.intents & bit) !== 0; }

  dispatchTo(channel, t, build) {
    for (const s of this.sessions.values()) {
      if (!s.ready || !this.canSee(s.user, channel)) continue;
      const need = channel.type === 1 ? INTENT.DIRECT_MESSAGES : t.startsWith('MESSAGE_REACTION') ? INTENT.GUILD_MESSAGE_REACTIONS : INTENT.GUILD_MESSAGES;
      if (t.startsWith('MESSAGE') && !this.hasIntent(s, need)) continue;
      if (t.startsWith('THREAD') && !this.hasIntent(s, INTENT.GUILDS)) continue;
      this.dispatch(s, t, build(s));
    }
  }

  dispatch(session, t, d) {
    const ev = { op: 0, s: ++session.seq, t, d };
    session.events.push(ev);  // kept for a RESUME
    if (session.socket && session.socket.readyState === 1) session.socket.send(JSON.stringify(ev));
  }

  /// Sessions of `user` with a live socket.
  liveSessions(user) { return [...this.sessions.values()].filter((s) => s.user.id === user.id && s.socket && s.socket.readyState === 1); }

  /// Closes the Gateway connections of `user` (code 4000 keeps the session resumable; 1006-like
  /// drop when `terminate`).
  dropConnections(user, { code = 4000, terminate = false } = {}) {
    for (const s of this.liveSessions(user)) terminate ? s.socket.terminate() : s.socket.close(code, 'emulator');
  }

  /// Sends op 7 RECONNECT to the sessions of `user`.
  requestReconnect(user) { for (const s of this.liveSessions(user)) s.socket.send(JSON.stringify({ op: 7, d: null })); }

  onSocket(socket) {
    let session = null;
    const conn = { heartbeats: 0 };
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs } }));
    socket.on('message', (data) => {
      let p;
      try { p = JSON.parse(String(data)); } catch { return socket.close(4002, 'Decode error'); }
      const who = session ? session.user.username : '?';
      this.frames.push({ user: who, op: p.op, d: p.op === 2 || p.op === 6 ? { ...p.d, token: '<redacted>' } : p.d, at: Date.now() });
      if (p.op === 1) {
        conn.heartbeats += 1;
        if (this.ackHeartbeats) socket.send(JSON.stringify({ op: 11 }));
        return;
      }
      if (p.op === 2) {
        const user = [...this.users.values()].find((u) => u.token === p.d?.token);
        if (!user || !this.acceptIdentify) return socket.close(4004, 'Authentication failed.');
        if (session) return socket.close(4005, 'Already authenticated.');
        session = { id: this.snowflake(), user, intents: Number(p.d.intents || 0), seq: 0, events: [], socket, ready: true };
        this.sessions.set(session.id, session);
        const guilds = [...this.guilds.values()].filter((g) => g.members.has(user.id));
        this.dispatch(session, 'READY', { v: 10, user: this.publicUser(user), guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
          session_id: session.id, resume_gateway_url: `ws://127.0.0.1:${this.port}/gateway`, session_type: 'normal', private_channels: [], presences: [], relationships: [],
          application: { id: user.id, flags: 0 }, _trace: ['pincer-discord-emulator'] });
        if (this.hasIntent(session, INTENT.GUILDS)) for (const g of guilds) this.dispatch(session, 'GUILD_CREATE', this.guildPayload(g));
        return;
      }
      if (p.op === 6) {
        if (!this.acceptIdentify) return socket.close(4004, 'Authentication failed.');
        const old = this.sessions.get(p.d?.session_id);
        if (!old || old.user.token !== p.d?.token) {
          return socket.send(JSON.stringify({ op: 9, d: false }));
        }
        if (old.socket && old.socket !== socket && old.socket.readyState === 1) old.socket.close(4000, 'resumed elsewhere');
        session = old;
        session.socket = socket;
        session.resumes = (session.resumes || 0) + 1;
        for (const ev of session.events) if (ev.s > Number(p.d.seq ?? 0)) socket.send(JSON.stringify(ev));
        this.dispatch(session, 'RESUMED', null);
        return;
      }
      if (!session && p.op !== 1) return socket.close(4003, 'Not authenticated.');
    });
    socket.on('close', () => {
      if (session && session.socket === socket) session.socket = null;
    });
  }

  // ---- REST --------------------------------------------------------------------------------------

  /// The next request of `user` (any user when omitted) matching `method` and `pathRe` (a RegExp
  /// on the path after /api/v10) is answered 429 with retry_after `retryAfter` seconds (`global`
  /// sets the global flag).
  rateLimitNext(method, pathRe, retryAfter, { user = null, global = false } = {}) {
    this.pending429.push({ method, pathRe, retryAfter, global, user: user ? user.id : null });
  }

  /// The next successful answer to such a request says the bucket is used up
  /// (X-RateLimit-Remaining 0) until `resetAfter` seconds have passed.
  exhaustBucketNext(method, pathRe, resetAfter, { user = null } = {}) {
    this.pendingExhausted.push({ method, pathRe, resetAfter, user: user ? user.id : null });
  }

  async onRequest(req, res) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const rawBytes = Buffer.concat(chunks);
    const raw = rawBytes.toString('utf8');
    let body = null;
    const form = parseMultipart(rawBytes, req.headers['content-type']);
    if (form) {
      // A message with files: payload_json holds the JSON body, files[n] the files.
      try { body = JSON.parse(form.fields.payload_json ?? '{}'); } catch { body = {}; }
      body.files = form.files.filter((f) => /^files\[\d+\]$/.test(f.field));
    } else if (raw) { try { body = JSON.parse(raw); } catch { body = raw; } }
    const url = new URL(req.url, 'http://x');
    const cdn = /^\/attachments\/(\d+)\/[^/]+$/.exec(url.pathname);
    if (cdn && req.method === 'GET') {
      const f = this.files.get(cdn[1]);
      this.downloads.push(url.pathname);
      if (!f) { res.writeHead(404); return res.end(); }
      res.writeHead(200, { 'Content-Type': f.contentType, 'Content-Length': f.bytes.length });
      return res.end(f.bytes);
    }
    const m = /^\/api(?:\/v(\d+))?(\/.*)$/.exec(url.pathname);
    const send = (status, json, headers = {}) => {
      const text = json === undefined ? '' : JSON.stringify(json);
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(text);
    };
    if (!m) return send(404, { message: '404: Not Found', code: 0 });
    const p = m[2];
    const auth = String(req.headers.authorization || '');
    const user = [...this.users.values()].find((u) => auth === `Bot ${u.token}`);
    const record = { user: user ? user.username : null, method: req.method, path: p, body, status: 0, at: Date.now() };
    this.requests.push(record);
    const reply = (status, json, headers = {}) => { record.status = status; send(status, json, headers); };
    if (!user) return reply(401, { message: '401: Unauthorized', code: 0 });
    const bucket = `${req.method}:${p.replace(/\/\d+/g, (s, i) => (i === p.indexOf('/', 1) ? s : '/:id'))}`;
    const limited = this.pending429.findIndex((r) => r.method === req.method && r.pathRe.test(p) && (!r.user || r.user === user.id));
    if (limited >= 0) {
      const r = this.pending429.splice(limited, 1)[0];
      const headers = { 'Retry-After': String(Math.ceil(r.retryAfter)), 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset-After': String(r.retryAfter), 'X-RateLimit-Bucket': Buffer.from(bucket).toString('hex').slice(0, 32), 'X-RateLimit-Scope': r.global ? 'global' : 'user' };
      if (r.global) headers['X-RateLimit-Global'] = 'true';
      return reply(429, { message: 'You are being rate limited.', retry_after: r.retryAfter, global: r.global, code: r.global ? 0 : 0 }, headers);
    }
    const rl = { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '4', 'X-RateLimit-Reset-After': '1.000', 'X-RateLimit-Bucket': Buffer.from(bucket).toString('hex').slice(0, 32) };
    const exhaust = this.pendingExhausted.findIndex((r) => r.method === req.method && r.pathRe.test(p) && (!r.user || r.user === user.id));
    if (exhaust >= 0) {
      const r = this.pendingExhausted.splice(exhaust, 1)[0];
      rl['X-RateLimit-Remaining'] = '0';
      rl['X-RateLimit-Reset-After'] = String(r.resetAfter);
    }
    const ok = (json, status = 200) => reply(status, json, rl);
    let x;
    if (req.method === 'GET' && (p === '/gateway/bot' || p === '/gateway')) {
      return ok({ url: `ws://127.0.0.1:${this.port}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
    }
    if (req.method === 'GET' && p === '/users/@me') return ok(this.publicUser(user));
    if (req.method === 'GET' && (x = /^\/users\/(\d+)$/.exec(p))) {
      const u = this.users.get(x[1]);
      return u ? ok(this.publicUser(u)) : reply(404, { message: 'Unknown User', code: 10013 });
    }
    if (req.method === 'POST' && p === '/users/@me/channels') {
      const other = this.users.get(String(body?.recipient_id));
      if (!other) return reply(400, { message: 'Invalid Form Body', code: 50035 });
      const c = this.dmChannel(user, other);
      return ok({ id: c.id, type: 1, last_message_id: c.last_message_id, recipients: [this.publicUser(other)] });
    }
    if ((x = /^\/channels\/(\d+)(\/.*)?$/.exec(p))) {
      const channel = this.channels.get(x[1]);
      if (!channel || !this.canSee(user, channel)) return reply(404, { message: 'Unknown Channel', code: 10003 });
      const rest = x[2] || '';
      if (req.method === 'GET' && rest === '') {
        if (channel.type === 1) return ok({ id: channel.id, type: 1, last_message_id: channel.last_message_id, recipients: channel.recipients.filter((r) => r !== user.id).map((r) => this.publicUser(this.users.get(r))) });
        return ok(channel);
      }
      if (req.method === 'POST' && rest === '/messages') {
        const content = String(body?.content ?? '');
        const files = body?.files ?? [];
        if (!content && files.length === 0) return reply(400, { message: 'Cannot send an empty message', code: 50006 });
        if (files.reduce((n, f) => n + f.bytes.length, 0) > 10 * 1024 * 1024) {
          return reply(413, { message: 'Request entity too large', code: 40005 });
        }
        if (files.length > 0) {  // stored on the CDN, as Discord does: the message's attachments link there
          this.uploads.push(...files.map((f) => ({ channelId: channel.id, filename: f.filename, contentType: f.contentType, bytes: f.bytes })));
          body = { ...body, files: undefined, attachments: files.map((f) => this.addAttachment(f.bytes, f.filename, f.contentType ?? 'application/octet-stream')) };
          record.body = { ...body };
        }
        if (content.length > 2000) {  // Discord counts UTF-16 code units, as JavaScript's length
          return reply(400, { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } });
        }
        return ok(this.createMessage(user, channel.id, body));
      }
      if (req.method === 'GET' && rest === '/messages') return ok(this.channelMessages(channel.id).slice().reverse());
      if ((x = /^\/messages\/(\d+)$/.exec(rest))) {
        const msg = this.messages.get(x[1]);
        if (!msg || msg.channel_id !== channel.id) return reply(404, { message: 'Unknown Message', code: 10008 });
        if (req.method === 'GET') return ok(msg);
        if (req.method === 'PATCH') {
          if (msg.author.id !== user.id) return reply(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
          const content = String(body?.content ?? '');
          if (content.length > 2000) return reply(400, { message: 'Invalid Form Body', code: 50035 });
          return ok(this.editMessage(channel.id, msg.id, content));
        }
      }
      if (req.method === 'POST' && rest === '/typing') {
        this.dispatchTo(channel, 'TYPING_START', () => ({ channel_id: channel.id, guild_id: channel.guild_id, user_id: user.id, timestamp: Math.floor(Date.now() / 1000) }));
        record.status = 204;
        res.writeHead(204, rl);
        return res.end();
      }
      if ((x = /^\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(rest)) && req.method === 'PUT') {
        const msg = this.messages.get(x[1]);
        if (!msg) return reply(404, { message: 'Unknown Message', code: 10008 });
        const emoji = decodeURIComponent(x[2]);
        msg.reactions = [...(msg.reactions || []), { emoji, user: user.id }];
        this.dispatchTo(channel, 'MESSAGE_REACTION_ADD', () => ({ user_id: user.id, channel_id: channel.id, message_id: msg.id, guild_id: channel.guild_id, emoji: { id: null, name: emoji } }));
        record.status = 204;
        res.writeHead(204, rl);
        return res.end();
      }
      if ((x = /^\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(rest)) && req.method === 'DELETE') {
        const msg = this.messages.get(x[1]);
        if (!msg) return reply(404, { message: 'Unknown Message', code: 10008 });
        const emoji = decodeURIComponent(x[2]);
        msg.reactions = (msg.reactions || []).filter((r) => !(r.emoji === emoji && r.user === user.id));
        this.dispatchTo(channel, 'MESSAGE_REACTION_REMOVE', () => ({ user_id: user.id, channel_id: channel.id, message_id: msg.id, guild_id: channel.guild_id, emoji: { id: null, name: emoji } }));
        record.status = 204;
        res.writeHead(204, rl);
        return res.end();
      }
    }
    for (const route of this.routes) if (route(req, p, body, user, { ok, reply, rl, record, res })) return;
    if (req.method === 'GET' && (x = /^\/guilds\/(\d+)$/.exec(p))) {
      const g = this.guilds.get(x[1]);
      return g ? ok(this.guildPayload(g)) : reply(404, { message: 'Unknown Guild', code: 10004 });
    }
    return reply(404, { message: '404: Not Found', code: 0 });
  }

  /// REST requests made with `user`'s token matching `method` and `pathRe`.
  requestsOf(user, method, pathRe) { return this.requests.filter((r) => r.user === user.username && r.method === method && pathRe.test(r.path)); }

  async start(port = 0) {
    this.server = http.createServer((req, res) => { this.onRequest(req, res).catch((e) => { res.writeHead(500); res.end(String(e)); }); });
    // Node's default keep-alive of 5 s races the client's reuse of an idle connection on a loaded
    // machine (the client sends on a socket the server is closing: "fetch failed", seen in the
    // sanitizer run); a minute is longer than any pause in a test.
    this.server.keepAliveTimeout = 60_000;
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, sock, head) => {
      if (!req.url.startsWith('/gateway')) return sock.destroy();
      this.wss.handleUpgrade(req, sock, head, (ws) => this.onSocket(ws));
    });
    await new Promise((r) => this.server.listen(port, '127.0.0.1', r));
    this.port = this.server.address().port;
    this.apiRoot = `http://127.0.0.1:${this.port}/api`;
    return this;
  }

  async stop() {
    for (const c of this.wss?.clients || []) c.terminate();
    await new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
