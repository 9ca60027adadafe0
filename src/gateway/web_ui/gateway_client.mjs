// The gateway WebSocket protocol for the web chat: waits for `connect.challenge`, sends `connect`
// (operator, protocol 3..4), then offers request() and events. Reconnects with exponential
// backoff and jitter; an authentication failure stops reconnecting until setToken().
//
// The URL is always this page's own origin (ws(s)://location.host/): a gateway URL or token is
// never taken from the query string or fragment (LESSONS 8: a UI that sent its token to an
// attacker-chosen URL).

export const CLIENT_VERSION = '0.1.0';
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15000;
const CHALLENGE_TIMEOUT_MS = 10000;
const REQUEST_TIMEOUT_MS = 30000;

/// Error of a failed request: `code` (e.g. "INVALID_REQUEST", "UNAVAILABLE", "DISCONNECTED"),
/// `details` as the gateway sent them.
export class GatewayError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/// Connection states reported to onState(state, info):
///   'connecting'              socket opening or handshake in progress
///   'connected'               info = hello-ok payload
///   'reconnecting'            info = {inMs, reason}
///   'auth'                    the gateway refused the credentials; info = {message, code}
///   'refused'                 the gateway refused this page (e.g. origin); info = {message, code}
export class GatewayClient {
  /// options: {url, token, onState(state, info), onEvent(name, payload)}
  constructor({ url, token, onState, onEvent }) {
    this.url = url;
    this.token = token || '';
    this.onState = onState || (() => {});
    this.onEvent = onEvent || (() => {});
    this.ws = null;
    this.pending = new Map();
    this.nextId = 1;
    this.attempt = 0;
    this.timer = null;
    this.watchdog = null;
    this.hello = null;
    this.state = 'idle';
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  /// Uses `token` from now on and reconnects at once.
  setToken(token) {
    this.token = token || '';
    this.reconnectNow();
  }

  /// Drops the current socket (if any) and connects again without waiting.
  reconnectNow() {
    this.attempt = 0;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) {
      const ws = this.ws;
      this.detach(ws);
      ws.close(1000, 'reconnect');
      this.failPending('reconnecting');
    }
    this.open();
  }

  get connected() {
    return this.state === 'connected';
  }

  /// Sends a request; resolves with its payload or rejects with a GatewayError.
  request(method, params = {}) {
    if (!this.connected) return Promise.reject(new GatewayError('DISCONNECTED', 'not connected to the gateway'));
    return this.send(method, params);
  }

  // --- internals -------------------------------------------------------------------------------

  setState(state, info) {
    this.state = state;
    this.onState(state, info);
  }

  open() {
    if (this.stopped) return;
    this.hello = null;
    this.connectSent = false;
    this.setState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect(String(e && e.message ? e.message : e));
      return;
    }
    this.ws = ws;
    this.lastFrameAt = Date.now();
    ws.onmessage = (ev) => this.onFrame(ev.data);
    ws.onclose = (ev) => this.onClose(ws, ev);
    ws.onerror = () => {};  // onclose follows with the details
    clearTimeout(this.challengeTimer);
    this.challengeTimer = setTimeout(() => {
      if (this.ws === ws && !this.connectSent) ws.close(4000, 'no connect.challenge');
    }, CHALLENGE_TIMEOUT_MS);
  }

  detach(ws) {
    ws.onmessage = null;
    ws.onclose = null;
    if (this.ws === ws) this.ws = null;
    clearTimeout(this.challengeTimer);
    clearInterval(this.watchdog);
    this.watchdog = null;
  }

  send(method, params) {
    const id = 'r' + this.nextId++;
    const ws = this.ws;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError('TIMEOUT', method + ' timed out'));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      try {
        ws.send(JSON.stringify({ type: 'req', id, method, params }));
      } catch (e) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new GatewayError('DISCONNECTED', 'not connected to the gateway'));
      }
    });
  }

  failPending(why) {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new GatewayError('DISCONNECTED', 'connection lost (' + why + ')'));
    }
    this.pending.clear();
  }

  onFrame(data) {
    this.lastFrameAt = Date.now();
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === 'res') {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      clearTimeout(p.timer);
      if (frame.ok) p.resolve(frame.payload);
      else {
        const e = frame.error || {};
        p.reject(new GatewayError(e.code || 'ERROR', e.message || 'request failed', e.details));
      }
      return;
    }
    if (frame.type !== 'event') return;
    if (frame.event === 'connect.challenge') {
      if (!this.connectSent) this.handshake();
      return;
    }
    this.onEvent(frame.event, frame.payload);
  }

  async handshake() {
    this.connectSent = true;
    const params = {
      minProtocol: 3,
      maxProtocol: 4,
      client: { id: 'webchat-ui', version: CLIENT_VERSION, platform: 'web', mode: 'webchat' },
      role: 'operator',
      scopes: ['operator.read', 'operator.write', 'operator.admin', 'operator.approvals'],
      caps: ['tool-events'],
      locale: navigator.language || 'en',
    };
    if (this.token) params.auth = { token: this.token };
    const ws = this.ws;
    try {
      const hello = await this.send('connect', params);
      if (this.ws !== ws) return;
      this.hello = hello;
      this.attempt = 0;
      this.startWatchdog(ws, (hello.policy && hello.policy.tickIntervalMs) || 30000);
      this.setState('connected', hello);
    } catch (e) {
      if (this.ws !== ws) return;
      const code = (e.details && e.details.code) || e.code;
      if (String(code).startsWith('AUTH_') && code !== 'AUTH_RATE_LIMITED') {
        this.detach(ws);
        ws.close(1000, 'auth failed');
        this.setState('auth', { message: e.message, code });
      } else if (code === 'CONTROL_UI_ORIGIN_NOT_ALLOWED') {
        this.detach(ws);
        ws.close(1000, 'refused');
        this.setState('refused', { message: e.message, code });
      }
      // Anything else: the gateway closes the socket and onClose schedules a retry.
    }
  }

  /// Ticks arrive every tickIntervalMs; a socket silent for much longer is dead.
  startWatchdog(ws, tickMs) {
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (this.ws === ws && Date.now() - this.lastFrameAt > tickMs * 2.5) ws.close(4001, 'tick timeout');
    }, 5000);
  }

  onClose(ws, ev) {
    this.detach(ws);
    this.failPending('closed');
    const reason = ev.reason || (ev.code === 1006 ? 'connection lost' : 'closed (' + ev.code + ')');
    this.scheduleReconnect(reason);
  }

  scheduleReconnect(reason) {
    if (this.stopped) return;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt);
    const inMs = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt = Math.min(this.attempt + 1, 10);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, inMs);
    this.setState('reconnecting', { inMs, reason });
  }
}
