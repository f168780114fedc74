// Package joinstore keeps all runtime state of XRC-729 sessions in Redis and
// changes it only through atomic transitions, one Lua script each
// (joinstore/lua/*.lua, embedded). It applies decisions; the semantic ones
// (gates, delivery, promotion, unfulfillable joins) are pure Go in the
// reactor. Where the two must meet atomically, a script guards and applies a
// decision Go computed from a fresh read under a lock, and rejects it when
// the lock's fencing token is stale. One decision is also taken in Lua: the
// join decision of a commit that delivers to its group's join target or
// creates joins (Commit.DecideJoin, lua/lib/join_decide.lua), so that a
// join-closing step costs one round trip; it is reactor.DecideJoin's, and
// TestInlineJoinMatchesDecideJoin holds the two equal over generated states
// on a single Redis and a Cluster.
//
// # Keys
//
// Every key of one session shares the hash tag {<owner>:<rootPid>} (T below),
// so every script touches one Redis Cluster slot. Owner-wide keys share
// {own:<owner>}; the global index of roots that need attention is sharded over
// RootShards tags {q:<n>}.
//
//	xgr:T:meta          hash    session: owner, rootPid, xrc729, ostcId, ostcHash, startStep, createdAt, window,
//	                            status, live, steps, killedAt, paused; iter (last allocated iter),
//	                            fence (last issued fencing token: every lease and lock carries one) and
//	                            wakeUp (the start payload's __wakeUp allow list, raw JSON; "" none)
//	xgr:T:p:<iter>      hash    proc_rt of process <rootPid>:<iter> (fields below)
//	xgr:T:due           zset    waiting, claimable processes by nextWakeAt (ms)
//	xgr:T:run           zset    running processes by lease expiry (ms); a commit that claims
//	                            children leaves its own process at score 0 (dropped at recovery)
//	xgr:T:steps         stream  proc_steps: one entry per committed step
//	xgr:T:g:<gid>       hash    live members of join group gid: iter → resumeStep, kept
//	                            for groups with a join target only (a join's fresh group,
//	                            named by its target's iter); the root group 0 has none
//	xgr:T:targets       hash    join group id → iter of the target fed by it
//	xgr:T:jq:<t>        list    pending deliveries to target t (JSON, oldest first)
//	xgr:T:jl:<t>        string  join lock of target t: fencing token, expires
//	xgr:T:jpend         zset    targets with pending deliveries, by first push
//	xgr:T:lease         string  root lease: "<replica> <token>", expires
//	xgr:{own:O}:seq     string  last allocated rootPid of owner O
//	xgr:{own:O}:roots   zset    sessions of owner O by creation time
//	xgr:{own:O}:idem    hash    start idempotency key → rootPid
//	xgr:{q:n}:roots     zset    "<owner>:<rootPid>" by the time the root next needs a worker
//
// # Process fields (proc_rt)
//
// pid, parentPid, threadHeadPid, status (waiting|running|done|aborted),
// paused (0|1), resumeStep, lastStep, lastEvalValid (1|0|empty), nextWakeAt,
// resumePlain (JSON object), joinGroupId, killedAt, createdAt, updatedAt,
// lease (fencing token of the current inFlight lease, empty when none),
// leaseUntil, worker, abortReason, sealed (1: the step's rule asks for
// sealed logs; Process.Redacted). A field that is empty may be missing
// (processes are created without the empty ones): readers take a missing
// field as empty. Join targets add target (1),
// joinFromGroupId, expect (JSON array of from nodes), requireWhen (JSON
// object node → valid|invalid|any), k, policy (kill|drain), inbox (JSON object
// node → piece), fromSeen, fail (JSON object node → reason), closed (0|1),
// closedAt and reach (JSON object node → the steps of the join group's scope
// that can reach it; for decisions in commit_step, absent on targets
// created before it). Times are unix milliseconds in decimal. The session's
// xrc729, ostcId and ostcHash live once in xgr:T:meta rather than in every
// process, which keeps process hashes small.
//
// The indexer's state (checkpoint, verified cache, trigger starts) is not
// session state: package indexstore holds it, under its own keys.
package joinstore
