// Signs EIP-712 permits with ethers.js v6, the library dApps use, so the Go
// tests can check that Verify accepts what real clients send.
//
// Input (stdin): one job, or an array of jobs:
//   {"privateKey": "0x…", "domain": {…}, "types": {…}, "primaryType": "…",
//    "message": {…}, "form": "payload" | "asis", "payload": any,
//    "grants": {"entries": […], "refAddr", "sessionId", "txHash"}}
// types may include EIP712Domain; it is left out when signing (ethers derives
// it from the domain). Output (stdout): the envelope {domain, types,
// primaryType, message, signature}, or an array of them, where
//   form "payload" (default): domain, types and message are what
//     TypedDataEncoder.getPayload makes of the job, i.e. exactly what ethers'
//     JsonRpcSigner sends to eth_signTypedData_v4 (numbers as decimal
//     strings, addresses lowercase, EIP712Domain derived);
//   form "asis": the job's own domain, types and message, as dApps that
//     build the typed data themselves send them.
// signature is wallet.signTypedData(domain, types, message): 0x‖r‖s‖v, v 27/28.
// With "payload" (a request payload, for the bound SessionPermitV2 and
// ControlPermitV3), message.payloadHash is set first as a JavaScript client
// computes it: keccak256(toUtf8Bytes(JSON.stringify(payload))).
// With "grants" (an xgr_manageGrants request's entries and references, for
// the bound GrantPermit), message.entriesHash is set first as docs/rpc.md
// tells a JavaScript client to compute it: keccak256 of the ABI encoding.
//
// ethers is resolved through NODE_PATH (the Go test sets it to
// .tools/npm/node_modules); by hand:
//   NODE_PATH=.tools/npm/node_modules node rpc/permit/testdata/sign.mjs < job.json
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Wallet, TypedDataEncoder, AbiCoder, ZeroAddress, ZeroHash, keccak256, toUtf8Bytes, version } = require("ethers");

if (!version.startsWith("6.")) {
  throw new Error(`ethers ${version} found; this script needs ethers 6 (run make tools)`);
}

async function sign(job) {
  const wallet = new Wallet(job.privateKey);
  if (job.payload !== undefined) {
    job.message.payloadHash = keccak256(toUtf8Bytes(JSON.stringify(job.payload)));
  }
  if (job.grants !== undefined) {
    const g = job.grants;
    job.message.entriesHash = keccak256(AbiCoder.defaultAbiCoder().encode(
      ["tuple(address grantee,uint8 rights,uint64 expireAt,string encDEK,bool isOwner)[]", "address", "uint256", "bytes32"],
      [g.entries.map((e) => [e.grantee, e.rights, e.expireAt, e.encDEK ?? "", e.isOwner ?? false]),
        g.refAddr ?? ZeroAddress, g.sessionId ?? 0, g.txHash ?? ZeroHash]));
  }
  const { EIP712Domain, ...types } = job.types;
  const signature = await wallet.signTypedData(job.domain, types, job.message);
  if (job.form === "asis") {
    return {
      domain: job.domain,
      types: job.types,
      primaryType: job.primaryType,
      message: job.message,
      signature,
    };
  }
  const payload = TypedDataEncoder.getPayload(job.domain, types, job.message);
  if (job.primaryType && payload.primaryType !== job.primaryType) {
    throw new Error(`primaryType: job says ${job.primaryType}, ethers derives ${payload.primaryType}`);
  }
  return {
    domain: payload.domain,
    types: payload.types,
    primaryType: payload.primaryType,
    message: payload.message,
    signature,
  };
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const jobs = JSON.parse(input);
const out = Array.isArray(jobs) ? await Promise.all(jobs.map(sign)) : await sign(jobs);
process.stdout.write(JSON.stringify(out) + "\n");
