// Package evidence holds what an executed step leaves behind: its log
// bundle (session owner and id, pid, step, rule contract, executed count,
// input payload, API and contract-read saves, outcome, execution receipt,
// time), kept in Redis for the branch's logExpireDays (an operator default
// otherwise, capped), apart from the live session state, readable by the
// session owner and by grantees with READ on the bundle's RID (package
// grant, scope 2), and encrypted before it is stored when the branch says
// encryptLogs.
//
// Keys (docs/redis.md):
//
//	xgr:log:{<owner>:<rootPid>}:<iter>   hash: v, rid, enc, bytes, body
//
// The hash tag is the session's, so a bundle sits in its session's
// Cluster slot (a commit script could write it), but the key is outside
// the session's xgr:{…}: namespace: it is not live state, outlives the
// session's records and expires on its own TTL. One bundle per process:
// a process commits its step once (joinstore), so (owner, session, iter)
// is the bundle's identity and Put is idempotent on it.
//
// The JSON of a plaintext bundle (the body) has these stable members, see
// Bundle: v, owner, sessionId, pid, iter, step, rule, ruleHash, executed,
// payload, apiSaves, contractSaves, outcome {result, reasons, output},
// receipt {txHash, block, gasUsed, status}, time, truncated.
package evidence
