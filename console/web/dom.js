// Small DOM and formatting helpers.

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// esc escapes text for HTML and SVG markup.
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

export const $ = (id) => document.getElementById(id);

// stamp is unix milliseconds as local time, date and time joined by sep
// ('T': a datetime-local input's value), to the second.
export function stamp(ms, sep) {
  const d = new Date(Number(ms));
  const pad = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}${sep}${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// time formats unix milliseconds (a number or decimal text) as local ISO-like time.
export function time(ms) {
  const n = Number(ms);
  return n ? `${stamp(n, ' ')}.${String(n % 1000).padStart(3, '0')}` : '–';
}

// rel says how far a time is from now: "in 59m 58s" or "3s ago".
export function rel(ms, now) {
  const n = Number(ms);
  if (!n) return '';
  let d = Math.round((n - now) / 1000);
  const future = d > 0;
  d = Math.abs(d);
  const parts = [];
  if (d >= 3600) parts.push(Math.floor(d / 3600) + 'h');
  if (d >= 60) parts.push(Math.floor((d % 3600) / 60) + 'm');
  parts.push((d % 60) + 's');
  return future ? 'in ' + parts.join(' ') : parts.join(' ') + ' ago';
}

// short abbreviates an address or hash: 0x1234…abcd.
export function short(s) {
  s = String(s ?? '');
  return s.length > 14 && s.startsWith('0x') ? s.slice(0, 6) + '…' + s.slice(-4) : s;
}

export const mono = (s) => `<span class="mono">${esc(s)}</span>`;

export function pill(status) {
  return `<span class="pill s-${esc(status || 'none')}">${esc(status || '–')}</span>`;
}

// facts is a definition list of [term, html] rows, empty values left out.
export function facts(rows, id) {
  return `<dl class="facts"${id ? ` id="${id}"` : ''}>${rows.map(([k, v]) => (v === '' || v === undefined ? '' : `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`)).join('')}</dl>`;
}

// thead is a table head of column names (the page's own text, not escaped).
export const thead = (cols) => `<thead><tr>${cols.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>`;
