// Draws a laid-out graph from the console API ({nodes, edges}, each node
// with layer and row) as SVG. Nodes are links (focusable, keyboard
// reachable) when href gives them one.
import { esc } from './dom.js';

const W = 184, H = 76, GX = 64, GY = 26, PAD = 16;

const nodeHeight = (n) => (n.join ? H + 30 : H);

export function drawGraph(graph, { href, selected, label } = {}) {
  const rowsH = {};
  for (const n of graph.nodes) rowsH[n.row] = Math.max(rowsH[n.row] || 0, nodeHeight(n));
  const rowY = {};
  let y = PAD;
  const maxRow = Math.max(0, ...graph.nodes.map((n) => n.row));
  for (let r = 0; r <= maxRow; r++) {
    rowY[r] = y;
    y += (rowsH[r] || 0) + (rowsH[r] ? GY : 0);
  }
  const pos = {};
  let width = 0;
  for (const n of graph.nodes) {
    const x = PAD + n.layer * (W + GX);
    pos[n.id] = { x, y: rowY[n.row], h: nodeHeight(n) };
    width = Math.max(width, x + W + PAD);
  }
  const height = Math.max(y, H + 2 * PAD);
  const parts = [];
  parts.push(`<svg class="graph" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="group" aria-label="${esc(label || 'graph')}">`);
  parts.push(`<defs>${['spawn', 'valid', 'invalid', 'join', 'delivered', 'opens'].map((k) =>
    `<marker id="arrow-${k}" class="m-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>`).join('')}</defs>`);
  for (const e of graph.edges) {
    const a = pos[e.from], b = pos[e.to];
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
    let d;
    if (x2 > x1) {
      const c = Math.max(24, (x2 - x1) / 2);
      d = `M${x1},${y1} C${x1 + c},${y1} ${x2 - c},${y2} ${x2},${y2}`;
    } else {
      // Back edge (a loop): leave below the source, come in below the target.
      const sx = a.x + W / 2, sy = a.y + a.h, tx = b.x + W / 2, ty = b.y + b.h;
      const low = Math.max(sy, ty) + GY;
      d = `M${sx},${sy} C${sx},${low} ${tx},${low} ${tx},${ty}`;
    }
    parts.push(`<path class="edge e-${e.kind}" d="${d}" marker-end="url(#arrow-${e.kind})"><title>${esc(e.from + ' → ' + e.to + ' (' + e.kind + (e.label ? ': ' + e.label : '') + ')')}</title></path>`);
    if (e.label) {
      parts.push(`<text class="edge-label" x="${(x1 + x2) / 2}" y="${(y1 + y2) / 2 - 4}">${esc(e.label)}</text>`);
    }
  }
  for (const n of graph.nodes) {
    const p = pos[n.id];
    const st = n.status || 'none';
    const sel = selected === n.id ? ' selected' : '';
    const lines = [];
    lines.push(`<rect class="box s-${esc(st)}" x="${p.x}" y="${p.y}" width="${W}" height="${p.h}" rx="10"/>`);
    lines.push(`<text class="n-label" x="${p.x + 12}" y="${p.y + 24}">${esc(n.label)}</text>`);
    if (n.status) {
      lines.push(`<rect class="pill s-${esc(st)}" x="${p.x + W - 78}" y="${p.y + 8}" width="68" height="18" rx="9"/>`);
      lines.push(`<text class="pill-text" x="${p.x + W - 44}" y="${p.y + 21}">${esc(n.status)}</text>`);
    }
    if (n.sub) lines.push(`<text class="n-sub" x="${p.x + 12}" y="${p.y + 44}">${esc(n.sub)}</text>`);
    if (n.counts) {
      const c = Object.entries(n.counts).map(([k, v]) => `${v} ${k}`).join(' · ');
      lines.push(`<text class="n-sub" x="${p.x + 12}" y="${p.y + 62}">${esc(c)}</text>`);
    }
    if (n.join) {
      const j = n.join;
      const head = `join ${j.mode ? j.mode + ' ' : ''}k=${j.k}/${j.n} ${j.policy}${j.status ? ' · ' + j.status : ''}`;
      lines.push(`<text class="n-join" x="${p.x + 12}" y="${p.y + (n.counts ? 80 : 64)}">${esc(head)}</text>`);
      const got = j.status !== undefined ? `got ${(j.got || []).join(',') || '–'} · inbox ${(j.inbox || []).join(',') || '–'}` : `from ${j.from.join(',')}`;
      lines.push(`<text class="n-sub" x="${p.x + 12}" y="${p.y + (n.counts ? 96 : 82)}">${esc(got)}</text>`);
    }
    const title = `${n.label} ${n.sub || ''} ${n.status || ''}${n.join ? ' join k=' + n.join.k + ' of ' + n.join.n : ''}`;
    const body = `<g class="node${sel}" data-id="${esc(n.id)}" data-status="${esc(st)}">${lines.join('')}<title>${esc(title)}</title></g>`;
    parts.push(href ? `<a href="${esc(href(n))}" class="node-link" aria-label="${esc(title)}">${body}</a>` : body);
  }
  parts.push('</svg>');
  return parts.join('');
}
