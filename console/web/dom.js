// Small DOM and formatting helpers.

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// esc escapes text for HTML and SVG markup.
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

// time formats unix milliseconds (a number or decimal text) as local ISO-like time.
export function time(ms) {
  const n = Number(ms);
  if (!n) return '–';
  const d = new Date(n);
  const pad = (x, w = 2) => String(x).padStart(w, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
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

export function pill(status) {
  return `<span class="pill s-${esc(status || 'none')}">${esc(status || '–')}</span>`;
}
