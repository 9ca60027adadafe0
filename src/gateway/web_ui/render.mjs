// Turns the tree of markdown.mjs into DOM nodes. Text only ever goes through createTextNode or
// textContent, and the only attribute taken from the text is a link's href, checked again here
// with safeHref (http/https/mailto), so a model's reply can never become markup or script.
import { parseMarkdown, safeHref } from './markdown.mjs';

const CODE_LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;

/// Renders Markdown `text` into a DocumentFragment of `doc`; its `MEDIA:` lines become notices
/// (withMediaNotices).
export function renderMarkdown(text, doc = document) {
  return renderBlocks(parseMarkdown(withMediaNotices(text)), doc);
}

// A reply's `MEDIA:` directives (src/delivery/media_directives.h: a line whose first non-blank
// characters are "MEDIA:", outside fenced code) name files the agent attaches. The gateway serves
// no files, so the web chat says what other channels that cannot send files say
// (src/channels/reply_media.h) — "[file <name> not sent: …]", one line per file — and never shows
// the directive, whose path is the agent's business.
const MEDIA_LINE = /^[ \t]*media:/i;
const MEDIA_FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MEDIA_NEW_REFERENCE = /^(\/|\.\/|\.\.\/|~\/|file:|https?:\/\/)/i;
const MEDIA_MAX = 10;  // delivery::kMaxMediaDirectives

/// The file references of one directive's text after "MEDIA:" (quoted ones whole; unquoted words
/// are one path until a word that starts a new one).
function mediaReferences(payload) {
  const refs = [];
  const words = [];
  const flush = () => {
    if (words.length) refs.push(words.join(' '));
    words.length = 0;
  };
  let pos = 0;
  while (pos < payload.length) {
    while (pos < payload.length && /\s/.test(payload[pos])) pos++;
    if (pos >= payload.length) break;
    const q = payload[pos];
    if (q === '"' || q === "'" || q === '`') {
      let close = payload.indexOf(q, pos + 1);
      while (close >= 0 && close + 1 < payload.length && !/\s/.test(payload[close + 1])) close = payload.indexOf(q, close + 1);
      if (close >= 0) {
        flush();
        refs.push(payload.slice(pos + 1, close));
        pos = close + 1;
        continue;
      }
    }
    let end = pos;
    while (end < payload.length && !/\s/.test(payload[end])) end++;
    const word = payload.slice(pos, end);
    if (MEDIA_NEW_REFERENCE.test(word)) flush();
    words.push(word);
    pos = end;
  }
  flush();
  return refs.map((r) => r.trim().replace(/^file:(\/\/)?/i, '')).filter((r) => r.length > 0);
}

/// `text` with each `MEDIA:` directive line (outside fenced code) replaced by one notice line per
/// file it names, e.g. "[file chart.png not sent: the web chat cannot show files]".
export function withMediaNotices(text) {
  if (typeof text !== 'string' || !/media:/i.test(text)) return text;
  let fence = null;
  let count = 0;
  const out = [];
  for (const line of text.split('\n')) {
    const f = MEDIA_FENCE.exec(line);
    if (fence === null && f) fence = f[1];
    else if (fence !== null && f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
    else if (fence === null && MEDIA_LINE.test(line) && line.replace(MEDIA_LINE, '').trim().length > 0) {
      for (const ref of mediaReferences(line.replace(MEDIA_LINE, ''))) {
        if (++count > MEDIA_MAX) continue;
        const name = ref.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || 'file';
        out.push('', `[file ${name.length > 200 ? name.slice(0, 200) + '…' : name} not sent: the web chat cannot show files]`);
      }
      continue;
    }
    out.push(line);
  }
  if (count > MEDIA_MAX) out.push('', `[${count - MEDIA_MAX} more file(s) not sent: at most ${MEDIA_MAX} per reply]`);
  return out.join('\n');
}

/// Renders an array of block nodes into a DocumentFragment of `doc`.
export function renderBlocks(blocks, doc = document) {
  const frag = doc.createDocumentFragment();
  for (const b of blocks) frag.appendChild(block(b, doc));
  return frag;
}

function el(doc, tag, cls) {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function block(node, doc) {
  switch (node.type) {
    case 'paragraph':
      return inlines(node.children, el(doc, 'p'), doc, false);
    case 'heading':
      return inlines(node.children, el(doc, 'h' + Math.min(6, Math.max(1, node.level | 0))), doc, false);
    case 'code': {
      const pre = el(doc, 'pre');
      const code = el(doc, 'code');
      if (CODE_LANG.test(node.lang || '')) {
        code.className = 'language-' + node.lang;
        pre.dataset.lang = node.lang;
      }
      code.textContent = node.text;
      pre.appendChild(code);
      const copy = el(doc, 'button', 'copy');
      copy.type = 'button';
      copy.textContent = 'Copy';
      copy.title = 'Copy code';
      pre.appendChild(copy);
      return pre;
    }
    case 'blockquote': {
      const q = el(doc, 'blockquote');
      q.appendChild(renderBlocks(node.children, doc));
      return q;
    }
    case 'list': {
      const list = el(doc, node.ordered ? 'ol' : 'ul');
      if (node.ordered && node.start !== 1 && Number.isSafeInteger(node.start)) list.start = node.start;
      for (const item of node.items) {
        const li = el(doc, 'li');
        // A tight item (one paragraph) renders without <p>.
        if (item.length === 1 && item[0].type === 'paragraph') inlines(item[0].children, li, doc, false);
        else li.appendChild(renderBlocks(item, doc));
        list.appendChild(li);
      }
      return list;
    }
    case 'hr':
      return el(doc, 'hr');
    default:
      return doc.createTextNode('');
  }
}

function inlines(nodes, parent, doc, inLink) {
  for (const n of nodes) parent.appendChild(inline(n, doc, inLink));
  return parent;
}

function inline(node, doc, inLink) {
  switch (node.type) {
    case 'text':
      return doc.createTextNode(node.text);
    case 'br':
      return el(doc, 'br');
    case 'code': {
      const c = el(doc, 'code');
      c.textContent = node.text;
      return c;
    }
    case 'strong':
    case 'em':
    case 'del':
      return inlines(node.children, el(doc, node.type), doc, inLink);
    case 'link': {
      const href = inLink ? null : safeHref(node.href);
      if (!href) return inlines(node.children, doc.createDocumentFragment(), doc, inLink);
      const a = el(doc, 'a');
      a.href = href;
      a.rel = 'noopener noreferrer nofollow';
      a.target = '_blank';
      return inlines(node.children, a, doc, true);
    }
    default:
      return doc.createTextNode('');
  }
}
