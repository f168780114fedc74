// Package simulation is `xgr simulate`: one session of an orchestration run
// on the real joinstore transitions and reactor decisions by the serial
// reactor.Runner, its steps as XRC-137 rules (rulesource) or scripted
// outcomes, its executions sent on chain, previewed with eth_call or not
// performed. Steps builds the step executor and the rule resolver the
// start use case checks the steps with; Executions says how executions are
// treated; Run starts the session (session.Starter), holds it away from
// replicas on a shared Redis, runs it, prints its timeline and summary and
// says why it stopped.
package simulation
