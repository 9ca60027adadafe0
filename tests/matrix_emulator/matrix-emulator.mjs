// A Matrix homeserver for tests (client-server API v3, plain node:http): versions, password login,
// whoami, profiles, createRoom (with invites and is_direct), invite, join, room sends (idempotent per
// access token + txnId; reactions are plain m.reaction sends), redactions of one's own events, typing, /messages (backwards and forwards pagination), state and members,
// account data, media upload and download, filters and /sync — initial and incremental, long-polled up to `timeout` and
// woken by new events, honouring `since` and the filter's timeline limit and event types, with
// rooms.join (state + timeline), rooms.invite (stripped invite_state) and rooms.leave. Close
// enough to the spec that the official matrix-js-sdk logs in and talks through it; it records
// every request and can answer the next matching request 429 M_LIMIT_EXCEEDED.
//
//   const emu = await new MatrixEmulator().start();   // emu.baseUrl
//   const bot = emu.addUser('pincer', { displayname: 'Pincer' });   // bot.userId, bot.token
import http from 'node:http';
import { randomBytes } from 'node:crypto';

const SERVER = 'hs.test';
const err = (status, errcode, error, extra = {}) => ({ status, body: { errcode, error, ...extra } });

export class MatrixEmulator {
  constructor() {
    this.users = new Map();    // user id -> {userId, localpart, password, token, displayname, accountData: {}}
    this.tokens = new Map();   // access token -> user id
    this.rooms = new Map();    // room id -> {roomId, state: Map("type\x1fkey" -> event), events: [event]}
    this.stream = [];          // every event, in order; event.pos is its index + 1
    this.txns = new Map();     // "token\x1ftxn" -> event id
    this.filters = new Map();  // filter id -> filter
    this.requests = [];        // {user, method, path, query, body, status, at}
    this.pending429 = [];      // [{method, pathRe, retryAfterMs}]
    this.waiters = new Set();  // long-polled /sync requests: {userId, check()}
    this.media = new Map();    // media id -> {mediaId, user, filename, contentType, bytes}: the media repository
    this.uploads = [];         // the same, in upload order
  }

  async start() {
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Node's default keep-alive of 5 s races the client's reuse of an idle connection on a loaded
    // machine (the client sends on a socket the server is closing: "fetch failed", seen in the
    // sanitizer run); a minute is longer than any pause in a test.
    this.server.keepAliveTimeout = 60_000;
    await new Promise((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = this.server.address().port;
    this.baseUrl = `http://127.0.0.1:${this.port}`;
    return this;
  }

  /// Invalidates `user`'s access token (a logout from another client, a deactivation): every request
  /// with it is answered 401 M_UNKNOWN_TOKEN from now on; its long-polled /sync returns at once.
  logout(user) {
    this.tokens.delete(user.token);
    for (const w of [...this.waiters]) if (w.userId === user.userId) w.finish(null);
  }

  /// Makes `user`'s access token valid again (undoes logout).
  restoreToken(user) {
    this.tokens.set(user.token, user.userId);
  }

  async stop() {
    for (const w of this.waiters) w.finish();
    this.server.closeAllConnections?.();
    await new Promise((r) => this.server.close(r));
  }

  addUser(localpart, { password = `${localpart}-password`, displayname = localpart } = {}) {
    const user = { userId: `@${localpart}:${SERVER}`, localpart, password, token: `syt_${localpart}_${randomBytes(8).toString('hex')}`, displayname, accountData: {} };
    this.users.set(user.userId, user);
    this.tokens.set(user.token, user.userId);
    return user;
  }

  /// The next `method` request of `userId` whose (decoded) path matches `pathRe` is answered 429
  /// M_LIMIT_EXCEEDED with retry_after_ms.
  rateLimitNext(method, pathRe, retryAfterMs, userId) { this.pending429.push({ method, pathRe, retryAfterMs, userId }); }

  /// Requests of user `userId` (or anyone: null) with `method` whose decoded path matches `pathRe`.
  requestsOf(userId, method, pathRe) {
    return this.requests.filter((r) => (!userId || r.user === userId) && r.method === method && pathRe.test(r.path));
  }

  /// Every event of room `roomId` in order (the raw timeline).
  roomEvents(roomId) { return this.rooms.get(roomId)?.events ?? []; }

  // --- rooms and events ---------------------------------------------------------------------

  newId(prefix) { return `${prefix}${randomBytes(9).toString('base64url').replace(/[^a-zA-Z0-9]/g, 'x').toLowerCase()}`; }

  addEvent(roomId, sender, type, content, stateKey) {
    const room = this.rooms.get(roomId);
    const event = { type, sender, content, event_id: this.newId('$'), room_id: roomId, origin_server_ts: Date.now(), unsigned: {} };
    if (stateKey !== undefined) event.state_key = stateKey;
    event.pos = this.stream.length + 1;
    this.stream.push(event);
    room.events.push(event);
    if (stateKey !== undefined) room.state.set(`${type}\x1f${stateKey}`, event);
    queueMicrotask(() => { for (const w of [...this.waiters]) w.check(); });
    return event;
  }

  membership(roomId, userId) { return this.rooms.get(roomId)?.state.get(`m.room.member\x1f${userId}`)?.content.membership ?? 'leave'; }

  createRoom(creator, { name, invite = [], isDirect = false, alias } = {}) {
    const roomId = `${this.newId('!')}:${SERVER}`;
    this.rooms.set(roomId, { roomId, state: new Map(), events: [] });
    this.addEvent(roomId, creator, 'm.room.create', { creator, room_version: '10' }, '');
    this.addEvent(roomId, creator, 'm.room.member', { membership: 'join', displayname: this.users.get(creator)?.displayname }, creator);
    this.addEvent(roomId, creator, 'm.room.power_levels', { users: { [creator]: 100 }, users_default: 0, events_default: 0 }, '');
    this.addEvent(roomId, creator, 'm.room.join_rules', { join_rule: 'invite' }, '');
    if (name) this.addEvent(roomId, creator, 'm.room.name', { name }, '');
    if (alias) this.addEvent(roomId, creator, 'm.room.canonical_alias', { alias }, '');
    for (const u of invite) this.invite(creator, roomId, u, isDirect);
    return roomId;
  }

  invite(sender, roomId, userId, isDirect = false) {
    const content = { membership: 'invite', displayname: this.users.get(userId)?.displayname };
    if (isDirect) content.is_direct = true;
    return this.addEvent(roomId, sender, 'm.room.member', content, userId);
  }

  join(userId, roomId) {
    if (this.membership(roomId, userId) === 'join') return null;
    return this.addEvent(roomId, userId, 'm.room.member', { membership: 'join', displayname: this.users.get(userId)?.displayname }, userId);
  }

  send(userId, roomId, content, type = 'm.room.message') { return this.addEvent(roomId, userId, type, content); }

  // --- /sync --------------------------------------------------------------------------------

  /// The sync answer of `userId` since stream position `since` (0 = initial), or null when there
  /// is nothing new (an incremental sync then waits).
  syncBody(userId, since, filter) {
    const limit = filter?.room?.timeline?.limit ?? 10;
    const types = filter?.room?.timeline?.types;
    const keep = (e) => !types || types.includes(e.type);
    const strip = ({ pos, room_id, ...e }) => e;
    const join = {}, invite = {}, leave = {};
    for (const room of this.rooms.values()) {
      const mine = room.state.get(`m.room.member\x1f${userId}`);
      if (!mine || mine.pos <= since) {
        if (mine?.content.membership !== 'join') continue;
        const fresh = room.events.filter((e) => e.pos > since && keep(e));
        if (fresh.length) join[room.roomId] = { timeline: { events: fresh.slice(-limit).map(strip), limited: fresh.length > limit }, state: { events: [] } };
        continue;
      }
      const m = mine.content.membership;
      if (m === 'invite') {
        const stripped = [...room.state.values()].filter((e) => ['m.room.create', 'm.room.name', 'm.room.join_rules', 'm.room.canonical_alias', 'm.room.member'].includes(e.type) && (e.type !== 'm.room.member' || e.state_key === userId))
          .map((e) => ({ type: e.type, state_key: e.state_key, sender: e.sender, content: e.content }));
        invite[room.roomId] = { invite_state: { events: stripped } };
      } else if (m === 'join') {
        // Joined since `since` (or an initial sync): the state before the timeline, and the timeline.
        const timeline = room.events.filter((e) => keep(e) && (since === 0 || e.pos >= mine.pos)).slice(-limit);
        const first = timeline.length ? timeline[0].pos : Infinity;
        const state = [...room.state.values()].filter((e) => e.pos < first);
        join[room.roomId] = { state: { events: state.map(strip) }, timeline: { events: timeline.map(strip), limited: false },
          summary: {}, ephemeral: { events: [] }, account_data: { events: [] } };
      } else if (since > 0) {
        leave[room.roomId] = { timeline: { events: [strip(mine)] }, state: { events: [] } };
      }
    }
    const accountData = Object.entries(this.users.get(userId).accountData).map(([type, content]) => ({ type, content }));
    const empty = !Object.keys(join).length && !Object.keys(invite).length && !Object.keys(leave).length;
    if (since > 0 && empty) return null;
    return { next_batch: `s${this.stream.length}`, rooms: { join, invite, leave },
      account_data: { events: since === 0 ? accountData : [] }, presence: { events: [] }, to_device: { events: [] },
      device_lists: { changed: [], left: [] }, device_one_time_keys_count: {} };
  }

  sync(userId, query) {
    const since = query.since ? Number(String(query.since).replace(/^s/, '')) : 0;
    if (query.since && !/^s\d+$/.test(query.since)) return Promise.resolve(err(400, 'M_INVALID_PARAM', 'unknown since token'));
    let filter = null;
    if (query.filter) filter = query.filter.startsWith('{') ? JSON.parse(query.filter) : this.filters.get(query.filter);
    const now = this.syncBody(userId, since, filter);
    const timeout = Math.min(Number(query.timeout ?? 0), 60000);
    const nothing = () => ({ next_batch: `s${this.stream.length}`, rooms: { join: {}, invite: {}, leave: {} } });
    if (now || timeout <= 0) return Promise.resolve({ status: 200, body: now ?? nothing() });
    return new Promise((resolve) => {
      const waiter = {
        userId,
        check: () => {
          const body = this.syncBody(userId, since, filter);
          if (body) waiter.finish(body);
        },
        finish: (body) => {
          clearTimeout(waiter.timer);
          this.waiters.delete(waiter);
          resolve({ status: 200, body: body ?? nothing() });
        },
      };
      waiter.timer = setTimeout(() => waiter.finish(null), timeout);
      this.waiters.add(waiter);
    });
  }

  // --- HTTP ---------------------------------------------------------------------------------

  async handle(req, res) {
    const url = new URL(req.url, 'http://x');
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body = null;
    try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null; } catch { body = null; }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? url.searchParams.get('access_token');
    const user = auth ? this.tokens.get(auth) ?? null : null;
    // The media repository: POST /_matrix/media/v3/upload (raw bytes) → mxc://; downloads (authenticated
    // v1 and legacy v3) serve the bytes back.
    if (req.method === 'POST' && url.pathname === '/_matrix/media/v3/upload') {
      this.requests.push({ user, method: 'POST', path: url.pathname, query: Object.fromEntries(url.searchParams), body: null, status: user ? 200 : 401, at: Date.now() });
      res.writeHead(user ? 200 : 401, { 'Content-Type': 'application/json' });
      if (!user) return res.end(JSON.stringify({ errcode: 'M_MISSING_TOKEN', error: 'Missing access token' }));
      const id = randomBytes(9).toString('hex');
      const upload = { mediaId: id, user, filename: url.searchParams.get('filename') ?? '', contentType: req.headers['content-type'] ?? '', bytes: Buffer.concat(chunks) };
      this.media.set(id, upload);
      this.uploads.push(upload);
      return res.end(JSON.stringify({ content_uri: `mxc://${SERVER}/${id}` }));
    }
    const download = /^\/_matrix\/(?:client\/v1\/media|media\/v3)\/download\/([^/]+)\/([^/]+)/.exec(url.pathname);
    if (req.method === 'GET' && download) {
      const f = download[1] === SERVER ? this.media.get(download[2]) : undefined;
      if (!f) { res.writeHead(404, { 'Content-Type': 'application/json' }); return res.end(JSON.stringify({ errcode: 'M_NOT_FOUND', error: 'Not found' })); }
      res.writeHead(200, { 'Content-Type': f.contentType || 'application/octet-stream' });
      return res.end(f.bytes);
    }
    let decoded = url.pathname;
    try { decoded = decodeURIComponent(url.pathname); } catch { /* kept as sent */ }
    const record = { user, method: req.method, path: decoded, query: Object.fromEntries(url.searchParams), body, status: 0, at: Date.now() };
    this.requests.push(record);
    res.setHeader('Access-Control-Allow-Origin', '*');
    let answer;
    const limited = this.pending429.findIndex((p) => p.method === req.method && p.pathRe.test(decoded) && (!p.userId || p.userId === user));
    if (limited >= 0) {
      const [p] = this.pending429.splice(limited, 1);
      answer = err(429, 'M_LIMIT_EXCEEDED', 'Too Many Requests', { retry_after_ms: p.retryAfterMs });
    } else {
      try {
        answer = await this.route(req.method, url.pathname, Object.fromEntries(url.searchParams), body, user, auth);
      } catch (e) {
        answer = err(500, 'M_UNKNOWN', String(e?.stack ?? e));
      }
    }
    record.status = answer.status;
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }

  async route(method, path, query, body, user, token) {
    const ok = (b = {}) => ({ status: 200, body: b });
    if (path === '/_matrix/client/versions') return ok({ versions: ['r0.6.1', 'v1.1', 'v1.2', 'v1.3', 'v1.4', 'v1.5', 'v1.6', 'v1.7', 'v1.8', 'v1.9', 'v1.10', 'v1.11'], unstable_features: {} });
    const m = /^\/_matrix\/client\/(?:v3|r0|v1)(\/.*)$/.exec(path);
    if (!m) return err(404, 'M_UNRECOGNIZED', `unrecognized path ${path}`);
    const p = m[1].split('/').map(decodeURIComponent);  // ['', 'rooms', '!id:hs', 'send', …]
    const route = '/' + p.slice(1).join('/');
    if (route === '/login' && method === 'GET') return ok({ flows: [{ type: 'm.login.password' }] });
    if (route === '/login' && method === 'POST') {
      const who = body?.identifier?.user ?? body?.user ?? '';
      const u = this.users.get(who.startsWith('@') ? who : `@${who}:${SERVER}`);
      if (body?.type !== 'm.login.password' || !u || u.password !== body?.password) return err(403, 'M_FORBIDDEN', 'Invalid username or password');
      return ok({ user_id: u.userId, access_token: u.token, device_id: 'EMUDEVICE', home_server: SERVER });
    }
    if (['/auth_metadata', '/auth_issuer'].includes(route)) return err(404, 'M_UNRECOGNIZED', 'no OIDC here');
    if (!user) return err(401, token ? 'M_UNKNOWN_TOKEN' : 'M_MISSING_TOKEN', token ? 'Invalid access token passed.' : 'Missing access token.');
    const me = this.users.get(user);
    if (route === '/account/whoami') return ok({ user_id: user, device_id: 'EMUDEVICE' });
    if (p[1] === 'profile') {
      const u = this.users.get(p[2]);
      if (!u) return err(404, 'M_NOT_FOUND', 'Profile was not found');
      return p[3] === 'displayname' ? ok({ displayname: u.displayname }) : ok({ displayname: u.displayname });
    }
    if (route === '/capabilities') return ok({ capabilities: {} });
    if (route === '/pushrules/' || route === '/pushrules') return ok({ global: {} });
    if (route === '/sync') return this.sync(user, query);
    if (p[1] === 'user' && p[3] === 'filter') {
      if (method === 'POST') { const id = String(this.filters.size + 1); this.filters.set(id, body); return ok({ filter_id: id }); }
      return this.filters.has(p[4]) ? ok(this.filters.get(p[4])) : err(404, 'M_NOT_FOUND', 'No such filter');
    }
    if (p[1] === 'user' && p[3] === 'account_data') {
      if (method === 'PUT') { me.accountData[p[4]] = body; return ok(); }
      return me.accountData[p[4]] ? ok(me.accountData[p[4]]) : err(404, 'M_NOT_FOUND', 'Account data not found');
    }
    if (route === '/createRoom' && method === 'POST') {
      const roomId = this.createRoom(user, { name: body?.name, invite: body?.invite ?? [], isDirect: !!body?.is_direct });
      return ok({ room_id: roomId });
    }
    if (p[1] === 'join' && method === 'POST') return this.joinRoute(user, p[2]);
    if (p[1] !== 'rooms' || !this.rooms.has(p[2])) return p[1] === 'rooms' ? err(404, 'M_NOT_FOUND', `Unknown room ${p[2]}`) : err(404, 'M_UNRECOGNIZED', `unrecognized ${method} ${route}`);
    const roomId = p[2];
    const what = p[3];
    if (what === 'join' && method === 'POST') return this.joinRoute(user, roomId);
    if (what === 'invite' && method === 'POST') {
      if (this.membership(roomId, user) !== 'join') return err(403, 'M_FORBIDDEN', 'You are not in this room');
      if (!this.users.has(body?.user_id)) return err(404, 'M_NOT_FOUND', 'Unknown user');
      this.invite(user, roomId, body.user_id);
      return ok();
    }
    if (what === 'leave' && method === 'POST') { this.addEvent(roomId, user, 'm.room.member', { membership: 'leave' }, user); return ok(); }
    if (what === 'typing' && method === 'PUT') return ok();
    if (what === 'send' && method === 'PUT') {
      if (this.membership(roomId, user) !== 'join') return err(403, 'M_FORBIDDEN', `User ${user} not in room ${roomId}`);
      if (typeof body !== 'object' || body === null) return err(400, 'M_NOT_JSON', 'Content not JSON.');
      const key = `${token}\x1f${p[5]}`;
      if (!this.txns.has(key)) this.txns.set(key, this.send(user, roomId, body, p[4]).event_id);
      return ok({ event_id: this.txns.get(key) });
    }
    if (what === 'redact' && method === 'PUT') return this.redactRoute(user, token, roomId, p[4], p[5], body);
    const room = this.rooms.get(roomId);
    if (this.membership(roomId, user) !== 'join') return err(403, 'M_FORBIDDEN', `User ${user} not in room ${roomId}`);
    const strip = ({ pos, ...e }) => e;
    if (what === 'messages' && method === 'GET') {
      const limit = Math.min(Number(query.limit ?? 10), 1000);
      const backwards = (query.dir ?? 'b') === 'b';
      const from = query.from ? Number(String(query.from).replace(/^t/, '')) : (backwards ? this.stream.length + 1 : 0);
      let events = room.events.filter((e) => (backwards ? e.pos < from : e.pos > from));
      events = backwards ? events.reverse().slice(0, limit) : events.slice(0, limit);
      const end = events.length ? events[events.length - 1].pos : from;
      return ok({ chunk: events.map(strip), start: `t${from}`, ...(events.length === limit ? { end: `t${end}` } : {}) });
    }
    if (what === 'state' && method === 'GET') return ok([...room.state.values()].map(strip));
    if (what === 'members' && method === 'GET') return ok({ chunk: [...room.state.values()].filter((e) => e.type === 'm.room.member').map(strip) });
    if (what === 'joined_members' && method === 'GET') {
      const joined = {};
      for (const e of room.state.values()) if (e.type === 'm.room.member' && e.content.membership === 'join') joined[e.state_key] = { display_name: e.content.displayname ?? null };
      return ok({ joined });
    }
    return err(404, 'M_UNRECOGNIZED', `unrecognized ${method} ${route}`);
  }

  /// PUT /rooms/{room}/redact/{eventId}/{txnId}: an m.room.redaction event (room v10: `redacts`
  /// at the top level) and the target's content emptied, with unsigned.redacted_because. Only the
  /// sender may redact its own event here (no power-level redactions). Idempotent per txnId.
  redactRoute(user, token, roomId, eventId, txn, body) {
    if (this.membership(roomId, user) !== 'join') return err(403, 'M_FORBIDDEN', `User ${user} not in room ${roomId}`);
    const target = this.rooms.get(roomId).events.find((e) => e.event_id === eventId);
    if (!target) return err(404, 'M_NOT_FOUND', 'Event not found');
    if (target.sender !== user) return err(403, 'M_FORBIDDEN', 'You may only redact your own events here');
    const key = `${token}\x1fredact\x1f${txn}`;
    if (!this.txns.has(key)) {
      const content = typeof body?.reason === 'string' ? { reason: body.reason } : {};
      const redaction = this.addEvent(roomId, user, 'm.room.redaction', content);
      redaction.redacts = eventId;
      const { pos, room_id, ...because } = redaction;
      target.content = {};
      target.unsigned = { ...target.unsigned, redacted_because: because };
      this.txns.set(key, redaction.event_id);
    }
    return { status: 200, body: { event_id: this.txns.get(key) } };
  }

  joinRoute(user, roomId) {
    if (!this.rooms.has(roomId)) return err(404, 'M_NOT_FOUND', `Unknown room ${roomId}`);
    if (!['invite', 'join'].includes(this.membership(roomId, user))) return err(403, 'M_FORBIDDEN', 'You are not invited to this room.');
    this.join(user, roomId);
    return { status: 200, body: { room_id: roomId } };
  }
}
