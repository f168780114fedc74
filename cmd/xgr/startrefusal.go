package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/session"
)

// startExit maps every kind of the start use case to the exit status of
// the commands that start sessions (xgr session start, xgr simulate):
// a request or payload the command line gave that cannot start a session
// is a usage error (2), a check that failed or a store or node that did
// not answer is 1 (docs/operating.md, "Starting a session", has the table
// of every front door).
var startExit = map[session.Kind]int{
	session.KindInvalidRequest:       exitUsage,
	session.KindPayloadTooLarge:      exitUsage,
	session.KindPayloadInvalid:       exitUsage,
	session.KindAuthorityRequired:    exitUsage,
	session.KindNotAuthorized:        exitFailed,
	session.KindUnknownOrchestration: exitFailed,
	session.KindHashMismatch:         exitFailed,
	session.KindUnknownStep:          exitUsage,
	session.KindRuleUnresolved:       exitFailed,
	session.KindStaleRoot:            exitFailed,
	session.KindQuota:                exitFailed,
	session.KindUnavailable:          exitFailed,
}

// startFailed is the exit of a start the use case refused (or could not
// decide): "CMD: message (kind at path)" with hints[kind] appended (what
// the command's flags can do about it).
func startFailed(cmd string, err error, hints map[session.Kind]string) error {
	var se *session.Error
	if !errors.As(err, &se) {
		return cli.Exit(fmt.Sprintf("%s: %v", cmd, err), exitFailed)
	}
	msg := fmt.Sprintf("%s: %v (%s", cmd, se, se.Kind)
	if se.Path != "" {
		msg += " at " + se.Path
	}
	msg += ")"
	if h := hints[se.Kind]; h != "" {
		msg += ": " + h
	}
	code, ok := startExit[se.Kind]
	if !ok {
		code = exitFailed
	}
	return cli.Exit(msg, code)
}
