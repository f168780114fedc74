// Package demo is the pure part of the `xgr dev` demo: the start payloads
// of its two-session wake-up flow, how a finished session is judged from
// its records, and the lines and the summary table xgr dev prints. The
// command (cmd/xgr, dev*.go) does the IO: the chain, Redis, the sessions.
package demo
