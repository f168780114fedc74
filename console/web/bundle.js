// A step's log bundle (GET /ui/api/steplog): rule, result, transaction,
// then its JSON sections as stored (every digit). An encrypted one is
// shown sealed: the console holds no key; the server sends no content.
import { esc, time, rel, pill, facts, mono } from './dom.js';
import { mountJSON } from './json.js';

const SECTIONS = [['payload', 'Payload'], ['output', 'Output'], ['apiSaves', 'API saves'], ['contractSaves', 'Contract saves']];

// readers are the bundle's grants: who reads it, how, until when.
function readers(l) {
  const li = l.readers.map((r) => `<li>${mono(r.address)} ${esc(r.rights)} until ${time(r.expireAt)}</li>`).join('');
  return `<h4>Readers (grants)</h4><ul id="bundle-readers">${l.readersError ? `<li>${esc(l.readersError)}</li>` : li || '<li>none</li>'}${l.readersMore ? '<li>and more</li>' : ''}</ul>`;
}

function html(l) {
  const stored = facts([['RID', mono(l.rid)], ['Size', `${l.bytes} bytes`],
    ['Expires', l.expiresAt ? `${time(l.expiresAt)} <span class="dim">(${rel(l.expiresAt, l.now)})</span>` : '–']]);
  if (l.encrypted) {
    return `<p class="sealed" id="bundle-sealed">Encrypted (encryptLogs). This console holds no read key and does not open it: only the session owner and its grantees with READ can, with their own read key (xgr_getStepLog).</p>${stored}${readers(l)}`;
  }
  const b = l.bundle, r = b.receipt;
  return facts([['Rule', b.rule ? mono(b.rule) : '–'], ['Rule hash', b.ruleHash ? mono(b.ruleHash) : '–'],
    ['Result', pill(b.result)], ['Committed', time(b.time)]], 'bundle-rule') +
    (b.reasons.length ? `<ul class="reasons">${b.reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '') +
    `<h4>Transaction</h4>` + (r ? facts([['Tx hash', mono(r.txHash)], ['Block', esc(r.block)], ['Gas used', esc(r.gasUsed)], ['Status', pill(r.status)]], 'bundle-tx')
      : '<p class="dim" id="bundle-tx">no execution</p>') +
    (b.truncated ? `<p class="warn">Over the size cap: ${esc(b.truncated.join(', '))} replaced by a marker (size and sha256).</p>` : '') +
    SECTIONS.filter(([k]) => b[k]).map(([k, name]) => `<h4>${name}</h4><pre class="json" data-bundle="${k}"></pre>`).join('') + '<h4>Stored</h4>' + stored + readers(l);
}

// showBundle fills el with the bundle of process pid (api: the page's GET)
// and resolves to whether there was one.
export async function showBundle(el, api, q, pid) {
  let l;
  try {
    l = await api(`/ui/api/steplog?${q}&pid=${encodeURIComponent(pid)}`);
  } catch (e) {
    el.innerHTML = `<p class="dim" id="bundle-none">${esc(e.message || e)}</p>`;
    return false;
  }
  el.innerHTML = html(l);
  for (const pre of el.querySelectorAll('[data-bundle]')) mountJSON(pre, l.bundle[pre.dataset.bundle]);
  return true;
}
