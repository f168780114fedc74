// Package failpoint stops the process with SIGKILL at named points of the
// code, for the chaos suite: "kill -9 at every boundary" of an execution
// (record written but not broadcast, broadcast but not marked sent, mined
// but the step not committed).
//
// Points are inert in every normal build: Hit is an empty function. A
// binary built with the tag xgrfailpoint (the chaos suite builds its own
// xgr so) reads XGR_FAILPOINTS at start, a comma-separated list of
// NAME=N (kill at the N-th hit of NAME) or NAME=P (kill at each hit with
// probability P, 0 < P < 1), e.g.
//
//	XGR_FAILPOINTS=txmanager.recorded=0.05,reactor.exec-final=0.05
//
// Before it kills, it writes "failpoint NAME: kill -9" to stderr.
//
// The points: txmanager.reserved, txmanager.signed, txmanager.recorded,
// txmanager.broadcast, txmanager.bump-signed, txmanager.bump-recorded
// (txmanager: Manager.crashed) and reactor.exec-begun (begin_exec
// committed, nothing sent), reactor.exec-final (an execution's outcome is
// final, the step's commit not made), reactor.committed (a step's commit
// and its log bundle are in Redis, or neither is; the machine not told)
// in reactor/sessionio.go.
package failpoint
