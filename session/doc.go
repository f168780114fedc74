// Package session holds the session use cases that every front door calls.
// Starting a session is one: Starter.Start is the only way a session comes
// into being — the gateway (xgr_validateDataTransfer), `xgr session start`,
// the console's start form, the indexer's trigger starter and
// `xgr simulate` all call it.
//
// Start checks a Request in one order, each check once, and writes
// nothing until every check passed:
//
//  1. the request's own fields (owner, pin, step, key, window);
//  2. the payload: the store's size cap, its shape (one JSON object, nested
//     at most joinstore.MaxPayloadDepth, no repeated names) and its
//     "__wakeUp" allow list;
//  3. the runner (the owner) on an on-chain XRC-729 registry, before its
//     orchestration is read;
//  4. the orchestration, fetched from the Source pinned to the request's
//     hash, and its start step;
//  5. every step's rule reference, resolved as the runtime that runs the
//     session resolves it (rulesource.Loader.Resolve);
//  6. the runner on every rule contract the references resolve to
//     (authority.Checker);
//  7. the session, created with the start step's limits (joinstore).
//
// Every refusal is an *Error: a Kind from one vocabulary, the JSON path of
// what was refused and what is allowed there. The decisions are made here;
// each front door only maps kinds to its own surface (JSON-RPC codes in
// rpc, HTTP statuses in console, exit codes in cmd/xgr, trigger outcomes in
// indexer). What differs between front doors — a permit's signer and
// session id, a trigger's start key, the CLI's rule resolver, simulate's
// in-memory source and its mode without a chain — is a field of the Request
// or of the Starter, never a check of its own.
package session
