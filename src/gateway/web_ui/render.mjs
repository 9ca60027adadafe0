// Turns the tree of markdown.mjs into DOM nodes. Text only ever goes through createTextNode or
// textContent, and the only attribute taken from the text is a link's href, checked again here
// with safeHref (http/https/mailto), so a model's reply can never become markup or script.
import { parseMarkdown, safeHref } from './markdown.mjs';

const CODE_LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;

/// Renders Markdown `text` into a DocumentFragment of `doc`.
export function renderMarkdown(text, doc = document) {
  return renderBlocks(parseMarkdown(text), doc);
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
