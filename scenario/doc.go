// Package scenario reads the XGR test-suite format (scenario files and
// test-plan files, see docs/scenario.md) and judges what sessions did
// against what the file expects. Its parts are pure: Parse turns a file
// into typed plans, steps and expectations (every problem reported with
// its JSON path); Env.Resolve fills in placeholders; StartPayload builds a
// start payload with its wake-up allow list; registry.Rewrite points an
// orchestration at the rules deployed in this run; ObservedFrom turns
// store records into a session's timeline; Evaluate checks expectations
// against it. Runner sequences a file's steps over an Engine interface
// that the command (cmd/xgr, "xgr scenario run") implements with anvil,
// Redis and the session manager.
package scenario
