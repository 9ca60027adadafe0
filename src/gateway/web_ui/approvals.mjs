// Exec approvals in the web chat (SPEC TL-3): every pending request the gateway asks its
// approval clients about (events exec.approval.requested / resolved, scope operator.approvals)
// is shown above the composer as a card with the command exactly as it will run — the argv, the
// working directory, the environment changes, what looks risky — and Allow once / Allow always /
// Deny, answered with exec.approval.resolve. On (re)connect the pending ones are fetched with
// exec.approval.list; a client without the scope shows nothing. DOM nodes only, never HTML.

const DECISIONS = [
  ['allow-once', 'Allow once', 'primary'],
  ['allow-always', 'Allow always', 'ghost'],
  ['deny', 'Deny', 'danger'],
];

const OUTCOME = {
  'allow-once': 'Approved once',
  'allow-always': 'Approved (always)',
  deny: 'Denied: the command was not run',
};

/// `box`: the container element; `client`: the GatewayClient; `label(sessionKey)`: a session's name.
export function createApprovals({ box, client, label }) {
  const cards = new Map();  // approval id → card element

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  function field(dl, name, value) {
    dl.appendChild(el('dt', '', name));
    const dd = el('dd');
    dd.appendChild(value);
    dl.appendChild(dd);
  }

  function show(p) {
    if (!p || typeof p.id !== 'string' || cards.has(p.id)) return;
    const r = p.request && typeof p.request === 'object' ? p.request : {};
    const card = el('div', 'approval');
    card.dataset.id = p.id;
    card.setAttribute('role', 'group');
    card.setAttribute('aria-label', 'Approval needed');
    const head = el('div', 'approval-head');
    head.appendChild(el('strong', '', 'Approval needed'));
    const where = r.sessionKey ? label(r.sessionKey) : 'a gateway client';
    head.appendChild(el('span', 'muted', ` · ${where}${r.turnSourceChannel ? ' (' + r.turnSourceChannel + ')' : ''}`));
    card.appendChild(head);

    const dl = el('dl', 'approval-fields');
    const argv = Array.isArray(r.commandArgv) ? r.commandArgv : ['/bin/sh', '-c', String(r.command || '')];
    const ol = el('ol', 'argv');
    for (const a of argv) {
      const li = el('li');
      li.appendChild(el('code', '', String(a)));
      ol.appendChild(li);
    }
    field(dl, 'argv', ol);
    field(dl, 'cwd', el('code', 'approval-cwd', String(r.cwd || '')));
    const env = r.env && typeof r.env === 'object' ? Object.entries(r.env) : [];
    const envList = el('ul', 'approval-env');
    for (const [k, v] of env) envList.appendChild(el('li', '', `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`));
    if (!env.length) envList.appendChild(el('li', 'muted', 'none'));
    field(dl, 'env', envList);
    const risks = [...(Array.isArray(r.risks) ? r.risks : []), ...(Array.isArray(r.preflight) ? r.preflight : [])];
    if (risks.length) {
      const ul = el('ul', 'approval-risks');
      for (const x of risks) ul.appendChild(el('li', '', String(x)));
      field(dl, 'risks', ul);
    }
    card.appendChild(dl);

    const row = el('div', 'approval-actions');
    for (const [decision, text, cls] of DECISIONS) {
      const b = el('button', cls, text);
      b.type = 'button';
      b.dataset.decision = decision;
      b.addEventListener('click', () => answer(p.id, decision, card));
      row.appendChild(b);
    }
    if (typeof p.expiresAtMs === 'number') {
      const secs = Math.max(0, Math.round((p.expiresAtMs - Date.now()) / 1000));
      row.appendChild(el('span', 'muted', `no answer within ${secs} s denies it`));
    }
    card.appendChild(row);
    card.appendChild(el('p', 'approval-status', ''));
    cards.set(p.id, card);
    box.appendChild(card);
    box.hidden = false;
  }

  async function answer(id, decision, card) {
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    try {
      await client.request('exec.approval.resolve', { id, decision });
    } catch (e) {
      card.querySelector('.approval-status').textContent = 'Not answered: ' + e.message;
      for (const b of card.querySelectorAll('button')) b.disabled = false;
    }
  }

  function resolved(p) {
    const card = p && cards.get(p.id);
    if (!card) return;
    cards.delete(p.id);
    const text = p.cancelled ? 'No longer asked: the run ended'
      : p.decision == null ? 'Timed out: the command was not run'
        : OUTCOME[p.decision] || String(p.decision);
    card.querySelector('.approval-status').textContent = text + (p.resolvedBy && !p.cancelled ? ' (by ' + p.resolvedBy + ')' : '') + '.';
    card.querySelector('.approval-actions').remove();
    card.classList.add('done');
    card.dataset.decision = p.cancelled ? 'cancelled' : String(p.decision ?? 'timeout');
    // The outcome stays a moment, then the card goes.
    setTimeout(() => {
      card.remove();
      if (!box.children.length) box.hidden = true;
    }, 8000);
  }

  return {
    onEvent(name, payload) {
      if (name === 'exec.approval.requested') show(payload);
      else if (name === 'exec.approval.resolved') resolved(payload);
    },
    /// After a (re)connect: the cards of requests decided meanwhile go, pending ones appear.
    async refresh() {
      let list;
      try {
        list = await client.request('exec.approval.list', {});
      } catch {
        return;  // no operator.approvals scope, or an older gateway: nothing to show
      }
      const pending = new Set((Array.isArray(list) ? list : []).map((p) => p && p.id));
      for (const [id, card] of cards) {
        if (!pending.has(id)) {
          cards.delete(id);
          card.remove();
        }
      }
      for (const p of Array.isArray(list) ? list : []) show(p);
      if (!box.children.length) box.hidden = true;
    },
  };
}
