// Markdown → a plain tree of objects, for rendering model replies. Pure (no DOM): render.mjs turns
// the tree into elements with createElement/textContent, so text never becomes markup, and
// tests/web/markdown.test.mjs runs this file in plain Node.
//
// Supported: fenced code (``` and ~~~; an unclosed fence runs to the end, as while streaming),
// ATX headings, thematic breaks, blockquotes, bullet and ordered lists (nested), paragraphs (a
// newline is a line break, as in chat); inline code, **strong**, *em*, ~~del~~, [links](url),
// <autolinks> and bare http(s) URLs, backslash escapes. Raw HTML is text. Links keep only
// http:, https: and mailto: targets; anything else stays literal text.
//
// Block nodes:  {type:'paragraph'|'heading', children, level?}  {type:'code', lang, text}
//               {type:'blockquote', children}  {type:'list', ordered, start, items: [[block]]}
//               {type:'hr'}
// Inline nodes: {type:'text', text}  {type:'code', text}  {type:'strong'|'em'|'del', children}
//               {type:'link', href, children}  {type:'br'}
//
// Hostile input: no regular expression here can backtrack on a long line, emphasis uses the
// CommonMark delimiter stack (linear), code spans find closers by binary search, and nesting is
// capped (MAX_BLOCK_DEPTH containers, MAX_INLINE_DEPTH emphasis levels), so 100 KB of anything
// parses in milliseconds and renders without deep recursion.

export const MAX_BLOCK_DEPTH = 8;
export const MAX_INLINE_DEPTH = 12;
const MAX_URL = 2048;
const MAX_URL_PARENS = 32;  // nested parentheses in a link destination (as CommonMark's reference parser)

/// The link target if it is an absolute http:, https: or mailto: URL (normalized), else null.
export function safeHref(raw) {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL) return null;
  let url;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:') return null;
  return url.href;
}

/// Parses `source` (any value; non-strings become "") into an array of block nodes.
export function parseMarkdown(source) {
  const text = typeof source === 'string' ? source : '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map(expandIndentTabs);
  return parseBlocks(lines, 0);
}

// ---------------------------------------------------------------------------------------------
// Blocks

function expandIndentTabs(line) {
  if (!line.startsWith('\t') && !line.startsWith(' \t')) return line;
  let i = 0;
  let col = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) {
    col = line[i] === '\t' ? col + 4 - (col % 4) : col + 1;
    i++;
  }
  return ' '.repeat(col) + line.slice(i);
}

const isBlank = (line) => line.trim().length === 0;

function indentOf(line) {
  let i = 0;
  while (i < line.length && line[i] === ' ') i++;
  return i;
}

function fenceOpen(line) {
  const m = /^( {0,3})(`{3,}|~{3,})/.exec(line);
  if (!m) return null;
  const info = line.slice(m[0].length);
  if (m[2][0] === '`' && info.includes('`')) return null;
  return { indent: m[1].length, ch: m[2][0], len: m[2].length, lang: info.trim().split(/\s/, 1)[0] };
}

function isFenceClose(line, fence) {
  const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
  return !!m && m[1][0] === fence.ch && m[1].length >= fence.len && isBlank(line.slice(m[0].length));
}

function heading(line) {
  const m = /^ {0,3}(#{1,6})(?=[ \t]|$)/.exec(line);
  if (!m) return null;
  let content = line.slice(m[0].length).trim();
  let end = content.length;
  while (end > 0 && content[end - 1] === '#') end--;
  if (end === 0) content = '';
  else if (end < content.length && (content[end - 1] === ' ' || content[end - 1] === '\t')) content = content.slice(0, end).trimEnd();
  return { level: m[1].length, content };
}

function isHr(line) {
  if (indentOf(line) > 3) return false;
  const t = line.replace(/[ \t]/g, '');
  return t.length >= 3 && /^(?:-+|\*+|_+)$/.test(t);
}

const isQuote = (line) => /^ {0,3}>/.test(line);

function stripQuote(line) {
  const rest = line.slice(line.indexOf('>') + 1);
  return rest.startsWith(' ') ? rest.slice(1) : rest;
}

function listMarker(line) {
  const m = /^( {0,3})([-*+]|(\d{1,9})([.)]))( *)/.exec(line);
  if (!m) return null;
  const after = line.slice(m[0].length);
  if (m[5].length === 0 && after.length > 0) return null;  // "-foo", "1.5" are not list items
  const spaces = after.length === 0 ? 1 : m[5].length > 4 ? 1 : m[5].length;
  const contentIndent = m[1].length + m[2].length + spaces;
  return {
    indent: m[1].length,
    ordered: m[3] !== undefined,
    kind: m[3] !== undefined ? m[4] : m[2],
    start: m[3] !== undefined ? Number(m[3]) : 1,
    contentIndent,
    first: line.length > contentIndent ? line.slice(contentIndent) : '',
  };
}

function startsBlock(line, depth) {
  return (
    fenceOpen(line) !== null ||
    heading(line) !== null ||
    isHr(line) ||
    (depth < MAX_BLOCK_DEPTH && (isQuote(line) || listMarker(line) !== null))
  );
}

function parseBlocks(lines, depth) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = fenceOpen(line);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !isFenceClose(lines[i], fence)) {
        const l = lines[i];
        body.push(l.slice(Math.min(fence.indent, indentOf(l))));
        i++;
      }
      i++;  // the closing fence (or past the end)
      out.push({ type: 'code', lang: fence.lang, text: body.join('\n') });
      continue;
    }
    const h = heading(line);
    if (h) {
      out.push({ type: 'heading', level: h.level, children: parseInline(h.content) });
      i++;
      continue;
    }
    if (isHr(line)) {
      out.push({ type: 'hr' });
      i++;
      continue;
    }
    if (depth < MAX_BLOCK_DEPTH && isQuote(line)) {
      const inner = [];
      while (i < lines.length && isQuote(lines[i])) inner.push(stripQuote(lines[i++]));
      out.push({ type: 'blockquote', children: parseBlocks(inner, depth + 1) });
      continue;
    }
    const marker = depth < MAX_BLOCK_DEPTH ? listMarker(line) : null;
    if (marker) {
      i = parseList(lines, i, marker, depth, out);
      continue;
    }
    const para = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i], depth)) para.push(lines[i++].trim());
    out.push({ type: 'paragraph', children: parseInline(para.join('\n')) });
  }
  return out;
}

/// Parses the list starting at lines[i] (whose marker is `first`); appends it to `out` and
/// returns the index of the first line after it.
function parseList(lines, i, first, depth, out) {
  const list = { type: 'list', ordered: first.ordered, start: first.start, items: [] };
  let item = null;
  let contentIndent = 0;
  const sibling = (m) => m !== null && m.ordered === first.ordered && m.kind === first.kind && m.indent < contentIndent;
  while (i < lines.length) {
    const line = lines[i];
    const m = listMarker(line);
    if (item === null || sibling(m)) {
      if (item !== null) list.items.push(parseBlocks(item, depth + 1));
      item = [m.first];
      contentIndent = m.contentIndent;
      i++;
      continue;
    }
    if (isBlank(line)) {
      let j = i + 1;
      while (j < lines.length && isBlank(lines[j])) j++;
      if (j < lines.length && (indentOf(lines[j]) >= contentIndent || sibling(listMarker(lines[j])))) {
        for (; i < j; i++) item.push('');
        continue;
      }
      break;
    }
    if (indentOf(line) >= contentIndent) {
      item.push(line.slice(contentIndent));
      i++;
      continue;
    }
    // A plain line right after the item's text continues its paragraph ("lazy" continuation).
    if (!isBlank(lines[i - 1]) && !startsBlock(line, depth)) {
      item.push(line.trim());
      i++;
      continue;
    }
    break;
  }
  if (item !== null) list.items.push(parseBlocks(item, depth + 1));
  out.push(list);
  return i;
}

// ---------------------------------------------------------------------------------------------
// Inlines

const ASCII_PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const SPECIAL = new Set(['\\', '\n', '`', '*', '_', '~', '[', '<', 'h']);
/// Whitespace, or the start/end of the text (undefined).
function isSpace(c) {
  if (c === undefined) return true;
  const code = c.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(c);
}
const isPunct = (c) => c !== undefined && (c.charCodeAt(0) < 128 ? ASCII_PUNCT.includes(c) : /[\p{P}\p{S}]/u.test(c));
const isAlnum = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/// Parses inline content into an array of inline nodes.
export function parseInline(text) {
  return inlineNodes(text, false).nodes;
}

/// `inLink`: no links inside link text. Returns {nodes, depth} (depth: emphasis nesting).
function inlineNodes(text, inLink) {
  const list = new ItemList();
  const delims = [];
  const ticks = backtickRuns(text);
  const brackets = inLink ? null : matchBrackets(text);
  // Literal text accumulates as slices: `buf` holds finished pieces, text[lit, i) the current run.
  let buf = '';
  let lit = 0;
  let i = 0;
  const flush = () => {
    buf += text.slice(lit, i);
    if (buf) list.push({ node: { type: 'text', text: buf }, depth: 0 });
    buf = '';
  };
  const push = (item, end) => {
    flush();
    list.push(item);
    i = lit = end;
  };
  while (i < text.length) {
    const c = text[i];
    if (!SPECIAL.has(c)) {
      i++;
      continue;
    }
    if (c === '\\') {
      if (i + 1 < text.length && ASCII_PUNCT.includes(text[i + 1])) {
        buf += text.slice(lit, i) + text[i + 1];
        i = lit = i + 2;
      } else if (text[i + 1] === '\n') {
        buf += text.slice(lit, i);  // a backslash before a newline is a hard break, as the newline is
        lit = ++i;
      } else {
        i++;
      }
      continue;
    }
    if (c === '\n') {
      buf = (buf + text.slice(lit, i)).trimEnd();
      lit = i;
      let end = i + 1;
      while (text[end] === ' ') end++;
      push({ node: { type: 'br' }, depth: 0 }, end);
      continue;
    }
    if (c === '`') {
      let n = 1;
      while (text[i + n] === '`') n++;
      const close = ticks.next(n, i + n);
      if (close < 0) {
        i += n;
        continue;
      }
      let code = text.slice(i + n, close).replace(/\n/g, ' ');
      if (code.length >= 2 && code[0] === ' ' && code[code.length - 1] === ' ' && code.trim()) code = code.slice(1, -1);
      push({ node: { type: 'code', text: code }, depth: 0 }, close + n);
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      let n = 1;
      while (text[i + n] === c) n++;
      const before = text[i - 1];
      const after = text[i + n];
      const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before));
      const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after));
      let canOpen = left;
      let canClose = right;
      if (c === '_') {
        canOpen = left && (!right || isPunct(before));
        canClose = right && (!left || isPunct(after));
      }
      if ((c === '~' && n !== 2) || (!canOpen && !canClose)) {
        i += n;
        continue;
      }
      const d = { delim: true, ch: c, count: n, orig: n, canOpen, canClose, pos: delims.length, depth: 0 };
      delims.push(d);
      push(d, i + n);
      continue;
    }
    if (c === '[' && brackets && brackets.has(i)) {
      const link = inlineLink(text, i, brackets.get(i));
      if (link) {
        push(link.item, link.end);
        continue;
      }
    }
    if (c === '<' && !inLink) {
      const auto = angleAutolink(text, i);
      if (auto) {
        push(auto.item, auto.end);
        continue;
      }
    }
    if (c === 'h' && !inLink && !isAlnum(text[i - 1]) && (text.startsWith('http://', i) || text.startsWith('https://', i))) {
      const bare = bareUrl(text, i);
      if (bare) {
        push(bare.item, bare.end);
        continue;
      }
    }
    i++;
  }
  flush();
  processEmphasis(list, delims);
  return list.finish();
}

/// Positions of backtick runs by length, to find a code span's closer in O(log n).
function backtickRuns(text) {
  const byLen = new Map();
  for (let i = 0; i < text.length; ) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    let n = 1;
    while (text[i + n] === '`') n++;
    if (!byLen.has(n)) byLen.set(n, []);
    byLen.get(n).push(i);
    i += n;
  }
  return {
    /// First run of exactly `n` backticks starting at or after `from`, or -1.
    next(n, from) {
      const runs = byLen.get(n);
      if (!runs) return -1;
      let lo = 0;
      let hi = runs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (runs[mid] < from) lo = mid + 1;
        else hi = mid;
      }
      return lo < runs.length ? runs[lo] : -1;
    },
  };
}

/// Map from the index of each '[' to the index of its matching ']' (nesting-aware, one pass).
function matchBrackets(text) {
  const match = new Map();
  const open = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '[') open.push(i);
    else if (c === ']' && open.length) match.set(open.pop(), i);
  }
  return match;
}

/// `[text](dest)` at `start` (with the matching ']' at `close`): {item, end} or null.
function inlineLink(text, start, close) {
  if (text[close + 1] !== '(') return null;
  let j = close + 2;
  while (text[j] === ' ') j++;
  const destStart = j;
  let parens = 0;
  while (j < text.length && j - destStart <= MAX_URL) {
    const c = text[j];
    if (c === ' ' || c === '\n' || c === '\t' || c === '<') break;
    if (c === '(' && ++parens > MAX_URL_PARENS) return null;
    else if (c === ')') {
      if (parens === 0) break;
      parens--;
    }
    j++;
  }
  const dest = text.slice(destStart, j);
  while (text[j] === ' ') j++;
  if (text[j] !== ')') return null;
  const end = j + 1;
  const href = safeHref(dest);
  if (!href) return { item: { node: { type: 'text', text: text.slice(start, end) }, depth: 0 }, end };
  const inner = inlineNodes(text.slice(start + 1, close), true);
  return { item: { node: { type: 'link', href, children: inner.nodes }, depth: inner.depth + 1 }, end };
}

/// `<https://…>` or `<mailto:…>` at `start`: {item, end} or null.
function angleAutolink(text, start) {
  let j = start + 1;
  while (j < text.length && j - start <= MAX_URL && text[j] !== '>' && text[j] !== '<' && !isSpace(text[j])) j++;
  if (text[j] !== '>') return null;
  const raw = text.slice(start + 1, j);
  if (!/^(?:https?:\/\/|mailto:)/i.test(raw)) return null;
  const href = safeHref(raw);
  if (!href) return null;
  return { item: linkItem(href, raw), end: j + 1 };
}

/// A bare `http(s)://…` URL at `start`, without trailing punctuation: {item, end} or null.
function bareUrl(text, start) {
  let j = start;
  while (j < text.length && j - start <= MAX_URL && !isSpace(text[j]) && text[j] !== '<') j++;
  let raw = text.slice(start, j);
  for (;;) {
    const last = raw[raw.length - 1];
    if ('.,:;!?\'"*_~'.includes(last)) raw = raw.slice(0, -1);
    else if (last === ')' && count(raw, '(') < count(raw, ')')) raw = raw.slice(0, -1);
    else break;
  }
  if (!/^https?:\/\/[^/?#]/.test(raw)) return null;
  const href = safeHref(raw);
  if (!href) return null;
  return { item: linkItem(href, raw), end: start + raw.length };
}

const count = (s, ch) => s.split(ch).length - 1;
const linkItem = (href, label) => ({ node: { type: 'link', href, children: [{ type: 'text', text: label }] }, depth: 1 });

/// CommonMark's "process emphasis" over the delimiter runs of one inline sequence.
function processEmphasis(list, delims) {
  // Links among the delimiters: each delimiter knows its neighbours on the stack.
  for (let k = 0; k < delims.length; k++) {
    delims[k].prevDelim = delims[k - 1] ?? null;
    delims[k].nextDelim = delims[k + 1] ?? null;
  }
  const unlink = (d) => {
    if (d.prevDelim) d.prevDelim.nextDelim = d.nextDelim;
    if (d.nextDelim) d.nextDelim.prevDelim = d.prevDelim;
  };
  const bottoms = new Map();  // no opener for this kind of closer below this position
  let closer = delims[0] ?? null;
  while (closer) {
    if (!closer.canClose) {
      closer = closer.nextDelim;
      continue;
    }
    const key = closer.ch + (closer.canOpen ? '1' : '0') + (closer.orig % 3);
    const bottom = bottoms.get(key) ?? -1;
    let opener = closer.prevDelim;
    while (opener && opener.pos > bottom) {
      if (opener.ch === closer.ch && opener.canOpen) {
        if (closer.ch === '~') {
          if (opener.count === closer.count) break;
        } else {
          const odd = (opener.canClose || closer.canOpen) && (opener.orig + closer.orig) % 3 === 0 &&
            !(opener.orig % 3 === 0 && closer.orig % 3 === 0);
          if (!odd) break;
        }
      }
      opener = opener.prevDelim;
    }
    const found = opener && opener.pos > bottom;
    if (found) {
      const use = closer.ch === '~' ? 2 : opener.count >= 2 && closer.count >= 2 ? 2 : 1;
      const type = closer.ch === '~' ? 'del' : use === 2 ? 'strong' : 'em';
      const inner = list.between(opener, closer);
      if (inner.depth + 1 <= MAX_INLINE_DEPTH) {
        // Delimiters between the pair become plain text.
        for (let d = opener.nextDelim; d && d !== closer; d = d.nextDelim) d.removed = true;
        opener.nextDelim = closer;
        closer.prevDelim = opener;
        list.wrap(opener, closer, { node: { type, children: inner.nodes }, depth: inner.depth + 1 });
        opener.count -= use;
        closer.count -= use;
        if (opener.count === 0) {
          unlink(opener);
          list.remove(opener);
        }
        if (closer.count === 0) {
          const next = closer.nextDelim;
          unlink(closer);
          list.remove(closer);
          closer = next;
        }
        continue;
      }
    }
    bottoms.set(key, closer.prevDelim ? closer.prevDelim.pos : -1);
    const next = closer.nextDelim;
    if (!closer.canOpen) unlink(closer);
    closer = next;
  }
}

/// The inline items of one sequence as a doubly-linked list (nodes and delimiter runs).
class ItemList {
  constructor() {
    this.head = { next: null, prev: null };
    this.tail = this.head;
  }
  push(item) {
    item.prev = this.tail;
    item.next = null;
    this.tail.next = item;
    this.tail = item;
  }
  remove(item) {
    item.prev.next = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.tail = item.prev;
  }
  /// Nodes strictly between two items (delimiters as text) and their deepest nesting; O(items).
  between(a, b) {
    const nodes = [];
    let depth = 0;
    for (let it = a.next; it && it !== b; it = it.next) {
      nodes.push(it.delim ? { type: 'text', text: it.ch.repeat(it.count) } : it.node);
      depth = Math.max(depth, it.depth);
    }
    return { nodes: mergeText(nodes), depth };
  }
  /// Replaces everything strictly between `a` and `b` with `item`.
  wrap(a, b, item) {
    a.next = item;
    item.prev = a;
    item.next = b;
    b.prev = item;
  }
  finish() {
    const nodes = [];
    let depth = 0;
    for (let it = this.head.next; it; it = it.next) {
      nodes.push(it.delim ? { type: 'text', text: it.ch.repeat(it.count) } : it.node);
      depth = Math.max(depth, it.depth);
    }
    return { nodes: mergeText(nodes), depth };
  }
}

function mergeText(nodes) {
  const out = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.type === 'text' && last && last.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + n.text };
    else if (n.type !== 'text' || n.text) out.push(n);
  }
  return out;
}
