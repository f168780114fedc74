// Package reactor is the session manager. Its own decisions — delivery,
// join promotion, unfulfillable detection, kill selection and payload flow —
// are pure functions of state and event in this package (no IO, no clock,
// no randomness: time and ids are inputs), tested over every event order
// that matters; the Redis store (joinstore) and the executors only wire
// them.
//
// The gates are not decided here: which processes may be claimed, which
// children a commit creates, gates or claims, and what becomes of a lease
// given up without a result are decided by joinstore's Lua transitions
// (claim, commit_step, release_lease), atomically with the state they read.
// ClaimRound (with DispatchGate), CommitGate and ReleaseLease are pure
// references of those decisions, which production code does not call;
// joinstore's TestGateReferencesMatchLua holds each equal to its script over
// generated states on a real Redis, single and Cluster.
package reactor
