// An independent implementation of the XGR1 / XGRK2 suite with WebCrypto
// only (ECDH P-256, HKDF-SHA-256, AES-GCM, SHA-256), used by the Go tests
// of package envelope to check interoperability both ways.
//
// Input on stdin: a JSON array of jobs. Output on stdout: a JSON array with
// one result per job, in order.
//
//   {"op": "seal", "readerPublicKey": "0x04…", "scope": 1, "plaintext": "…",
//    "fixed": {"dek": hex, "nonce": hex, "ephemeralKey": hex scalar,
//              "ephemeralPublicKey": "0x04…", "salt": hex, "iv": hex}}
//     -> {"rid": "0x…", "blob": "XGR1.AESGCM256.…", "encDEK": "XGRK2.P256HKDFGCM.…"}
//     "fixed" is optional; without it every random value is fresh.
//   {"op": "open", "readKey": hex scalar, "readPublicKey": "0x04…",
//    "scope": 1, "blob": "XGR1…", "encDEK": "XGRK2…"}
//     -> {"plaintext": "…"} or {"error": "…"}
//
// Formats (docs/xgr_encryptionGrants.md of xgr-network/XGR, version 2):
//   blob   = "XGR1.AESGCM256.0x" + hex(rid) + "." + base64(nonce ‖ ct ‖ tag)
//   rid    = SHA-256(nonce ‖ ct)            (ct without the tag)
//   encDEK = "XGRK2.P256HKDFGCM." + hex(ephPub65 ‖ salt16 ‖ iv12 ‖ ct32 ‖ tag16)
//   kek    = HKDF-SHA-256(ECDH x, salt, "XGR|v=2|scope=<S>|rid=<hex>"), 32 bytes
const subtle = globalThis.crypto.subtle;

const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => new Uint8Array(Buffer.from(s.replace(/^0x/, ''), 'hex'));
const b64url = (b) => Buffer.from(b).toString('base64url');
const random = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) { out.set(p, i); i += p.length; }
  return out;
};

function jwk(pub65, d) {
  const k = { kty: 'EC', crv: 'P-256', x: b64url(pub65.slice(1, 33)), y: b64url(pub65.slice(33, 65)), ext: true };
  if (d) k.d = b64url(d);
  return k;
}

async function privateKey(scalar, pub65) {
  return subtle.importKey('jwk', jwk(pub65, scalar), { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
}

async function publicKey(pub65) {
  return subtle.importKey('raw', pub65, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
}

async function kek(priv, pub, salt, scope, ridHex) {
  const shared = await subtle.deriveBits({ name: 'ECDH', public: pub }, priv, 256);
  const ikm = await subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  const info = new TextEncoder().encode(`XGR|v=2|scope=${scope}|rid=${ridHex}`);
  return subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info }, ikm, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

async function seal(job) {
  const f = job.fixed || {};
  const dek = f.dek ? unhex(f.dek) : random(32);
  const nonce = f.nonce ? unhex(f.nonce) : random(12);
  const dekKey = await subtle.importKey('raw', dek, 'AES-GCM', false, ['encrypt']);
  const box = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: nonce }, dekKey, new TextEncoder().encode(job.plaintext)));
  const ct = box.slice(0, box.length - 16);
  const rid = new Uint8Array(await subtle.digest('SHA-256', concat(nonce, ct)));
  const blob = `XGR1.AESGCM256.0x${hex(rid)}.${Buffer.from(concat(nonce, box)).toString('base64')}`;

  let ephPriv, ephPub;
  if (f.ephemeralKey) {
    ephPub = unhex(f.ephemeralPublicKey);
    ephPriv = await privateKey(unhex(f.ephemeralKey), ephPub);
  } else {
    const pair = await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
    ephPriv = pair.privateKey;
    ephPub = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
  }
  const salt = f.salt ? unhex(f.salt) : random(16);
  const iv = f.iv ? unhex(f.iv) : random(12);
  const k = await kek(ephPriv, await publicKey(unhex(job.readerPublicKey)), salt, job.scope, hex(rid));
  const wrapped = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv }, k, dek));
  const encDEK = `XGRK2.P256HKDFGCM.${hex(concat(ephPub, salt, iv, wrapped))}`;
  return { rid: `0x${hex(rid)}`, blob, encDEK };
}

async function open(job) {
  const parts = job.blob.split('.');
  if (parts.length !== 4 || parts[0] !== 'XGR1' || parts[1] !== 'AESGCM256') throw new Error('not an XGR1.AESGCM256 blob');
  const body = new Uint8Array(Buffer.from(parts[3], 'base64'));
  const nonce = body.slice(0, 12);
  const box = body.slice(12);
  const rid = new Uint8Array(await subtle.digest('SHA-256', concat(nonce, box.slice(0, box.length - 16))));
  if (`0x${hex(rid)}` !== parts[2]) throw new Error('rid is not SHA-256(nonce || ciphertext)');
  const prefix = 'XGRK2.P256HKDFGCM.';
  if (!job.encDEK.startsWith(prefix)) throw new Error('not an XGRK2 key');
  const w = unhex(job.encDEK.slice(prefix.length));
  if (w.length !== 141) throw new Error(`wrapped key is ${w.length} bytes`);
  const priv = await privateKey(unhex(job.readKey), unhex(job.readPublicKey));
  const k = await kek(priv, await publicKey(w.slice(0, 65)), w.slice(65, 81), job.scope, hex(rid));
  const dek = await subtle.decrypt({ name: 'AES-GCM', iv: w.slice(81, 93) }, k, w.slice(93));
  const dekKey = await subtle.importKey('raw', dek, 'AES-GCM', false, ['decrypt']);
  const pt = await subtle.decrypt({ name: 'AES-GCM', iv: nonce }, dekKey, box);
  return { plaintext: new TextDecoder('utf-8', { fatal: true }).decode(pt) };
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const jobs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const out = [];
  for (const job of jobs) {
    try {
      if (job.op === 'seal') out.push(await seal(job));
      else if (job.op === 'open') out.push(await open(job));
      else throw new Error(`unknown op ${job.op}`);
    } catch (e) {
      out.push({ error: String(e && e.message ? e.message : e) });
    }
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { process.stderr.write(String(e && e.stack ? e.stack : e) + '\n'); process.exit(1); });
