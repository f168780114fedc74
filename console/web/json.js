// JSON for the page, read from the text the server sent and never parsed
// into JavaScript values, so that every number keeps its digits (payloads
// may hold integers beyond 2^53 and decimals no float can represent).
//
// mountJSON renders lazily, so that no payload (a wide array, a long
// string, a deep legacy value) can make the page render more than a
// bounded amount at once: levels below OPEN start collapsed and render
// their children when expanded; a container shows PAGE children, a string
// STRING characters, and one render (the first, an expand, a "show more")
// at most BUDGET characters, the rest behind a "show more" button.
const OPEN = 2;
const PAGE = 100;
const STRING = 2000;
const BUDGET = 20000;

const WS = ' \t\r\n';

function skipWs(t, i) {
  while (i < t.length && WS.includes(t[i])) i++;
  return i;
}

// strEnd is the index after the string that starts at t[i] === '"'.
function strEnd(t, i) {
  for (i++; i < t.length; i++) {
    if (t[i] === '\\') i++;
    else if (t[i] === '"') return i + 1;
  }
  return t.length;
}

// valueEnd is the index after the value that starts at i (no recursion:
// a value nested thousands deep is scanned like a flat one).
function valueEnd(t, i) {
  const c = t[i];
  if (c === '"') return strEnd(t, i);
  if (c !== '{' && c !== '[') {
    let j = i;
    while (j < t.length && !',]}'.includes(t[j]) && !WS.includes(t[j])) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < t.length; j++) {
    const ch = t[j];
    if (ch === '"') j = strEnd(t, j) - 1;
    else if (ch === '{' || ch === '[') depth++;
    else if ((ch === '}' || ch === ']') && --depth === 0) return j + 1;
  }
  return t.length;
}

// child reads the member or item at p (after the opening bracket or a
// previous child): { start, key, at, end } or null at the container's end.
function child(t, p, isObj) {
  p = skipWs(t, p);
  if (t[p] === ',') p = skipWs(t, p + 1);
  if (p >= t.length || t[p] === '}' || t[p] === ']') return null;
  const start = p;
  let key = null;
  if (isObj) {
    const ke = strEnd(t, p);
    key = t.slice(p, ke);
    p = skipWs(t, ke);
    if (t[p] === ':') p = skipWs(t, p + 1);
  }
  return { start, key, at: p, end: valueEnd(t, p) };
}

function count(t, at, isObj) {
  let n = 0;
  for (let c = child(t, at + 1, isObj); c; c = child(t, c.end, isObj)) n++;
  return n;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (tag === 'button') e.type = 'button';
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function moreButton(label, onClick) {
  const b = el('button', 'j-more', label);
  b.addEventListener('click', () => onClick(b));
  return b;
}

// clip shows the first STRING characters of a long text, the rest on demand.
function clip(span, text, budget) {
  const room = Math.max(80, Math.min(STRING, budget.left));
  if (text.length <= room) {
    span.textContent = text;
    budget.left -= text.length;
    return;
  }
  span.textContent = text.slice(0, room);
  budget.left -= room;
  span.append(moreButton(`… show ${text.length - room} more characters`, (b) => {
    b.remove();
    clip(span.appendChild(el('span')), text.slice(room), { left: BUDGET });
  }));
}

// value renders the value at [at, end) of t, depth levels down.
function value(t, at, end, depth, budget) {
  const c = t[at];
  if (c !== '{' && c !== '[') {
    const kind = c === '"' ? 'j-str' : c === 't' || c === 'f' ? 'j-bool' : c === 'n' ? 'j-null' : 'j-num';
    const s = el('span', kind);
    clip(s, t.slice(at, end), budget);
    return s;
  }
  const isObj = c === '{';
  const n = count(t, at, isObj);
  const [open, close] = isObj ? ['{', '}'] : ['[', ']'];
  if (n === 0) {
    budget.left -= 2;
    return el('span', 'j-empty', open + close);
  }
  const box = el('span', 'j-box');
  const toggle = el('button', 'j-toggle');
  const summary = `${open}…${close} ${n} ${isObj ? (n === 1 ? 'key' : 'keys') : n === 1 ? 'item' : 'items'}`;
  const kids = el('div', 'j-kids');
  const closing = el('span', 'j-close', close);
  let rendered = false;
  const set = (expanded, b) => {
    toggle.setAttribute('aria-expanded', String(expanded));
    toggle.textContent = expanded ? open : summary;
    kids.hidden = closing.hidden = !expanded;
    if (expanded && !rendered) {
      rendered = true;
      children(kids, t, at + 1, isObj, n, 0, depth + 1, b || { left: BUDGET });
    }
  };
  toggle.addEventListener('click', () => set(toggle.getAttribute('aria-expanded') !== 'true'));
  box.append(toggle, kids, closing);
  budget.left -= summary.length;
  set(depth < OPEN && budget.left > 0, budget);
  return box;
}

// children renders the members or items from p on: up to PAGE of them
// while the budget lasts, then a "show more" for the rest.
function children(kids, t, p, isObj, n, shown, depth, budget) {
  let c = child(t, p, isObj);
  for (let i = 0; c && i < PAGE && budget.left > 0; i++, shown++) {
    const line = el('div', 'j-line');
    if (c.key !== null) {
      const k = el('span', 'j-key');
      clip(k, c.key, budget);
      line.append(k, ': ');
    }
    line.append(value(t, c.at, c.end, depth, budget));
    const next = child(t, c.end, isObj);
    if (next) line.append(',');
    kids.append(line);
    c = next;
  }
  if (c) {
    const from = c.start;
    kids.append(moreButton(`show ${n - shown} more of ${n}`, (b) => {
      b.remove();
      children(kids, t, from, isObj, n, shown, depth, { left: BUDGET });
    }));
  }
}

// mountJSON renders JSON text into el, lazily (see above).
export function mountJSON(target, text) {
  target.textContent = '';
  const t = text === undefined || text === null || text === '' ? '{}' : String(text);
  const at = skipWs(t, 0);
  target.append(value(t, at, valueEnd(t, at), 0, { left: BUDGET }));
}

// Checks that text is one JSON object (JSON.parse only validates here:
// the text itself is what is sent, digits intact).
export function isObjectText(text) {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}
