package joinstore

import (
	"errors"
	"strings"
)

// Errors returned by the store; test with errors.Is.
var (
	// ErrLeaseLost: the fencing token is not the process's current lease
	// (it expired and was recovered, was released, or the step was already
	// committed). Nothing was changed.
	ErrLeaseLost = errors.New("lease lost")
	// ErrNotFound: no such session or process.
	ErrNotFound = errors.New("not found")
	// ErrKilled: the process or session was killed.
	ErrKilled = errors.New("killed")
	// ErrSessionKilled: the session was killed (by a command or a cap):
	// nothing is claimed in it; Reap aborts its waiting processes.
	ErrSessionKilled = errors.New("session killed")
	// ErrBadChild: a commit named a child iter its lease did not reserve.
	ErrBadChild = errors.New("child iter outside the lease's reservation")
	// ErrLockLost: the join lock's token is not current; nothing was applied.
	ErrLockLost = errors.New("join lock lost")
	// ErrBadExec: a process that executes under one idempotency key was
	// asked to execute under another (only its one revert flip may).
	ErrBadExec = errors.New("process already executes under another key")
	// errStaleView: the group changed between the read and a kill; retry.
	errStaleView = errors.New("join group changed since the read")
)

// scriptError maps the error replies of the scripts to typed errors.
func scriptError(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "ERR ")
	switch {
	case strings.HasPrefix(msg, "LEASE_LOST"):
		return ErrLeaseLost
	case strings.HasPrefix(msg, "LOCK_LOST"):
		return ErrLockLost
	case strings.HasPrefix(msg, "STALE_VIEW"):
		return errStaleView
	case strings.HasPrefix(msg, "BAD_EXEC"):
		return errors.Join(ErrBadExec, err)
	case strings.HasPrefix(msg, "BAD_CHILD"):
		return errors.Join(ErrBadChild, err)
	}
	return err
}
