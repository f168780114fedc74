// Pan, zoom and fit for a graph drawn by drawGraph: the wrap element keeps
// a view (scale and the graph point at its top-left corner) that survives
// redraws. Mouse wheel zooms around the pointer, dragging pans, the
// toolbar's buttons and the keys + - 0 (with the graph focused) zoom and
// fit, arrow keys pan.

const MIN = 0.1, MAX = 4, STEP = 1.25;

// panZoom wires wrap (an element holding one svg.graph, redrawn at will)
// and its toolbar (graphHTML's); call the returned apply() after every
// redraw.
export function panZoom(wrap, toolbar = wrap.previousElementSibling) {
  const view = { scale: 1, x: 0, y: 0, fitted: false, user: false };
  let drag = null;
  let moved = false;
  const svg = () => wrap.querySelector('svg.graph');
  const natural = () => {
    const s = svg();
    return s ? { w: Number(s.dataset.w), h: Number(s.dataset.h) } : { w: 1, h: 1 };
  };
  const size = () => ({ w: wrap.clientWidth || 1, h: wrap.clientHeight || 1 });
  const label = toolbar.querySelector('[data-zoom="level"]');

  function apply() {
    const s = svg();
    if (!s) return;
    if (!s.dataset.w) {
      const [, , w, h] = s.getAttribute('viewBox').split(' ').map(Number);
      s.dataset.w = w;
      s.dataset.h = h;
      // The wrap is as tall as the graph, within bounds, once.
      if (!wrap.style.height) wrap.style.height = `${Math.max(200, Math.min(h + 4, Math.round(window.innerHeight * 0.7)))}px`;
    }
    if (!view.fitted) {
      view.fitted = true;
      fit(1);
      return;
    }
    const { w, h } = size();
    s.setAttribute('width', w);
    s.setAttribute('height', h);
    s.setAttribute('viewBox', `${view.x} ${view.y} ${w / view.scale} ${h / view.scale}`);
    s.dataset.scale = view.scale;
    if (label) label.textContent = `${Math.round(view.scale * 100)}%`;
  }

  // zoomAt scales by f keeping the graph point under (px, py) — wrap
  // pixels — where it is.
  function zoomAt(f, px, py) {
    const next = Math.min(MAX, Math.max(MIN, view.scale * f));
    const gx = view.x + px / view.scale, gy = view.y + py / view.scale;
    view.scale = next;
    view.x = gx - px / next;
    view.y = gy - py / next;
    view.user = true;
    apply();
  }

  // fit shows the whole graph, centred, at most at scale most.
  function fit(most = MAX) {
    const n = natural(), { w, h } = size();
    view.scale = Math.max(MIN, Math.min(most, w / n.w, h / n.h));
    view.x = (n.w - w / view.scale) / 2;
    view.y = (n.h - h / view.scale) / 2;
    apply();
  }

  // The toolbar's buttons (data-zoom) and the keys do the same.
  const zoom = (f) => { const { w, h } = size(); zoomAt(f, w / 2, h / 2); };
  const cmd = { in: () => zoom(STEP), out: () => zoom(1 / STEP), fit: () => fit() };
  toolbar.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-zoom]');
    if (b && cmd[b.dataset.zoom]) cmd[b.dataset.zoom]();
  });
  wrap.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const r = wrap.getBoundingClientRect();
    zoomAt(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.002)), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  wrap.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y, id: ev.pointerId };
    moved = false;
  });
  wrap.addEventListener('pointermove', (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!moved && Math.hypot(dx, dy) < 4) return;
    if (!moved) wrap.setPointerCapture(ev.pointerId);
    moved = true;
    wrap.classList.add('dragging');
    view.x = drag.vx - dx / view.scale;
    view.y = drag.vy - dy / view.scale;
    view.user = true;
    apply();
  });
  const end = () => {
    drag = null;
    wrap.classList.remove('dragging');
  };
  wrap.addEventListener('pointerup', end);
  wrap.addEventListener('pointercancel', end);
  // A drag that ends on a node is no click on its link.
  wrap.addEventListener('click', (ev) => {
    if (moved) {
      ev.preventDefault();
      ev.stopPropagation();
      moved = false;
    }
  }, true);
  wrap.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const c = cmd[{ '+': 'in', '=': 'in', '-': 'out', 0: 'fit' }[ev.key]];
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
    if (!c && !d) return;
    ev.preventDefault();
    if (c) return c();
    view.x += (d[0] * 40) / view.scale;
    view.y += (d[1] * 40) / view.scale;
    apply();
  });
  window.addEventListener('resize', () => wrap.isConnected && (view.user ? apply() : fit(1)));
  return { apply, fit, view };
}

// graphHTML is a graph's zoom toolbar and its wrap (id), for panZoom.
export function graphHTML(id, what) {
  return `<div class="zoom" role="toolbar" aria-label="zoom the ${what} graph">
    <button type="button" data-zoom="out" aria-label="zoom out" title="zoom out (-)">−</button>
    <span data-zoom="level" aria-live="polite">100%</span>
    <button type="button" data-zoom="in" aria-label="zoom in" title="zoom in (+)">+</button>
    <button type="button" data-zoom="fit" title="show the whole graph (0)">Fit</button>
    <span class="dim">wheel: zoom · drag: pan · keys + − 0 and arrows on the graph</span></div>
    <div class="graph-wrap" id="${id}" tabindex="0" aria-label="${what} graph: + − 0 zoom and fit, arrows pan"></div>`;
}
