// Wake by step: a form built from the step rule's payload schema
// (GET /ui/api/stepform); its values go out as JSON text, numbers as typed.
import { $, esc } from './dom.js';

const NUM = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const NUMERIC = new Set(['int64', 'uint64', 'int256', 'uint256', 'double', 'decimal', 'timestamp_ms', 'duration_ms']);

export function stepSection(steps) {
  return `<h2 id="sw-h">Wake by step</h2><form class="wake" id="sw-form" aria-labelledby="sw-h">
    <label>Step <select id="sw-step"><option value="">choose a step…</option>${steps.map((s) => `<option>${esc(s)}</option>`).join('')}</select></label>
    <div id="sw-fields"></div></form>`;
}

function input(f) {
  const id = `sw-f-${esc(f.name)}`;
  const hint = f.required ? 'required' : `default ${esc(f.default)}`;
  const ctl = f.type === 'bool'
    ? `<select id="${id}">${f.required ? '' : '<option value="">(default)</option>'}<option>true</option><option>false</option></select>`
    : `<input id="${id}" ${NUMERIC.has(f.type) ? 'inputmode="decimal"' : ''} placeholder="${hint}">`;
  return `<label>${esc(f.name)} <span class="dim">${esc(f.type)} · ${hint}</span> ${ctl}</label>`;
}

// payloadText is the form's JSON object text; it throws naming a bad field.
export function payloadText(fields) {
  const parts = [];
  for (const f of fields) {
    const v = $(`sw-f-${f.name}`).value.trim();
    if (v === '') {
      if (f.required) throw new Error(`${f.name} (${f.type}) is required`);
      continue;
    }
    let t = JSON.stringify(v);
    if (f.type === 'bool') t = v;
    else if (NUMERIC.has(f.type)) {
      if (!NUM.test(v)) throw new Error(`${f.name}: ${JSON.stringify(v)} is not a number (${f.type})`);
      t = v;
    }
    parts.push(`${JSON.stringify(f.name)}:${t}`);
  }
  return `{${parts.join(',')}}`;
}

// wireStep loads the form of the chosen step; submit(step, text) wakes.
export function wireStep(q, api, submit, fail) {
  const sel = $('sw-step');
  if (!sel) return;
  let form = null;
  sel.addEventListener('change', async () => {
    const box = $('sw-fields');
    form = null;
    box.innerHTML = '';
    if (!sel.value) return;
    try {
      form = await api(`/ui/api/stepform?${q}&step=${encodeURIComponent(sel.value)}`);
    } catch (e) {
      fail(e);
      return;
    }
    box.innerHTML = `<p class="dim">Rule ${esc(form.rule)} (${esc(form.origin)}); waiting: ${esc(form.waiting.join(', ') || 'none')}</p>
      ${form.fields.map(input).join('')}<button type="submit" id="sw-wake">Wake ${esc(form.step)}</button>`;
  });
  $('sw-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!form) return;
    try {
      await submit(form.step, payloadText(form.fields));
    } catch (e) {
      fail(e);
    }
  });
}
