// The web chat's Markdown parser and DOM builder in plain Node (no browser, no jsdom): the parser
// is a pure function, and the builder is driven through a minimal fake document that fails on
// any HTML-parsing sink. Run: node --test tests/web/markdown.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { parseMarkdown, parseInline, safeHref, MAX_BLOCK_DEPTH, MAX_INLINE_DEPTH } from '../../src/gateway/web_ui/markdown.mjs';
import { renderBlocks, renderMarkdown, withMediaNotices } from '../../src/gateway/web_ui/render.mjs';

const WEB_UI = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/gateway/web_ui');
const t = (text) => ({ type: 'text', text });

// --- a fake DOM that records what is built and refuses HTML sinks ----------------------------

class FakeNode {
  constructor(tag) {
    this.tagName = tag;
    this.children = [];
    this.attrs = {};
    this.dataset = {};
    this._text = '';
  }
  appendChild(n) {
    if (n.tagName === '#fragment') this.children.push(...n.children);
    else this.children.push(n);
    return n;
  }
  set textContent(v) {
    this.children = [];
    this._text = String(v);
  }
  get textContent() {
    return this._text + this.children.map((c) => c.textContent).join('');
  }
  setAttribute(k, v) {
    this.attrs[k] = String(v);
  }
  set href(v) {
    this.attrs.href = v;
  }
  set rel(v) {
    this.attrs.rel = v;
  }
  set target(v) {
    this.attrs.target = v;
  }
  set start(v) {
    this.attrs.start = String(v);
  }
  set innerHTML(_) {
    throw new Error('innerHTML used');
  }
  set outerHTML(_) {
    throw new Error('outerHTML used');
  }
  insertAdjacentHTML() {
    throw new Error('insertAdjacentHTML used');
  }
}
class FakeText {
  constructor(text) {
    this.tagName = '#text';
    this.textContent = text;
  }
}
const fakeDoc = {
  createElement: (tag) => new FakeNode(tag.toLowerCase()),
  createDocumentFragment: () => new FakeNode('#fragment'),
  createTextNode: (text) => new FakeText(text),
};

/// Compact structure: ['p', ['strong', 'x'], ' y'] …
function shape(n) {
  if (n.tagName === '#text') return n.textContent;
  const kids = n.children.map(shape);
  if (n._text) kids.unshift(n._text);
  return [n.tagName, ...kids];
}
const render = (md) => renderMarkdown(md, fakeDoc).children.map(shape);
function* walk(n) {
  yield n;
  for (const c of n.children || []) yield* walk(c);
}
const all = (md) => [...walk(renderMarkdown(md, fakeDoc))];

// --- blocks --------------------------------------------------------------------------------------

test('paragraphs, headings, rules, line breaks', () => {
  assert.deepEqual(parseMarkdown('# Title #\n\nfirst\nsecond\n\n---\n###### six'), [
    { type: 'heading', level: 1, children: [t('Title')] },
    { type: 'paragraph', children: [t('first'), { type: 'br' }, t('second')] },
    { type: 'hr' },
    { type: 'heading', level: 6, children: [t('six')] },
  ]);
  assert.deepEqual(parseMarkdown('#nospace'), [{ type: 'paragraph', children: [t('#nospace')] }]);
});

test('fenced code keeps its text verbatim and its language', () => {
  assert.deepEqual(parseMarkdown('```js\nlet a = "<b>";\n  **x**\n```\nafter'), [
    { type: 'code', lang: 'js', text: 'let a = "<b>";\n  **x**' },
    { type: 'paragraph', children: [t('after')] },
  ]);
  assert.deepEqual(render('~~~\n<script>alert(1)</script>\n~~~'), [['pre', ['code', '<script>alert(1)</script>'], ['button', 'Copy']]]);
});

test('an unbalanced fence runs to the end (as while streaming)', () => {
  assert.deepEqual(parseMarkdown('text\n```py\nprint(1)\n# not a heading'), [
    { type: 'paragraph', children: [t('text')] },
    { type: 'code', lang: 'py', text: 'print(1)\n# not a heading' },
  ]);
  // A shorter or different closing fence does not close it.
  assert.equal(parseMarkdown('````\na\n```\n~~~~\nb').length, 1);
  assert.deepEqual(parseMarkdown('```'), [{ type: 'code', lang: '', text: '' }]);
});

test('lists: bullets, ordered with start, nesting, lazy lines, loose items', () => {
  assert.deepEqual(render('- one\n- two\n  - nested\n- three\ncontinued'), [
    ['ul', ['li', 'one'], ['li', ['p', 'two'], ['ul', ['li', 'nested']]], ['li', 'three', ['br'], 'continued']],
  ]);
  assert.deepEqual(render('3. c\n4. d'), [['ol', ['li', 'c'], ['li', 'd']]]);
  assert.equal(renderMarkdown('3. c', fakeDoc).children[0].attrs.start, '3');
  assert.deepEqual(render('1. a\n\n   more\n2. b'), [['ol', ['li', ['p', 'a'], ['p', 'more']], ['li', 'b']]]);
  assert.deepEqual(render('- a\n1. b'), [['ul', ['li', 'a']], ['ol', ['li', 'b']]]);
  assert.deepEqual(render('-notalist\n2024.year'), [['p', '-notalist', ['br'], '2024.year']]);
});

test('blockquotes nest and contain other blocks', () => {
  assert.deepEqual(render('> quote\n> - item\n>\n> > inner'), [
    ['blockquote', ['p', 'quote'], ['ul', ['li', 'item']], ['blockquote', ['p', 'inner']]],
  ]);
});

// --- inlines -------------------------------------------------------------------------------------

test('emphasis, strong, strikethrough and nesting', () => {
  assert.deepEqual(render('**bold** and *it* and _u_ and ~~del~~'), [
    ['p', ['strong', 'bold'], ' and ', ['em', 'it'], ' and ', ['em', 'u'], ' and ', ['del', 'del']],
  ]);
  assert.deepEqual(render('***both***'), [['p', ['em', ['strong', 'both']]]]);
  assert.deepEqual(render('**bold *it* bold**'), [['p', ['strong', 'bold ', ['em', 'it'], ' bold']]]);
  assert.deepEqual(render('*a **b** c*'), [['p', ['em', 'a ', ['strong', 'b'], ' c']]]);
  assert.deepEqual(render('snake_case_name and 2*3*4'), [['p', 'snake_case_name and 2', ['em', '3'], '4']]);
  assert.deepEqual(render('**unclosed and *half'), [['p', '**unclosed and *half']]);
  assert.deepEqual(render('* not emphasis *'), [['ul', ['li', 'not emphasis *']]]);
});

test('inline code is literal and wins over emphasis', () => {
  assert.deepEqual(parseInline('a `*x* <b>` b'), [t('a '), { type: 'code', text: '*x* <b>' }, t(' b')]);
  assert.deepEqual(parseInline('``a ` b``'), [{ type: 'code', text: 'a ` b' }]);
  assert.deepEqual(parseInline('`unclosed *em*'), [t('`unclosed '), { type: 'em', children: [t('em')] }]);
  assert.deepEqual(parseInline('\\*not em\\*'), [t('*not em*')]);
});

test('links: only http, https and mailto become links', () => {
  assert.deepEqual(parseInline('[site](https://example.com/a?b=1)'), [
    { type: 'link', href: 'https://example.com/a?b=1', children: [t('site')] },
  ]);
  assert.deepEqual(parseInline('[mail](mailto:a@b.c)')[0].href, 'mailto:a@b.c');
  for (const bad of [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'java\tscript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox',
    'file:///etc/passwd',
    '/relative',
    '//evil.example/x',
  ]) {
    const nodes = parseInline(`[x](${bad})`);
    assert.ok(!nodes.some((n) => n.type === 'link'), bad);
    assert.ok(!all(`[x](${bad})`).some((n) => n.tagName === 'a'), bad);
  }
  assert.equal(safeHref('javascript:alert(1)'), null);
  assert.equal(safeHref('\u0001javascript:alert(1)'), null);
  assert.equal(safeHref('https://ok.example/'), 'https://ok.example/');
});

test('autolinks and bare URLs, without trailing punctuation', () => {
  assert.deepEqual(parseInline('see https://example.com/x_(y). ok'), [
    t('see '),
    { type: 'link', href: 'https://example.com/x_(y)', children: [t('https://example.com/x_(y)')] },
    t('. ok'),
  ]);
  assert.deepEqual(parseInline('<https://a.example>')[0].type, 'link');
  assert.deepEqual(parseInline('<javascript:alert(1)>'), [t('<javascript:alert(1)>')]);
  assert.deepEqual(parseInline('xhttps://a.example'), [t('xhttps://a.example')]);
});

test('links inside link text are not nested', () => {
  const dom = all('[outer https://inner.example](https://outer.example)');
  assert.equal(dom.filter((n) => n.tagName === 'a').length, 1);
});

test('rendered links are safe and open in a new, unprivileged tab', () => {
  const a = all('[x](https://example.com)').find((n) => n.tagName === 'a');
  assert.equal(a.attrs.href, 'https://example.com/');
  assert.equal(a.attrs.rel, 'noopener noreferrer nofollow');
  assert.equal(a.attrs.target, '_blank');
  // The builder checks again: a tree with a hostile href (not from the parser) renders no link.
  const tree = [{ type: 'paragraph', children: [{ type: 'link', href: 'javascript:alert(1)', children: [t('x')] }] }];
  assert.deepEqual(renderBlocks(tree, fakeDoc).children.map(shape), [['p', 'x']]);
  const odd = [{ type: 'paragraph', children: [{ type: 'raw', html: '<img src=x onerror=alert(1)>' }] }, { type: 'html' }];
  assert.ok(![...walk(renderBlocks(odd, fakeDoc))].some((n) => n.tagName === 'img'));
});

test('a reply\'s MEDIA: lines show as "not sent" notices, never as the directive (as channels without files)', () => {
  const reply = 'Here is the chart.\nMEDIA: ./out/chart.png\n  media: "reports/Q3 summary.pdf" /tmp/a b.txt\n' +
    '```\nMEDIA: kept.png\n```\nSee MEDIA: in prose.\nMEDIA:';
  const notice = (name) => `[file ${name} not sent: the web chat cannot show files]`;
  const shown = withMediaNotices(reply);
  for (const name of ['chart.png', 'Q3 summary.pdf', 'a b.txt']) assert.ok(shown.includes(notice(name)), shown);
  assert.ok(!shown.includes('./out/chart.png') && !shown.includes('/tmp/a'), shown);
  assert.ok(shown.includes('MEDIA: kept.png') && shown.includes('See MEDIA: in prose.') && shown.endsWith('\nMEDIA:'), shown);
  // Rendered: the notice is a paragraph of its own; the code block keeps its line.
  const frag = renderMarkdown(reply, fakeDoc);
  const texts = frag.children.map((c) => c.textContent);
  assert.ok(texts.includes(notice('chart.png')), JSON.stringify(texts));
  assert.ok(texts.some((t) => t.includes('MEDIA: kept.png')), JSON.stringify(texts));
  // Eleven files: ten notices, then how many more.
  const many = withMediaNotices(Array.from({ length: 11 }, (_, i) => `MEDIA: f${i}.png`).join('\n'));
  assert.equal(many.split('\n').filter((l) => l.includes('not sent: the web chat')).length, 10);
  assert.ok(many.includes('[1 more file(s) not sent: at most 10 per reply]'), many);
  assert.equal(withMediaNotices('no directives'), 'no directives');
});

test('HTML in the text stays text', () => {
  const md = '<img src=x onerror=alert(1)> <script>alert(2)</script>\n\n**<b>bold</b>**';
  const nodes = all(md);
  const tags = new Set(nodes.map((n) => n.tagName));
  for (const bad of ['img', 'script', 'b']) assert.ok(!tags.has(bad), bad);
  assert.deepEqual(render(md), [
    ['p', '<img src=x onerror=alert(1)> <script>alert(2)</script>'],
    ['p', ['strong', '<b>bold</b>']],
  ]);
});

// --- hostile sizes -------------------------------------------------------------------------------

function timed(fn) {
  const start = process.hrtime.bigint();
  const out = fn();
  return { out, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

test('100 KB hostile inputs parse and render quickly', () => {
  const K = 100 * 1024;
  const inputs = {
    stars: '*'.repeat(K),
    'open emphasis': '*a '.repeat(K / 3),
    'nested emphasis': '*a _b '.repeat(K / 12) + ' b_ a*'.repeat(K / 12),
    'alternating runs': '**a*'.repeat(K / 4),
    brackets: '['.repeat(K),
    'link openers': '[a]('.repeat(K / 4),
    backticks: Array.from({ length: 450 }, (_, i) => '`'.repeat(i + 1) + 'x').join(''),
    'unclosed fences': '```\n'.repeat(K / 4),
    'deep quotes': '>'.repeat(K),
    'deep lists': Array.from({ length: 2000 }, (_, i) => ' '.repeat(Math.min(i * 2, 60)) + '- x').join('\n'),
    'long heading': '# ' + ' '.repeat(K) + 'x',
    'long line': 'a '.repeat(K / 2),
    'many links': '[x](https://e.example) '.repeat(K / 23),
    'bare urls': 'https://e.example/'.repeat(K / 18),
    'angle brackets': '<https://'.repeat(K / 9),
    escapes: '\\'.repeat(K),
    underscores: '_a_'.repeat(K / 3),
  };
  for (const [name, md] of Object.entries(inputs)) {
    const { out, ms } = timed(() => renderMarkdown(md, fakeDoc));
    assert.ok(out.children.length > 0, name);
    assert.ok(ms < 1500, `${name}: ${ms.toFixed(0)} ms`);
  }
});

test('nesting is capped', () => {
  const depthOf = (n) => 1 + Math.max(0, ...(n.children || []).map(depthOf));
  const quotes = renderMarkdown('>'.repeat(1000) + ' x', fakeDoc);
  assert.ok(depthOf(quotes) <= MAX_BLOCK_DEPTH + 4, `quote depth ${depthOf(quotes)}`);
  const em = '*a '.repeat(500) + 'x' + ' a*'.repeat(500);
  const tree = parseInline(em);
  const inlineDepth = (nodes) => Math.max(0, ...nodes.map((n) => (n.children ? 1 + inlineDepth(n.children) : 0)));
  assert.ok(inlineDepth(tree) <= MAX_INLINE_DEPTH, `inline depth ${inlineDepth(tree)}`);
});

test('non-string input renders nothing', () => {
  assert.deepEqual(parseMarkdown(undefined), []);
  assert.deepEqual(parseMarkdown({ toString: () => '# x' }), []);
});

// --- the UI sources never use HTML sinks or URL parameters ---------------------------------------

test('web UI sources build DOM without HTML strings and ignore the query string', () => {
  const files = readdirSync(WEB_UI).filter((f) => /\.(m?js|html)$/.test(f));
  assert.ok(files.includes('app.mjs') && files.includes('index.html'));
  const forbidden = [
    /\.innerHTML\b/, /\.outerHTML\b/, /insertAdjacentHTML/, /document\.write/, /\beval\s*\(/, /new Function\b/,
    /location\.(search|hash|href)\b/, /URLSearchParams/, /\bsetAttribute\(\s*['"]on/, /\bstyle\s*=/,
  ];
  for (const f of files) {
    const src = readFileSync(path.join(WEB_UI, f), 'utf8');
    for (const re of forbidden) assert.ok(!re.test(src), `${f} matches ${re}`);
    if (f.endsWith('.html')) {
      assert.ok(!/<script(?![^>]*\bsrc=)/i.test(src), `${f} has an inline <script>`);
      assert.ok(!/<style/i.test(src), `${f} has an inline <style>`);
      assert.ok(!/\son[a-z]+\s*=/i.test(src), `${f} has an inline event handler`);
      assert.ok(!/(src|href)\s*=\s*["']?(https?:)?\/\//i.test(src), `${f} loads something from another origin`);
    }
  }
});
