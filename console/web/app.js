// The xgr operator console: a hash-routed page over the console API.
//   #/sessions?owner=&status=&sort=&order=&offset=   the sessions list
//   #/session/OWNER/ROOT[/PID]                        flow view, process, timeline
//   #/orchestration/OWNER/ROOT                        the OSTC graph with the processes overlaid
//   #/overview                                        counts, throughput, due queue, replicas, Redis memory
//   #/index                                           the chain index
import { esc, time, rel, short, pill } from './dom.js';
import { drawGraph } from './graph.js';
import { panZoom, toolbarHTML } from './pan.js';
import { stepSection, wireStep } from './stepwake.js';
import { mountJSON, isObjectText } from './json.js';
import * as act from './actions.js';

const main = document.getElementById('main');
let config = { actions: 'off', statuses: [], outcomes: [], sortKeys: [] };
let current = null; // { render(), busy() } of the view shown
const PAGE = 25;

async function api(path) {
  const res = await fetch(path, { headers: { Accept: 'application/json' } });
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function toast(msg, bad) {
  const t = document.getElementById('toast');
  t.textContent = msg;
  t.className = bad ? 'show bad' : 'show';
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.className = ''), 6000);
}

function parseHash() {
  const h = location.hash.replace(/^#\/?/, '') || 'sessions';
  const [path, query] = h.split('?');
  return { parts: path.split('/').map(decodeURIComponent), query: new URLSearchParams(query || '') };
}

function nav(name) {
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.toggleAttribute('aria-current', a.dataset.nav === name);
  }
}

// ---- sessions list ----

// localInput is a datetime-local input's value for unix ms text ('' for none).
function localInput(ms) {
  if (!ms) return '';
  const d = new Date(Number(ms));
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

const opts = (l) => l.map((s) => `<option>${esc(s)}</option>`).join('');

function sessionsView(query) {
  nav('sessions');
  const q = {
    owner: query.get('owner') || '', status: query.get('status') || '', outcome: query.get('outcome') || '', sort: query.get('sort') || 'created',
    order: query.get('order') || 'desc', offset: Number(query.get('offset') || 0),
    q: query.get('q') || '', ostc: query.get('ostc') || '', from: query.get('from') || '', to: query.get('to') || '',
  };
  const link = (over) => {
    const p = new URLSearchParams({ ...q, ...over });
    for (const [k, v] of [...p]) if (v === '' || (k === 'offset' && v === '0')) p.delete(k);
    return '#/sessions?' + p.toString();
  };
  main.innerHTML = `<h1>Sessions</h1>
    <form class="filters" id="filters">
      <label>Owner <select name="owner" id="f-owner"><option value="">every owner</option></select></label>
      <label>Status <select name="status" id="f-status"><option value="">any</option>${opts(config.statuses)}</select></label>
      <label>Outcome <select name="outcome" id="f-outcome"><option value="">any</option>${opts(config.outcomes)}</select></label>
      <label>Session id or start key <input name="q" id="f-q" type="search" maxlength="200" placeholder="12 or order-7"></label>
      <label>Orchestration <input name="ostc" id="f-ostc" type="search" maxlength="200"></label>
      <label>Created from <input name="from" id="f-from" type="datetime-local" step="1"></label>
      <label>to <input name="to" id="f-to" type="datetime-local" step="1"></label>
      <label>Sort <select name="sort" id="f-sort">${opts(config.sortKeys)}</select></label>
      <label>Order <select name="order" id="f-order"><option value="desc">newest / largest first</option><option value="asc">oldest / smallest first</option></select></label>
      <button type="submit">Apply</button>
    </form>
    ${config.actions === 'direct' ? `<div class="actions bulk" id="bulk-bar">
      <span id="bulk-count">0 selected</span>
      <button type="button" class="danger" data-bulk="kill" disabled>Kill selected</button>
      <button type="button" data-bulk="pause" disabled>Pause selected</button>
      <button type="button" data-bulk="resume" disabled>Resume selected</button>
      <span id="bulk-confirm" hidden><span id="bulk-what"></span>
        <button type="button" id="bulk-yes" class="danger">Confirm</button>
        <button type="button" id="bulk-no">Cancel</button></span></div>` : ''}
    <div id="list" aria-live="polite"></div>`;
  const form = document.getElementById('filters');
  form.status.value = q.status;
  form.outcome.value = q.outcome;
  form.sort.value = q.sort;
  form.order.value = q.order;
  form.q.value = q.q;
  form.ostc.value = q.ostc;
  form.from.value = localInput(q.from);
  form.to.value = localInput(q.to);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    // The inputs have whole seconds: "to" takes in its whole second.
    const ms = (v, end) => (v ? String(new Date(v).getTime() + (end ? 999 : 0)) : '');
    location.hash = link({ owner: form.owner.value, status: form.status.value, outcome: form.outcome.value, sort: form.sort.value, order: form.order.value, offset: 0,
      q: form.q.value.trim(), ostc: form.ostc.value.trim(), from: ms(form.from.value), to: ms(form.to.value, true) });
  });
  // Selected sessions ("owner/root"), kept across refreshes of the list.
  const selected = new Map();
  const bulkOn = config.actions === 'direct';
  let pending = null;
  const bar = document.getElementById('bulk-bar');
  const syncBar = () => {
    if (!bar) return;
    document.getElementById('bulk-count').textContent = `${selected.size} selected`;
    for (const b of bar.querySelectorAll('[data-bulk]')) b.disabled = selected.size === 0;
  };
  if (bar) {
    for (const b of bar.querySelectorAll('[data-bulk]')) {
      b.addEventListener('click', () => {
        pending = b.dataset.bulk;
        const ids = [...selected.values()].map((x) => x.rootPid).sort((a, b) => a - b);
        document.getElementById('bulk-what').textContent = `${pending} ${ids.length} session${ids.length === 1 ? '' : 's'} (${ids.join(', ')})?`;
        document.getElementById('bulk-confirm').hidden = false;
        document.getElementById('bulk-yes').focus();
      });
    }
    document.getElementById('bulk-no').addEventListener('click', () => {
      document.getElementById('bulk-confirm').hidden = true;
      pending = null;
    });
    document.getElementById('bulk-yes').addEventListener('click', async () => {
      document.getElementById('bulk-confirm').hidden = true;
      const action = pending;
      pending = null;
      try {
        const r = await act.bulk(action, [...selected.values()]);
        const bad = r.sessions.filter((x) => !x.ok);
        toast(`${action}: ${r.done} of ${r.sessions.length} sessions done` + (bad.length ? '; ' + bad.map((x) => `${x.rootPid}: ${x.error}`).join('; ') : ''), bad.length > 0);
        selected.clear();
      } catch (e) {
        toast(String(e.message || e), true);
      }
      syncBar();
      draw(true);
    });
  }
  const cols = [['rootPid', 'Session'], ['owner', 'Owner'], ['status', 'Status'], ['live', 'Live'], ['startStep', 'Start step'],
    ['ostcId', 'Orchestration'], ['created', 'Created'], ['updated', 'Updated']];
  async function render() {
    const p = new URLSearchParams({ sort: q.sort, order: q.order, offset: q.offset, limit: PAGE });
    if (q.owner) p.set('owner', q.owner);
    for (const k of ['status', 'outcome', 'q', 'ostc', 'from', 'to']) if (q[k]) p.set(k, q[k]);
    const data = await api('/ui/api/sessions?' + p);
    const sel = form.owner;
    if (sel.options.length !== data.owners.length + 1) {
      sel.innerHTML = '<option value="">every owner</option>' + data.owners.map((o) => `<option value="${esc(o)}">${esc(o)}</option>`).join('');
    }
    sel.value = q.owner;
    const head = cols.map(([k, name]) => {
      const on = q.sort === k;
      const next = on && q.order === 'desc' ? 'asc' : 'desc';
      const sort = on ? (q.order === 'desc' ? 'descending' : 'ascending') : 'none';
      return `<th scope="col" aria-sort="${sort}"><a href="${esc(link({ sort: k, order: next, offset: 0 }))}">${esc(name)}${on ? (q.order === 'desc' ? ' ▼' : ' ▲') : ''}</a></th>`;
    }).join('');
    const rows = data.rows.map((r) => `<tr data-root="${r.rootPid}" data-status="${esc(r.status)}"${r.paused ? ' data-paused="1"' : ''}>
      ${bulkOn ? `<td><input type="checkbox" class="pick" data-owner="${esc(r.owner)}" data-root="${r.rootPid}" aria-label="select session ${r.rootPid}"${selected.has(r.owner + '/' + r.rootPid) ? ' checked' : ''}></td>` : ''}
      <td><a class="session-link" href="#/session/${esc(r.owner)}/${r.rootPid}">${r.rootPid}</a>${r.startKey ? `<div class="dim mono key" title="start key">${esc(r.startKey)}</div>` : ''}</td>
      <td class="mono" title="${esc(r.owner)}">${esc(short(r.owner))}</td>
      <td>${pill(r.outcome || r.status)}${r.paused ? ' ' + pill('paused') : ''}</td><td class="num">${r.live}</td><td>${esc(r.startStep)}</td>
      <td>${esc(r.ostcId)} <span class="mono dim" title="${esc(r.ostcHash)}">${esc(short(r.ostcHash))}</span></td>
      <td>${time(r.createdAt)}</td><td>${time(r.updatedAt)}</td></tr>`).join('');
    const last = Math.min(q.offset + data.rows.length, data.total);
    document.getElementById('list').innerHTML = `<table class="sessions"><caption>${data.total} sessions${data.total ? `, ${q.offset + 1}–${last} shown` : ''} · ${data.scanned} searched${data.capped ? ' <span class="warn" data-capped="1">(capped: older sessions were not read)</span>' : ''}</caption>
      <thead><tr>${bulkOn ? '<th scope="col"><input type="checkbox" id="pick-all" aria-label="select every session on this page"></th>' : ''}${head}</tr></thead><tbody>${rows || `<tr><td colspan="${cols.length + (bulkOn ? 1 : 0)}" class="dim">no sessions</td></tr>`}</tbody></table>
      <nav class="pager" aria-label="Pages">
        ${q.offset > 0 ? `<a class="button" href="${esc(link({ offset: Math.max(0, q.offset - PAGE) }))}">← Newer page</a>` : ''}
        ${last < data.total ? `<a class="button" href="${esc(link({ offset: q.offset + PAGE }))}">Next page →</a>` : ''}
      </nav>`;
    if (bulkOn) {
      const pick = (box, on) => {
        box.checked = on;
        const k = box.dataset.owner + '/' + box.dataset.root;
        if (on) selected.set(k, { owner: box.dataset.owner, rootPid: Number(box.dataset.root) });
        else selected.delete(k);
      };
      const boxes = [...document.querySelectorAll('input.pick')];
      for (const b of boxes) b.addEventListener('change', () => { pick(b, b.checked); syncBar(); });
      const all = document.getElementById('pick-all');
      all.checked = boxes.length > 0 && boxes.every((b) => b.checked);
      all.addEventListener('change', () => { for (const b of boxes) pick(b, all.checked); syncBar(); });
      syncBar();
    }
  }
  // No redraw while a bulk action waits for its confirmation.
  return { render, busy: () => pending !== null };
}

// ---- one session ----

function sessionHeader(d, which) {
  const s = d.session;
  const status = s.outcome || (s.killedAt ? 'killed' : s.status);
  const base = `${esc(d.owner)}/${d.rootPid}`;
  const q = `owner=${encodeURIComponent(d.owner)}&root=${d.rootPid}`;
  return `<h1>Session ${d.rootPid} ${pill(status)}</h1>
    <dl class="facts">
      <div><dt>Owner</dt><dd class="mono">${esc(d.owner)}</dd></div>
      <div><dt>Orchestration</dt><dd>${esc(s.ostcId)} <span class="mono dim">${esc(s.ostcHash)}</span></dd></div>
      <div><dt>Registry</dt><dd class="mono">${esc(s.xrc729)}</dd></div>
      <div><dt>Start step</dt><dd>${esc(s.startStep)}</dd></div>
      <div><dt>Created</dt><dd>${time(s.createdAt)}</dd></div>
      <div><dt>Live processes</dt><dd id="live-count">${esc(s.live)}</dd></div>
      ${s.finishedAt ? `<div><dt>Finished</dt><dd>${time(s.finishedAt)}</dd></div>` : ''}
      ${s.killedAt ? `<div><dt>Killed</dt><dd>${time(s.killedAt)} (${esc(s.killReason)})</dd></div>` : ''}
    </dl>
    <nav class="tabs" aria-label="Session views">
      <a href="#/session/${base}" ${which === 'flow' ? 'aria-current="page"' : ''}>Flow</a>
      <a href="#/orchestration/${base}" ${which === 'orch' ? 'aria-current="page"' : ''}>Orchestration</a>
      <a href="/ui/api/timeline?${q}&download=1" download>Export timeline (JSON)</a>
      <a href="/ui/api/timeline?${q}&format=ndjson&download=1" download>Export timeline (NDJSON)</a>
    </nav>`;
}

function killBar(d) {
  const live = d.session.status === 'live' && !d.session.killedAt;
  if (config.actions === 'off') return '<p class="dim">Read-only: start the replica with --rpc-listen (permits) or --ui-actions (loopback) to act.</p>';
  if (!live) return '';
  return `<div class="actions" id="kill-bar">
      <button type="button" id="kill" class="danger">Kill session ${d.rootPid}</button>
      <span id="kill-confirm" hidden>
        <button type="button" id="kill-yes" class="danger">Confirm kill</button>
        <button type="button" id="kill-no">Cancel</button>
      </span></div>`;
}

function startForm(d) {
  if (config.actions !== 'direct') return '';
  return `<details class="start"><summary>Start a session of ${esc(d.session.ostcId)}</summary><form class="wake" id="st-form">
    <label>Step <input id="st-step" value="${esc(d.session.startStep)}"></label> <label>Start key <input id="st-key" placeholder="new"></label>
    <label for="st-payload">Payload (a JSON object)</label><textarea id="st-payload" rows="2" spellcheck="false">{}</textarea>
    <button type="submit" id="st-go">Start</button></form></details>`;
}

function wireStart(d) {
  const f = document.getElementById('st-form');
  if (!f) return;
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const v = (id) => document.getElementById(id).value.trim();
    const text = v('st-payload') || '{}';
    if (!isObjectText(text)) return toast('the start payload must be a JSON object', true);
    try {
      const r = await act.start(`{"owner":${JSON.stringify(d.owner)},"rootPid":${d.rootPid},"step":${JSON.stringify(v('st-step'))},"key":${JSON.stringify(v('st-key'))},"payload":${text}}`);
      toast(`session ${r.rootPid} started (key ${r.startKey})`);
      location.hash = `#/session/${r.owner}/${r.rootPid}`;
    } catch (e) {
      toast(String(e.message || e), true);
    }
  });
}

function wireKill(d, after) {
  const k = document.getElementById('kill');
  if (!k) return;
  const box = document.getElementById('kill-confirm');
  k.addEventListener('click', () => {
    box.hidden = false;
    document.getElementById('kill-yes').focus();
  });
  document.getElementById('kill-no').addEventListener('click', () => {
    box.hidden = true;
    k.focus();
  });
  document.getElementById('kill-yes').addEventListener('click', async () => {
    box.hidden = true;
    try {
      toast(await act.kill(config.actions, d.owner, d.rootPid));
    } catch (e) {
      toast(String(e.message || e), true);
    }
    after();
  });
}

function processPanel(d, pid) {
  const p = d.processes.find((x) => x.pid === pid);
  if (!p) return `<p class="dim">Select a process in the graph or the table.</p>`;
  const join = d.joins.find((j) => j.pid === pid);
  const hist = d.history.filter((h) => h.pid === pid);
  const row = (k, v) => (v === '' || v === undefined ? '' : `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`);
  const aborted = p.status === 'aborted' ? (p.abortReason || (p.killedAt ? 'killed' : 'hard error')) : '';
  const waking = p.status === 'waiting' && !(p.target && !p.closed) && config.actions !== 'off';
  return `<h2 id="proc-title">Process ${esc(pid)} · ${esc(p.resumeStep)} ${pill(p.status)}</h2>
    <dl class="facts">
      ${row('Parent', esc(p.parentPid || '–'))}
      ${row('Join group', esc(p.joinGroupId))}
      ${row('Last evaluation', { true: 'valid', false: 'invalid' }[p.lastEvalValid] || '–')}
      ${row('Paused', p.paused ? 'yes' : 'no')}
      ${row('Due (nextWakeAt)', p.nextWakeAt ? `${time(p.nextWakeAt)} <span class="dim">(${rel(p.nextWakeAt, d.now)})</span>` : '')}
      ${row('Lease', p.lease ? `token ${esc(p.lease)} until ${time(p.leaseUntil)} by ${esc(p.worker)}` : 'none')}
      ${row('Created', time(p.createdAt))}
      ${row('Updated', time(p.updatedAt))}
      ${aborted ? row('Abort reason', `<span class="bad" id="abort-reason">${esc(aborted)}</span>`) : ''}
    </dl>
    ${p.target ? `<h3>Join</h3><dl class="facts">
      ${row('Outcome', join ? pill(join.status) : '')}
      ${row('k', esc(p.k))}${row('Policy', esc(p.policy))}
      ${row('Expects', esc((p.expect || []).join(', ')))}${row('Got', esc((join && join.got || []).join(', ') || '–'))}
      ${row('Fail', `<code>${esc(p.fail || '{}')}</code>`)}</dl>
      <h4>Inbox</h4><pre class="json" id="inbox"></pre>` : ''}
    <h3>Payload</h3><pre class="json" id="payload"></pre>
    ${waking ? `<form class="wake" id="wake-form">
      <label for="wake-payload">Wake ${esc(pid)} with payload (a JSON object merged into its payload; keys starting with _ are dropped)</label>
      <textarea id="wake-payload" rows="3" spellcheck="false">{}</textarea>
      <button type="submit" id="wake">Wake ${esc(pid)}</button></form>` : ''}
    <h3>History</h3>
    ${hist.length ? `<table class="compact"><thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">Replica</th><th scope="col">Result</th><th scope="col">Children</th></tr></thead><tbody>
      ${hist.map((h) => `<tr><td>${time(h.at)}</td><td>${esc(h.event || 'commit')}</td><td class="mono">${esc(h.worker || '')}</td>
        <td>${esc(h.event ? (h.by || h.outcome) : h.status + ({ 1: ' valid', 0: ' invalid' }[h.valid] || '') + (h.abortReason ? ': ' + h.abortReason : ''))}</td>
        <td>${esc((h.children || []).join(', '))}</td></tr>`).join('')}</tbody></table>` : '<p class="dim">no proc_steps entry yet</p>'}`;
}

// mountPayloads renders the process's payload and inbox (lazily: a large
// payload renders a bounded part at a time).
function mountPayloads(d, pid) {
  const p = d.processes.find((x) => x.pid === pid);
  if (!p) return;
  for (const [id, text] of [['payload', p.resumePlain], ['inbox', p.inbox]]) {
    const el = document.getElementById(id);
    if (el) mountJSON(el, text || '{}');
  }
}

function wireWake(d, pid, after) {
  const f = document.getElementById('wake-form');
  if (!f) return;
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = document.getElementById('wake-payload').value;
    if (text.trim() && !isObjectText(text)) {
      toast('the wake payload must be a JSON object, e.g. {"approved": true}', true);
      return;
    }
    try {
      toast(await act.wake(config.actions, d.owner, pid, text));
    } catch (e) {
      toast(String(e.message || e), true);
    }
    after();
  });
}

function took(ms) {
  if (ms === undefined || ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function timelineTable(entries) {
  return `<table class="compact timeline"><caption>Timeline (${entries.length} events)</caption>
    <thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">Process</th><th scope="col">Step</th><th scope="col">Replica</th><th scope="col">Took</th><th scope="col">Detail</th></tr></thead>
    <tbody>${entries.map((e) => `<tr class="t-${esc(e.type)}" data-type="${esc(e.type)}" data-pid="${esc(e.pid || '')}"><td>${time(e.at)}</td><td>${esc(e.type)}</td><td>${esc(e.pid || '')}</td><td>${esc(e.step || '')}</td>
      <td class="mono" data-col="worker">${esc(e.worker || '')}</td>
      <td class="num" data-col="took" ${e.durationMs === undefined && (e.type === 'executed' || e.type === 'aborted') ? 'title="claimed by another replica: Redis keeps no claim time"' : ''}>${took(e.durationMs)}</td>
      <td>${esc(e.detail || '')}${e.source === 'replica' ? ' <span class="dim">(this replica)</span>' : ''}
        ${e.output ? `<details class="output"><summary>payload handed on${e.outputCut ? ' (first 4 KiB)' : ''}</summary><code data-col="output">${esc(e.output)}</code></details>` : ''}</td></tr>`).join('')}</tbody></table>`;
}

function sessionView(owner, root, pid) {
  nav('sessions');
  const q = `owner=${encodeURIComponent(owner)}&root=${encodeURIComponent(root)}`;
  let shownPid = null;
  let shownStatus = null;
  let headerKey = null;
  main.innerHTML = `<div id="s-head"></div><div id="s-kill"></div>
    <section aria-labelledby="flow-h"><h2 id="flow-h">Flow</h2>${toolbarHTML('zoom the flow')}<div class="graph-wrap" id="flow" tabindex="0" aria-label="process graph: + − 0 zoom and fit, arrows pan"></div>
      <details class="legend"><summary>Legend</summary><p>Boxes are processes (step, pid, status). Solid grey arrows: spawned; blue dotted: an expected producer of a join; solid blue: its delivery reached the join; faint dashed: the process that opened the join.</p></details>
      <div id="procs"></div></section>
    <section id="step-wake"></section>
    <section aria-labelledby="proc-title" id="panel" class="panel"></section>
    <section id="timeline"></section>`;
  const refresh = () => current && current.render();
  let stepsKey = null;
  const flow = document.getElementById('flow');
  const pz = panZoom(flow, flow.previousElementSibling);
  async function render() {
    const [d, tl] = await Promise.all([api('/ui/api/session?' + q), api('/ui/api/timeline?' + q)]);
    const key = `${d.session.status}/${d.session.killedAt || ''}/${d.session.live}`;
    if (key !== headerKey) {
      document.getElementById('s-head').innerHTML = sessionHeader(d, 'flow');
      document.getElementById('s-kill').innerHTML = killBar(d) + startForm(d);
      wireKill(d, refresh);
      wireStart(d);
      headerKey = key;
    }
    const steps = config.actions === 'direct' ? [...new Set(d.processes.filter((p) => p.status === 'waiting' && !p.target).map((p) => p.resumeStep))] : [];
    if (steps.join() !== stepsKey) {
      stepsKey = steps.join();
      document.getElementById('step-wake').innerHTML = steps.length ? stepSection(steps) : '';
      wireStep(q, api, async (step, text) => { toast(await act.wakeStep(d.owner, d.rootPid, step, text)); refresh(); }, (e) => toast(String(e.message || e), true));
    }
    const sel = pid || null;
    flow.innerHTML = drawGraph(d.graph, {
      href: (n) => `#/session/${owner}/${root}/${n.id}`, selected: sel, label: `process graph of session ${root}`,
    });
    pz.apply();
    document.getElementById('procs').innerHTML = `<table class="compact procs"><caption>Processes</caption>
      <thead><tr><th scope="col">Process</th><th scope="col">Step</th><th scope="col">Status</th><th scope="col">Parent</th><th scope="col">Join</th></tr></thead>
      <tbody>${d.processes.map((p) => {
        const j = d.joins.find((x) => x.pid === p.pid);
        return `<tr data-pid="${esc(p.pid)}" data-status="${esc(p.status)}"><td><a href="#/session/${esc(owner)}/${esc(root)}/${esc(p.pid)}">${esc(p.pid)}</a></td>
          <td>${esc(p.resumeStep)}</td><td>${pill(p.status)}</td><td>${esc(p.parentPid)}</td>
          <td>${j ? `${esc(j.status)} k=${j.k} got ${esc(j.got.join(',') || '–')}` : ''}</td></tr>`;
      }).join('')}</tbody></table>`;
    const p = sel && d.processes.find((x) => x.pid === sel);
    const st = p ? p.status + '/' + p.updatedAt : null;
    if (sel !== shownPid || st !== shownStatus) {
      document.getElementById('panel').innerHTML = processPanel(d, sel);
      mountPayloads(d, sel);
      wireWake(d, sel, refresh);
      shownPid = sel;
      shownStatus = st;
    }
    document.getElementById('timeline').innerHTML = timelineTable(tl);
  }
  // Do not redraw under an operator who is typing a payload or confirming.
  const busy = () => {
    const a = document.activeElement;
    return (a && (a.id === 'wake-payload' || !!a.closest('#sw-form, #st-form'))) || !(document.getElementById('kill-confirm') || { hidden: true }).hidden;
  };
  return { render, busy };
}

function orchestrationView(owner, root) {
  nav('sessions');
  const q = `owner=${encodeURIComponent(owner)}&root=${encodeURIComponent(root)}`;
  main.innerHTML = `<div id="s-head"></div><section aria-labelledby="orch-h"><h2 id="orch-h">Orchestration</h2>
    <p class="dim">Steps of the OSTC with this session's processes counted on them. Green: onValid spawns; red dashed: onInvalid; blue dotted: join producers (labelled with their "when").</p>
    ${toolbarHTML('zoom the orchestration')}<div class="graph-wrap" id="orch" tabindex="0" aria-label="orchestration graph: + − 0 zoom and fit, arrows pan"></div></section>`;
  const wrap = document.getElementById('orch');
  const pz = panZoom(wrap, wrap.previousElementSibling);
  async function render() {
    const [d, o] = await Promise.all([api('/ui/api/session?' + q), api('/ui/api/orchestration?' + q)]);
    document.getElementById('s-head').innerHTML = sessionHeader(d, 'orch');
    wrap.innerHTML = drawGraph(o.graph, { label: `orchestration ${o.ostcId}` });
    pz.apply();
  }
  return { render, busy: () => false };
}

// ---- overview ----

function overviewView() {
  nav('overview');
  main.innerHTML = '<h1>Overview</h1><div id="ov"></div>';
  const capNote = (capped, what) => (capped ? ` <span class="warn" data-capped="1">(capped: ${esc(what)})</span>` : '');
  const kv = (rows) => `<table class="compact kv"><tbody>${rows.map(([k, v, key]) =>
    `<tr><th scope="row">${esc(k)}</th><td data-key="${esc(key || k)}">${v}</td></tr>`).join('')}</tbody></table>`;
  async function render() {
    const d = await api('/ui/api/overview');
    const s = d.sessions, t = d.throughput, q = d.due;
    const statuses = Object.entries(s.byStatus).map(([k, n]) =>
      `<a class="stat" href="#/sessions?status=${encodeURIComponent(k)}" data-status="${esc(k)}">${pill(k)} <b>${n}</b></a>`).join(' ');
    const outcomes = Object.entries(s.byOutcome);
    const errs = Object.entries(d.errors || {});
    document.getElementById('ov').innerHTML = `
      <section aria-labelledby="ov-s"><h2 id="ov-s">Sessions</h2>
        <p class="stats" id="ov-status">${statuses} · paused <b data-key="paused">${s.paused}</b></p>
        <p class="dim">${s.scanned} sessions of ${s.owners} owners counted${capNote(s.capped, `the newest ${s.cap} only`)}.
          ${outcomes.length ? '' : 'No session records an outcome.'}</p>
        ${outcomes.length ? `<p class="stats" id="ov-outcome">${outcomes.map(([k, n]) => `${pill(k)} <b>${n}</b>`).join(' ')}</p>` : ''}
      </section>
      <section aria-labelledby="ov-t"><h2 id="ov-t">Throughput</h2>${kv([
        ['Steps committed, last ' + t.windowSec + ' s', `${t.steps}`, 'steps'],
        ['Steps per second', t.perSec.toFixed(2), 'perSec'],
        ['Histories read', `${t.sessionsRead}${capNote(t.capped, 'sessions with a step in the window beyond the read limit')}`, 'histories'],
      ])}</section>
      <section aria-labelledby="ov-d"><h2 id="ov-d">Due queue</h2>${kv([
        ['Sessions due now', `${q.sessions}${capNote(q.capped, 'read limit reached')}`, 'dueSessions'],
        ['Steps due now', `${q.steps}`, 'dueSteps'],
        ['Oldest due step', q.oldestAt ? `${time(q.oldestAt)} <span class="dim">(waiting ${(q.oldestAgeMs / 1000).toFixed(1)} s)</span>` : '–', 'oldest'],
      ])}</section>
      <section aria-labelledby="ov-r"><h2 id="ov-r">Replicas</h2>
        <table class="compact" id="ov-replicas"><thead><tr><th scope="col">Replica</th><th scope="col">Steps, last ${t.windowSec} s</th><th scope="col">Sessions held</th><th scope="col">Process leases</th></tr></thead>
        <tbody>${d.replicas.map((r) => `<tr data-replica="${esc(r.name)}"><td class="mono">${esc(r.name)}</td><td class="num">${r.steps}</td><td class="num">${r.rootLeases}</td><td class="num">${r.procLeases}</td></tr>`).join('')
          || '<tr><td colspan="4" class="dim">no replica committed a step or holds a lease</td></tr>'}</tbody></table>
        <p class="dim">Leases counted in ${d.leases.liveRead} live sessions${capNote(d.leases.capped, 'more sessions are live')}.</p>
      </section>
      <section aria-labelledby="ov-m"><h2 id="ov-m">Redis memory</h2>
        ${d.redis && d.redis.length ? `<table class="compact" id="ov-redis"><thead><tr><th scope="col">Server</th><th scope="col">Used</th><th scope="col">Peak</th><th scope="col">Max</th><th scope="col">Policy</th><th scope="col">Fragmentation</th></tr></thead>
          <tbody>${d.redis.map((m) => `<tr><td class="mono">${esc(m.node)}</td><td data-key="used">${esc(m.error || m.usedMemoryHuman)}</td><td>${esc(m.peakHuman)}</td>
            <td>${m.maxMemory === '0' ? 'no limit' : esc(m.maxMemoryHuman)}</td><td>${esc(m.policy)}</td><td>${esc(m.fragmentation)}</td></tr>`).join('')}</tbody></table>` : '<p class="dim">not available</p>'}
      </section>
      ${errs.length ? `<section><h2>Not read</h2><ul class="bad">${errs.map(([k, v]) => `<li>${esc(k)}: ${esc(v)}</li>`).join('')}</ul></section>` : ''}`;
  }
  return { render, busy: () => false };
}

function indexView() {
  nav('index');
  main.innerHTML = '<h1>Chain index</h1><div id="idx"></div>';
  async function render() {
    const d = await api('/ui/api/index');
    if (!d.following) {
      document.getElementById('idx').innerHTML = '<p>This replica follows no chain (start it with --rpc and --config).</p>';
      return;
    }
    const fmt = (v) => (v !== null && typeof v === 'object' ? Object.entries(v).map(([k, x]) => `${k}: ${x}`).join(', ') || '–' : String(v));
    document.getElementById('idx').innerHTML = `<table class="compact kv"><tbody>${d.keys.filter((k) => k in d.status)
      .map((k) => `<tr><th scope="row">${esc(k)}</th><td class="mono" data-key="${esc(k)}">${esc(fmt(d.status[k]))}</td></tr>`).join('')}</tbody></table>`;
  }
  return { render, busy: () => false };
}

// ---- routing and live refresh ----

async function show() {
  const { parts, query } = parseHash();
  switch (parts[0]) {
    case 'session':
      current = sessionView(parts[1], parts[2], parts[3]);
      break;
    case 'orchestration':
      current = orchestrationView(parts[1], parts[2]);
      break;
    case 'index':
      current = indexView();
      break;
    case 'overview':
      current = overviewView();
      break;
    default:
      current = sessionsView(query);
  }
  await draw(true);
}

let drawing = false;
let again = false;
async function draw(force) {
  if (!current || (!force && current.busy())) return;
  if (drawing) {
    again = true;
    return;
  }
  drawing = true;
  const view = current;
  try {
    await view.render();
    main.dataset.ready = '1';
  } catch (e) {
    if (view === current) main.insertAdjacentHTML('afterbegin', `<p class="bad" role="alert">${esc(e.message || e)}</p>`);
  } finally {
    drawing = false;
  }
  if (again) {
    again = false;
    draw(false);
  }
}

let timer = null;
function soon() {
  clearTimeout(timer);
  timer = setTimeout(() => draw(false), 250);
}

function listen() {
  const live = document.getElementById('live');
  const es = new EventSource('/ui/api/events');
  es.addEventListener('open', () => (live.textContent = 'live'));
  es.addEventListener('error', () => (live.textContent = 'reconnecting…'));
  es.addEventListener('change', soon);
  es.addEventListener('tick', soon);
}

async function start() {
  try {
    config = await api('/ui/api/config');
  } catch (e) {
    main.innerHTML = `<p class="bad" role="alert">${esc(e.message)}</p>`;
    return;
  }
  const mode = document.getElementById('mode');
  mode.textContent = { direct: 'actions: direct (operator)', permit: 'actions: wallet permits', off: 'read-only' }[config.actions];
  window.addEventListener('hashchange', () => {
    main.dataset.ready = '';
    show();
  });
  listen();
  await show();
}

start();
