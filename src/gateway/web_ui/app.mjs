// The web chat: sessions on the left, the conversation on the right, a composer at the bottom.
// Talks to the gateway that served this page (gateway_client.mjs); renders replies with
// render.mjs (DOM nodes only, never HTML strings). The token lives in localStorage.
import { GatewayClient } from './gateway_client.mjs';
import { renderMarkdown } from './render.mjs';
import { createApprovals } from './approvals.mjs';
import { createAttachments, imageUrls } from './attach.mjs';

const $ = (id) => document.getElementById(id);
const KEY_TOKEN = 'pincer.webchat.token';
const KEY_SESSION = 'pincer.webchat.session';
const KEY_TITLES = 'pincer.webchat.titles';

const store = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(key, value);
    } catch {
      /* storage unavailable: the value lasts for this page only */
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(key);
    } catch {
      /* ignore */
    }
  },
};

function loadTitles() {
  try {
    const t = JSON.parse(store.get(KEY_TITLES) || '{}');
    return t && typeof t === 'object' ? t : {};
  } catch {
    return {};
  }
}

// Links with a token or gateway URL in them must not stay in the address bar or history; their
// query and fragment are dropped unread.
history.replaceState(null, '', location.pathname);

const state = {
  agentId: 'main',
  mainKey: 'agent:main:main',
  current: store.get(KEY_SESSION) || '',
  sessions: [],
  local: [],              // sessions made here that the gateway does not list yet (no message sent)
  titles: loadTitles(),
  active: new Map(),      // sessionKey → runId of its running turn
  runs: new Map(),        // runId → {bubble, text, foreign} for the session on screen
  historyGen: 0,
};

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function newId() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

// --- messages ----------------------------------------------------------------------------------

const messages = $('messages');

function nearBottom() {
  return messages.scrollHeight - messages.scrollTop - messages.clientHeight < 80;
}

function append(node) {
  const stick = nearBottom();
  $('empty').hidden = true;
  messages.appendChild(node);
  if (stick) messages.scrollTop = messages.scrollHeight;
  return node;
}

function clearMessages() {
  for (const n of [...messages.children]) if (n.id !== 'empty') n.remove();
  $('empty').hidden = false;
  state.runs.clear();
}

function addUser(text, images = []) {
  const row = el('div', 'msg user');
  const bubble = el('div', 'bubble', text);
  for (const url of images) {
    const img = document.createElement('img');
    img.className = 'attached';
    img.src = url;
    img.alt = 'image';
    bubble.appendChild(img);
  }
  row.appendChild(bubble);
  return append(row);
}

/// An assistant bubble; `text` is Markdown, rendered now (history) or as it streams.
function addAssistant(text = '', streaming = false) {
  const row = el('div', 'msg assistant');
  const bubble = el('div', 'bubble md');
  row.appendChild(bubble);
  const entry = { row, bubble, text: '', pending: false };
  if (streaming) row.classList.add('streaming');
  setText(entry, text, true);
  append(row);
  return entry;
}

function setText(entry, text, now = false) {
  entry.text = text;
  if (now) {
    entry.bubble.replaceChildren(renderMarkdown(text));
    return;
  }
  if (entry.pending) return;
  entry.pending = true;
  requestAnimationFrame(() => {
    entry.pending = false;
    const stick = nearBottom();
    entry.bubble.replaceChildren(renderMarkdown(entry.text));
    if (stick) messages.scrollTop = messages.scrollHeight;
  });
}

function addTool(name) {
  const row = el('div', 'msg tool');
  row.appendChild(el('span', 'chip', 'tool · ' + name));
  return append(row);
}

function addNote(text, kind) {
  return append(el('div', 'note ' + kind, text));
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => b && b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('');
}

function showHistory(list) {
  clearMessages();
  for (const m of list) {
    if (!m || typeof m !== 'object') continue;
    if (m.role === 'user') {
      const t = textOf(m.content);
      const images = imageUrls(m.content);
      if (t || images.length) addUser(t, images);
    } else if (m.role === 'assistant') {
      let text = '';
      const blocks = Array.isArray(m.content) ? m.content : [{ type: 'text', text: textOf(m.content) }];
      for (const b of blocks) {
        if (b && b.type === 'text' && typeof b.text === 'string') text += b.text;
        else if (b && b.type === 'toolCall') {
          if (text.trim()) addAssistant(text);
          text = '';
          addTool(String(b.name || 'tool'));
        }
      }
      if (text.trim()) addAssistant(text);
      if (m.stopReason === 'aborted' && String(m.errorMessage || '').startsWith('interrupted')) {
        addNote('Interrupted: the gateway stopped before this reply was finished.', 'aborted');
      } else if (m.stopReason === 'aborted') addNote('Stopped.', 'aborted');
      else if (m.stopReason === 'error' && m.errorMessage) addNote(String(m.errorMessage), 'error');
    }
  }
  messages.scrollTop = messages.scrollHeight;
}

// --- chat events -------------------------------------------------------------------------------

function runView(runId, create) {
  let v = state.runs.get(runId);
  if (!v && create) {
    v = { bubble: null, foreign: true };
    state.runs.set(runId, v);
  }
  return v;
}

function onChat(p) {
  if (!p || typeof p.runId !== 'string') return;
  const terminal = p.state === 'final' || p.state === 'aborted' || p.state === 'error';
  if (terminal) {
    if (state.active.get(p.sessionKey) === p.runId) state.active.delete(p.sessionKey);
    refreshSessionsSoon();
  } else if (p.state === 'delta' && !state.active.has(p.sessionKey)) {
    state.active.set(p.sessionKey, p.runId);
  }
  if (p.sessionKey !== state.current) return updateComposer();
  const v = runView(p.runId, true);
  const text = p.message ? textOf(p.message.content) : '';
  if (p.state === 'delta') {
    // A new model step after tools starts its text afresh: it gets its own bubble.
    if (!v.bubble || !text.startsWith(v.bubble.text)) {
      if (v.bubble) v.bubble.row.classList.remove('streaming');
      v.bubble = addAssistant('', true);
    }
    setText(v.bubble, text);
  } else if (terminal) {
    if (text && (!v.bubble || !text.startsWith(v.bubble.text))) v.bubble = addAssistant('', false);
    if (v.bubble) {
      v.bubble.row.classList.remove('streaming');
      if (text) setText(v.bubble, text);
      else if (!v.bubble.text) v.bubble.row.remove();
    }
    if (p.state === 'aborted') addNote('Stopped.', 'aborted');
    if (p.state === 'error') addNote(p.errorMessage || 'The run failed.', 'error');
    state.runs.delete(p.runId);
    if (v.foreign) loadHistory();  // started elsewhere: the transcript has the user's side too
  }
  updateComposer();
}

function onAgent(p) {
  if (!p || p.sessionKey !== state.current || p.stream !== 'tool' || !p.data || p.data.phase !== 'start') return;
  const v = runView(p.runId, true);
  if (v.bubble) v.bubble.row.classList.remove('streaming');
  v.bubble = null;  // text after the tool goes below it
  addTool(String(p.data.name || 'tool'));
}

// --- sessions ----------------------------------------------------------------------------------

function label(key) {
  if (!key) return 'Chat';
  if (state.titles[key]) return state.titles[key];
  const parts = key.split(':');
  const agent = parts[0] === 'agent' ? parts[1] : '';
  const rest = parts[0] === 'agent' ? parts.slice(2).join(':') : key;
  let name = rest === 'main' ? 'Main chat' : rest.startsWith('webchat-') ? 'New chat' : rest;
  if (agent && agent !== state.agentId) name = agent + ' · ' + name;
  return name;
}

function ago(ms) {
  if (typeof ms !== 'number' || !ms) return '';
  const s = Math.max(0, (Date.now() - ms) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return Math.floor(s / 60) + ' min';
  if (s < 86400) return Math.floor(s / 3600) + ' h';
  return new Date(ms).toLocaleDateString();
}

function renderSessions() {
  const listed = new Set(state.sessions.map((s) => s.key));
  state.local = state.local.filter((k) => !listed.has(k));
  const rows = [...state.local.map((key) => ({ key })), ...state.sessions];
  if (state.current && !rows.some((r) => r.key === state.current)) rows.unshift({ key: state.current });
  const ul = $('session-list');
  ul.replaceChildren();
  for (const r of rows) {
    const li = el('li');
    const b = el('button', 'session');
    b.type = 'button';
    b.dataset.key = r.key;
    b.title = r.key;
    if (r.key === state.current) b.setAttribute('aria-current', 'true');
    b.appendChild(el('span', 'title', label(r.key)));
    const meta = state.active.has(r.key) ? 'replying…' : ago(r.updatedAt);
    b.appendChild(el('span', 'meta', meta));
    li.appendChild(b);
    ul.appendChild(li);
  }
  $('session-title').textContent = label(state.current);
}

async function refreshSessions() {
  try {
    const res = await client.request('sessions.list', { limit: 200 });
    state.sessions = Array.isArray(res.sessions) ? res.sessions.filter((s) => s && typeof s.key === 'string') : [];
  } catch {
    /* shown as stale; refreshed on the next event or reconnect */
  }
  renderSessions();
}

let refreshTimer = null;
function refreshSessionsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshSessions, 250);
}

async function loadHistory() {
  const gen = ++state.historyGen;
  const key = state.current;
  try {
    const res = await client.request('chat.history', { sessionKey: key, limit: 200 });
    if (gen !== state.historyGen) return;
    showHistory(Array.isArray(res.messages) ? res.messages : []);
  } catch (e) {
    if (gen !== state.historyGen) return;
    clearMessages();
    addNote('Could not load this conversation: ' + e.message, 'error');
  }
}

function switchTo(key) {
  if (!key) return;
  state.current = key;
  store.set(KEY_SESSION, key);
  clearMessages();
  renderSessions();
  updateComposer();
  $('sidebar').classList.remove('open');
  if (client.connected) loadHistory();
  $('input').focus();
}

function newChat() {
  const key = 'agent:' + state.agentId + ':webchat-' + newId().slice(0, 12);
  state.local.unshift(key);
  switchTo(key);
}

// --- composer ----------------------------------------------------------------------------------

function updateComposer() {
  const running = state.active.has(state.current);
  $('stop').hidden = !running;
  $('send').disabled = !client.connected;
}

async function send() {
  const input = $('input');
  const text = input.value.trim();
  if (!text && attachments.count() === 0) return;
  if (!client.connected) {
    addNote('Not connected to the gateway; the message was not sent.', 'error');
    return;
  }
  const key = state.current;
  const runId = newId();
  input.value = '';
  const { attachments: files, urls } = attachments.take();
  addUser(text, urls);
  if (!state.titles[key] && key !== state.mainKey) {
    state.titles[key] = text.length > 48 ? text.slice(0, 47) + '…' : text;
    store.set(KEY_TITLES, JSON.stringify(state.titles));
  }
  state.runs.set(runId, { bubble: addAssistant('', true), foreign: false });
  state.active.set(key, runId);
  updateComposer();
  renderSessions();
  try {
    const params = { sessionKey: key, message: text, idempotencyKey: runId };
    if (files.length) params.attachments = files;
    const res = await client.request('chat.send', params);
    if (!res || typeof res.runId !== 'string') {
      // A stop phrase ("/stop") aborts instead of starting a run.
      const v = state.runs.get(runId);
      if (v && v.bubble && !v.bubble.text) v.bubble.row.remove();
      state.runs.delete(runId);
      if (state.active.get(key) === runId) state.active.delete(key);
      updateComposer();
    }
  } catch (e) {
    const v = state.runs.get(runId);
    if (v && v.bubble) v.bubble.row.remove();
    state.runs.delete(runId);
    if (state.active.get(key) === runId) state.active.delete(key);
    if (key === state.current) addNote('Not sent: ' + e.message, 'error');
    updateComposer();
  }
}

async function stop() {
  const runId = state.active.get(state.current);
  if (!runId) return;
  try {
    await client.request('chat.abort', { sessionKey: state.current, runId });
  } catch (e) {
    addNote('Could not stop: ' + e.message, 'error');
  }
}

/// After a reconnect, the runs this page saw as replying may be gone (the gateway restarted, or
/// the run ended while the socket was down): ask the gateway about each and forget the ended ones,
/// so the page does not stay on "replying…" with a Stop button for a run that no longer exists.
async function reconcileRuns() {
  const gone = [];
  await Promise.all([...state.active].map(async ([key, runId]) => {
    let status = 'error';
    try {
      const res = await client.request('agent.wait', { runId, timeoutMs: 0 });
      status = res && res.status;
    } catch {
      /* unknown here: treat as ended */
    }
    if (status !== 'timeout' && state.active.get(key) === runId) gone.push([key, runId]);
  }));
  for (const [key, runId] of gone) {
    state.active.delete(key);
    const v = state.runs.get(runId);
    if (v && v.bubble) v.bubble.row.classList.remove('streaming');
    state.runs.delete(runId);
  }
  if (gone.some(([key]) => key === state.current)) loadHistory();  // shows how the turn ended
  if (gone.length) renderSessions();
  updateComposer();
}

// --- connection and token ----------------------------------------------------------------------

const STATE_TEXT = {
  connecting: () => 'Connecting…',
  connected: () => 'Connected',
  reconnecting: (i) => 'Offline · retrying in ' + Math.max(1, Math.round(i.inMs / 1000)) + ' s',
  auth: () => 'Token needed',
  refused: () => 'Refused',
};

function onState(s, info) {
  const conn = $('conn');
  conn.dataset.state = s;
  $('conn-text').textContent = (STATE_TEXT[s] || (() => s))(info || {});
  conn.title = info && info.reason ? info.reason : info && info.message ? info.message : '';
  if (s === 'connected') {
    const d = (info && info.snapshot && info.snapshot.sessionDefaults) || {};
    if (typeof d.defaultAgentId === 'string') state.agentId = d.defaultAgentId;
    if (typeof d.mainSessionKey === 'string') state.mainKey = d.mainSessionKey;
    if (!state.current) state.current = state.mainKey;
    closeTokenDialog();
    renderSessions();
    refreshSessions();
    loadHistory();
    approvals.refresh();
    if (state.active.size) reconcileRuns();
  } else if (s === 'auth' || s === 'refused') {
    // No token yet is the normal first visit: just ask for it.
    const first = s === 'auth' && info && info.code === 'AUTH_TOKEN_MISSING' && !store.get(KEY_TOKEN);
    openTokenDialog(first ? '' : info && info.message);
  }
  updateComposer();
}

function openTokenDialog(message) {
  const dlg = $('token-dialog');
  const err = $('token-error');
  err.textContent = message || '';
  err.hidden = !message;
  $('token-input').value = store.get(KEY_TOKEN) || '';
  if (!dlg.open) dlg.showModal();
  $('token-input').focus();
}

function closeTokenDialog() {
  const dlg = $('token-dialog');
  if (dlg.open) dlg.close();
}

const client = new GatewayClient({
  url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/',
  token: store.get(KEY_TOKEN) || '',
  onState,
  onEvent(name, payload) {
    if (name === 'chat') onChat(payload);
    else if (name === 'agent') onAgent(payload);
    else approvals.onEvent(name, payload);
  },
});
const approvals = createApprovals({ box: $('approvals'), client, label });

// --- wiring ------------------------------------------------------------------------------------

const attachments = createAttachments({
  input: $('input'), picker: $('picker'), button: $('attach'), chips: $('chips'),
  onError: (text) => addNote(text, 'error'),
});
$('composer').addEventListener('submit', (e) => {
  e.preventDefault();
  send();
});
$('input').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  }
});
$('stop').addEventListener('click', stop);
$('new-chat').addEventListener('click', newChat);
$('session-list').addEventListener('click', (e) => {
  const b = e.target.closest('button.session');
  if (b && b.dataset.key !== state.current) switchTo(b.dataset.key);
});
$('toggle-sidebar').addEventListener('click', () => $('sidebar').classList.toggle('open'));
$('token-button').addEventListener('click', () => openTokenDialog(''));
$('token-cancel').addEventListener('click', closeTokenDialog);
$('token-forget').addEventListener('click', () => {
  store.remove(KEY_TOKEN);
  $('token-input').value = '';
  client.setToken('');
});
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const token = $('token-input').value.trim();
  if (token) store.set(KEY_TOKEN, token);
  else store.remove(KEY_TOKEN);
  closeTokenDialog();
  client.setToken(token);
});
messages.addEventListener('click', (e) => {
  const b = e.target.closest('button.copy');
  if (!b) return;
  const code = b.parentElement.querySelector('code');
  if (!code || !navigator.clipboard) return;
  navigator.clipboard.writeText(code.textContent).then(
    () => {
      b.textContent = 'Copied';
      setTimeout(() => (b.textContent = 'Copy'), 1500);
    },
    () => {},
  );
});
window.addEventListener('online', () => {
  if (!client.connected) client.reconnectNow();
});
setInterval(renderSessions, 60000);  // keeps the "x min" ages current

renderSessions();
updateComposer();
client.start();
