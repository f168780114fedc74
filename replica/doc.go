// Package replica owns the process of one replica of xgr: its Redis
// session store, the session manager and its step executor, the chain
// index with its trigger starter, the JSON-RPC gateway, the operator
// console, the ops listeners (/metrics, /healthz, /readyz), executions on
// chain (the actuator and its transaction manager), session traces, log
// bundles, the start-up checks of a production replica and its graceful
// drain. New assembles it from a Config, Run runs it until its context
// ends and drains it, Close puts everything away — the shape of river's
// Client and go-ethereum's node.Node.
//
// Every command that runs sessions builds its process here: xgr run (a
// production replica), xgr dev (a private Redis and an in-process chain),
// xgr bench (several replicas in one process) and xgr scenario run. What
// differs between them is a field of Config; the assembly is the same.
// Callers that need only a session manager (engine tests, benchmarks of
// the engine) use NewManager with OpenStore and Steps, the parts New
// builds its own manager from.
//
// A Config that cannot work is refused before anything starts (an *Error
// with Usage set); an error names the part of the Config that failed
// (Error.Part), so that a front door can say it in its own words (the
// CLI names its flags).
package replica
