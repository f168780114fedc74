// The console's actions: kill a session, wake a waiting process. In
// "permit" mode the page asks the server for the control permit's typed
// data, has the browser's EIP-1193 wallet sign it (eth_signTypedData_v4)
// and sends the signed permit to the JSON-RPC gateway (through /ui/rpc); in
// "direct" mode (a replica started with --ui-actions on loopback) it asks
// the console to act as an operator.

const HEADERS = { 'Content-Type': 'application/json', 'X-XGR-Console': '1' };

// request fetches a console API path and returns its JSON answer; an
// error answer throws its message (the page's reads use it too).
export async function request(path, init) {
  const res = await fetch(path, init);
  const text = await res.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) throw new Error(data.error || `${path}: HTTP ${res.status}`);
  return data;
}

const post = (path, body) => request(path, { method: 'POST', headers: HEADERS, body });

async function account() {
  const eth = window.ethereum;
  if (!eth || typeof eth.request !== 'function') {
    throw new Error('no wallet: this browser has no EIP-1193 provider (window.ethereum) to sign the permit');
  }
  const accounts = await eth.request({ method: 'eth_requestAccounts' });
  if (!accounts || !accounts.length) throw new Error('the wallet gave no account');
  return accounts[0];
}

// signed returns the permit: the typed data the server built, signed by
// the wallet account. payloadText (a wake's payload as typed, a JSON
// object) goes to the server as is: a wake permit signs its hash.
async function signed(req, payloadText) {
  const from = await account();
  let body = JSON.stringify({ ...req, from });
  if (payloadText !== undefined) body = `${body.slice(0, -1)},"payload":${payloadText}}`;
  const p = await post('/ui/api/permit', body);
  const signature = await window.ethereum.request({
    method: 'eth_signTypedData_v4',
    params: [from, JSON.stringify(p.typedData)],
  });
  return { method: p.method, permit: { ...p.typedData, signature } };
}

async function rpc(method, paramsText) {
  const body = `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":[${paramsText}]}`;
  const res = await post('/ui/rpc', body);
  if (res.error) throw new Error(`${method}: ${res.error.message}`);
  return res.result;
}

// kill kills the whole session; it resolves to a one-line account.
export async function kill(mode, owner, rootPid) {
  if (mode === 'direct') {
    const r = await post('/ui/api/kill', JSON.stringify({ owner, rootPid }));
    return `session ${rootPid} killed (${r.live} processes still live)`;
  }
  const s = await signed({ action: 'kill', owner, rootPid });
  const r = await rpc(s.method, JSON.stringify({ action: 'kill', permit: s.permit }));
  return `session ${rootPid} ${r.status}: ${r.affected} waiting processes aborted`;
}

// wake wakes one process, merging payloadText (a JSON object as text,
// sent as typed: every digit kept) into its payload.
export async function wake(mode, owner, pid, payloadText) {
  const payload = payloadText.trim() || '{}';
  if (mode === 'direct') {
    const r = await post('/ui/api/wake', `{"owner":${JSON.stringify(owner)},"pid":${JSON.stringify(pid)},"payload":${payload}}`);
    return r.outcome;
  }
  const s = await signed({ action: 'wake', owner, pid }, payload);
  const r = await rpc(s.method, `{"processId":${JSON.stringify(pid)},"payload":${payload},"permit":${JSON.stringify(s.permit)}}`);
  return `woken ${r.woken}: ` + (r.processes || []).map((p) => `${p.pid} ${p.reason}`).join('; ');
}

// bulk kills, pauses or resumes whole sessions ([{owner, rootPid}]),
// directly (a replica started with --ui-actions); it resolves to the
// server's account of each session.
export const bulk = (action, sessions) => post('/ui/api/bulk', JSON.stringify({ action, sessions }));

// wakeStep wakes every process of the session waiting on step (direct).
export const wakeStep = (owner, rootPid, step, payloadText) =>
  post('/ui/api/wake', `{"owner":${JSON.stringify(owner)},"rootPid":${rootPid},"step":${JSON.stringify(step)},"payload":${payloadText}}`).then((r) => r.outcome);

// start starts a session (direct) from the request's JSON text.
export const start = (bodyText) => post('/ui/api/start', bodyText);
