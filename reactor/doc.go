// Package reactor is the session manager.
//
// One pure core decides every step of a session: the session machine
// (machine.go). Its Step(input, now) takes what happened — a session read,
// a claim round, an execution's result, a commit, a join step, a reap, a
// timer — and returns what to do as typed commands (machinemsg.go: open,
// recover, reap, claim, execute, commit, release a lease, join step,
// wake-ups, renew, sleep, inspect, the hand-back's marks, reads and
// release, done) with the timeline's lines, numbered in causal order. It
// reads no clock and performs no IO, and its files (the list in
// TestMachineDependsOnNoDriver) use nothing of its drivers'.
// A step whose selected branch has an execution goes through the execution
// lifecycle (execstep.go: cmdBeginExec, cmdSend, cmdPoll, cmdFlip) before
// its commit.
// The other pure decisions it uses — delivery, join promotion,
// unfulfillable detection, kill selection (DecideJoin, KillGroup, for join
// steps), payload flow (commitFor in commit.go, NextPayload, Children) —
// live beside it.
//
// A commit that delivers to its group's open join target decides that
// join in its own Lua transition (joinstore.Commit.DecideJoin,
// commit_step with lib/join_decide.lua): a join-closing step is one round
// trip, and the machine records the decision it returns as a join step's
// lines (joinLines); it also takes the first decision of the joins the
// step creates. The decision is DecideJoin's; join steps still decide in Go
// what a commit leaves to them (deliveries of kills and recoveries, a join
// whose lock a join step holds, kill-policy cascades).
// joinstore's TestInlineJoinMatchesDecideJoin holds the script equal to
// DecideJoin over generated states on a real Redis, single and Cluster.
// JoinReach is the reachability a target's record keeps for it.
//
// Two drivers carry the commands out and feed the outcomes back, nothing
// more: rootActor (rootactor.go), one per session on a replica of `xgr run`
// (the work-stealing scheduler runs executions concurrently, store commands
// one at a time, on the replica's clock), and Runner (runner.go), the
// serial driver of `xgr simulate` (one command at a time, the earliest due
// process first, on a virtual clock). Both use sessionIO (sessionio.go) to
// turn a command into store calls and executions. A driver holds no
// decision: what differs between them is the machine's configuration
// (machineConfig).
//
// The gates are not decided in Go: which processes may be claimed, which
// children a commit creates, gates or claims, and what becomes of a lease
// given up without a result are decided by joinstore's Lua transitions
// (claim, commit_step, release_lease), atomically with the state they read.
// Their pure Go references are test code and live with the test that holds
// them to the scripts (joinstore's TestGateReferencesMatchLua).
package reactor
