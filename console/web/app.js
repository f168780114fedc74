// The xgr operator console: a hash-routed page over the console API.
//   #/sessions?owner=&status=&sort=&order=&offset=  the sessions list
//   #/session/OWNER/ROOT[/PID]  flow view, process, timeline
//   #/orchestration/OWNER/ROOT  the OSTC graph with the processes overlaid
//   #/overview  counts, throughput, due queue, replicas, Redis memory
//   #/index  the chain index
import { $, esc, time, rel, short, pill, stamp, facts, thead, mono } from './dom.js';
import { drawGraph } from './graph.js';
import { panZoom, graphHTML } from './pan.js';
import { stepSection, wireStep } from './stepwake.js';
import { mountJSON, isObjectText } from './json.js';
import { showBundle } from './bundle.js';
import * as act from './actions.js';

const main = $('main');
let config = { actions: 'off', statuses: [], outcomes: [], sortKeys: [] };
let current = null; // { render(), busy() } of the view shown
const PAGE = 25;

const api = (path) => act.request(path);

function toast(msg, bad) {
  const t = $('toast');
  t.textContent = msg;
  t.className = bad ? 'show bad' : 'show';
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.className = ''), 6000);
}

const fail = (e) => toast(String(e.message || e), true);

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
const localInput = (ms) => (ms ? stamp(ms, 'T') : '');

const TEXT = ['owner', 'status', 'outcome', 'q', 'ostc', 'from', 'to'];
const opts = (l) => l.map((s) => `<option>${esc(s)}</option>`).join('');

function sessionsView(query) {
  nav('sessions');
  // The list's query: text fields (TEXT, as in the form), sort, order, offset.
  const q = Object.fromEntries(TEXT.map((k) => [k, query.get(k) || '']));
  Object.assign(q, { sort: query.get('sort') || 'created', order: query.get('order') || 'desc', offset: Number(query.get('offset') || 0) });
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
      ${confirmHTML('bulk', 'Confirm')}</div>` : ''}
    <div id="list" aria-live="polite"></div>`;
  const form = $('filters');
  for (const k of ['status', 'outcome', 'sort', 'order', 'q', 'ostc']) form[k].value = q[k];
  form.from.value = localInput(q.from);
  form.to.value = localInput(q.to);
  onSubmit('filters', () => {
    // The inputs have whole seconds: "to" takes in its whole second.
    const ms = (v, end) => (v ? String(new Date(v).getTime() + (end ? 999 : 0)) : '');
    const v = Object.fromEntries(['owner', 'status', 'outcome', 'sort', 'order', 'q', 'ostc'].map((k) => [k, form[k].value.trim()]));
    location.hash = link({ ...v, offset: 0, from: ms(form.from.value), to: ms(form.to.value, true) });
  });
  // Selected sessions ("owner/root"), kept across refreshes of the list.
  const selected = new Map();
  const bulkOn = config.actions === 'direct';
  let pending;
  const bar = $('bulk-bar');
  const syncBar = () => {
    if (!bar) return;
    $('bulk-count').textContent = `${selected.size} selected`;
    for (const b of bar.querySelectorAll('[data-bulk]')) b.disabled = selected.size === 0;
  };
  if (bar) {
    const ask = wireConfirm('bulk', async () => {
      const action = pending;
      try {
        const r = await act.bulk(action, [...selected.values()]);
        const bad = r.sessions.filter((x) => !x.ok);
        toast(`${action}: ${r.done} of ${r.sessions.length} sessions done` + (bad.length ? '; ' + bad.map((x) => `${x.rootPid}: ${x.error}`).join('; ') : ''), bad.length > 0);
        selected.clear();
      } catch (e) {
        fail(e);
      }
      syncBar();
      draw(true);
    });
    for (const b of bar.querySelectorAll('[data-bulk]')) {
      b.addEventListener('click', () => {
        pending = b.dataset.bulk;
        const ids = [...selected.values()].map((x) => x.rootPid).sort((a, b) => a - b);
        $('bulk-what').textContent = `${pending} ${ids.length} session${ids.length === 1 ? '' : 's'} (${ids.join(', ')})?`;
        ask();
      });
    }
  }
  const cols = [['rootPid', 'Session'], ['owner', 'Owner'], ['status', 'Status'], ['live', 'Live'], ['startStep', 'Start step'],
    ['ostcId', 'Orchestration'], ['created', 'Created'], ['updated', 'Updated']];
  async function render() {
    const p = new URLSearchParams({ sort: q.sort, order: q.order, offset: q.offset, limit: PAGE });
    for (const k of TEXT) if (q[k]) p.set(k, q[k]);
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
    $('list').innerHTML = `<table class="sessions"><caption>${data.total} sessions${data.total ? `, ${q.offset + 1}–${last} shown` : ''} · ${data.scanned} searched${data.capped ? ' <span class="warn" data-capped="1">(capped: older sessions were not read)</span>' : ''}</caption>
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
      const all = $('pick-all');
      all.checked = boxes.length > 0 && boxes.every((b) => b.checked);
      all.addEventListener('change', () => { for (const b of boxes) pick(b, all.checked); syncBar(); });
      syncBar();
    }
  }
  // No redraw while a bulk action waits for its confirmation.
  return { render, busy: () => confirming('bulk') };
}

// ---- one session ----

function sessionHeader(d, which) {
  const s = d.session;
  const status = s.outcome || (s.killedAt ? 'killed' : s.status);
  const base = `${esc(d.owner)}/${d.rootPid}`;
  const q = sq(d.owner, d.rootPid);
  return `<h1>Session ${d.rootPid} ${pill(status)}</h1>
    ${facts([['Owner', mono(d.owner)], ['Orchestration', `${esc(s.ostcId)} <span class="mono dim">${esc(s.ostcHash)}</span>`],
      ['Registry', mono(s.xrc729)], ['Start step', esc(s.startStep)], ['Created', time(s.createdAt)],
      ['Live processes', `<span id="live-count">${esc(s.live)}</span>`], ['Finished', s.finishedAt && time(s.finishedAt)],
      ['Killed', s.killedAt && `${time(s.killedAt)} (${esc(s.killReason)})`],
      ['Stalled', s.stalled && `${time(s.stalledAt)}: ${esc(s.stalled)} (replica ${esc(s.stalledBy)}, ${esc(s.stalls)} in a row; retried later)`]])}
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
      <button type="button" id="kill" class="danger">Kill session ${d.rootPid}</button>${confirmHTML('kill', 'Confirm kill')}</div>`;
}

// A confirmation (ids PREFIX-confirm, -what, -yes, -no): wireConfirm's
// result shows it; yes runs onYes, no hides it (focus back).
const confirmHTML = (prefix, yes) => `<span id="${prefix}-confirm" hidden><span id="${prefix}-what"></span>
  <button type="button" id="${prefix}-yes" class="danger">${yes}</button> <button type="button" id="${prefix}-no">Cancel</button></span>`;
const confirming = (prefix) => !($(prefix + '-confirm') || { hidden: true }).hidden;

function wireConfirm(prefix, onYes, back) {
  const box = $(prefix + '-confirm'), yes = $(prefix + '-yes');
  $(prefix + '-no').addEventListener('click', () => { box.hidden = true; back?.focus(); });
  yes.addEventListener('click', () => { box.hidden = true; onYes(); });
  return () => { box.hidden = false; yes.focus(); };
}

function startForm(d) {
  if (config.actions !== 'direct') return '';
  return `<details class="start"><summary>Start a session of ${esc(d.session.ostcId)}</summary><form class="wake" id="st-form">
    <label>Step <input id="st-step" value="${esc(d.session.startStep)}"></label> <label>Start key <input id="st-key" placeholder="new"></label>
    <label for="st-payload">Payload (a JSON object)</label><textarea id="st-payload" rows="2" spellcheck="false">{}</textarea>
    <button type="submit" id="st-go">Start</button></form></details>`;
}

// onSubmit runs fn when the form id (if shown) is submitted.
const onSubmit = (id, fn) => $(id)?.addEventListener('submit', (ev) => { ev.preventDefault(); fn(); });

function wireStart(d) {
  onSubmit('st-form', async () => {
    const v = (id) => $(id).value.trim();
    const text = v('st-payload') || '{}';
    if (!isObjectText(text)) return toast('the start payload must be a JSON object', true);
    try {
      const r = await act.start(`{"owner":${JSON.stringify(d.owner)},"rootPid":${d.rootPid},"step":${JSON.stringify(v('st-step'))},"key":${JSON.stringify(v('st-key'))},"payload":${text}}`);
      toast(`session ${r.rootPid} started (key ${r.startKey})`);
      location.hash = `#/session/${r.owner}/${r.rootPid}`;
    } catch (e) {
      fail(e);
    }
  });
}

function wireKill(d, after) {
  const k = $('kill');
  if (!k) return;
  k.addEventListener('click', wireConfirm('kill', async () => {
    await act.kill(config.actions, d.owner, d.rootPid).then(toast, fail);
    after();
  }, k));
}

function processPanel(d, pid) {
  const p = d.processes.find((x) => x.pid === pid);
  if (!p) return `<p class="dim">Select a process in the graph or the table.</p>`;
  const join = d.joins.find((j) => j.pid === pid);
  const hist = d.history.filter((h) => h.pid === pid);
  const aborted = p.status === 'aborted' ? (p.abortReason || (p.killedAt ? 'killed' : 'hard error')) : '';
  const waking = p.status === 'waiting' && !(p.target && !p.closed) && config.actions !== 'off';
  return `<h2 id="proc-title">Process ${esc(pid)} · ${esc(p.resumeStep)} ${pill(p.status)}</h2>
    ${facts([['Parent', esc(p.parentPid || '–')], ['Join group', esc(p.joinGroupId)],
      ['Last evaluation', { true: 'valid', false: 'invalid' }[p.lastEvalValid] || '–'], ['Paused', p.paused ? 'yes' : 'no'],
      ['Due (nextWakeAt)', p.nextWakeAt ? `${time(p.nextWakeAt)} <span class="dim">(${rel(p.nextWakeAt, d.now)})</span>` : ''],
      ['Lease', p.lease ? `token ${esc(p.lease)} until ${time(p.leaseUntil)} by ${esc(p.worker)}` : 'none'],
      ['Created', time(p.createdAt)], ['Updated', time(p.updatedAt)], ['Abort reason', aborted && `<span class="bad" id="abort-reason">${esc(aborted)}</span>`]])}
    ${p.target ? `<h3>Join</h3>${facts([['Outcome', join ? pill(join.status) : ''], ['k', esc(p.k)], ['Policy', esc(p.policy)],
      ['Expects', esc((p.expect || []).join(', '))], ['Got', esc((join && join.got || []).join(', ') || '–')], ['Fail', `<code>${esc(p.fail || '{}')}</code>`]])}
      <h4>Inbox</h4><pre class="json" id="inbox"></pre>` : ''}
    <h3>Payload</h3><pre class="json" id="payload"></pre>
    ${waking ? `<form class="wake" id="wake-form">
      <label for="wake-payload">Wake ${esc(pid)} with payload (a JSON object merged into its payload; keys starting with _ are dropped)</label>
      <textarea id="wake-payload" rows="3" spellcheck="false">{}</textarea>
      <button type="submit" id="wake">Wake ${esc(pid)}</button></form>` : ''}
    ${p.status === 'done' || p.status === 'aborted' ? '<h3>Log bundle</h3><div id="bundle"></div>' : ''}
    <h3>History</h3>
    ${hist.length ? `<table class="compact">${thead(['At', 'Event', 'Replica', 'Result', 'Children'])}<tbody>
      ${hist.map((h) => `<tr><td>${time(h.at)}</td><td>${esc(h.event || 'commit')}</td><td class="mono">${esc(h.worker)}</td>
        <td>${esc(h.event ? (h.by || h.outcome) : h.status + ({ 1: ' valid', 0: ' invalid' }[h.valid] || '') + (h.abortReason ? ': ' + h.abortReason : ''))}</td>
        <td>${esc((h.children || []).join(', '))}</td></tr>`).join('')}</tbody></table>` : '<p class="dim">no proc_steps entry yet</p>'}`;
}

// mountPayloads renders the process's payload and inbox (lazily: a large
// payload renders a bounded part at a time).
function mountPayloads(d, pid) {
  const p = d.processes.find((x) => x.pid === pid);
  if (!p) return;
  for (const [id, text] of [['payload', p.resumePlain], ['inbox', p.inbox]]) {
    const el = $(id);
    if (el) mountJSON(el, text || '{}');
  }
}

function wireWake(d, pid, after) {
  onSubmit('wake-form', async () => {
    const text = $('wake-payload').value;
    if (text.trim() && !isObjectText(text)) {
      toast('the wake payload must be a JSON object, e.g. {"approved": true}', true);
      return;
    }
    await act.wake(config.actions, d.owner, pid, text).then(toast, fail);
    after();
  });
}

function took(ms) {
  if (ms === undefined || ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function timelineTable(entries) {
  return `<table class="compact timeline"><caption>Timeline (${entries.length} events)</caption>
    ${thead(['At', 'Event', 'Process', 'Step', 'Replica', 'Took', 'Detail'])}
    <tbody>${entries.map((e) => `<tr class="t-${esc(e.type)}" data-type="${esc(e.type)}" data-pid="${esc(e.pid)}"><td>${time(e.at)}</td><td>${esc(e.type)}</td><td>${esc(e.pid)}</td><td>${esc(e.step)}</td>
      <td class="mono" data-col="worker">${esc(e.worker)}</td>
      <td class="num" data-col="took" ${e.durationMs === undefined && (e.type === 'executed' || e.type === 'aborted') ? 'title="claimed by another replica: Redis keeps no claim time"' : ''}>${took(e.durationMs)}</td>
      <td>${esc(e.detail)}${e.source === 'replica' ? ' <span class="dim">(this replica)</span>' : ''}
        ${e.output ? `<details class="output"><summary>payload handed on${e.outputCut ? ' (first 4 KiB)' : ''}</summary><code data-col="output">${esc(e.output)}</code></details>` : ''}</td></tr>`).join('')}</tbody></table>`;
}

// sq is the query naming a session.
const sq = (owner, root) => `owner=${encodeURIComponent(owner)}&root=${encodeURIComponent(root)}`;

function sessionView(owner, root, pid) {
  nav('sessions');
  const q = sq(owner, root);
  let shown = null; // the process the panel shows: pid/status/updated
  let bundled = false; // its log bundle is shown (else it is asked again)
  let headerKey = null;
  main.innerHTML = `<div id="s-head"></div><div id="s-kill"></div>
    <section aria-labelledby="flow-h"><h2 id="flow-h">Flow</h2>${graphHTML('flow', 'process')}
      <details class="legend"><summary>Legend</summary><p>Boxes are processes (step, pid, status). Solid grey arrows: spawned; blue dotted: an expected producer of a join; solid blue: its delivery reached the join; faint dashed: the process that opened the join.</p></details>
      <div id="procs"></div></section>
    <section id="step-wake"></section>
    <section aria-labelledby="proc-title" id="panel" class="panel"></section>
    <section id="timeline"></section>`;
  const refresh = () => current && current.render();
  let stepsKey = null;
  const flow = $('flow');
  const pz = panZoom(flow);
  async function render() {
    const [d, tl] = await Promise.all([api('/ui/api/session?' + q), api('/ui/api/timeline?' + q)]);
    const key = `${d.session.status}/${d.session.killedAt || ''}/${d.session.live}`;
    if (key !== headerKey) {
      $('s-head').innerHTML = sessionHeader(d, 'flow');
      $('s-kill').innerHTML = killBar(d) + startForm(d);
      wireKill(d, refresh);
      wireStart(d);
      headerKey = key;
    }
    const steps = config.actions === 'direct' ? [...new Set(d.processes.filter((p) => p.status === 'waiting' && !p.target).map((p) => p.resumeStep))] : [];
    if (steps.join() !== stepsKey) {
      stepsKey = steps.join();
      $('step-wake').innerHTML = steps.length ? stepSection(steps) : '';
      wireStep(q, api, async (step, text) => { toast(await act.wakeStep(d.owner, d.rootPid, step, text)); refresh(); }, fail);
    }
    const sel = pid || null;
    flow.innerHTML = drawGraph(d.graph, {
      href: (n) => `#/session/${owner}/${root}/${n.id}`, selected: sel, label: `process graph of session ${root}`,
    });
    pz.apply();
    $('procs').innerHTML = `<table class="compact procs"><caption>Processes</caption>
      ${thead(['Process', 'Step', 'Status', 'Parent', 'Join'])}
      <tbody>${d.processes.map((p) => {
        const j = d.joins.find((x) => x.pid === p.pid);
        return `<tr data-pid="${esc(p.pid)}" data-status="${esc(p.status)}"><td><a href="#/session/${esc(owner)}/${esc(root)}/${esc(p.pid)}">${esc(p.pid)}</a></td>
          <td>${esc(p.resumeStep)}</td><td>${pill(p.status)}</td><td>${esc(p.parentPid)}</td>
          <td>${j ? `${esc(j.status)} k=${j.k} got ${esc(j.got.join(',') || '–')}` : ''}</td></tr>`;
      }).join('')}</tbody></table>`;
    const p = sel && d.processes.find((x) => x.pid === sel);
    const now = `${sel}/${p && p.status}/${p && p.updatedAt}`;
    if (now !== shown) {
      $('panel').innerHTML = processPanel(d, sel);
      mountPayloads(d, sel);
      wireWake(d, sel, refresh);
      shown = now;
      bundled = false;
    }
    // A bundle is written right after its step's commit: until it is
    // there, refreshes ask again, for a minute after the commit.
    if (!bundled && $('bundle')) showBundle($('bundle'), api, q, sel).then((ok) => (bundled = ok || d.now - p.updatedAt > 6e4));
    $('timeline').innerHTML = timelineTable(tl);
  }
  // Do not redraw under an operator who is typing a payload or confirming.
  const busy = () => {
    const a = document.activeElement;
    return (a && (a.id === 'wake-payload' || !!a.closest('#sw-form, #st-form'))) || confirming('kill');
  };
  return { render, busy };
}

function orchestrationView(owner, root) {
  nav('sessions');
  const q = sq(owner, root);
  main.innerHTML = `<div id="s-head"></div><section aria-labelledby="orch-h"><h2 id="orch-h">Orchestration</h2>
    <p class="dim">Steps of the OSTC with this session's processes counted on them. Green: onValid spawns; red dashed: onInvalid; blue dotted: join producers (labelled with their "when").</p>
    ${graphHTML('orch', 'orchestration')}</section>`;
  const wrap = $('orch');
  const pz = panZoom(wrap);
  async function render() {
    const [d, o] = await Promise.all([api('/ui/api/session?' + q), api('/ui/api/orchestration?' + q)]);
    $('s-head').innerHTML = sessionHeader(d, 'orch');
    wrap.innerHTML = drawGraph(o.graph, { label: `orchestration ${o.ostcId}` });
    pz.apply();
  }
  return { render, busy: () => false };
}

// ---- overview ----

// sec is a titled section (id: its heading's).
const sec = (id, title, body) => `<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`;

// kv is a two-column table of [name, html, data-key] rows.
const kv = (rows, cls = '') => `<table class="compact kv"><tbody>${rows.map(([k, v, key]) =>
  `<tr><th scope="row">${esc(k)}</th><td class="${cls}" data-key="${esc(key || k)}">${v}</td></tr>`).join('')}</tbody></table>`;

function overviewView() {
  nav('overview');
  main.innerHTML = '<h1>Overview</h1><div id="ov"></div>';
  const capNote = (capped, what) => (capped ? ` <span class="warn" data-capped="1">(capped: ${esc(what)})</span>` : '');
  async function render() {
    const d = await api('/ui/api/overview');
    const s = d.sessions, t = d.throughput, q = d.due;
    const statuses = Object.entries(s.byStatus).map(([k, n]) =>
      `<a class="stat" href="#/sessions?status=${encodeURIComponent(k)}" data-status="${esc(k)}">${pill(k)} <b>${n}</b></a>`).join(' ');
    const outcomes = Object.entries(s.byOutcome);
    const errs = Object.entries(d.errors || {});
    $('ov').innerHTML = `
      ${sec('ov-s', 'Sessions', `<p class="stats" id="ov-status">${statuses} · paused <b data-key="paused">${s.paused}</b></p>
        <p class="dim">${s.scanned} sessions of ${s.owners} owners counted${capNote(s.capped, `the newest ${s.cap} only`)}.
          ${outcomes.length ? '' : 'No session records an outcome.'}</p>
        ${outcomes.length ? `<p class="stats" id="ov-outcome">${outcomes.map(([k, n]) => `${pill(k)} <b>${n}</b>`).join(' ')}</p>` : ''}`)}
      ${sec('ov-t', 'Throughput', kv([
        ['Steps committed, last ' + t.windowSec + ' s', `${t.steps}`, 'steps'],
        ['Steps per second', t.perSec.toFixed(2), 'perSec'],
        ['Histories read', `${t.sessionsRead}${capNote(t.capped, 'sessions with a step in the window beyond the read limit')}`, 'histories'],
      ]))}
      ${sec('ov-d', 'Due queue', kv([
        ['Sessions due now', `${q.sessions}${capNote(q.capped, 'read limit reached')}`, 'dueSessions'],
        ['Steps due now', `${q.steps}`, 'dueSteps'],
        ['Oldest due step', q.oldestAt ? `${time(q.oldestAt)} <span class="dim">(waiting ${(q.oldestAgeMs / 1000).toFixed(1)} s)</span>` : '–', 'oldest'],
      ]))}
      ${sec('ov-r', 'Replicas', `<table class="compact" id="ov-replicas">${thead(['Replica', `Steps, last ${t.windowSec} s`, 'Sessions held', 'Process leases'])}
        <tbody>${d.replicas.map((r) => `<tr data-replica="${esc(r.name)}"><td class="mono">${esc(r.name)}</td><td class="num">${r.steps}</td><td class="num">${r.rootLeases}</td><td class="num">${r.procLeases}</td></tr>`).join('')
          || '<tr><td colspan="4" class="dim">no replica committed a step or holds a lease</td></tr>'}</tbody></table>
        <p class="dim">Leases counted in ${d.leases.liveRead} live sessions${capNote(d.leases.capped, 'more sessions are live')}.</p>`)}
      ${sec('ov-m', 'Redis memory', d.redis && d.redis.length ? `<table class="compact" id="ov-redis">${thead(['Server', 'Used', 'Peak', 'Max', 'Policy', 'Fragmentation'])}
          <tbody>${d.redis.map((m) => `<tr><td class="mono">${esc(m.node)}</td><td data-key="used">${esc(m.error || m.usedMemoryHuman)}</td><td>${esc(m.peakHuman)}</td>
            <td>${m.maxMemory === '0' ? 'no limit' : esc(m.maxMemoryHuman)}</td><td>${esc(m.policy)}</td><td>${esc(m.fragmentation)}</td></tr>`).join('')}</tbody></table>` : '<p class="dim">not available</p>')}
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
      $('idx').innerHTML = '<p>This replica follows no chain (start it with --rpc and --config).</p>';
      return;
    }
    const fmt = (v) => (v !== null && typeof v === 'object' ? Object.entries(v).map(([k, x]) => `${k}: ${x}`).join(', ') || '–' : String(v));
    $('idx').innerHTML = kv(d.keys.filter((k) => k in d.status).map((k) => [k, esc(fmt(d.status[k]))]), 'mono');
  }
  return { render, busy: () => false };
}

// ---- routing and live refresh ----

// The views by the hash's first part (the list for any other).
const VIEWS = { session: sessionView, orchestration: orchestrationView, index: indexView, overview: overviewView };

async function show() {
  const { parts, query } = parseHash();
  const view = VIEWS[parts[0]];
  current = view ? view(...parts.slice(1)) : sessionsView(query);
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
  const live = $('live');
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
  const mode = $('mode');
  mode.textContent = { direct: 'actions: direct (operator)', permit: 'actions: wallet permits', off: 'read-only' }[config.actions];
  window.addEventListener('hashchange', () => {
    main.dataset.ready = '';
    show();
  });
  listen();
  await show();
}

start();
